"""The modified Bessel functions of the first kind (i0, special.i0e, i1, i1e), the normal
distribution's special.ndtri, log_ndtr and erfcx, and kaiser_window: values against 40-digit
ones (mpmath) and SciPy's (float64, relative error) and torch's (float32 / float64, the edges:
0, +-inf, NaN, huge and tiny arguments, ndtri outside [0, 1]), gradients and tangents in float64 against torch's, the in-place,
out= and integer-input forms."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
scipy_special = pytest.importorskip("scipy.special")
import tcore  # noqa: E402

FUNCTIONS = {  # tcore/torch name -> a grid of arguments
    "special.i0": np.linspace(-700, 700, 20001),
    "special.i0e": np.concatenate([np.linspace(-50, 50, 20001), [1e5, -1e300, 1e300]]),
    "special.i1": np.linspace(-700, 700, 20001),
    "special.i1e": np.concatenate([np.linspace(-50, 50, 20001), [1e5, -1e300, 1e300]]),
    "special.ndtri": np.concatenate([np.linspace(1e-6, 1 - 1e-6, 20001), np.logspace(-300, -1, 2000)]),
    "special.log_ndtr": np.linspace(-1e3, 40, 40001),
    "special.erfcx": np.concatenate([np.linspace(-26, 100, 40001), np.logspace(2, 300, 500)]),
}


def _exact(name: str, x: float):
    """The function at x to 40 digits (mpmath)."""
    mp = pytest.importorskip("mpmath").mp
    mp.dps = 40
    v = mp.mpf(x)
    if name == "special.ndtri":  # (Newton on ncdf from the double's value)
        r = mp.mpf(float(tcore.special.ndtri(tcore.tensor([x], dtype=tcore.float64)).item()))
        for _ in range(4):
            r -= (mp.ncdf(r) - v) / mp.npdf(r)
        return r
    return {"special.i0": lambda: mp.besseli(0, v), "special.i1": lambda: mp.besseli(1, v),
            "special.i0e": lambda: mp.besseli(0, v) * mp.exp(-abs(v)),
            "special.i1e": lambda: mp.besseli(1, v) * mp.exp(-abs(v)),
            "special.log_ndtr": lambda: mp.log(mp.ncdf(v)) if v < 0 else mp.log1p(-mp.ncdf(-v)),
            "special.erfcx": lambda: (mp.exp(v * v) * mp.erfc(v) if v < 1e8  # (mpmath's erfc overflows beyond)
                                      else (1 - 1 / (2 * v * v)) / (v * mp.sqrt(mp.pi)))}[name]()


EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, -1e-300, 8.0, -8.0, 30.0, 1e30, -1e30, np.inf, -np.inf, np.nan]


def _lookup(lib, name: str):
    module, _, fn = name.rpartition(".")
    return getattr(getattr(lib, module) if module else lib, fn)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_float64_accuracy(name):
    """Relative error against 40-digit values at 400 points of the grid: a few ulp, or for
    log_ndtr above 5 what its conditioning (about x^2) makes of the argument's rounding in x / sqrt 2."""
    x = FUNCTIONS[name][:: len(FUNCTIONS[name]) // 400]
    got = _lookup(tcore, name)(tcore.tensor(x)).numpy()
    for xi, gi in zip(x, got):
        exact = float(_exact(name, float(xi)))
        if exact == 0 or not np.isfinite(exact):  # (beyond float64's range: its rounding, 0 or inf)
            assert gi == exact, (name, xi, gi)
            continue
        bound = 3e-15 * (max(1.0, xi * xi) if name == "special.log_ndtr" else 1.0)
        assert abs(gi / exact - 1) < bound or abs(gi - exact) < 1e-300, (name, xi, gi, exact)


def test_agrees_with_scipy():
    """SciPy's values over each whole grid: within 1e-13 (SciPy's erfcx below -10 is the
    less accurate one, 6e-14 off at -25, and log_ndtr's conditioning above)."""
    for name, x in FUNCTIONS.items():
        want = getattr(scipy_special, name.split(".")[1])(x)
        got = _lookup(tcore, name)(tcore.tensor(x)).numpy()
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
        finite = np.isfinite(want)
        # (atol: SciPy's log_ndtr flushes to 0 what tcore keeps as a subnormal)
        np.testing.assert_allclose(got[finite], want[finite], rtol=2e-13, atol=1e-300, err_msg=name)


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_edges_as_torch(name, dtype):
    """float32 is computed in double and rounded once: torch's float32 kernels are less accurate
    where the function is ill-conditioned (about x^2 for erfcx below 0 and log_ndtr, |x| for
    i0 and i1) and overflow e^|x| before the quotient for 88 < |x| < 92 (I0 still fits float32);
    at +-inf torch's i0 and i1 are NaN, tcore's +-inf (SciPy's)."""
    x = np.concatenate([FUNCTIONS[name][::50], EDGES, [-2.0, 2.0, 0.25, 0.75, 89.0, -90.0]]).astype(dtype)
    want = _lookup(torch, name)(torch.tensor(x)).numpy()
    got = _lookup(tcore, name)(tcore.tensor(x)).numpy()
    assert got.dtype == want.dtype
    rounded = _lookup(tcore, name)(tcore.tensor(x.astype(np.float64))).numpy().astype(dtype)
    np.testing.assert_array_equal(got, rounded)
    ulp = float(np.finfo(dtype).eps)
    rtol = 2 * ulp * np.maximum(4.0, np.minimum(np.abs(x) + x * x, 1e30)) if dtype == "float32" else 1e-13
    comparable = np.isfinite(want) | np.isnan(x) | (np.isinf(want) & np.isinf(got))
    if name in ("special.i0", "special.i1"):
        comparable &= ~np.isinf(x)
        assert np.all(np.abs(got[np.isinf(x)]) == np.inf)
    rtol = rtol[comparable] if np.ndim(rtol) else rtol
    g, w = got[comparable], want[comparable]
    close = np.isclose(g, w, rtol=rtol, atol=0, equal_nan=True)
    assert close.all(), (x[comparable][~close][:5], g[~close][:5], w[~close][:5])


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_gradients_and_tangents_as_torch(name):
    x = {"special.ndtri": np.array([1e-5, 0.01, 0.3, 0.5, 0.9, 0.999])}.get(
        name, np.array([-9.0, -2.5, -1e-20, 0.0, 1e-9, 0.7, 3.0, 12.0]))
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    _lookup(torch, name)(xt).sum().backward()
    _lookup(tcore, name)(xc).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-300)
    v = np.linspace(0.5, 1.5, len(x))
    _, want = torch.func.jvp(_lookup(torch, name), (torch.tensor(x),), (torch.tensor(v),))
    _, got = tcore.autograd.functional.jvp(_lookup(tcore, name), tcore.tensor(x), tcore.tensor(v))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-300)


