"""layer_norm through its CPU kernel (native_layer_norm, native/cpu/Normalization.cpp) and its
formulas (derivatives.yaml: a grouped backward, a forward-mode formula): values, the saved
statistics, gradients, double backward, jvp and hvp against finite differences; and the row
kernels that softmax, logsumexp and amax/amin share (native/cpu/Math.h, VecMath.h) on rows long
enough for their vector bodies and tails, with NaN and infinities in either."""
from __future__ import annotations

import numpy as np
import pytest

import tcore
from tcore.autograd import functional as AF
from tcore.autograd import gradcheck, gradgradcheck


def reference(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        out = out * w
    if b is not None:
        out = out + b
    return out, mean, 1 / np.sqrt(var + eps)


@pytest.mark.parametrize("shape,k", [((4, 7, 33), 1), ((3, 3000), 1), ((2, 3, 4, 5), 2), ((6,), 1), ((2, 5), 2)])
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_values_and_statistics(shape, k, affine):
    rng = np.random.default_rng(len(shape) * 10 + k)
    x = rng.standard_normal(shape) * 3 + 5  # an offset: a one-pass variance would cancel
    norm = shape[len(shape) - k:]
    w = rng.standard_normal(norm) if affine in ("weight", "both") else None
    b = rng.standard_normal(norm) if affine in ("bias", "both") else None
    expected, mean, rstd = reference(x, k, w, b)
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 2e-5)):
        t = lambda a: None if a is None else tcore.tensor(a.astype(dtype))  # noqa: E731
        out, m, r = tcore.native_layer_norm(t(x), list(norm), t(w), t(b), 1e-5)
        assert out.dtype == m.dtype == r.dtype == (tcore.float64 if dtype == np.float64 else tcore.float32)
        assert m.shape == r.shape == tuple(shape[: len(shape) - k]) + (1,) * k
        np.testing.assert_allclose(out.numpy(), expected, rtol=tol, atol=tol)
        np.testing.assert_allclose(m.numpy(), mean, rtol=tol, atol=tol)
        np.testing.assert_allclose(r.numpy(), rstd, rtol=tol, atol=tol)
        np.testing.assert_allclose(tcore.layer_norm(t(x), list(norm), t(w), t(b)).numpy(), expected, rtol=tol, atol=tol)


def test_strided_input_and_reduced_floats():
    x = tcore.randn(8, 6, dtype=tcore.float64)
    np.testing.assert_allclose(tcore.layer_norm(x.t(), [8]).numpy(), reference(x.t().contiguous().numpy(), 1)[0],
                               rtol=1e-10, atol=1e-12)
    for dtype in (tcore.float16, tcore.bfloat16):
        h = x.to(dtype)
        got = tcore.layer_norm(h, [6])
        assert got.dtype == dtype
        np.testing.assert_allclose(got.float().numpy(), reference(h.double().numpy(), 1)[0], atol=3e-2)


def test_edge_cases_and_errors():
    assert tcore.layer_norm(tcore.randn(0, 8), [8]).shape == (0, 8)
    assert tcore.layer_norm(tcore.randn(3, 0), [0]).shape == (3, 0)
    # a constant row: variance 0, so (x - mean) * 1/sqrt(eps) = 0
    np.testing.assert_array_equal(tcore.layer_norm(tcore.full([2, 5], 3.0), [5]).numpy(), np.zeros((2, 5)))
    with pytest.raises(ValueError, match=r"expected input with shape \[\*, 4\]"):
        tcore.layer_norm(tcore.randn(2, 3), [4])
    with pytest.raises(ValueError, match="weight and bias must have the normalized shape"):
        tcore.layer_norm(tcore.randn(2, 3), [3], tcore.randn(4))
    with pytest.raises(TypeError, match="expected weight and bias of dtype"):
        tcore.native_layer_norm(tcore.randn(2, 3), [3], tcore.randn(3, dtype=tcore.float64), None, 1e-5)
    with pytest.raises(TypeError, match="floating point input"):
        tcore.layer_norm(tcore.ones(2, 3, dtype=tcore.int64), [3])


def _inputs(seed, shape=(3, 5), k=1):
    tcore.manual_seed(seed)
    x = tcore.randn(*shape, dtype=tcore.float64, requires_grad=True)
    norm = list(shape[len(shape) - k:])
    w = tcore.randn(*norm, dtype=tcore.float64, requires_grad=True)
    b = tcore.randn(*norm, dtype=tcore.float64, requires_grad=True)
    return x, w, b, norm


