"""addmm as an operator of its own, and linear and matmul built as torch's, against torch 2.13:
values (float16/bfloat16 rounded once: the bias added before the rounding, bit for bit with
torch's), beta 0 ignoring NaN in self, alpha 0 as torch's, the in-place and out= forms, errors,
gradients and forward-mode tangents; linear's and matmul's results in torch's shapes, strides and
view-ness (a folded batch is one mm; no result is a view)."""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

BIAS_SHAPES = [(6,), (1, 6), (4, 1), (), (4, 6)]
SCALES = [(1, 1), (0.5, 2), (0, 1), (2, -0.25)]


def as_tcore(tcore, x, requires_grad=False):
    t = tcore.from_numpy(x.detach().float().numpy().copy() if x.dtype in (torch.float16, torch.bfloat16)
                         else x.detach().numpy().copy())
    if x.dtype in (torch.float16, torch.bfloat16):
        t = t.to(getattr(tcore, str(x.dtype).split(".")[1]))
    return t.requires_grad_() if requires_grad else t


def as_torch(t):
    if str(t.dtype) in ("tcore.float16", "tcore.bfloat16"):
        return torch.from_numpy(t.detach().float().numpy()).to(getattr(torch, str(t.dtype).split(".")[1]))
    return torch.from_numpy(t.detach().numpy().copy())


def exact_friendly(shape, dtype, gen):
    """Values whose products and sums float32 holds exactly (multiples of 1/8 below 16), so the one
    rounding of float16/bfloat16 is the only one and every correct kernel gives the same bits."""
    return (torch.randint(-128, 128, shape, generator=gen).double() / 8).to(dtype)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("n, k, m", [(4, 5, 6), (96, 80, 70), (1, 33, 9), (9, 33, 1)])
def test_reduced_float_addmm_rounds_once_as_torch(tcore, dtype, n, k, m):
    gen = torch.Generator().manual_seed(n * k + m)
    a, b = exact_friendly((n, k), dtype, gen), exact_friendly((k, m), dtype, gen)
    double_rounded = 0
    for bias_shape, (beta, alpha) in itertools.product([(m,), (n, m), (1, m), ()], SCALES):
        c = (torch.randn(bias_shape, generator=gen) * 3).to(dtype)
        want = torch.addmm(c, a, b, beta=beta, alpha=alpha)
        exact = (beta * c.double() if beta else 0) + alpha * (a.double() @ b.double())
        assert torch.equal(want, exact.to(dtype)), "torch's own addmm rounds once"
        got = tcore.addmm(as_tcore(tcore, c), as_tcore(tcore, a), as_tcore(tcore, b), beta=beta, alpha=alpha)
        assert str(got.dtype) == f"tcore.{str(dtype).split('.')[1]}"
        assert torch.equal(as_torch(got), want), (bias_shape, beta, alpha)
        # and linear, a bias per feature: one addmm
        if bias_shape == (m,) and (beta, alpha) == (1, 1):
            lin = tcore.nn.functional.linear(as_tcore(tcore, a), as_tcore(tcore, b).t(), as_tcore(tcore, c))
            assert torch.equal(as_torch(lin), torch.nn.functional.linear(a, b.t(), c))
            double_rounded += int((as_torch(tcore.mm(as_tcore(tcore, a), as_tcore(tcore, b)) +
                                            as_tcore(tcore, c)) != want).sum())
    if (n, k, m) == (96, 80, 70):
        assert double_rounded > 0, "the values were meant to show mm-then-add's second rounding"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("n, k, m", [(4, 5, 6), (64, 100, 33), (1, 7, 5), (5, 7, 1), (3, 0, 4), (0, 3, 4), (3, 4, 0)])
