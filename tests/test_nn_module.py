"""tcore.nn: Module registration and traversal, train/eval, to(), state_dict round trips,
hooks, containers, every layer's forward against numpy (and torch when installed), and
functional's string reductions and keyword conventions."""
from __future__ import annotations

import copy

import numpy as np
import pytest


@pytest.fixture(scope="module")
def nn(tcore):
    import tcore.nn as nn
    return nn


@pytest.fixture(scope="module")
def F(tcore):
    import tcore.nn.functional as F
    return F


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


class Net:
    """A two-layer model with a buffer and a nested block, built the way users write them."""

    @staticmethod
    def build(tcore, nn):
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.register_buffer("scale", tcore.ones(4))
                self.register_buffer("scratch", tcore.zeros(4), persistent=False)

            def forward(self, x):
                return self.fc(x) * self.scale

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()
                self.head = nn.Linear(4, 2)
                self.act = nn.ReLU()

            def forward(self, x):
                return self.head(self.act(self.block(x)))

        return Model()


def test_registration_and_traversal(tcore, nn):
    m = Net.build(tcore, nn)
    names = [n for n, _ in m.named_parameters()]
    assert names == ["block.fc.weight", "block.fc.bias", "head.weight", "head.bias"]
    assert [n for n, _ in m.named_buffers()] == ["block.scale", "block.scratch"]
    assert [n for n, _ in m.named_modules()] == ["", "block", "block.fc", "head", "act"]
    assert [n for n, _ in m.named_children()] == ["block", "head", "act"]
    assert sum(p.numel() for p in m.parameters()) == 4 * 4 + 4 + 4 * 2 + 2
    assert all(isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf for p in m.parameters())
    assert m.get_submodule("block.fc") is m.block.fc
    assert m.get_parameter("head.bias") is m.head.bias
    m.head = nn.Linear(4, 3)  # replacing a submodule
    assert m(tcore.randn(2, 4)).shape == (2, 3)
    del m.act
    assert [n for n, _ in m.named_children()] == ["block", "head"]
    with pytest.raises(AttributeError, match="'Model' object has no attribute 'nope'"):
        m.nope


def test_registration_errors(tcore, nn):
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(tcore.ones(1))

    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        Early()
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        m.weight = tcore.ones(2, 2)
    with pytest.raises(KeyError, match="empty or contain"):
        m.register_buffer("a.b", tcore.ones(1))
    with pytest.raises(TypeError, match="Parameter\\(\\): argument 'data' must be Tensor, not list"):
        nn.Parameter([1.0])


def test_shared_parameters_are_listed_once(tcore, nn):
    lin = nn.Linear(3, 3)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_replaced_children_and_parameters_keep_their_place(tcore, nn):
    """(torch's: replacing a layer changes neither the forward order nor the state_dict's; the
    usual swap loop over named_children may assign while iterating)"""
    from collections import OrderedDict
    s = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
    for name, child in s.named_children():
        if isinstance(child, nn.ReLU):
            setattr(s, name, nn.Tanh())
    s[0] = nn.GELU()
    assert [type(m).__name__ for m in s] == ["GELU", "Tanh", "Linear"]
    named = nn.Sequential(OrderedDict(conv=nn.Conv2d(3, 4, 3), act=nn.ReLU()))
    named.conv = nn.Conv2d(1, 4, 3)
    assert list(named._modules) == ["conv", "act"] and tuple(named(tcore.ones(1, 1, 5, 5)).shape) == (1, 4, 3, 3)
    lin = nn.Linear(2, 2)
    lin.weight = nn.Parameter(tcore.ones(2, 2))
    lin.register_parameter("weight", nn.Parameter(tcore.zeros(2, 2)))
    assert list(lin.state_dict()) == ["weight", "bias"]
    bn = nn.BatchNorm1d(2)
    bn.register_buffer("running_mean", tcore.ones(2))
    assert list(bn.state_dict())[:3] == ["weight", "bias", "running_mean"]
    d = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})
    d["a"] = nn.GELU()
    assert list(d.keys()) == ["a", "b"]


