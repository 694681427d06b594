"""A character-level language model written once for torch's API (embedding, 2-layer LSTM or
GRU, dropout 0, linear head, cross-entropy, clip_grad_norm_, Adam), trained a few steps by tcore
and by torch from the same weights in float64: every step's loss and the final weights agree. The
fused LSTM layer's forward and backward inside a real training loop, truncated backpropagation
through time (the state carried over, detached) included."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
from torch_twins import copy_parameters  # noqa: E402


def _model(lib, kind: str):
    nn = lib.nn

    class CharModel(nn.Module):
        def __init__(self, vocab: int, width: int):
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.rnn = getattr(nn, kind)(width, width, num_layers=2, batch_first=True)
            self.head = nn.Linear(width, vocab)

        def forward(self, tokens, state=None):
            out, state = self.rnn(self.embed(tokens), state)
            return self.head(out), state

    return CharModel(11, 16).double()


def _detached(state):
    return tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()


def _train(lib, model, batches):
    optim = lib.optim.Adam(model.parameters(), lr=1e-2)
    losses, state = [], None
    for tokens in batches:
        x, y = lib.tensor(tokens[:, :-1]), lib.tensor(tokens[:, 1:])
        logits, state = model(x, state)
        state = _detached(state)  # truncated backpropagation through time
        loss = lib.nn.functional.cross_entropy(logits.reshape(-1, 11), y.reshape(-1))
        optim.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optim.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_char_model_trains_as_torch(kind):
    rng = np.random.default_rng(0)
    # (sequences counting up from random starts: a pattern the model learns within the steps)
    batches = [(rng.integers(0, 11, (4, 1)) + np.arange(13)) % 11 for _ in range(6)]
    tm, cm = _model(torch, kind), _model(tcore, kind)
    copy_parameters(tm, cm)
    want, got = _train(torch, tm, batches), _train(tcore, cm, batches)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert got[-1] < got[0]
    for (name, p), (_, q) in zip(cm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-8, atol=1e-10, err_msg=name)