@pytest.mark.parametrize("k", [1, 2])
def test_gradients_and_double_backward(k):
    x, w, b, norm = _inputs(1, (3, 4, 5), k)
    y = tcore.layer_norm(x, norm, w, b)
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    f = lambda a, c, d: tcore.layer_norm(a, norm, c, d)  # noqa: E731
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))
    assert gradcheck(lambda a: tcore.layer_norm(a, norm), (x,))
    assert gradgradcheck(lambda a: tcore.layer_norm(a, norm), (x,))
    assert gradcheck(lambda a, c: tcore.layer_norm(a, norm, c), (x, w))
    assert gradcheck(lambda a, d: tcore.layer_norm(a, norm, None, d), (x, b))
    # only weight and bias require grad: the input gets none
    xd = x.detach()
    tcore.layer_norm(xd, norm, w, b).sum().backward()
    assert xd.grad is None and w.grad is not None and b.grad is not None


def test_forward_mode_and_hvp():
    x, w, b, norm = _inputs(2)
    x, w, b = x.detach(), w.detach(), b.detach()
    v, vw, vb = (tcore.randn(*t.shape, dtype=tcore.float64) for t in (x, w, b))
    f = lambda a, c, d: tcore.layer_norm(a, norm, c, d)  # noqa: E731
    e = 1e-6
    _, jv = AF.jvp(f, (x, w, b), (v, vw, vb))
    fd = (f(x + e * v, w + e * vw, b + e * vb) - f(x - e * v, w - e * vw, b - e * vb)) / (2 * e)
    np.testing.assert_allclose(jv.numpy(), fd.numpy(), atol=1e-7)
    _, jv = AF.jvp(lambda a: tcore.layer_norm(a, norm), (x,), (v,))
    fd = (tcore.layer_norm(x + e * v, norm) - tcore.layer_norm(x - e * v, norm)) / (2 * e)
    np.testing.assert_allclose(jv.numpy(), fd.numpy(), atol=1e-7)
    # u . (J v) == (J^T u) . v
    u = tcore.randn(*x.shape, dtype=tcore.float64)
    _, vjp = AF.vjp(lambda a: f(a, w, b), (x,), u)
    _, jv = AF.jvp(lambda a: f(a, w, b), (x,), (v,))
    assert abs(float((u * jv).sum()) - float((vjp[0] * v).sum())) < 1e-9
    # forward over reverse: hvp of a scalar function against finite differences of its gradient
    g = lambda a, c, d: f(a, c, d).pow(3).sum()  # noqa: E731
    _, hv = AF.hvp(g, (x, w, b), (v, vw, vb))

    def grads(a, c, d):
        ins = [t.detach().requires_grad_() for t in (a, c, d)]
        g(*ins).backward()
        return [t.grad for t in ins]

    plus, minus = grads(x + e * v, w + e * vw, b + e * vb), grads(x - e * v, w - e * vw, b - e * vb)
    for h, p, m in zip(hv, plus, minus):
        np.testing.assert_allclose(h.numpy(), ((p - m) / (2 * e)).numpy(), atol=1e-6)


# ----- the row kernels shared by softmax, logsumexp, amax/amin
def _rows(n, specials):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((len(specials) + 1, n)).astype(np.float32) * 4
    for r, (pos, value) in enumerate(specials, start=1):
        x[r, pos % n] = value
    return x


@pytest.mark.parametrize("n", [1, 15, 64, 1000, 4099, 9000])
def test_row_kernels_with_specials(n):
    specials = [(0, np.nan), (n - 1, np.nan), (n // 2, np.inf), (n - 1, -np.inf), (n // 3, 1e30)]
    x = _rows(n, specials)
    for dtype in (np.float32, np.float64):
        a = x.astype(dtype)
        t = tcore.tensor(a)
        with np.errstate(all="ignore"):
            m = a.max(axis=1, keepdims=True)
            e = np.exp(a.astype(np.float64) - m)
            softmax = e / e.sum(axis=1, keepdims=True)
            log_softmax = a - m - np.log(e.sum(axis=1, keepdims=True))
            lse = (m + np.log(e.sum(axis=1, keepdims=True)))[:, 0]
            lse = np.where(np.isinf(m[:, 0]), m[:, 0], lse)
        tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(tcore.softmax(t, 1).numpy(), softmax, **tol)
        np.testing.assert_allclose(tcore.log_softmax(t, 1).numpy(), log_softmax, **tol)
        np.testing.assert_allclose(tcore.logsumexp(t, [1]).numpy(), lse, **tol)
        np.testing.assert_array_equal(tcore.amax(t, [1]).numpy(), a.max(axis=1))
        np.testing.assert_array_equal(tcore.amin(t, [1]).numpy(), a.min(axis=1))


def test_softmax_rows_sum_to_one_over_long_rows():
    x = tcore.randn(3, 100_003) * 30
    s = tcore.softmax(x, 1).double().sum(1)
    np.testing.assert_allclose(s.numpy(), np.ones(3), rtol=1e-5)
