"""Module hooks against torch: full backward hooks and pre-hooks (the gradients of a module's
inputs and outputs, replaced when a hook returns new ones), forward hooks with kwargs, prepend
and always_call."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

X = np.random.default_rng(5).standard_normal((2, 3, 6, 6))


def _model(lib):
    lib.manual_seed(0)
    conv = lib.nn.Conv2d(3, 4, 3, dtype=lib.float64)
    head = lib.nn.Linear(64, 2, dtype=lib.float64)
    with lib.no_grad():  # (the same weights in both libraries)
        conv.weight.copy_(lib.tensor(np.linspace(-1, 1, 108).reshape(4, 3, 3, 3)))
        conv.bias.copy_(lib.tensor([0.1, -0.2, 0.3, 0.0]))
        head.weight.copy_(lib.tensor(np.linspace(-0.5, 0.5, 128).reshape(2, 64)))
        head.bias.fill_(0.05)
    return conv, head


def _run(lib):
    conv, head = _model(lib)
    act = lib.nn.Tanh()
    seen = {}
    conv.register_full_backward_hook(lambda m, gi, go: seen.update(conv_in=gi, conv_out=go))  # (gi: (None,))
    act.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))  # (doubles what reaches tanh)
    act.register_full_backward_hook(lambda m, gi, go: seen.update(act_in=gi[0].clone(), act_out=go[0].clone()))
    head.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.5,))  # (halves the gradient of head's input)
    x = lib.tensor(X)
    features = act(conv(x))  # (Grad-CAM: the gradient of a feature map)
    loss = head(features.flatten(1)).sum()
    loss.backward()
    xr = lib.tensor(X, requires_grad=True)
    got = {}
    lin = lib.nn.Linear(6, 2, dtype=lib.float64)
    lin.register_full_backward_hook(lambda m, gi, go: got.update(n=len(gi), first=gi[0] is not None))
    lin(xr).sum().backward()
    return (seen["conv_in"], seen["conv_out"][0], seen["act_in"], seen["act_out"], conv.weight.grad, head.weight.grad,
            got)


def test_full_backward_hooks_as_torch():
    want, got = _run(torch), _run(tcore)
    assert want[0] == got[0] == (None,)
    for g, w in zip(got[1:6], want[1:6]):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-9, atol=1e-15)  # (the convolutions sum in other orders)
    assert got[6] == want[6] == {"n": 1, "first": True}


def test_forward_hook_options_as_torch():
    results = []
    for lib in (torch, tcore):
        class Scale(lib.nn.Module):
            def forward(self, x, factor=1.0):
                if factor < 0:
                    raise ValueError("negative")
                return x * factor

        m, order = Scale(), []
        m.register_forward_hook(lambda mod, args, out: order.append("last"))
        m.register_forward_hook(lambda mod, args, out: order.append("first"), prepend=True)
        m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": kwargs["factor"] * 10}),
                                    with_kwargs=True)
        handle = m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["factor"], with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: order.append("always"), always_call=True)
        value = m(lib.ones(2), factor=2.0).tolist()
        handle.remove()
        value2 = m(lib.ones(2), factor=2.0).tolist()
        with pytest.raises(ValueError, match="negative"):
            m(lib.ones(2), factor=-1.0)
        results.append((value, value2, order))
    assert results[1] == results[0]
    assert results[0][0] == [40.0, 40.0] and results[0][2][-1] == "always"


def test_backward_hook_errors_and_inplace_as_torch():
    messages = []
    for lib in (torch, tcore):
        m = lib.nn.Linear(2, 2)
        m.register_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError) as both:
            m.register_full_backward_hook(lambda *a: None)
        relu = lib.nn.ReLU(inplace=True)  # (the well-known refusal: its input is the hook's view)
        relu.register_full_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError) as inplace:
            relu(lib.ones(2, requires_grad=True) * 1)
        messages.append((str(both.value), "is a view and is being modified inplace" in str(inplace.value)))
    assert messages[1] == messages[0]
    assert messages[0][1]


def test_backward_hook_slots_as_torch():
    """(from a review: None in grad_output for an output that needs no gradient, zeros in
    grad_input for an input without one, no hook call when the output is a list or dict)"""
    results = []
    for lib in (torch, tcore):
        class Two(lib.nn.Module):
            def forward(self, a, b, c):
                return a * 2, b * 3

        class Listed(lib.nn.Module):
            def forward(self, a):
                return [a * 2]

        seen = []
        m = Two()
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(
            ([None if g is None else g.tolist() for g in gi], [None if g is None else g.tolist() for g in go])))
        a, c = lib.ones(2, dtype=lib.float64, requires_grad=True), lib.ones(2, dtype=lib.float64, requires_grad=True)
        out = m(a, lib.ones(2, dtype=lib.float64), c)
        out[0].sum().backward()
        listed = Listed()
        listed.register_full_backward_hook(lambda mod, gi, go: seen.append("listed"))
        listed(lib.ones(2, requires_grad=True))[0].sum().backward()
        results.append(seen)
    assert results[1] == results[0]