def test_zero_grad_in_place_and_old_batchnorm_state_dicts(tcore, nn):
    """(torch's: zero_grad(set_to_none=False) zeroes .grad in place, so a reference to it sees
    the zeros; a BatchNorm state_dict without num_batches_tracked loads)"""
    lin = nn.Linear(2, 2)
    lin(tcore.ones(1, 2)).sum().backward()
    held = lin.weight.grad
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is held and held.abs().sum().item() == 0
    lin(tcore.ones(1, 2)).sum().backward()
    held = lin.weight.grad
    tcore.optim.SGD(lin.parameters(), lr=0.1).zero_grad(set_to_none=False)
    assert held.abs().sum().item() == 0
    bn = nn.BatchNorm2d(3)
    old = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    model = nn.Sequential(nn.BatchNorm2d(3))
    model[0].num_batches_tracked.fill_(5)
    assert model.load_state_dict({"0." + k: v for k, v in old.items()}) == ([], [])
    assert model[0].num_batches_tracked.item() == 5


def test_train_eval_and_dropout(tcore, nn):
    m = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
    assert m.training and m[1].training
    m.eval()
    assert not m.training and not m[1].training
    x = tcore.ones(4, 8)
    np.testing.assert_array_equal(m(x).detach().numpy(), m(x).detach().numpy())  # no dropout in eval
    m.train()
    tcore.manual_seed(0)
    y = nn.Dropout(0.5)(x)
    kept = y.numpy() != 0
    assert 0.2 < kept.mean() < 0.8 and np.allclose(y.numpy()[kept], 2.0)


def test_to_keeps_parameter_identity(tcore, nn):
    m = nn.Linear(3, 2)
    w = m.weight
    (m(tcore.ones(1, 3)).sum()).backward()
    m.double()
    assert m.weight is w and w.dtype == tcore.float64 and w.requires_grad and w.grad.dtype == tcore.float64
    m.to(tcore.float32)
    assert m.weight.dtype == tcore.float32
    assert m(tcore.ones(1, 3)).dtype == tcore.float32
    with pytest.raises(TypeError, match="only accepts floating point dtypes"):
        m.to(tcore.int64)


def test_state_dict_round_trip_and_errors(tcore, nn):
    a, b = Net.build(tcore, nn), Net.build(tcore, nn)
    sd = a.state_dict()
    assert list(sd) == ["block.scale", "block.fc.weight", "block.fc.bias", "head.weight", "head.bias"]  # as PyTorch
    assert "block.scratch" not in sd  # non-persistent
    assert not sd["head.weight"].requires_grad
    result = b.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = tcore.randn(3, 4)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    assert b.head.weight.requires_grad  # loading copies values, the parameters stay parameters
    partial = {k: v for k, v in sd.items() if k != "head.bias"}
    partial["extra"] = tcore.ones(1)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "head.bias"') as info:
        b.load_state_dict(partial)
    assert 'Unexpected key(s) in state_dict: "extra"' in str(info.value)
    keys = b.load_state_dict(partial, strict=False)
    assert keys.missing_keys == ["head.bias"] and keys.unexpected_keys == ["extra"]
    bad = dict(sd, **{"head.weight": tcore.ones(3, 4)})
    with pytest.raises(RuntimeError, match=r"size mismatch for head.weight: copying a param with shape "
                                           r"tcore.Size\(\[3, 4\]\) from checkpoint, the shape in current model is "
                                           r"tcore.Size\(\[2, 4\]\)"):
        b.load_state_dict(bad)


def test_hooks(tcore, nn):
    m = nn.Linear(2, 2)
    seen = []
    h1 = m.register_forward_pre_hook(lambda mod, args: seen.append(("pre", args[0].shape)))
    h2 = m.register_forward_hook(lambda mod, args, out: out * 0)
    out = m(tcore.ones(3, 2))
    assert seen == [("pre", (3, 2))] and out.abs().sum().item() == 0
    h1.remove()
    h2.remove()
    assert m(tcore.ones(1, 2)).abs().sum().item() > 0 and len(seen) == 1


