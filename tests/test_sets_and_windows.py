"""isin, unique_consecutive, logspace, frexp and the window functions against torch's: values,
dtypes, shapes, edges (NaN, empty, zeros, infinities, subnormals, lengths 0 and 1), frexp's
mantissa gradient and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402


def _same(got, want, tol=0.0):
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape) and str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        np.testing.assert_allclose(g.double().numpy(), w.double().numpy(), rtol=tol, atol=tol)


ISIN = [
    lambda m: m.isin(m.tensor([[1, 2], [3, 4]]), m.tensor([2, 3.5])),
    lambda m: m.isin(m.tensor([[1, 2], [3, 4]]), m.tensor([4, 1]), invert=True),
    lambda m: m.isin(m.tensor([1.0, float("nan"), 2.0]), m.tensor([float("nan"), 2.0])),
    lambda m: m.isin(m.tensor([1, 2]), m.tensor([], dtype=m.int64)),
    lambda m: m.isin(m.tensor([1, 2, 3]), 2),
    lambda m: m.isin(3, m.tensor([1, 3])),
    lambda m: m.isin(m.arange(20).reshape(4, 5) % 7, m.tensor([0, 6, 6, 3]), assume_unique=False),
]


@pytest.mark.parametrize("i", range(len(ISIN)))
def test_isin_as_torch(i):
    _same(ISIN[i](tcore), ISIN[i](torch))


RUNS = [np.array([1, 1, 2, 2, 3, 1, 1, 2]), np.array([[1, 1], [1, 1], [2, 3], [2, 3], [1, 1]]),
        np.array([5.0]), np.array([], dtype=np.int64), np.array([[0.5, 0.5, 1.0], [0.5, 0.5, 2.0]])]


@pytest.mark.parametrize("i", range(len(RUNS)))
@pytest.mark.parametrize("flags", [(False, False), (True, True), (True, False), (False, True)])
@pytest.mark.parametrize("dim", [None, 0, -1])
def test_unique_consecutive_as_torch(i, flags, dim):
    x = RUNS[i]
    if dim is not None and x.ndim == 1 and dim == -1:
        dim = 0
    kw = dict(return_inverse=flags[0], return_counts=flags[1], dim=dim)
    _same(tcore.unique_consecutive(tcore.tensor(x), **kw), torch.unique_consecutive(torch.tensor(x), **kw))
    if not any(flags) and dim is None:
        _same(tcore.tensor(x).unique_consecutive(), torch.tensor(x).unique_consecutive())


def test_logspace_as_torch():
    for args, kw in [((0, 2, 3), {}), ((0, 2, 3), dict(base=2, dtype="int64")), ((-3, 3, 7), dict(base=0.5)),
                     ((0, 1, 0), {}), ((1, 1, 1), dict(dtype="float64"))]:
        kt = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
        kc = {k: getattr(tcore, v) if k == "dtype" else v for k, v in kw.items()}
        _same(tcore.logspace(*args, **kc), torch.logspace(*args, **kt), tol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_frexp_as_torch(dtype):
    values = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 8.0, -3.0, 0.75, 1e-3, 123456.0,
              np.nextafter(1.0, 0.0), 1.0, 2.0 ** -20]
    if dtype in ("float32", "float64"):
        values += [1e-45 if dtype == "float32" else 5e-324, 3e38]
    t, c = torch.tensor(values, dtype=getattr(torch, dtype)), tcore.tensor(values, dtype=getattr(tcore, dtype))
    (tm, te), (cm, ce) = torch.frexp(t), tcore.frexp(c)
    _same((cm, ce), (tm, te))
    np.testing.assert_array_equal(np.signbit(cm.double().numpy()), np.signbit(tm.double().numpy()))
    if dtype == "float64":
        x = tcore.tensor([3.0, -0.1, 1e-300], requires_grad=True)
        tcore.frexp(x)[0].sum().backward()
        y = torch.tensor([3.0, -0.1, 1e-300], requires_grad=True)
        torch.frexp(y)[0].sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-15)
    with pytest.raises(TypeError, match="only supports floating-point dtypes"):
        tcore.frexp(tcore.tensor([1]))


WINDOWS = [("hann_window", (5,), {}), ("hann_window", (5, False), {}), ("hann_window", (0,), {}),
           ("hann_window", (1,), {}), ("hamming_window", (4,), {}), ("hamming_window", (6, False, 0.6), {}),
           ("hamming_window", (6, True, 0.6, 0.3), {}), ("blackman_window", (5,), {}),
           ("blackman_window", (7, False), dict(dtype="float64")), ("bartlett_window", (5,), {}),
           ("bartlett_window", (6, False), {}), ("bartlett_window", (1,), {}), ("hann_window", (8,), dict(dtype="float64"))]


@pytest.mark.parametrize("name,args,kw", WINDOWS, ids=lambda v: str(v))
def test_windows_as_torch(name, args, kw):
    kt = {k: getattr(torch, v) for k, v in kw.items()}
    kc = {k: getattr(tcore, v) for k, v in kw.items()}
    _same(getattr(tcore, name)(*args, **kc), getattr(torch, name)(*args, **kt), tol=1e-7)
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        getattr(tcore, name)(-1)