def test_addmm_values_as_torch(tcore, dtype, n, k, m):
    gen = torch.Generator().manual_seed(n + 10 * k + 100 * m)
    rand = ((lambda s: torch.randn(s, generator=gen, dtype=dtype)) if dtype.is_floating_point
            else (lambda s: torch.randint(-9, 9, s, generator=gen, dtype=dtype)))
    a, b = rand((n, k)), rand((k, m))
    for bias_shape, (beta, alpha) in itertools.product([(m,), (n, m), (n, 1), ()], SCALES):
        if not dtype.is_floating_point:
            beta, alpha = int(beta * 2), int(alpha * 4)
        c = rand(bias_shape)
        want = torch.addmm(c, a, b, beta=beta, alpha=alpha)
        for form, (x, y) in {"plain": (a, b), "transposed": (a.t().contiguous().t(), b.t().contiguous().t())}.items():
            tx, ty = as_tcore(tcore, x), as_tcore(tcore, y)
            if form == "transposed":
                tx, ty = as_tcore(tcore, a.t().contiguous()).t(), as_tcore(tcore, b.t().contiguous()).t()
            got = as_torch(tcore.addmm(as_tcore(tcore, c), tx, ty, beta=beta, alpha=alpha))
            assert got.dtype == want.dtype and got.shape == want.shape
            tol = {torch.float32: 1e-5 * (k + 1), torch.float64: 1e-12 * (k + 1)}.get(dtype, 0)
            torch.testing.assert_close(got, want, rtol=tol, atol=tol, msg=f"{form} {bias_shape} {beta} {alpha}")


def test_beta_zero_ignores_self_and_alpha_zero_as_torch(tcore):
    nan, inf = float("nan"), float("inf")
    a, b = torch.randn(300, 2, dtype=torch.float64), torch.randn(2, 300, dtype=torch.float64)
    got = tcore.addmm(as_tcore(tcore, torch.full((300,), nan, dtype=torch.float64)), as_tcore(tcore, a),
                      as_tcore(tcore, b), beta=0)
    assert not np.isnan(got.numpy()).any()
    for dtype in [torch.float32, torch.float64, torch.bfloat16, torch.float16]:
        for n in (1, 300):  # a matrix-vector product (gemv) and a matrix product
            x = torch.tensor([[inf, 1.0]], dtype=dtype).expand(n, 2).contiguous()
            y = torch.ones(2, n, dtype=dtype)
            c = torch.full((n, n), 2.0, dtype=dtype)
            for beta in (1, 0, 0.5):
                want = torch.addmm(c, x, y, alpha=0, beta=beta)
                got = as_torch(tcore.addmm(as_tcore(tcore, c), as_tcore(tcore, x), as_tcore(tcore, y), alpha=0,
                                           beta=beta))
                assert torch.equal(got, want) or (got.isnan() == want.isnan()).all(), (dtype, n, beta)