def test_containers(tcore, nn):
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and len(seq[:2]) == 2
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]
    seq.append(nn.Sigmoid())
    assert seq(tcore.ones(4, 2)).shape == (4, 1)
    from collections import OrderedDict
    named = nn.Sequential(OrderedDict(fc=nn.Linear(2, 2), act=nn.Tanh()))
    assert list(named.state_dict()) == ["fc.weight", "fc.bias"]
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.Linear(2, 2))
    assert len(layers) == 4 and len(list(layers.parameters())) == 8
    holder = nn.Module()
    holder.layers = layers
    assert len(list(holder.parameters())) == 8
    d = nn.ModuleDict({"a": nn.Linear(1, 1)})
    assert "a" in d and list(d.keys()) == ["a"]
    with pytest.raises(IndexError):
        seq[10]
    text = repr(seq)
    assert "(0): Linear(in_features=2, out_features=3, bias=True)" in text and "(1): ReLU()" in text


def test_deepcopy_and_zero_grad(tcore, nn):
    m = nn.Linear(2, 2)
    m(tcore.ones(1, 2)).sum().backward()
    c = copy.deepcopy(m)
    assert c.weight is not m.weight and isinstance(c.weight, nn.Parameter)
    np.testing.assert_array_equal(c.weight.detach().numpy(), m.weight.detach().numpy())
    m.zero_grad()
    assert m.weight.grad is None
    c.zero_grad(set_to_none=False)
    assert c.weight.grad.abs().sum().item() == 0


# ------------------------------------------------------------------ layers against torch / numpy
def test_layers_against_torch(tcore, nn):
    torch = _torch()
    if torch is None:
        pytest.skip("torch is not installed")
    rng = np.random.default_rng(0)
    cases = [
        (lambda m: m.Linear(5, 3), (4, 5)),
        (lambda m: m.Conv2d(3, 4, 3, stride=2, padding=1), (2, 3, 7, 7)),
        (lambda m: m.Conv2d(2, 2, 3, padding="same", groups=2, bias=False), (1, 2, 5, 5)),
        (lambda m: m.Conv2d(2, 3, (2, 4), padding="same", dilation=1), (1, 2, 5, 6)),
        (lambda m: m.MaxPool2d(2), (2, 3, 6, 6)),
        (lambda m: m.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), (1, 2, 7, 7)),
        (lambda m: m.AvgPool2d(2), (1, 2, 4, 4)),
        (lambda m: m.LayerNorm(6), (3, 6)),
        (lambda m: m.BatchNorm1d(4), (5, 4)),
        (lambda m: m.BatchNorm1d(3), (4, 3, 5)),
        (lambda m: m.BatchNorm2d(3), (2, 3, 4, 4)),
        (lambda m: m.GELU(), (3, 4)),
        (lambda m: m.GELU(approximate="tanh"), (3, 4)),
        (lambda m: m.SiLU(), (3, 4)),
        (lambda m: m.Tanh(), (3, 4)),
        (lambda m: m.Sigmoid(), (3, 4)),
        (lambda m: m.LeakyReLU(0.2), (3, 4)),
        (lambda m: m.Softmax(dim=1), (3, 4)),
        (lambda m: m.LogSoftmax(dim=-1), (3, 4)),
        (lambda m: m.Flatten(), (2, 3, 4)),
    ]
    for build, shape in cases:
        ours, theirs = build(nn), build(torch.nn)
        sd = {k: tcore.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
        ours.load_state_dict(sd)
        x = rng.standard_normal(shape).astype(np.float32)
        for mode in ("train", "eval"):
            getattr(ours, mode)()
            getattr(theirs, mode)()
            xt = tcore.tensor(x, requires_grad=True)
            xx = torch.tensor(x, requires_grad=True)
            got, want = ours(xt), theirs(xx)
            np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5,
                                       err_msg=f"{theirs} {mode}")
            w = rng.standard_normal(tuple(want.shape)).astype(np.float32)
            (got * tcore.tensor(w)).sum().backward()
            (want * torch.tensor(w)).sum().backward()
            np.testing.assert_allclose(xt.grad.numpy(), xx.grad.numpy(), rtol=1e-4, atol=1e-5,
                                       err_msg=f"{theirs} {mode} grad")
        for k, v in theirs.state_dict().items():  # running statistics moved the same way
            np.testing.assert_allclose(ours.state_dict()[k].float().numpy(), v.float().numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=f"{theirs} {k}")


