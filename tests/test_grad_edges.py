"""Gradients at the edges torch defines by its formulas: xlogy at x = 0 (y <= 0, y = inf), nansum and
nanmean over NaN (an all-NaN slice of nanmean has a NaN gradient), with tangents and second
derivatives, against torch."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

INF, NAN = math.inf, math.nan


def _xy(lib):
    x = lib.tensor([0.0, 0.0, 0.0, 1.0, 2.0, 0.0, -1.0], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([INF, 0.0, -1.0, INF, 3.0, 2.0, 0.5], dtype=lib.float64, requires_grad=True)
    return x, y


CASES = {
    "xlogy": lambda t, x, y: t.xlogy(x, y),
    "xlogy number other": lambda t, x, y: t.xlogy(x, 0.0) + t.xlogy(x, 2.0),
    "xlogy number self": lambda t, x, y: t.xlogy(0.0, y) + t.xlogy(3.0, y),
    "xlogy method": lambda t, x, y: x.xlogy(y),
    "special.xlogy": lambda t, x, y: t.special.xlogy(x, y) if hasattr(t.special, "xlogy") else t.xlogy(x, y),
    "nansum": lambda t, x, y: t.nansum(t.stack([x, y * NAN if False else y]).masked_fill(
        t.stack([x, y]) == 0, NAN), 0),
    "nanmean all-NaN slice": lambda t, x, y: t.nanmean(t.stack([x, y]).masked_fill(t.stack([x, y]) == 0, NAN), 0),
    "nanmean dims": lambda t, x, y: t.nanmean(t.stack([x, y]).masked_fill(t.stack([x, y]) == 0, NAN), [0, 1],
                                              keepdim=True),
    "nansum float32 result": lambda t, x, y: t.nansum(x.masked_fill(x == 0, NAN), dtype=t.float32),
}


def _np(v):
    return np.array(v.tolist(), dtype=float)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_as_torch(tcore, name):
    def run(lib):
        x, y = _xy(lib)
        out = CASES[name](lib, x, y)
        gx, gy = lib.autograd.grad(out.sum(), [x, y], allow_unused=True)
        zero = lib.zeros(7, dtype=lib.float64)
        return _np(out.detach()), _np(gx if gx is not None else zero), _np(gy if gy is not None else zero)

    for got, want in zip(run(tcore), run(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["xlogy", "nansum", "nanmean all-NaN slice"])
def test_tangents_as_torch(tcore, name):
    def run(lib):
        fwAD = lib.autograd.forward_ad
        x, y = (v.detach() for v in _xy(lib))
        with fwAD.dual_level():
            dx = fwAD.make_dual(x, lib.arange(7.0, dtype=lib.float64))
            dy = fwAD.make_dual(y, lib.ones(7, dtype=lib.float64) * 0.5)
            return _np(fwAD.unpack_dual(CASES[name](lib, dx, dy)).tangent)

    np.testing.assert_allclose(run(tcore), run(torch), rtol=1e-12, equal_nan=True)


def test_xlogy_second_derivative_as_torch(tcore):
    def run(lib):
        x = lib.tensor([0.5, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([1.5, 0.25, 4.0], dtype=lib.float64, requires_grad=True)
        gx, gy = lib.autograd.grad(lib.xlogy(x, y).sum(), [x, y], create_graph=True)
        return [_np(g) for g in lib.autograd.grad((gx * gy).sum(), [x, y])]

    for got, want in zip(run(tcore), run(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_xlogy_tangent_of_x_alone_as_torch(tcore):
    """Only x dual: there is no y-tangent term (it was 0 * x / y, NaN where y = 0 or x is NaN)."""
    def run(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.tensor([1.0, NAN, 0.0, 2.0], dtype=lib.float64), lib.ones(4, dtype=lib.float64))
            y = lib.tensor([0.0, 2.0, 0.0, INF], dtype=lib.float64)
            return _np(fwAD.unpack_dual(lib.xlogy(d, y)).tangent)

    np.testing.assert_array_equal(run(tcore), run(torch))


@pytest.mark.parametrize("other", [INF, NAN, 0.0, -1.0, 2.0])
def test_xlogy_with_a_number_has_torchs_gradient(tcore, other):
    def run(lib):
        x = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
        return _np(lib.autograd.grad(lib.xlogy(x, other).sum(), x)[0])

    np.testing.assert_array_equal(run(tcore), run(torch))


@pytest.mark.parametrize("dim", [None, 0])
def test_nanmean_of_only_nan_has_a_nan_gradient(tcore, dim):
    def run(lib):
        x = lib.tensor([NAN, NAN], dtype=lib.float64, requires_grad=True)
        y = lib.nanmean(x) if dim is None else lib.nanmean(x, dim)
        return _np(lib.autograd.grad(y, x)[0])

    np.testing.assert_array_equal(run(tcore), run(torch))
