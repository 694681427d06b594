"""nn.RNN, LSTM, GRU and their cells against torch's: the same parameters (names, shapes, order),
outputs, final states and gradients of the input, the initial states and every weight, in float64
with torch's weights copied in; unbatched inputs, batch_first, directions, layers, projections;
torch's errors for bad shapes and arguments."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
from torch_twins import copy_parameters  # noqa: E402


def _twins(kind: str, **kw):
    """torch's module and tcore's, float64, tcore's holding torch's parameter values."""
    tm = getattr(torch.nn, kind)(**kw).double()
    cm = getattr(tcore.nn, kind)(**kw, dtype=tcore.float64)
    copy_parameters(tm, cm)
    return tm, cm


def _states(m, kind: str, state, requires_grad: bool = True):
    if kind == "LSTM":
        return tuple(m.tensor(s, requires_grad=requires_grad) for s in state)
    return m.tensor(state, requires_grad=requires_grad)


def _flat(out) -> list:
    output, state = out
    return [output, *(state if isinstance(state, tuple) else (state,))]


CASES = [
    ("RNN", dict(input_size=3, hidden_size=5), (7, 2, 3), False),
    ("RNN", dict(input_size=3, hidden_size=5, nonlinearity="relu", num_layers=2), (6, 2, 3), True),
    ("RNN", dict(input_size=3, hidden_size=5, num_layers=2, bidirectional=True, batch_first=True), (2, 7, 3), True),
    ("LSTM", dict(input_size=3, hidden_size=5), (7, 2, 3), False),
    ("LSTM", dict(input_size=3, hidden_size=5, num_layers=2, bidirectional=True, batch_first=True), (2, 7, 3), True),
    ("LSTM", dict(input_size=3, hidden_size=5, num_layers=3, bias=False), (4, 3), True),
    ("LSTM", dict(input_size=3, hidden_size=5, proj_size=2, num_layers=2, bidirectional=True), (6, 2, 3), True),
    ("LSTM", dict(input_size=3, hidden_size=5, proj_size=2), (6, 3), False),
    ("GRU", dict(input_size=3, hidden_size=5), (7, 2, 3), False),
    ("GRU", dict(input_size=3, hidden_size=5, num_layers=2, bidirectional=True, batch_first=True), (2, 7, 3), True),
    ("GRU", dict(input_size=3, hidden_size=5, num_layers=3, bias=False), (4, 3), True),
]


@pytest.mark.parametrize("kind,kw,shape,with_state", CASES, ids=lambda v: str(v).replace(" ", ""))
def test_recurrent_layers_as_torch(kind, kw, shape, with_state):
    rng = np.random.default_rng(0)
    tm, cm = _twins(kind, **kw)
    assert repr(cm) == repr(tm)
    x = rng.standard_normal(shape)
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    args_t, args_c = [xt], [xc]
    if with_state:
        layers = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
        batch = (shape[0] if kw.get("batch_first") else shape[1],) if len(shape) == 3 else ()
        h = rng.standard_normal((layers, *batch, kw.get("proj_size") or kw["hidden_size"]))
        state = (h, rng.standard_normal((layers, *batch, kw["hidden_size"]))) if kind == "LSTM" else h
        args_t.append(_states(torch, kind, state))
        args_c.append(_states(tcore, kind, state))
    got, want = _flat(cm(*args_c)), _flat(tm(*args_t))
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12, atol=1e-14)
    sum((o * o).sum() for o in got).backward()
    sum((o * o).sum() for o in want).backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-11, atol=1e-13)
    for (name, p), (_, q) in zip(cm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-11, atol=1e-13, err_msg=name)
    if with_state:
        for s, r in zip(_states_of(args_c[1]), _states_of(args_t[1])):
            np.testing.assert_allclose(s.grad.numpy(), r.grad.numpy(), rtol=1e-11, atol=1e-13)


HIGHER = [
    ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2)),
    ("LSTM", dict(input_size=3, hidden_size=4, bidirectional=True, bias=False)),
    ("GRU", dict(input_size=3, hidden_size=4, num_layers=2)),
    ("RNN", dict(input_size=3, hidden_size=4, bidirectional=True)),
]


@pytest.mark.parametrize("kind,kw", HIGHER, ids=lambda v: str(v).replace(" ", ""))
def test_tangents_and_second_derivatives_as_torch(kind, kw):
    """(LSTM's fused layer: a tangent takes the operator-by-operator form; create_graph its
    backward recomputed in differentiable operators)"""
    rng = np.random.default_rng(3)
    tm, cm = _twins(kind, **kw)
    x, v = rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 2, 3))
    _, want = torch.func.jvp(lambda a: tm(a)[0], (torch.tensor(x),), (torch.tensor(v),))
    _, got = tcore.autograd.functional.jvp(lambda a: cm(a)[0], tcore.tensor(x), tcore.tensor(v))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-11, atol=1e-13)
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    (gt,) = torch.autograd.grad(tm(xt)[0].pow(2).sum(), xt, create_graph=True)
    (gc,) = tcore.autograd.grad(cm(xc)[0].pow(2).sum(), xc, create_graph=True)
    np.testing.assert_allclose(gc.detach().numpy(), gt.detach().numpy(), rtol=1e-11, atol=1e-13)
    want2 = torch.autograd.grad(gt.pow(2).sum(), [xt, *tm.parameters()])
    got2 = tcore.autograd.grad(gc.pow(2).sum(), [xc, *cm.parameters()])
    for g, w in zip(got2, want2):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("used", ["output", "h_n", "c_n"])
def test_lstm_gradient_of_one_output_as_torch(used):
    """(the others' gradients absent: undefined in the fused backward)"""
    rng = np.random.default_rng(4)
    tm, cm = _twins("LSTM", input_size=3, hidden_size=4, num_layers=2)
    x = rng.standard_normal((6, 2, 3))
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    pick = {"output": lambda o: o[0], "h_n": lambda o: o[1][0], "c_n": lambda o: o[1][1]}[used]
    (pick(tm(xt)) * 1.5).sum().backward()
    (pick(cm(xc)) * 1.5).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-11, atol=1e-13)
    for (name, p), (_, q) in zip(cm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-11, atol=1e-13, err_msg=name)


