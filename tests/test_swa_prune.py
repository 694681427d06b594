"""tcore.optim.swa_utils and tcore.nn.utils.prune side by side with torch's, in float64 with
identical weights: AveragedModel (SWA / EMA, avg_fn and multi_avg_fn, use_buffers) after several
updates, update_bn's running statistics, SWALR's lrs step by step; pruning masks, weights, state_dict
keys, forward results and gradients w.r.t. <name>_orig for L1 / Ln / global / custom pruning (ties
chosen as torch's topk chooses them), remove, is_pruned, and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
from tcore.nn.utils import prune as cprune  # noqa: E402
from tcore.optim import swa_utils as cswa  # noqa: E402
from torch.nn.utils import prune as tprune  # noqa: E402
from torch.optim import swa_utils as tswa  # noqa: E402


def _c(a):
    return tcore.tensor(np.asarray(a))


def _t(a):
    return torch.tensor(np.asarray(a))


def _np(x):
    return np.asarray(x.detach().numpy())


def _copy_state(tm, cm):
    """tcore's module gets torch's parameters and buffers (same names and order)."""
    ts, cs = tm.state_dict(), cm.state_dict()
    assert list(ts) == list(cs)
    with tcore.no_grad():
        for k, v in ts.items():
            cs[k].copy_(_c(v.numpy()))


def _assert_state_equal(tm, cm, rtol=1e-12):
    ts, cs = tm.state_dict(), cm.state_dict()
    assert list(ts) == list(cs)
    for k in ts:
        np.testing.assert_allclose(_np(cs[k]), ts[k].numpy(), rtol=rtol, atol=0, err_msg=k)
        assert str(cs[k].dtype).split(".")[-1] == str(ts[k].dtype).split(".")[-1], k


def _bn_models():
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                             torch.nn.Linear(4, 2)).double()
    cm = tcore.nn.Sequential(tcore.nn.Linear(3, 4), tcore.nn.BatchNorm1d(4), tcore.nn.ReLU(),
                             tcore.nn.Linear(4, 2)).double()
    _copy_state(tm, cm)
    return tm, cm


def _train_step(tm, cm, rng):
    """The same perturbation of the parameters and a training forward (moving BN's statistics)."""
    with torch.no_grad(), tcore.no_grad():
        for tp, cp in zip(tm.parameters(), cm.parameters()):
            d = rng.standard_normal(tuple(tp.shape)) * 0.3
            tp.add_(_t(d))
            cp.add_(_c(d))
    x = rng.standard_normal((5, 3))
    tm(_t(x))
    cm(_c(x))


# ---------------------------------------------------------------------------------------------- AveragedModel
AVG_CASES = {
    "swa_default": ({}, {}),
    "swa_avg_fn": ({"avg_fn": tswa.get_swa_avg_fn()}, {"avg_fn": cswa.get_swa_avg_fn()}),
    "swa_multi": ({"multi_avg_fn": tswa.get_swa_multi_avg_fn()}, {"multi_avg_fn": cswa.get_swa_multi_avg_fn()}),
    "ema_avg_fn": ({"avg_fn": tswa.get_ema_avg_fn(0.9)}, {"avg_fn": cswa.get_ema_avg_fn(0.9)}),
    "ema_multi": ({"multi_avg_fn": tswa.get_ema_multi_avg_fn(0.8)},
                  {"multi_avg_fn": cswa.get_ema_multi_avg_fn(0.8)}),
}


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("case", list(AVG_CASES))
def test_averaged_model_as_torch(case, use_buffers):
    rng = np.random.default_rng(1)
    tm, cm = _bn_models()
    tkw, ckw = AVG_CASES[case]
    ta = tswa.AveragedModel(tm, use_buffers=use_buffers, **tkw)
    ca = cswa.AveragedModel(cm, use_buffers=use_buffers, **ckw)
    if case == "swa_multi" and use_buffers:  # both refuse the int64 num_batches_tracked (addcdiv)
        for avg, model in ((ta, tm), (ca, cm)):
            avg.update_parameters(model)
            with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
                avg.update_parameters(model)
        return
    assert ca.module is not cm and ca.module[0].weight is not cm[0].weight
    assert int(ca.n_averaged) == 0 and ca.n_averaged.dtype == tcore.int64
    for i in range(4):
        _train_step(tm, cm, rng)
        ta.update_parameters(tm)
        ca.update_parameters(cm)
        assert int(ca.n_averaged) == int(ta.n_averaged) == i + 1
        _assert_state_equal(ta, ca)
    if not use_buffers:  # the buffers are the model's
        np.testing.assert_array_equal(_np(ca.module[1].running_mean), _np(cm[1].running_mean))
    ta.eval(), ca.eval()
    x = rng.standard_normal((4, 3))
    np.testing.assert_allclose(_np(ca(_c(x))), ta(_t(x)).detach().numpy(), rtol=1e-12)


def test_averaged_model_first_update_copies_and_errors():
    tm, cm = _bn_models()
    ca = cswa.AveragedModel(cm, avg_fn=lambda a, m, n: a * 0)
    with tcore.no_grad():
        cm[0].weight.add_(1.0)
    ca.update_parameters(cm)  # the first call copies, whatever avg_fn is
    np.testing.assert_array_equal(_np(ca.module[0].weight), _np(cm[0].weight))
    ca.update_parameters(cm)
    assert float(ca.module[0].weight.abs().sum()) == 0
    assert list(ca.state_dict())[0] == "n_averaged"
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        cswa.AveragedModel(cm, avg_fn=cswa.get_swa_avg_fn(), multi_avg_fn=cswa.get_swa_multi_avg_fn())
    for fn in (cswa.get_ema_avg_fn, cswa.get_ema_multi_avg_fn):
        with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide a value in \[0,1\]"):
            fn(1.5)


# ---------------------------------------------------------------------------------------------- update_bn
def test_update_bn_as_torch():
    rng = np.random.default_rng(2)
    tm, cm = _bn_models()
    tm[1].momentum = cm[1].momentum = 0.3
    for _ in range(2):
        _train_step(tm, cm, rng)
    tm.eval(), cm.eval()
    batches = [rng.standard_normal((n, 3)) * 2 + 1 for n in (4, 6, 3)]
    t_loader = [_t(batches[0]), (_t(batches[1]), _t(np.zeros(6))), [_t(batches[2])]]
    c_loader = [_c(batches[0]), (_c(batches[1]), _c(np.zeros(6))), [_c(batches[2])]]
    tswa.update_bn(t_loader, tm)
    cswa.update_bn(c_loader, cm)
    _assert_state_equal(tm, cm)
    assert int(cm[1].num_batches_tracked) == 3
    assert cm[1].momentum == 0.3 and not cm.training and not cm[1].training
    cm.train()
    cswa.update_bn(c_loader[:1], cm)
    assert cm.training
    plain = tcore.nn.Linear(2, 2)
    cswa.update_bn([tcore.ones(1, 3)], plain)  # no BatchNorm: the loader is not even read


# ---------------------------------------------------------------------------------------------- SWALR
def _optimizers():
    rng = np.random.default_rng(3)
    w = [rng.standard_normal(3), rng.standard_normal(2)]
    tp = [torch.nn.Parameter(_t(v)) for v in w]
    cp = [tcore.nn.Parameter(_c(v)) for v in w]
    topt = torch.optim.SGD([{"params": [tp[0]]}, {"params": [tp[1]], "lr": 0.2}], lr=0.5)
    copt = tcore.optim.SGD([{"params": [cp[0]]}, {"params": [cp[1]], "lr": 0.2}], lr=0.5)
    return topt, copt


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs,swa_lr", [(5, 0.05), (0, [0.05, 0.01]), (30, [0.3, 0.01])])
def test_swalr_as_torch(strategy, anneal_epochs, swa_lr):
    topt, copt = _optimizers()
    ts = tswa.SWALR(topt, swa_lr=swa_lr, anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    cs = cswa.SWALR(copt, swa_lr=swa_lr, anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    assert [g["swa_lr"] for g in copt.param_groups] == [g["swa_lr"] for g in topt.param_groups]
    np.testing.assert_allclose(cs.get_last_lr(), ts.get_last_lr(), rtol=1e-12)
    for _ in range(20):
        topt.step(), copt.step()
        ts.step(), cs.step()
        np.testing.assert_allclose(cs.get_last_lr(), ts.get_last_lr(), rtol=1e-12)
        np.testing.assert_allclose([g["lr"] for g in copt.param_groups], [g["lr"] for g in topt.param_groups],
                                   rtol=1e-12)
    state = cs.state_dict()
    assert "anneal_func" not in state and "optimizer" not in state and state["_anneal_strategy"] == strategy
    cs.load_state_dict(state)
    assert cs.anneal_func is (cs._cosine_anneal if strategy == "cos" else cs._linear_anneal)


def test_swalr_after_another_scheduler_and_errors():
    topt, copt = _optimizers()
    tsched = torch.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=10)
    csched = tcore.optim.lr_scheduler.CosineAnnealingLR(copt, T_max=10)
    for _ in range(4):
        topt.step(), copt.step()
        tsched.step(), csched.step()
    ts = tswa.SWALR(topt, swa_lr=0.02, anneal_epochs=3)
    cs = cswa.SWALR(copt, swa_lr=0.02, anneal_epochs=3)
    for _ in range(6):
        topt.step(), copt.step()
        ts.step(), cs.step()
        np.testing.assert_allclose(cs.get_last_lr(), ts.get_last_lr(), rtol=1e-12)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        cswa.SWALR(copt, swa_lr=0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        cswa.SWALR(copt, swa_lr=0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got 2.0"):
        cswa.SWALR(copt, swa_lr=0.1, anneal_epochs=2.0)
    with pytest.raises(ValueError, match="swa_lr must have the same length as optimizer.param_groups"):
        cswa.SWALR(copt, swa_lr=[0.1])
    with pytest.warns(UserWarning, match="get_last_lr"):
        cs.get_lr()


# ---------------------------------------------------------------------------------------------- pruning
def _linears(w, out_features=None, in_features=None, conv=False, seed=4):
    rng = np.random.default_rng(seed)
    if conv:
        tm, cm = torch.nn.Conv2d(3, 4, 2).double(), tcore.nn.Conv2d(3, 4, 2).double()
    else:
        o, i = w.shape
        tm, cm = torch.nn.Linear(i, o).double(), tcore.nn.Linear(i, o).double()
    with torch.no_grad(), tcore.no_grad():
        tm.weight.copy_(_t(w))
        cm.weight.copy_(_c(w))
        b = rng.standard_normal(tuple(tm.bias.shape))
        tm.bias.copy_(_t(b))
        cm.bias.copy_(_c(b))
    return tm, cm


def _tied_weight(shape=(5, 8), seed=5):
    """Weights with many equal absolute values, so that which ones are pruned depends on topk's ties."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, 4, size=shape) * rng.choice([-1.0, 1.0], size=shape) * 0.25


def _assert_pruned_same(tm, cm, name="weight", x=None):
    assert list(tm.state_dict()) == list(cm.state_dict())
    assert [n for n, _ in tm.named_parameters()] == [n for n, _ in cm.named_parameters()]
    assert [n for n, _ in tm.named_buffers()] == [n for n, _ in cm.named_buffers()]
    np.testing.assert_array_equal(_np(getattr(cm, name + "_mask")), getattr(tm, name + "_mask").numpy())
    np.testing.assert_array_equal(_np(getattr(cm, name)), getattr(tm, name).detach().numpy())
    assert cprune.is_pruned(cm) and not isinstance(getattr(cm, name), tcore.nn.Parameter)
    if x is not None:
        ty, cy = tm(_t(x)), cm(_c(x))
        np.testing.assert_allclose(_np(cy), ty.detach().numpy(), rtol=1e-12)
        (ty ** 2).sum().backward()
        (cy ** 2).sum().backward()
        np.testing.assert_allclose(_np(getattr(cm, name + "_orig").grad), getattr(tm, name + "_orig").grad.numpy(),
                                   rtol=1e-12, atol=1e-15)
        mask = _np(getattr(cm, name + "_mask"))
        assert np.all(_np(getattr(cm, name + "_orig").grad)[mask == 0] == 0)


@pytest.mark.parametrize("amounts", [(7,), (0.3,), (5, 0.25, 3), (0.5, 0.5), (0, 1.0)])
def test_l1_unstructured_as_torch(amounts):
    w = _tied_weight()
    tm, cm = _linears(w)
    for amount in amounts:
        tprune.l1_unstructured(tm, "weight", amount)
        cprune.l1_unstructured(cm, "weight", amount)
        _assert_pruned_same(tm, cm)
    _assert_pruned_same(tm, cm, x=np.random.default_rng(6).standard_normal((3, 8)))
    hooks = list(cm._forward_pre_hooks.values())
    assert len(hooks) == 1
    if len(amounts) > 1:
        assert isinstance(hooks[0], cprune.PruningContainer) and len(hooks[0]) == len(amounts)
    else:
        assert isinstance(hooks[0], cprune.L1Unstructured)


def test_l1_unstructured_importance_scores_and_prune():
    w = np.random.default_rng(7).standard_normal((4, 6))
    scores = _tied_weight((4, 6), seed=8)
    tm, cm = _linears(w)
    tprune.l1_unstructured(tm, "weight", 9, importance_scores=_t(scores))
    cprune.l1_unstructured(cm, "weight", 9, importance_scores=_c(scores))
    _assert_pruned_same(tm, cm, x=np.ones((2, 6)))
    pruned_t = tprune.L1Unstructured(0.5).prune(_t(scores))
    pruned_c = cprune.L1Unstructured(0.5).prune(_c(scores))
    np.testing.assert_array_equal(_np(pruned_c), pruned_t.numpy())


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured_as_torch(n, dim):
    w = _tied_weight((4, 6), seed=9)
    w[1] = w[0][::-1]  # equal norms along dim 0
    tm, cm = _linears(w)
    tprune.ln_structured(tm, "weight", 0.5, n=n, dim=dim)
    cprune.ln_structured(cm, "weight", 0.5, n=n, dim=dim)
    _assert_pruned_same(tm, cm)
    tprune.l1_unstructured(tm, "weight", 3)  # then unstructured on top,
    cprune.l1_unstructured(cm, "weight", 3)
    tprune.ln_structured(tm, "weight", 1, n=n, dim=dim)  # and structured again over the channels left
    cprune.ln_structured(cm, "weight", 1, n=n, dim=dim)
    _assert_pruned_same(tm, cm, x=np.random.default_rng(10).standard_normal((3, 6)))


def test_ln_structured_conv_as_torch():
    w = np.random.default_rng(11).standard_normal((4, 3, 2, 2))
    tm, cm = _linears(w, conv=True)
    tprune.ln_structured(tm, "weight", 2, n=float("inf"), dim=1)
    cprune.ln_structured(cm, "weight", 2, n=float("inf"), dim=1)
    tprune.ln_structured(tm, "weight", 0.25, n=2, dim=0)
    cprune.ln_structured(cm, "weight", 0.25, n=2, dim=0)
    _assert_pruned_same(tm, cm, x=np.random.default_rng(12).standard_normal((2, 3, 4, 4)))


@pytest.mark.parametrize("amount", [10, 0.35])
def test_global_unstructured_as_torch(amount):
    w1, w2 = _tied_weight((4, 5), seed=13), _tied_weight((3, 4), seed=14)
    (t1, c1), (t2, c2) = _linears(w1), _linears(w2)
    tprune.l1_unstructured(t2, "weight", 2)  # a mask already there is respected
    cprune.l1_unstructured(c2, "weight", 2)
    tparams, cparams = [(t1, "weight"), (t2, "weight"), (t1, "bias")], [(c1, "weight"), (c2, "weight"), (c1, "bias")]
    tprune.global_unstructured(tparams, pruning_method=tprune.L1Unstructured, amount=amount)
    cprune.global_unstructured(cparams, pruning_method=cprune.L1Unstructured, amount=amount)
    for tm, cm in ((t1, c1), (t2, c2)):
        _assert_pruned_same(tm, cm)
    _assert_pruned_same(t1, c1, name="bias")
    x = np.random.default_rng(15).standard_normal((2, 5))
    np.testing.assert_allclose(_np(c2(c1(_c(x)))), t2(t1(_t(x))).detach().numpy(), rtol=1e-12)
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
        cprune.global_unstructured(cparams, pruning_method=cprune.LnStructured, amount=1, n=1, dim=0)
    with pytest.raises(TypeError, match="parameters is not an Iterable"):
        cprune.global_unstructured(3, pruning_method=cprune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match="importance_scores must be of type dict"):
        cprune.global_unstructured(cparams, pruning_method=cprune.L1Unstructured, importance_scores=[1], amount=1)


def test_custom_from_mask_identity_remove():
    w = np.random.default_rng(16).standard_normal((3, 4))
    mask = (np.random.default_rng(17).random((3, 4)) > 0.4).astype(np.float64)
    tm, cm = _linears(w)
    tprune.identity(tm, "bias")
    assert cprune.identity(cm, "bias") is cm
    tprune.custom_from_mask(tm, "weight", _t(mask))
    cprune.custom_from_mask(cm, "weight", _c(mask))
    tprune.custom_from_mask(tm, "weight", _t(mask.T[::-1].T.copy()))
    cprune.custom_from_mask(cm, "weight", _c(mask.T[::-1].T.copy()))
    _assert_pruned_same(tm, cm, x=np.ones((2, 4)))
    _assert_pruned_same(tm, cm, name="bias")
    assert list(cm.state_dict()) == ["bias_orig", "weight_orig", "bias_mask", "weight_mask"]
    for name in ("weight", "bias"):
        tprune.remove(tm, name)
        assert cprune.remove(cm, name) is cm
    assert not cprune.is_pruned(cm) and not tprune.is_pruned(tm)
    assert list(cm.state_dict()) == list(tm.state_dict()) == ["weight", "bias"]
    assert isinstance(cm.weight, tcore.nn.Parameter) and cm.weight.requires_grad
    np.testing.assert_array_equal(_np(cm.weight), tm.weight.detach().numpy())
    with pytest.raises(ValueError, match="Parameter 'weight' of module .* has to be pruned before pruning can be"):
        cprune.remove(cm, "weight")
    seq = tcore.nn.Sequential(tcore.nn.Linear(2, 2), tcore.nn.Linear(2, 2))
    assert not cprune.is_pruned(seq)
    cprune.identity(seq[1], "weight")
    assert cprune.is_pruned(seq)


def test_random_pruning_structure():
    tcore.manual_seed(0)
    cm = tcore.nn.Linear(10, 6).double()
    cprune.random_unstructured(cm, "weight", 0.25)
    assert int((cm.weight_mask == 0).sum()) == 15
    cprune.random_unstructured(cm, "weight", 9)  # 9 more among the 45 left
    assert int((cm.weight_mask == 0).sum()) == 24
    assert np.all(_np(cm.weight)[_np(cm.weight_mask) == 0] == 0)
    cs = tcore.nn.Linear(10, 6).double()
    cprune.random_structured(cs, "weight", 2, dim=0)
    rows = _np(cs.weight_mask).sum(axis=1)
    assert sorted(rows.tolist()) == [0] * 2 + [10] * 4
    cprune.random_structured(cs, "weight", 0.5, dim=1)
    cols = _np(cs.weight_mask).sum(axis=0)
    assert sorted(cols.tolist()) == [0] * 5 + [4] * 5
    cprune.random_structured(cs, "weight", 1, dim=0)  # one of the 4 rows left
    assert sorted(_np(cs.weight_mask).sum(axis=1).tolist()) == [0] * 3 + [5] * 3


@pytest.mark.parametrize("call,exc,match", [
    (lambda p, m: p.l1_unstructured(m, "weight", -1), ValueError,
     r"amount=-1 should either be a float in the range \[0, 1\] or a non-negative integer"),
    (lambda p, m: p.l1_unstructured(m, "weight", 1.5), ValueError,
     r"amount=1.5 should either be a float in the range \[0, 1\] or a non-negative integer"),
    (lambda p, m: p.random_unstructured(m, "weight", "a"), TypeError,
     "Invalid type for amount: a. Must be int or float."),
    (lambda p, m: p.l1_unstructured(m, "weight", 13), ValueError,
     "amount=13 should be smaller than the number of parameters to prune=12"),
    (lambda p, m: p.ln_structured(m, "weight", 5, n=1, dim=0), ValueError,
     "amount=5 should be smaller than the number of parameters to prune=3"),
    (lambda p, m: p.ln_structured(m, "bias", 1, n=1, dim=0), ValueError,
     "Structured pruning can only be applied to multidimensional tensors"),
    (lambda p, m: p.random_structured(m, "weight", 1, dim=2), IndexError, "Invalid index 2 for tensor of size"),
    (lambda p, m: p.l1_unstructured(m, "weight", 1, importance_scores=m.bias), AssertionError,
     "importance_scores should have the same shape as parameter weight"),
])
def test_errors_as_torch(call, exc, match):
    tm, cm = _linears(np.arange(12.0).reshape(3, 4))
    with pytest.raises(exc, match=match):
        call(tprune, tm)
    with pytest.raises(exc, match=match):
        call(cprune, cm)
    # a failed first pruning puts the parameter back (last, as torch's re-registration does)
    assert list(cm.state_dict()) == list(tm.state_dict())
    assert sorted(cm.state_dict()) == ["bias", "weight"]
    assert not cprune.is_pruned(cm) and isinstance(cm.weight, tcore.nn.Parameter)


def test_topk_selection_matches_torch_on_ties():
    rng = np.random.default_rng(18)
    for _ in range(150):
        n = int(rng.integers(1, 400))
        values = rng.integers(0, int(rng.integers(1, 6)), n).astype(np.float64)
        if rng.random() < 0.2:
            values[rng.random(n) < 0.1] = np.nan
        k = int(rng.integers(1, n + 1)) if rng.random() < 0.6 else max(1, n // 64)
        largest = bool(rng.integers(0, 2))
        want = sorted(torch.topk(_t(values), k, largest=largest).indices.tolist())
        got = sorted(cprune._topk_indices(_c(values), k, largest).tolist())
        assert got == want, (n, k, largest)
