"""mse_loss's CPU kernel (native/cpu/Loss.cpp: one pass when self and target are alike) and its
composite (everything else), against torch: every reduction, broadcasting, strided and empty
inputs, float64/float32/bfloat16, the same sum at any thread count; first and second derivatives
in both inputs, forward-mode tangents, mse_loss_backward and its grad_input= form."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

SHAPES = [((5, 7), (5, 7)), ((4096 * 3 + 5,), (4096 * 3 + 5,)), ((3, 4), (4,)), ((2, 1, 3), (1, 4, 3)), ((), ()),
          ((0, 3), (0, 3))]


def _pair(shapes, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(s).astype(dtype) * 2 for s in shapes)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_values_against_torch(tcore, shapes, reduction):
    for dt, rtol in ((np.float64, 1e-12), (np.float32, 2e-6)):
        a, b = _pair(shapes, dt)
        got = tcore.nn.functional.mse_loss(tcore.tensor(a), tcore.tensor(b), reduction=reduction)
        want = torch.nn.functional.mse_loss(torch.tensor(a), torch.tensor(b), reduction=reduction)
        assert got.dtype == getattr(tcore, want.dtype.__str__().split(".")[1])
        assert list(got.shape) == list(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=1e-300)


def test_strided_reduced_and_accurate(tcore):
    a, b = _pair(((300, 200), (200, 300)), np.float32, 1)
    got = tcore.nn.functional.mse_loss(tcore.tensor(a), tcore.tensor(b).t())  # a strided target
    want = torch.nn.functional.mse_loss(torch.tensor(a), torch.tensor(b).t())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6)
    for dt in ("bfloat16", "float16"):
        g = tcore.nn.functional.mse_loss(tcore.tensor(a).to(getattr(tcore, dt)), tcore.tensor(b).t().to(getattr(tcore, dt)))
        t = torch.nn.functional.mse_loss(torch.tensor(a).to(getattr(torch, dt)), torch.tensor(b).t().to(getattr(torch, dt)))
        assert str(g.dtype).endswith(dt)
        np.testing.assert_allclose(g.float().numpy(), t.float().numpy(), rtol=1e-2)
    # 4M float32 elements: float lanes in 4096-element blocks added in double, within a few ulp of
    # the float64 sum, and the same bits at one and two threads
    x = np.random.default_rng(2).standard_normal(1 << 22).astype(np.float32)
    y = np.zeros_like(x) + np.float32(0.25)
    exact = np.sum((x.astype(np.float64) - 0.25) ** 2)
    old = tcore.get_num_threads()
    try:
        sums = []
        for threads in (1, 2):
            tcore.set_num_threads(threads)
            sums.append(tcore.nn.functional.mse_loss(tcore.from_numpy(x), tcore.from_numpy(y), reduction="sum").item())
    finally:
        tcore.set_num_threads(old)
    assert sums[0] == sums[1]
    assert abs(sums[0] - exact) <= 4 * np.spacing(np.float32(exact))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shapes", [((5, 7), (5, 7)), ((3, 4), (4,))], ids=str)
def test_derivatives_against_torch(tcore, shapes, reduction):
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    a, b = _pair(shapes)
    at, bt = _pair(shapes, seed=3)
    results = []
    for lib in (tcore, torch):
        ta, tb = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        loss = lib.nn.functional.mse_loss(ta, tb, reduction=reduction)
        w = lib.tensor(np.linspace(-1, 2, loss.numel()).reshape(tuple(loss.shape)))
        ga, gb = lib.autograd.grad((loss * w).sum(), (ta, tb), create_graph=True)
        penalty = (ga * ga).sum() + (ga * gb).sum()
        pa, pb = lib.autograd.grad(penalty, (ta, tb))
        results.append([t.detach().numpy() for t in (ga, gb, pa, pb)])
    for name, g, t in zip(("self", "target", "penalty self", "penalty target"), *results):
        np.testing.assert_allclose(g, t, rtol=1e-12, atol=1e-300, err_msg=name)
    tangents = []
    for lib, ad in ((tcore, fwAD), (torch, tfwAD)):
        with ad.dual_level():
            loss = lib.nn.functional.mse_loss(ad.make_dual(lib.tensor(a), lib.tensor(at)),
                                              ad.make_dual(lib.tensor(b), lib.tensor(bt)), reduction=reduction)
            tangents.append(ad.unpack_dual(loss).tangent.numpy())
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-12, atol=1e-300)


def test_backward_operator_and_errors(tcore):
    a, b = _pair(((4, 3), (4, 3)))
    g = np.float64(0.7)
    for reduction in (0, 1, 2):
        grad = np.full((4, 3), 0.5) if reduction == 0 else np.array(g)
        want = torch.ops.aten.mse_loss_backward(torch.tensor(grad), torch.tensor(a), torch.tensor(b), reduction).numpy()
        got = tcore._C._nn.mse_loss_backward(tcore.tensor(grad), tcore.tensor(a), tcore.tensor(b), reduction)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)
        out = tcore.empty(0, dtype=tcore.float64)
        tcore._C._nn.mse_loss_backward(tcore.tensor(grad), tcore.tensor(a), tcore.tensor(b), reduction, grad_input=out)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-14)
    with pytest.raises(ValueError, match="reduction must be 0"):
        tcore._C._nn.mse_loss(tcore.tensor(a), tcore.tensor(b), 3)
    with pytest.raises(ValueError, match="reduction must be 0"):
        tcore._C._nn.mse_loss_backward(tcore.tensor(a), tcore.tensor(a), tcore.tensor(b), -1)