def test_packed_lstm_second_derivatives_as_torch():
    """(a finished sequence's held state in the recomputed backward)"""
    tm, cm = _twins("LSTM", input_size=3, hidden_size=4, num_layers=2, bidirectional=True)
    x, lengths = np.random.default_rng(6).standard_normal((6, 3, 3)), [6, 4, 2]
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    grads = []
    for m, lib, xx in ((tm, torch, xt), (cm, tcore, xc)):
        out, (h, c) = m(lib.nn.utils.rnn.pack_padded_sequence(xx, lengths))
        (g,) = lib.autograd.grad(out.data.pow(2).sum() + h.pow(2).sum() + c.sum(), xx, create_graph=True)
        grads.append([g.detach().numpy(), *(a.numpy() for a in lib.autograd.grad(g.pow(2).sum(), [xx, *m.parameters()]))])
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_lstm_float32_as_torch():
    rng = np.random.default_rng(5)
    tm, cm = torch.nn.LSTM(16, 32, 2), tcore.nn.LSTM(16, 32, 2)
    copy_parameters(tm, cm)
    x = rng.standard_normal((30, 4, 16)).astype(np.float32)
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    want, got = tm(xt), cm(xc)
    np.testing.assert_allclose(got[0].detach().numpy(), want[0].detach().numpy(), rtol=1e-5, atol=1e-6)
    want[0].sum().backward()
    got[0].sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (name, p), (_, q) in zip(cm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)


