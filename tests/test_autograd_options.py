"""autograd.grad's and backward's options against torch: only_inputs (deprecated, ignored),
is_grads_batched, materialize_grads, backward(inputs=...) on leaves and non-leaves."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

X = np.array([[0.3, -1.2, 0.7], [1.5, 0.2, -0.4]])


def _run(lib):
    x, w, u = lib.tensor(X, requires_grad=True), lib.tensor(X[0], requires_grad=True), lib.tensor(X, requires_grad=True)
    y = (x * w).sin()
    g1, = lib.autograd.grad(y.sum(), x, only_inputs=True, create_graph=True)  # (WGAN-GP's spelling)
    batched = lib.autograd.grad(y, (x, w, u), lib.stack([lib.ones(2, 3), 2 * lib.ones(2, 3)]), is_grads_batched=True,
                                retain_graph=True, allow_unused=True)
    materialized = lib.autograd.grad(y.sum(), (x, u), materialize_grads=True, retain_graph=True)
    h = x * 2  # (a non-leaf input of backward: its .grad too)
    (g1.sum() + (h * w).sum()).backward(inputs=[w, h])
    with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed when materialize_grads=True"):
        lib.autograd.grad(y.sum(), x, materialize_grads=True, allow_unused=False)
    with pytest.raises(RuntimeError, match="argument to .backward\\(\\). cannot be empty."):
        y.sum().backward(inputs=[])
    return (g1.detach(), batched[0], batched[1], materialized[0], materialized[1], w.grad, h.grad), \
        (batched[2], x.grad)


def test_grad_and_backward_options_as_torch():
    (want, want_none), (got, got_none) = _run(torch), _run(tcore)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-13, atol=1e-15)
    assert want_none == (None, None) and got_none == (None, None)


def test_post_accumulate_grad_hook_as_torch():
    """(the per-parameter optimizer step of torch's tutorial: the hook sees .grad summed)"""
    results = []
    for lib in (torch, tcore):
        w = lib.tensor(X, requires_grad=True)
        seen = []
        handle = w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.sum().item()))
        (w * 2).sum().backward()
        (w * w).sum().backward()
        handle.remove()
        (w * 3).sum().backward()
        with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
            (w * 2).register_post_accumulate_grad_hook(lambda p: None)
        with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
            lib.ones(2).register_post_accumulate_grad_hook(lambda p: None)
        results.append((seen, w.grad.numpy()))
    assert results[1][0] == pytest.approx(results[0][0])
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-13)


def test_detect_anomaly_as_torch():
    for lib in (torch, tcore):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with pytest.warns(UserWarning) if lib is torch else _nothing():
            with lib.autograd.detect_anomaly():
                assert lib.is_anomaly_enabled()
                with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output."):
                    (x.sqrt() * 0).sum().backward()
        assert not lib.is_anomaly_enabled()
        (x.sqrt() * 0).sum().backward()  # (off again: NaN gradients pass)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        assert not lib.is_anomaly_enabled()


def _nothing():
    import contextlib
    return contextlib.nullcontext()


def test_backward_inputs_with_retain_grad_and_post_hooks_as_torch():
    results = []
    for lib in (torch, tcore):
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        a = x * 3
        a.retain_grad()
        a.sin().sum().backward(inputs=[a], retain_graph=True)  # (retained once, not twice)
        seen = []
        x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
        a.sin().sum().backward(inputs=[x])
        results.append((a.grad.numpy(), x.grad.numpy(), seen))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-13)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-13)
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-13)


def test_decorated_generators_run_each_resumption_in_the_mode_as_torch():
    """@no_grad() (and every context decorator) on a generator function: each resumption runs in
    the mode, the caller's code between them outside; send, throw, close and the return value."""
    seen = {}
    for lib in (torch, tcore):
        events = []

        @lib.no_grad()
        def gen(x):
            got = yield (x * 2).requires_grad
            yield got, (x * 3).requires_grad, lib.is_grad_enabled()
            try:
                yield 5
            except ValueError as e:
                yield "caught", str(e), lib.is_grad_enabled()
            return 7

        @lib.enable_grad()
        def closing():
            try:
                yield 1
            finally:
                events.append(("closed with grad", lib.is_grad_enabled()))

        x = lib.ones(1, requires_grad=True)
        g = gen(x)
        events += [next(g), lib.is_grad_enabled(), g.send("hi"), next(g), g.throw(ValueError("boom"))]
        with pytest.raises(StopIteration) as stop:
            next(g)
        events.append(stop.value.value)
        with lib.no_grad():
            c = closing()
            next(c)
            events.append(lib.is_grad_enabled())
            c.close()
        seen[lib.__name__] = events
    assert seen["tcore"] == seen["torch"]


def test_grad_runs_only_the_nodes_leading_to_its_inputs_as_torch():
    """autograd.grad(outputs, inputs) runs only what lies on a path to an input (torch's
    exec_info): a retained grad off the path stays None, a saved tensor written in place off the
    path is never read; an input's own node gives its gradient after its hooks; detach_, a leaf set
    to requires_grad=False since, requires_grad_() of a computed tensor, torch's unused message."""
    def run(lib):
        out = []
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        y = b * 2
        y.retain_grad()
        out += [lib.autograd.grad((y + a).sum(), [a])[0].tolist(), y.grad]
        y = b.exp()
        loss = (y + a).sum()
        y.mul_(2)
        out.append(lib.autograd.grad(loss, [a])[0].tolist())
        x = lib.ones(2, requires_grad=True)
        h = x * 3
        h.retain_grad()
        out += [[g.tolist() for g in lib.autograd.grad((h * h).sum(), [h, x])], h.grad.tolist()]
        h2 = x * 3
        h2.register_hook(lambda g: g * 10)
        out.append(lib.autograd.grad((h2 * 2).sum(), [h2])[0].tolist())
        with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used"):
            lib.autograd.grad((a * 2).sum(), [a, b])
        z = x * 2
        z.detach_()
        out += [z.requires_grad, z.grad_fn is None, z.is_leaf]
        with pytest.raises(RuntimeError, match="Can't detach views in-place"):
            (x * 2)[1:].detach_()
        out.append((x * 2).requires_grad_().requires_grad)
        w = lib.ones(2, requires_grad=True)
        v = w * 2
        w.requires_grad_(False)
        v.sum().backward()
        out.append(w.grad)
        return out

    assert run(tcore) == run(torch)
