"""AdaptiveLogSoftmaxWithLoss against torch with the same weights: per-row log-probabilities,
the loss and its gradients, log_prob, predict, a single unbatched row, torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")


def _build(lib, **kw):
    m = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], dtype=lib.float64, **kw)
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.tensor(np.sin(np.arange(p.numel()) * 0.37 + i).reshape(tuple(p.shape))))
    return m


@pytest.mark.parametrize("kw", [dict(div_value=2.0, head_bias=True), dict()])
def test_adaptive_log_softmax_as_torch(kw):
    x = np.random.default_rng(0).standard_normal((7, 8)) * 2
    results = []
    for lib in (torch, tcore):
        m = _build(lib, **kw)
        xs = lib.tensor(x, requires_grad=True)
        out, loss = m(xs, lib.tensor([0, 5, 19, 3, 12, 16, 10]))
        loss.backward()
        single, _ = m(xs.detach()[0], lib.tensor(17))
        grads = [p.grad.numpy() for p in m.parameters()]
        results.append([out.detach().numpy(), loss.item(), xs.grad.numpy(), *grads,
                        m.log_prob(xs.detach()).detach().numpy(), m.predict(xs.detach()).numpy(), single.item()])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_adaptive_log_softmax_errors_as_torch():
    messages = []
    for lib in (torch, tcore):
        errors = []
        m = _build(lib)
        for call in (lambda: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 4]),
                     lambda: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 20]),
                     lambda: m(lib.ones(3, 8, dtype=lib.float64), lib.tensor([0, 1])),
                     lambda: m(lib.ones(2, 8, dtype=lib.float64), lib.tensor([0, 20])),
                     lambda: m(lib.ones(2, 2, 8, dtype=lib.float64), lib.zeros(2, 2, dtype=lib.int64))):
            with pytest.raises(Exception) as e:
                call()
            errors.append((type(e.value).__name__, str(e.value)))
        messages.append(errors)
    assert messages[1] == messages[0]
