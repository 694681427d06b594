"""quantile/nanquantile (every interpolation, NaN slices), nanmedian, mode, aminmax, and the
elementwise gcd, lcm, nextafter, heaviside against torch's: values, indices, gradients, dtypes,
edges (zeros, the most negative integer, NaN, infinities, signed zeros) and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 7))
XN = X.copy()
XN[1, 2] = np.nan
XN[3, 5] = np.nan
XI = np.round(RNG.standard_normal((5, 9)) * 1.5)  # (repeats: modes and ties)
Q = np.array([0.0, 0.25, 0.5, 0.9, 1.0])


def _compare(fn, *arrays, grad=True, tol=1e-14):
    ts = [torch.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    cs = [tcore.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    want, got = fn(torch, *ts), fn(tcore, *cs)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for w, g in zip(want, got):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.detach().double().numpy(), w.detach().double().numpy(), rtol=tol, atol=tol)
    if grad and ts[0].requires_grad:
        want[0].nan_to_num().sum().backward()
        got[0].nan_to_num().sum().backward()
        np.testing.assert_allclose(cs[0].grad.numpy(), ts[0].grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantiles_as_torch(interpolation):
    kw = dict(interpolation=interpolation)
    _compare(lambda m, a: m.quantile(a, m.tensor(Q), dim=1, **kw), X)
    _compare(lambda m, a: m.quantile(a, 0.3, **kw), X)
    _compare(lambda m, a: a.quantile(0.75, 0, True, **kw), X)
    _compare(lambda m, a: m.quantile(a, m.tensor(Q), dim=1, **kw), XN)  # (NaN slices: NaN)
    _compare(lambda m, a: m.nanquantile(a, m.tensor(Q), dim=1, keepdim=True, **kw), XN)
    _compare(lambda m, a: m.nanquantile(a, m.tensor(Q), **kw), XN)
    _compare(lambda m, a: a.nanquantile(0.5, -1, **kw), np.full((2, 3), np.nan))  # (all NaN: NaN)


def test_order_statistics_as_torch():
    _compare(lambda m, a: m.nanmedian(a), XN)
    _compare(lambda m, a: m.nanmedian(a, 1), XN)
    _compare(lambda m, a: a.nanmedian(0, True), XN)
    _compare(lambda m, a: m.mode(a, 1), XI)  # (smallest of equally frequent values, last index)
    _compare(lambda m, a: m.mode(a, 0, True), XI)
    _compare(lambda m, a: m.mode(a), XI.astype(np.int64), grad=False)
    _compare(lambda m, a: m.aminmax(a), X)
    _compare(lambda m, a: m.aminmax(a, dim=1, keepdim=True), XI)  # (ties: the gradient shared, as torch's)
    assert tcore.nanmedian(tcore.tensor([])).isnan().item()


ERRORS = [
    lambda m: m.quantile(m.tensor([1.0, 2.0]), 1.5),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([1.5, 0.2])),
    lambda m: m.quantile(m.tensor([1, 2]), 0.5),
    lambda m: m.quantile(m.tensor([]), 0.5),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), 0.5, interpolation="x"),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([[0.5]])),
    lambda m: m.quantile(m.tensor([1.0, 2.0], dtype=m.float64), m.tensor([0.5])),
    lambda m: m.aminmax(m.tensor([])),
    lambda m: m.aminmax(m.zeros(2, 0), dim=1),
    lambda m: m.mode(m.zeros(3, 0), 1),
    lambda m: m.gcd(m.tensor([4.0]), m.tensor([6.0])),
    lambda m: m.gcd(m.tensor([True]), m.tensor([False])),
    lambda m: m.nextafter(m.tensor([1]), m.tensor([2])),
    lambda m: m.heaviside(m.tensor([1]), m.tensor([0.5])),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    with pytest.raises(Exception) as want:
        ERRORS[i](torch)
    with pytest.raises(Exception) as got:
        ERRORS[i](tcore)
    # (tcore names dtypes as Python does: 'float32' where torch's kernels say 'Float')
    assert str(got.value).split(" for '")[0] == str(want.value).split(" for '")[0]
    assert isinstance(got.value, RuntimeError) == isinstance(want.value, RuntimeError)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_gcd_lcm_as_torch(dtype):
    a = RNG.integers(-60, 60, 200)
    b = RNG.integers(-60, 60, 200)
    if dtype == "uint8":
        a, b = np.abs(a), np.abs(b)
    a[:3], b[:3] = [0, 0, 7], [0, 5, 0]
    for name in ("gcd", "lcm"):
        ta, tb = torch.tensor(a).to(getattr(torch, dtype)), torch.tensor(b).to(getattr(torch, dtype))
        ca, cb = tcore.tensor(a).to(getattr(tcore, dtype)), tcore.tensor(b).to(getattr(tcore, dtype))
        want, got = getattr(torch, name)(ta, tb), getattr(tcore, name)(ca, cb)
        assert str(got.dtype) == f"tcore.{dtype}"
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        getattr(ca, name + "_")(cb)
        np.testing.assert_array_equal(ca.numpy(), want.numpy())
    low = -(2 ** 63)
    assert tcore.gcd(tcore.tensor([low, -4]), tcore.tensor([0, 6])).tolist() == \
        torch.gcd(torch.tensor([low, -4]), torch.tensor([0, 6])).tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nextafter_and_heaviside_as_torch(dtype):
    x = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, 3.0, 2.5])
    y = np.array([1.0, -1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, np.nan])
    for name in ("nextafter", "heaviside"):
        ta, tb = torch.tensor(x).to(getattr(torch, dtype)), torch.tensor(y).to(getattr(torch, dtype))
        ca, cb = tcore.tensor(x).to(getattr(tcore, dtype)), tcore.tensor(y).to(getattr(tcore, dtype))
        want, got = getattr(torch, name)(ta, tb).numpy(), getattr(tcore, name)(ca, cb).numpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    a = tcore.tensor([1.5], requires_grad=True)
    tcore.nextafter(a, tcore.tensor([2.0])).sum().backward()
    assert a.grad.tolist() == [1.0]  # (torch's: the identity's gradient)
    assert tcore.heaviside(tcore.tensor([True, False]), tcore.tensor([True])).tolist() == [True, True]