def _states_of(state) -> tuple:
    return state if isinstance(state, tuple) else (state,)


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_as_torch(kind):
    rng = np.random.default_rng(1)
    tm, cm = _twins(kind, input_size=3, hidden_size=4)
    assert repr(cm) == repr(tm)
    x, h, c = rng.standard_normal((5, 3)), rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    for rows in (slice(None), 0):  # batched, then one unbatched row
        xt, xc = torch.tensor(x[rows], requires_grad=True), tcore.tensor(x[rows], requires_grad=True)
        state_t = (torch.tensor(h[rows]), torch.tensor(c[rows])) if kind == "LSTMCell" else torch.tensor(h[rows])
        state_c = (tcore.tensor(h[rows]), tcore.tensor(c[rows])) if kind == "LSTMCell" else tcore.tensor(h[rows])
        for args_t, args_c in (((xt, state_t), (xc, state_c)), ((xt,), (xc,))):
            want, got = _states_of(tm(*args_t)), _states_of(cm(*args_c))
            for g, w in zip(got, want):
                assert tuple(g.shape) == tuple(w.shape)
                np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12, atol=1e-14)
            got[0].sum().backward()
            want[0].sum().backward()
            np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-11, atol=1e-13)


def test_parameters_and_dropout_as_torch():
    tm, cm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2), \
        tcore.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    assert [n for n, _ in cm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert list(cm.state_dict()) == list(tm.state_dict())
    assert [[tuple(p.shape) for p in ws] for ws in cm.all_weights] == \
        [[tuple(p.shape) for p in ws] for ws in tm.all_weights]
    bound = 1 / 4 ** 0.5  # uniform in +-1/sqrt(hidden_size)
    assert all(float(p.abs().max()) <= bound for p in cm.parameters())
    cm.flatten_parameters()
    # dropout between layers: only when training
    m = tcore.nn.GRU(3, 8, num_layers=2, dropout=0.5)
    x = tcore.randn(5, 2, 3)
    m.eval()
    assert m(x)[0].tolist() == m(x)[0].tolist()
    m.train()
    tcore.manual_seed(0)
    a = m(x)[0]
    tcore.manual_seed(1)
    assert a.tolist() != m(x)[0].tolist()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tcore.nn.LSTM(3, 4, dropout=0.5)
    assert "non-zero dropout expects num_layers greater than 1" in str(caught[0].message)


ERRORS = [
    lambda m: m.nn.LSTM(3, 4)(m.zeros(0, 2, 3)),
    lambda m: m.nn.LSTM(3, 4)(m.zeros(5, 2, 4)),
    lambda m: m.nn.LSTM(3, 4)(m.zeros(5, 2, 3), (m.zeros(1, 2, 4), m.zeros(1, 3, 4))),
    lambda m: m.nn.LSTM(3, 4)(m.zeros(5, 2, 3), (m.zeros(2, 4), m.zeros(2, 4))),
    lambda m: m.nn.LSTM(3, 4)(m.zeros(5, 3), (m.zeros(1, 2, 4), m.zeros(1, 4))),
    lambda m: m.nn.GRU(3, 4)(m.zeros(5, 2, 3), m.zeros(1, 3, 4)),
    lambda m: m.nn.GRU(3, 4)(m.zeros(5, 3), m.zeros(1, 2, 4)),
    lambda m: m.nn.GRU(3, 4)(m.zeros(5, 2, 2, 3)),
    lambda m: m.nn.GRU(3, 4, proj_size=2),
    lambda m: m.nn.LSTM(3, 4, proj_size=4),
    lambda m: m.nn.RNN(3, 4, nonlinearity="gelu"),
    lambda m: m.nn.RNN(3, 4, dropout=1.5),
    lambda m: m.nn.RNN(3, 0),
    lambda m: m.nn.RNNCell(3, 4)(m.zeros(2, 5)),
    lambda m: m.nn.RNNCell(3, 4)(m.zeros(2, 3), m.zeros(2, 5)),
    lambda m: m.nn.RNNCell(3, 4)(m.zeros(2, 3), m.zeros(4)),
    lambda m: m.nn.LSTMCell(3, 4)(m.zeros(2, 3), (m.zeros(2, 4), m.zeros(3, 4))),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    with pytest.raises(Exception) as want:
        ERRORS[i](torch)
    with pytest.raises(type(want.value), match=None) as got:
        ERRORS[i](tcore)
    assert str(got.value) == str(want.value)


def test_dtype_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match=r"RNN input dtype \(tcore.float64\) does not match weight dtype "
                                         r"\(tcore.float32\)"):
        tcore.nn.GRU(3, 4)(tcore.zeros(5, 2, 3, dtype=tcore.float64))
