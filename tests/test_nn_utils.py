"""tcore.nn.utils against torch.nn.utils: gradient clipping (norms of every order, the returned
total, non-finite errors, clamping by value), parameters as one vector and back, and packed
sequences: packing and padding (sorted or not, batch_first, total_length), and RNN/LSTM/GRU over
packed batches (outputs, final states in the caller's order, gradients) against torch's."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
from torch_twins import copy_parameters  # noqa: E402

TU, CU = torch.nn.utils, tcore.nn.utils
RNG = np.random.default_rng(0)


def _parameter_pairs(seed: int = 0):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (2, 2, 2)]
    ts, cs = [], []
    for shape in shapes:
        value, grad = rng.standard_normal(shape), rng.standard_normal(shape) * 3
        t, c = torch.nn.Parameter(torch.tensor(value)), tcore.nn.Parameter(tcore.tensor(value))
        t.grad, c.grad = torch.tensor(grad), tcore.tensor(grad)
        ts.append(t)
        cs.append(c)
    return ts, cs


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_as_torch(norm_type, max_norm):
    ts, cs = _parameter_pairs()
    want = TU.clip_grad_norm_(ts, max_norm, norm_type)
    got = CU.clip_grad_norm_(cs, max_norm, norm_type)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13)
    for c, t in zip(cs, ts):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(CU.get_total_norm([c.grad for c in cs], norm_type).numpy(),
                               TU.get_total_norm([t.grad for t in ts], norm_type).numpy(), rtol=1e-13)


def test_clip_grad_edges():
    ts, cs = _parameter_pairs(1)
    TU.clip_grad_value_(ts, 0.7)
    CU.clip_grad_value_(cs, 0.7)
    for c, t in zip(cs, ts):
        np.testing.assert_array_equal(c.grad.numpy(), t.grad.numpy())
    p = tcore.nn.Parameter(tcore.ones(2))
    p.grad = tcore.tensor([np.inf, 1.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        CU.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert CU.clip_grad_norm_([tcore.nn.Parameter(tcore.ones(2))], 1.0).item() == 0.0  # (no gradients)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CU.clip_grad_norm_((q for q in []), 1.0)
    assert "empty generator" in str(caught[0].message)
    model = tcore.nn.Linear(3, 2)
    model(tcore.randn(4, 3)).sum().backward()
    total = CU.clip_grad_norm_(model.parameters(), 0.1)
    assert abs(CU.get_total_norm([q.grad for q in model.parameters()]).item() - min(0.1, total.item())) < 1e-5


def test_parameters_to_vector_and_back():
    model = tcore.nn.Sequential(tcore.nn.Linear(3, 2), tcore.nn.Linear(2, 1))
    vec = CU.parameters_to_vector(model.parameters())
    assert vec.shape == (sum(q.numel() for q in model.parameters()),)
    CU.vector_to_parameters(tcore.arange(vec.numel(), dtype=tcore.float32), model.parameters())
    assert CU.parameters_to_vector(model.parameters()).tolist() == list(range(vec.numel()))
    assert model[0].weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        CU.vector_to_parameters([1.0], model.parameters())


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_and_pad_as_torch(batch_first, enforce_sorted):
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    x = RNG.standard_normal((4, 5, 2) if batch_first else (5, 4, 2))
    pt = TU.rnn.pack_padded_sequence(torch.tensor(x), lengths, batch_first, enforce_sorted)
    xc = tcore.tensor(x, requires_grad=True)
    pc = CU.rnn.pack_padded_sequence(xc, lengths, batch_first, enforce_sorted)
    np.testing.assert_array_equal(pc.data.detach().numpy(), pt.data.numpy())
    assert pc.batch_sizes.tolist() == pt.batch_sizes.tolist()
    for got, want in ((pc.sorted_indices, pt.sorted_indices), (pc.unsorted_indices, pt.unsorted_indices)):
        assert (got is None) == (want is None) and (got is None or got.tolist() == want.tolist())
    for total in (None, 7):
        (padded_t, len_t), (padded_c, len_c) = (TU.rnn.pad_packed_sequence(pt, batch_first, -1.0, total),
                                                CU.rnn.pad_packed_sequence(pc, batch_first, -1.0, total))
        np.testing.assert_array_equal(padded_c.detach().numpy(), padded_t.numpy())
        assert len_c.tolist() == len_t.tolist()
    padded_c.sum().backward()  # (the gradient reaches the packed elements only)
    mask = np.zeros_like(x)
    for b, n in enumerate(lengths):
        if batch_first:
            mask[b, :n] = 1
        else:
            mask[:n, b] = 1
    np.testing.assert_array_equal(xc.grad.numpy(), mask)
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        CU.rnn.pad_packed_sequence(pc, total_length=2)


def test_sequence_helpers_as_torch():
    seqs = [RNG.standard_normal((n, 3)) for n in (4, 2, 3)]
    for side in ("right", "left"):
        np.testing.assert_array_equal(
            CU.rnn.pad_sequence([tcore.tensor(s) for s in seqs], True, 0.5, side).numpy(),
            TU.rnn.pad_sequence([torch.tensor(s) for s in seqs], True, 0.5, side).numpy())
    pc = CU.rnn.pack_sequence([tcore.tensor(s) for s in seqs], enforce_sorted=False)
    pt = TU.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    np.testing.assert_array_equal(pc.data.numpy(), pt.data.numpy())
    for got, s in zip(CU.rnn.unpack_sequence(pc), seqs):
        np.testing.assert_array_equal(got.numpy(), s)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        CU.rnn.pack_padded_sequence(tcore.zeros(3, 2, 1), [1, 3])


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_layers_over_packed_sequences_as_torch(kind, bidirectional, with_state):
    kw = dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=bidirectional)
    tm, cm = getattr(torch.nn, kind)(**kw).double(), getattr(tcore.nn, kind)(**kw, dtype=tcore.float64)
    copy_parameters(tm, cm)
    lengths = [3, 5, 1, 4]
    x = RNG.standard_normal((5, 4, 3))
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    pt = TU.rnn.pack_padded_sequence(xt, lengths, enforce_sorted=False)
    pc = CU.rnn.pack_padded_sequence(xc, lengths, enforce_sorted=False)
    args_t, args_c = [pt], [pc]
    if with_state:
        layers = kw["num_layers"] * (2 if bidirectional else 1)
        h = RNG.standard_normal((layers, 4, 4))
        if kind == "LSTM":
            args_t.append((torch.tensor(h), torch.tensor(h * 0.5)))
            args_c.append((tcore.tensor(h), tcore.tensor(h * 0.5)))
        else:
            args_t.append(torch.tensor(h))
            args_c.append(tcore.tensor(h))
    (out_t, state_t), (out_c, state_c) = tm(*args_t), cm(*args_c)
    assert isinstance(out_c, CU.rnn.PackedSequence)
    np.testing.assert_allclose(out_c.data.detach().numpy(), out_t.data.detach().numpy(), rtol=1e-12, atol=1e-14)
    states_t = state_t if isinstance(state_t, tuple) else (state_t,)
    states_c = state_c if isinstance(state_c, tuple) else (state_c,)
    for g, w in zip(states_c, states_t):
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12, atol=1e-14)
    (out_t.data.sum() + sum(s.sum() for s in states_t)).backward()
    (out_c.data.sum() + sum(s.sum() for s in states_c)).backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-11, atol=1e-13)
    for (_, p), (_, q) in zip(cm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-11, atol=1e-13)
