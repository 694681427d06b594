"""saved_tensors_hooks (tcore.autograd.graph) and activation checkpointing
(tcore.utils.checkpoint) against torch: gradients equal to the plain run's, RNG replayed,
torch's errors and warnings."""
from __future__ import annotations

import numpy as np
import pytest

import tcore
import tcore.utils.checkpoint as tcheckpoint

torch = pytest.importorskip("torch")
import torch.utils.checkpoint  # noqa: E402

X = np.array([[0.3, -1.2, 0.7], [1.5, 0.2, -0.4]])
W = np.array([[0.5, -0.25, 1.0], [0.75, 0.5, -1.5], [-0.5, 1.25, 0.25]])


def ckpt(lib):
    return torch.utils.checkpoint if lib is torch else tcheckpoint


def test_saved_tensors_hooks_as_torch():
    results = []
    for lib in (torch, tcore):
        calls = {"pack": 0, "unpack": 0}

        def pack(t):
            calls["pack"] += 1
            return t

        def unpack(t):
            calls["unpack"] += 1
            return t

        x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = ((x @ w).tanh() * x).sum()
        y.backward()
        assert calls["pack"] > 0 and calls["unpack"] > 0
        z = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 0):  # (backward reads the unpacked)
            out = (z * lib.tensor(W[:2])).sum()
        out.backward()
        v = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.save_on_cpu():
            s = (v.exp() * v).sum()
        s.backward()
        results.append((x.grad.numpy(), w.grad.numpy(), z.grad.numpy(), v.grad.numpy()))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-13)


def test_saved_tensors_hooks_errors_as_torch():
    for lib in (torch, tcore):
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = (x * x).sum()
        with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a Tensor but got "
                                            "result of type int"):
            y.backward()
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        # hooks in force cannot be switched off: entering the block raises its message, hooks stay
        calls = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: calls.append(1) or t, lambda t: t):
            with pytest.raises(RuntimeError, match="^off$"):
                with lib.autograd.graph.disable_saved_tensors_hooks("off"):
                    pass
            (x * x).sum()
        assert calls == [1, 1]
        # a pack hook writing its input in place is refused, the input written all the same
        c = x * 2

        def bump(t):
            t.add_(1)
            return t

        with lib.autograd.graph.saved_tensors_hooks(bump, lambda t: t):
            with pytest.raises(RuntimeError, match="A saved tensor pack hook is modifying its input in place"):
                c * c
        np.testing.assert_allclose(c.detach().numpy(), X * 2 + 1)


class Block:
    """A function over lib with dropout (checkpointing must replay its draws)."""

    def __init__(self, lib, w):
        self.lib, self.w, self.calls = lib, w, 0

    def __call__(self, x, scale=1.0):
        self.calls += 1
        h = (x @ self.w).tanh() * scale
        return self.lib.nn.functional.dropout(h, 0.5, training=True) * x


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_gradients_equal_the_plain_run(reentrant):
    grads = []
    for checkpointed in (False, True):
        tcore.manual_seed(7)
        x, w = tcore.tensor(X, requires_grad=True), tcore.tensor(W, requires_grad=True)
        block = Block(tcore, w)
        y = tcheckpoint.checkpoint(block, x, use_reentrant=reentrant) if checkpointed else block(x)
        (y.sin().sum()).backward()
        grads.append((y.detach().numpy(), x.grad.numpy(), w.grad.numpy()))
        if checkpointed:
            assert block.calls == 2  # (the forward, and its recomputation in backward)
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_array_equal(got, want)


def test_checkpoint_as_torch():
    """(no dropout: the libraries' random streams differ)"""
    results = []
    for lib in (torch, tcore):
        x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)

        def f(a, scale=1.0):
            return ((a @ w).tanh() * a).exp() * scale

        y = ckpt(lib).checkpoint(f, x, use_reentrant=False, scale=0.5)
        gx, gw = lib.autograd.grad(y.sum(), (x, w))  # (non-reentrant: autograd.grad works)
        seq = lib.nn.Sequential(*[lib.nn.Tanh() for _ in range(4)])
        xs = lib.tensor(X, requires_grad=True)
        ckpt(lib).checkpoint_sequential(seq, 2, xs, use_reentrant=False).sum().backward()
        xr = lib.tensor(X, requires_grad=True)
        ckpt(lib).checkpoint(f, xr, use_reentrant=True).sum().backward()
        results.append((y.detach().numpy(), gx.numpy(), gw.numpy(), xs.grad.numpy(), xr.grad.numpy()))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-13)


def test_checkpoint_errors_and_warnings_as_torch():
    messages = []
    for lib in (torch, tcore):
        x = lib.tensor(X, requires_grad=True)
        y = ckpt(lib).checkpoint(lambda a: a.sin() * 2, x, use_reentrant=True)
        with pytest.raises(RuntimeError) as grad_error:
            lib.autograd.grad(y.sum(), x)
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            out = ckpt(lib).checkpoint(lambda a: a.sin(), lib.tensor(X), use_reentrant=True)
        assert not out.requires_grad
        with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
            ckpt(lib).checkpoint(lambda a: a.sin(), x)
        with pytest.raises(ValueError) as kwargs_error:
            ckpt(lib).checkpoint(lambda a, b: a, x, use_reentrant=True, b=1)
        mismatches = []
        for second in (lambda a: a.sin().exp(),  # (more saved when recomputed: early stop, no error)
                       lambda a: a.clone(),  # (fewer)
                       lambda a: a[:1].sin()):  # (another shape)
            flips = iter([lambda a: a.sin(), second])
            z = ckpt(lib).checkpoint(lambda a: next(flips)(a), x, use_reentrant=False)
            try:
                z.sum().backward()
                mismatches.append("ok")
            except Exception as e:  # noqa: BLE001
                mismatches.append((type(e).__name__, str(e).split("\n")[:2]))  # (then each library's reprs)
        messages.append((str(grad_error.value), str(kwargs_error.value), mismatches))
    assert messages[1] == messages[0]


def test_hooks_keep_saved_inputs_in_the_graph_as_torch():
    """(from a review: a saved input given back by an unpack hook keeps its place in the graph and
    its tangent, so double backward and forward over reverse through hooks and checkpoint are
    right; an input written in place after a checkpoint is refused)"""
    results = []
    for lib in (torch, tcore):
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = (x * x).sum() + x.exp().sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), x)
        c = ckpt(lib).checkpoint(lambda z: (z * z).sum() + z.sin().sin().sum(), x, use_reentrant=False)
        cg, = lib.autograd.grad(c, x, create_graph=True)
        cg2, = lib.autograd.grad(cg.sum(), x)
        fa = lib.autograd.forward_ad
        with lib.autograd.graph.save_on_cpu(), fa.dual_level():
            xd = fa.make_dual(x, lib.ones(2, dtype=lib.float64))
            gd, = lib.autograd.grad((xd.exp() * xd).sum(), x, create_graph=True)
            tangent = fa.unpack_dual(gd).tangent
        a = x * 1
        z = ckpt(lib).checkpoint(lambda v: v.sin(), a, use_reentrant=False).sum()
        with lib.no_grad():
            a.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()
        results.append((g2.detach().numpy(), cg2.detach().numpy(), tangent.detach().numpy()))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-13)