def test_batchnorm_details(tcore, nn):
    bn = nn.BatchNorm1d(3, momentum=None)
    for _ in range(3):
        bn(tcore.randn(8, 3))
    assert bn.num_batches_tracked.item() == 3
    with pytest.raises(ValueError, match="expected 2D or 3D input \\(got 4D input\\)"):
        bn(tcore.ones(2, 3, 4, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        bn(tcore.ones(1, 3))
    bn.eval()
    assert bn(tcore.ones(1, 3)).shape == (1, 3)


def test_embedding(tcore, nn):
    emb = nn.Embedding(10, 3, padding_idx=0)
    assert emb.weight[0].abs().sum().item() == 0
    idx = tcore.tensor([[0, 2], [2, 9]])
    out = emb(idx)
    assert out.shape == (2, 2, 3)
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad[2].numpy(), [2, 2, 2])
    np.testing.assert_array_equal(emb.weight.grad[0].numpy(), [0, 0, 0])  # padding row gets no gradient
    pre = nn.Embedding.from_pretrained(tcore.eye(3))
    assert not pre.weight.requires_grad and pre(tcore.tensor([1])).tolist() == [[0.0, 1.0, 0.0]]
    capped = nn.Embedding(4, 2, max_norm=1.0)
    with tcore.no_grad():
        capped.weight.fill_(3.0)
    capped(tcore.tensor([1]))
    assert abs(capped.weight[1].norm().item() - 1.0) < 1e-4 and capped.weight[0, 0].item() == 3.0


# ------------------------------------------------------------------ functional
def test_losses_and_reductions(tcore, F, nn):
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    target = np.array([0, 3, 1, 1, 2, 0])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    per = -logp[np.arange(6), target]
    x, t = tcore.tensor(logits), tcore.tensor(target)
    np.testing.assert_allclose(F.cross_entropy(x, t).item(), per.mean(), rtol=1e-5)
    np.testing.assert_allclose(F.cross_entropy(x, t, reduction="sum").item(), per.sum(), rtol=1e-5)
    np.testing.assert_allclose(F.cross_entropy(x, t, reduction="none").numpy(), per, rtol=1e-5)
    np.testing.assert_allclose(nn.CrossEntropyLoss(reduction="sum")(x, t).item(), per.sum(), rtol=1e-5)
    np.testing.assert_allclose(F.nll_loss(F.log_softmax(x, dim=1), t, reduction="none").numpy(), per, rtol=1e-5)
    np.testing.assert_allclose(nn.NLLLoss()(tcore.tensor(logp), t).item(), per.mean(), rtol=1e-5)
    a, b = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal((3, 2)).astype(np.float32)
    np.testing.assert_allclose(F.mse_loss(tcore.tensor(a), tcore.tensor(b), reduction="sum").item(),
                               ((a - b) ** 2).sum(), rtol=1e-5)
    np.testing.assert_allclose(nn.MSELoss(reduction="none")(tcore.tensor(a), tcore.tensor(b)).numpy(), (a - b) ** 2,
                               rtol=1e-5)
    np.testing.assert_allclose(nn.L1Loss()(tcore.tensor(a), tcore.tensor(b)).item(), np.abs(a - b).mean(), rtol=1e-5)
    p = 1 / (1 + np.exp(-a))
    y = (b > 0).astype(np.float32)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(nn.BCELoss()(tcore.tensor(p), tcore.tensor(y)).item(), bce.mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.BCEWithLogitsLoss(reduction="sum")(tcore.tensor(a), tcore.tensor(y)).item(),
                               bce.sum(), rtol=1e-5)
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        F.mse_loss(tcore.tensor(a), tcore.tensor(b), reduction="bogus")
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        nn.CrossEntropyLoss(reduction="bogus")
    with pytest.raises(ValueError, match=r"Expected input batch_size \(6\) to match target batch_size \(2\)"):
        F.cross_entropy(x, tcore.tensor([0, 1]))


def test_functional_conventions(tcore, F):
    x = tcore.tensor([[-1.0, 2.0], [3.0, -4.0]])
    assert F.relu(x).tolist() == [[0.0, 2.0], [3.0, 0.0]]
    y = x.clone()
    F.relu(y, inplace=True)
    assert y.tolist() == [[0.0, 2.0], [3.0, 0.0]]
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        s = F.softmax(x)
    np.testing.assert_allclose(s.sum(1).numpy(), [1, 1], rtol=1e-6)
    assert F.dropout(x, p=0.5, training=False).tolist() == x.tolist()
    assert F.one_hot(tcore.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    assert F.pad(tcore.ones(1, 2), (1, 1)).tolist() == [[0.0, 1.0, 1.0, 0.0]]
    assert F.max_pool2d(tcore.arange(16.0).view(1, 1, 4, 4), 2).flatten().tolist() == [5.0, 7.0, 13.0, 15.0]
    np.testing.assert_allclose(F.normalize(tcore.tensor([[3.0, 4.0]])).numpy(), [[0.6, 0.8]], rtol=1e-6)
    np.testing.assert_allclose(F.cosine_similarity(tcore.tensor([[1.0, 0.0]]), tcore.tensor([[1.0, 1.0]])).numpy(),
                               [2 ** -0.5], rtol=1e-6)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout(x, p=1.5)


def test_init(tcore, nn):
    w = tcore.empty(256, 128)
    nn.init.kaiming_uniform_(w, nonlinearity="relu")
    bound = (6 / 128) ** 0.5
    assert w.abs().max().item() <= bound and w.abs().max().item() > 0.9 * bound
    nn.init.xavier_normal_(w)
    assert abs(w.std().item() - (2 / (256 + 128)) ** 0.5) < 0.005
    nn.init.zeros_(w)
    assert w.abs().sum().item() == 0
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert w.abs().max().item() <= 0.5
    assert nn.init.calculate_gain("relu") == 2 ** 0.5 and nn.init.calculate_gain("tanh") == 5 / 3
    p = nn.Parameter(tcore.ones(2, 2))
    nn.init.normal_(p)  # in place on a leaf that requires grad: no error, as in PyTorch
    assert p.requires_grad and p.is_leaf
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(tcore.ones(3))


def test_max_pool_gradient_goes_to_the_first_maximum(tcore, F):
    x = tcore.tensor([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 0.0, float("nan")]]]], requires_grad=True)
    out = F.max_pool2d(x, 2)
    assert out[0, 0, 0, 0].item() == 3.0 and np.isnan(out[0, 0, 0, 1].item())
    out.sum().backward()
    assert x.grad.tolist() == [[[[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]]]  # first of the tied 3s; the NaN
    torch = _torch()
    if torch is not None:
        tx = torch.tensor(x.detach().numpy(), requires_grad=True)
        torch.nn.functional.max_pool2d(tx, 2).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_max_pool_double_backward(tcore, F):
    x = tcore.tensor(np.random.default_rng(0).permutation(32).reshape(1, 2, 4, 4).astype(np.float64),
                     requires_grad=True)
    (g,) = tcore.autograd.grad((F.max_pool2d(x, 2) ** 2).sum(), x, create_graph=True)
    (gg,) = tcore.autograd.grad(g.sum(), x)
    expected = (g.detach().numpy() != 0) * 2.0  # d/dx of 2*x at the maxima
    np.testing.assert_array_equal(gg.numpy(), expected)