def test_in_place_out_and_integer_forms():
    x = np.array([0.0, 0.5, -2.0, 7.5])
    t = tcore.tensor(x)
    t.i0_()
    np.testing.assert_allclose(t.numpy(), torch.tensor(x).i0().numpy(), rtol=1e-15)
    np.testing.assert_allclose(tcore.tensor(x).i0().numpy(), scipy_special.i0(x), rtol=1e-15)
    np.testing.assert_allclose(tcore.special.i0(tcore.tensor(x)).numpy(), scipy_special.i0(x), rtol=1e-15)
    out = tcore.empty(4, dtype=tcore.float64)
    tcore.special.erfcx(tcore.tensor(x), out=out)
    np.testing.assert_allclose(out.numpy(), scipy_special.erfcx(x), rtol=1e-15)
    for name in FUNCTIONS:  # (integers compute in the default float dtype, as torch's)
        got = _lookup(tcore, name)(tcore.tensor([0, 1, 2]))
        want = _lookup(torch, name)(torch.tensor([0, 1, 2]))
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6)


@pytest.mark.parametrize("args", [(0,), (1,), (2,), (8,), (8, False), (9, False, 5.0), (7, True, 0.0),
                                  (64, True, 30.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kaiser_window_as_torch(args, dtype):
    want = torch.kaiser_window(*args, dtype=getattr(torch, dtype))
    got = tcore.kaiser_window(*args, dtype=getattr(tcore, dtype))
    assert tuple(got.shape) == tuple(want.shape)
    # (float32: tcore's window is the float64 one rounded; torch's float32 kernel is a few ulp off at beta 30)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=4e-6 if dtype == "float32" else 1e-14, atol=1e-7)
    np.testing.assert_array_equal(got.numpy(), tcore.kaiser_window(*args, dtype=tcore.float64).numpy().astype(dtype))
    assert tcore.kaiser_window(5).dtype == tcore.float32
    with pytest.raises(ValueError, match="kaiser_window requires non-negative window_length, got window_length=-1"):
        tcore.kaiser_window(-1)
