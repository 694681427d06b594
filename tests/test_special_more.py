"""torch.special's entr, xlog1py, ndtr and the aliases erfc, erfinv, sinc, round against torch:
values at the edges (0, negatives, infinities, NaN, tiny values), dtypes, gradients (entr's inf
at 0, xlog1py's masked x gradient)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402

X = np.array([-1.0, 0.0, 0.5, 2.0, np.inf, np.nan, 1e-30, -40.0, 3.0])


def _same(got, want, tol=1e-15):
    got, want = got.detach().double().numpy(), want.detach().double().numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got) * np.sign(got), np.isinf(want) * np.sign(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["entr", "ndtr", "erfc", "sinc"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary_as_torch(name, dtype):
    t, c = torch.tensor(X).to(getattr(torch, dtype)), tcore.tensor(X).to(getattr(tcore, dtype))
    _same(getattr(tcore.special, name)(c), getattr(torch.special, name)(t), 1e-15 if dtype == "float64" else 1e-6)


def test_aliases_dtypes_and_gradients_as_torch():
    p = np.array([-1.0, -0.5, 0.0, 0.3, 1.0, np.nan, 0.999])
    _same(tcore.special.erfinv(tcore.tensor(p)), torch.special.erfinv(torch.tensor(p)))
    _same(tcore.special.round(tcore.tensor([1.2345, 2.5, -0.5]), decimals=2),
          torch.special.round(torch.tensor([1.2345, 2.5, -0.5]), decimals=2))
    assert tcore.special.entr(tcore.tensor([1, 2])).dtype == tcore.float32
    t, c = torch.tensor([0.0, 0.5, 2.0], requires_grad=True), tcore.tensor([0.0, 0.5, 2.0], requires_grad=True)
    torch.special.entr(t).sum().backward()
    tcore.special.entr(c).sum().backward()
    _same(c.grad, t.grad, 1e-7)  # (inf at 0, as torch's -(1 + log x))


def test_xlog1py_as_torch():
    x = np.array([0.0, 0.0, 2.0, 0.0, 0.0, 3.0, -1.5])
    y = np.array([-1.0, -0.5, 0.0, 1.0, np.nan, 2.0, 1e-20])
    (t1, t2), (c1, c2) = ([torch.tensor(a, requires_grad=True) for a in (x, y)],
                          [tcore.tensor(a, requires_grad=True) for a in (x, y)])
    want, got = torch.special.xlog1py(t1, t2), tcore.special.xlog1py(c1, c2)
    _same(got, want)
    want.sum().backward()
    got.sum().backward()
    _same(c1.grad, t1.grad)
    _same(c2.grad, t2.grad)
    assert tcore.special.xlog1py(tcore.tensor([1, 2]), tcore.tensor([1, 3])).dtype == tcore.float32
