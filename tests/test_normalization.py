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
    with pytest.raises(TypeError, match="mixed dtype \\(CPU\\): expect parameter to have scalar type of Float"):
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


# native_layer_norm_backward's kernel (rows for the input's gradient, blocks of columns for the
# weight's and bias's) against torch: normalized widths across the vector bodies and the 256-column
# blocks, one and two threads, float32/bfloat16, every output_mask and the out= form.
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,k", [((7, 5), 1), ((33, 300), 1), ((4, 3, 70), 2), ((2, 1), 1), ((600, 17), 1)])
def test_backward_kernel_against_torch(shape, k, threads):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(sum(shape))
    x, up = rng.standard_normal(shape) * 2 + 3, rng.standard_normal(shape)
    norm = list(shape[-k:])
    w, b = rng.standard_normal(norm), rng.standard_normal(norm)
    old = tcore.get_num_threads()
    tcore.set_num_threads(threads)
    try:
        for affine in (True, False):
            results = []
            for lib in (tcore, torch):
                tx = lib.tensor(x, requires_grad=True)
                tw, tb = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
                y = lib.nn.functional.layer_norm(tx, norm, tw if affine else None, tb if affine else None)
                y.backward(lib.tensor(up))
                results.append([tx.grad.numpy()] + ([tw.grad.numpy(), tb.grad.numpy()] if affine else []))
            for g, t in zip(*results):
                np.testing.assert_allclose(g, t, rtol=1e-11, atol=1e-12)
        for dt, tol in (("float32", 3e-5), ("bfloat16", 5e-2)):
            if np.prod(norm) == 1:  # x - mean is exactly 0 here (torch's float32 mean leaves 1e-7 * 316)
                continue
            grads = []
            for lib in (tcore, torch):
                tx = lib.tensor(x).to(getattr(lib, dt)).requires_grad_()
                tw = lib.tensor(w).to(getattr(lib, dt)).requires_grad_()
                lib.nn.functional.layer_norm(tx, norm, tw).backward(lib.tensor(up).to(getattr(lib, dt)))
                grads.append([tx.grad.float().numpy(), tw.grad.float().numpy()])
            for g, t in zip(*grads):
                np.testing.assert_allclose(g, t, rtol=tol, atol=tol * max(1, np.abs(t).max()))
    finally:
        tcore.set_num_threads(old)


def test_backward_operator_masks_and_out():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    x, g, w = rng.standard_normal((5, 6)), rng.standard_normal((5, 6)), rng.standard_normal(6)
    _, mean, rstd = torch.ops.aten.native_layer_norm(torch.tensor(x), [6], torch.tensor(w), None, 1e-5)
    for mask in ([True, True, True], [True, False, False], [False, True, True], [False, False, True]):
        want = torch.ops.aten.native_layer_norm_backward(torch.tensor(g), torch.tensor(x), [6], mean, rstd,
                                                         torch.tensor(w), torch.tensor(w), mask)
        args = (tcore.tensor(g), tcore.tensor(x), [6], tcore.tensor(mean.numpy()), tcore.tensor(rstd.numpy()),
                tcore.tensor(w), tcore.tensor(w), mask)
        got = tcore.ops.native_layer_norm_backward(*args)
        outs = [tcore.empty(0, dtype=tcore.float64) for _ in range(3)]
        tcore.ops.native_layer_norm_backward.out(*args, out0=outs[0], out1=outs[1], out2=outs[2])
        for m, a, o, t in zip(mask, got, outs, want):
            if m:
                np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-12)
                np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)


# softmax's and log_softmax's backward kernels (_softmax_backward_data, _log_softmax_backward_data)
# against torch: the dim last, in the middle and first (rows copied and written back), a dtype=
# forward (the gradient in the input's dtype), an expanded upstream gradient, float32/bfloat16;
# second derivatives (the differentiable path), forward over reverse, and the operators' out= forms.
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((7, 1003), 1), ((4, 33, 5), 1), ((9, 3), 0), ((5,), 0)])
def test_softmax_backward_kernels_against_torch(shape, dim, log):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape) + dim)
    x, up = rng.standard_normal(shape) * 3, rng.standard_normal(shape)
    name = "log_softmax" if log else "softmax"
    results = []
    for lib in (tcore, torch):
        tx = lib.tensor(x, requires_grad=True)
        y = getattr(lib, name)(tx, dim)
        g, = lib.autograd.grad((y * lib.tensor(up)).sum(), tx, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), tx)
        tx2 = lib.tensor(x.astype(np.float32), requires_grad=True)
        getattr(lib, name)(tx2, dim, dtype=lib.float64).sum().backward()  # an expanded gradient, another dtype
        results.append([g.detach().numpy(), gg.numpy(), tx2.grad.numpy()])
        assert str(tx2.grad.dtype).endswith("float32")
    for what, a, b in zip(("gradient", "second derivative", "dtype= gradient"), *results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=what)
    for dt, tol in (("float32", 2e-6), ("bfloat16", 2e-2)):
        grads = []
        for lib in (tcore, torch):
            tx = lib.tensor(x).to(getattr(lib, dt)).requires_grad_()
            getattr(lib, name)(tx, dim).backward(lib.tensor(up).to(getattr(lib, dt)))
            grads.append(tx.grad.float().numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=tol, atol=tol * 4)
    # the operators, and their out= forms
    y = getattr(torch, name)(torch.tensor(x), dim)
    op = "_log_softmax_backward_data" if log else "_softmax_backward_data"
    want = getattr(torch.ops.aten, op)(torch.tensor(up), y, dim, torch.float64).numpy()
    got = getattr(tcore.ops, op)(tcore.tensor(up), tcore.tensor(y.numpy()), dim, tcore.float64)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-14)
    out = tcore.empty(0, dtype=tcore.float64)
    getattr(tcore.ops, op).out(tcore.tensor(up), tcore.tensor(y.numpy()), dim, tcore.float64,
                               **{"out" if log else "grad_input": out})
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_forward_over_reverse(log):
    import tcore.autograd.forward_ad as fwAD

    rng = np.random.default_rng(11)
    x, up, xt = rng.standard_normal((4, 6)), rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    name = "log_softmax" if log else "softmax"

    def input_grad(t):
        return tcore.autograd.grad((getattr(tcore, name)(t, 1) * tcore.tensor(up)).sum(), t)[0]
    with fwAD.dual_level():
        t = fwAD.make_dual(tcore.tensor(x), tcore.tensor(xt)).requires_grad_()
        got = fwAD.unpack_dual(input_grad(t)).tangent.numpy()
    h = 1e-6
    plus = input_grad(tcore.tensor(x + h * xt, requires_grad=True)).numpy()
    minus = input_grad(tcore.tensor(x - h * xt, requires_grad=True)).numpy()
    np.testing.assert_allclose(got, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-8)