def test_addmm_in_place_and_out(tcore):
    a, b = torch.randn(4, 3, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64)
    s = torch.randn(4, 4, dtype=torch.float64)
    for layout in ("contiguous", "transposed"):
        ts = as_tcore(tcore, s) if layout == "contiguous" else as_tcore(tcore, s.t().contiguous()).t()
        v = ts._version
        r = ts.addmm_(as_tcore(tcore, a), as_tcore(tcore, b), beta=0.5, alpha=3)
        assert r is ts and ts._version > v
        np.testing.assert_allclose(ts.numpy(), s.clone().addmm_(a, b, beta=0.5, alpha=3).numpy(), rtol=1e-12)
    # self is mat1 too (a square product): read before it is written
    sq = torch.randn(4, 4, dtype=torch.float64)
    tsq = as_tcore(tcore, sq)
    tsq.addmm_(tsq, as_tcore(tcore, a @ b))
    np.testing.assert_allclose(tsq.numpy(), sq.clone().addmm_(sq, a @ b).numpy(), rtol=1e-12)
    # out=: fresh, strided, and of the wrong dtype
    out = tcore.empty(0, dtype=tcore.float64)
    assert tcore.addmm(as_tcore(tcore, s[0]), as_tcore(tcore, a), as_tcore(tcore, b), out=out) is out
    np.testing.assert_allclose(out.numpy(), torch.addmm(s[0], a, b).numpy(), rtol=1e-12)
    strided = tcore.zeros(4, 8, dtype=tcore.float64)[:, ::2]
    tcore.addmm(as_tcore(tcore, s), as_tcore(tcore, a), as_tcore(tcore, b), out=strided)
    np.testing.assert_allclose(strided.numpy(), torch.addmm(s, a, b).numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tcore.addmm(as_tcore(tcore, s), as_tcore(tcore, a), as_tcore(tcore, b), out=tcore.empty(0))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        as_tcore(tcore, s[0]).addmm_(as_tcore(tcore, a), as_tcore(tcore, b))


def test_addmm_errors_as_torch(tcore):
    f64 = dict(dtype=torch.float64)
    cases = [  # operands, the words both errors say
        ((torch.ones(4, **f64), torch.ones(2, 3), torch.ones(3, 4)), "self and mat2 must have the same dtype"),
        ((torch.ones(4), torch.ones(2, 3, **f64), torch.ones(3, 4)), "mat1 and mat2 must have the same dtype"),
        ((torch.ones(4), torch.ones(2, 3), torch.ones(3, 4, **f64)), "self and mat2 must have the same dtype"),
        ((torch.ones(4), torch.ones(3), torch.ones(3, 4)), "mat1 must be a matrix, got 1-D tensor"),
        ((torch.ones(4), torch.ones(2, 3), torch.ones(3)), "mat2 must be a matrix, got 1-D tensor"),
        ((torch.ones(4), torch.ones(2, 3), torch.ones(2, 4)), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"),
        ((torch.ones(3), torch.ones(2, 3), torch.ones(3, 4)),
         "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1"),
        ((torch.ones(2, 1, 4), torch.ones(2, 3), torch.ones(3, 4)),
         "the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)"),
    ]
    for (c, a, b), words in cases:
        with pytest.raises(RuntimeError, match=re.escape(words)):
            torch.addmm(c, a, b)
        with pytest.raises(RuntimeError, match=re.escape(words)):
            tcore.addmm(as_tcore(tcore, c), as_tcore(tcore, a), as_tcore(tcore, b))
    with pytest.raises(RuntimeError, match="not implemented for 'bool'"):
        tcore.addmm(tcore.ones(4, dtype=tcore.bool), tcore.ones(2, 3, dtype=tcore.bool), tcore.ones(3, 4, dtype=tcore.bool))


@pytest.mark.parametrize("bias_shape", BIAS_SHAPES)
@pytest.mark.parametrize("beta, alpha", SCALES)
def test_addmm_gradients_and_tangents_as_torch(tcore, bias_shape, beta, alpha):
    gen = torch.Generator().manual_seed(7)
    c, a, b = (torch.randn(s, generator=gen, dtype=torch.float64) for s in (bias_shape, (4, 3), (3, 6)))
    grad = torch.randn(4, 6, generator=gen, dtype=torch.float64)
    leaves = [x.clone().requires_grad_() for x in (c, a, b)]
    torch.addmm(*leaves, beta=beta, alpha=alpha).backward(grad)
    tleaves = [as_tcore(tcore, x, requires_grad=True) for x in (c, a, b)]
    tcore.addmm(*tleaves, beta=beta, alpha=alpha).backward(as_tcore(tcore, grad))
    for want, got in zip(leaves, tleaves):
        assert tuple(got.grad.shape) == tuple(want.grad.shape)
        np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy(), rtol=1e-12, atol=1e-12)
    # forward mode: a tangent on every operand
    fwd, tfwd = torch.autograd.forward_ad, tcore.autograd.forward_ad
    tangents = [torch.randn(x.shape, generator=gen, dtype=torch.float64) for x in (c, a, b)]
    with fwd.dual_level():
        want = fwd.unpack_dual(torch.addmm(*(fwd.make_dual(x, t) for x, t in zip((c, a, b), tangents)),
                                           beta=beta, alpha=alpha)).tangent
    with tfwd.dual_level():
        got = tfwd.unpack_dual(tcore.addmm(*(tfwd.make_dual(as_tcore(tcore, x), as_tcore(tcore, t))
                                             for x, t in zip((c, a, b), tangents)), beta=beta, alpha=alpha)).tangent
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    f = lambda *xs: tcore.addmm(*xs, beta=beta, alpha=alpha)  # noqa: E731
    assert tcore.autograd.gradcheck(f, tuple(tleaves))
    assert tcore.autograd.gradgradcheck(f, tuple(tleaves))


LINEAR = [((5, 2, 3), (2, 4)), ((5, 2, 3), (4,)), ((5, 2, 3), ()), ((5, 2, 3), (1, 4)), ((6, 5, 2, 3), (4,)),
          ((6, 5, 2, 3), (1, 4)), ((2, 3), (4,)), ((2, 3), (2, 4)), ((3,), (4,)), ((3,), (1, 4)), ((3,), ()),
          ((0, 2, 3), (4,)), ((2, 0, 3), (4,)), ((5, 2, 3), None), ((3,), None), ((2, 3), None)]


@pytest.mark.parametrize("input_shape, bias_shape, layout",
                         [(i, b, "contiguous") for i, b in LINEAR] +
                         [(i, b, "batch transposed") for i, b in LINEAR if len(i) >= 3])
def test_linear_as_torch(tcore, input_shape, bias_shape, layout):
    gen = torch.Generator().manual_seed(len(input_shape))
    x = torch.randn(input_shape, generator=gen, dtype=torch.float64)
    w = torch.randn(4, 3, generator=gen, dtype=torch.float64)
    bias = None if bias_shape is None else torch.randn(bias_shape, generator=gen, dtype=torch.float64)
    tx = as_tcore(tcore, x, requires_grad=True)
    if layout == "batch transposed":  # not contiguous: matmul, then the bias added in place
        x = x.transpose(0, 1).contiguous().transpose(0, 1)
        tx = as_tcore(tcore, x.transpose(0, 1), requires_grad=True)
    xl, wl = x.clone().requires_grad_(), w.clone().requires_grad_()
    bl = None if bias is None else bias.clone().requires_grad_()
    txx = tx if layout == "contiguous" else tx.transpose(0, 1)
    tw, tb = as_tcore(tcore, w, True), None if bias is None else as_tcore(tcore, bias, True)
    want = torch.nn.functional.linear(xl, wl, bl)
    got = tcore.nn.functional.linear(txx, tw, tb)
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    assert (got._base is None) == (want._base is None), "a view where torch's is one, and only there"
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    grad = torch.randn(want.shape, generator=gen, dtype=torch.float64)
    want.backward(grad)
    got.backward(as_tcore(tcore, grad))
    for w_, g_ in [(xl, tx), (wl, tw), (bl, tb)]:
        if w_ is not None:
            g = g_.grad.numpy() if layout == "contiguous" or g_ is not tx else g_.grad.transpose(0, 1).numpy()
            np.testing.assert_allclose(g, w_.grad.numpy(), rtol=1e-12, atol=1e-12)


MATMUL = [((3,), (3,)), ((4, 3), (3,)), ((3,), (3, 4)), ((4, 3), (3, 2)), ((5, 4, 3), (3, 2)), ((5, 4, 3), (3,)),
          ((3,), (5, 3, 2)), ((4, 3), (5, 3, 2)), ((5, 4, 3), (5, 3, 2)), ((6, 5, 4, 3), (5, 3, 2)),
          ((6, 1, 4, 3), (5, 3, 2)), ((0, 4, 3), (3, 2)), ((5, 4, 0), (0, 2)), ((2, 5, 4, 3), (3, 2))]


@pytest.mark.parametrize("a_shape, b_shape", MATMUL)
def test_matmul_folds_and_never_returns_a_view_as_torch(tcore, a_shape, b_shape):
    gen = torch.Generator().manual_seed(len(a_shape) * 10 + len(b_shape))
    for a_grad, b_grad, strided in itertools.product([False, True], [False, True], [False, True]):
        a = torch.randn(a_shape, generator=gen, dtype=torch.float64)
        b = torch.randn(b_shape, generator=gen, dtype=torch.float64)
        ta = as_tcore(tcore, a, a_grad)
        if strided and a.dim() >= 3:  # batch dims not evenly strided: torch does not fold
            ta = as_tcore(tcore, a.transpose(0, 1).contiguous(), a_grad)
            a = a.transpose(0, 1).contiguous().transpose(0, 1)
        tb = as_tcore(tcore, b, b_grad)
        x = ta.transpose(0, 1) if strided and a.dim() >= 3 else ta
        al, bl = a.clone().requires_grad_(a_grad), b.clone().requires_grad_(b_grad)
        if strided and a.dim() >= 3:
            al = a.transpose(0, 1).contiguous().requires_grad_(a_grad)
        want = torch.matmul(al.transpose(0, 1) if strided and a.dim() >= 3 else al, bl)
        got = tcore.matmul(x, tb)
        key = (a_shape, b_shape, a_grad, b_grad, strided)
        assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride()), key
        assert got._base is None and want._base is None, key
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
        if a_grad or b_grad:
            grad = torch.randn(want.shape, generator=gen, dtype=torch.float64)
            want.backward(grad)
            got.backward(as_tcore(tcore, grad))
            for w_, g_ in [(al, ta), (bl, tb)]:
                if w_.requires_grad:
                    np.testing.assert_allclose(g_.grad.numpy(), w_.grad.numpy(), rtol=1e-12, atol=1e-12)
