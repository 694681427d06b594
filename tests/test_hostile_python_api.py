"""Off the happy path, against torch: the optimizers (hostile hyperparameters and flags, params as
generators, sets, named parameters, duplicates, state_dict round trips continued bit for bit), the
lr schedulers (nan metrics, overflow, fractional epochs), tcore.utils.data (collate of every kind of
sample, hostile loader and sampler arguments, lazily drawn huge samplers, random_split fractions),
tcore.save/tcore.load (adversarial keys, aliasing, requires_grad and Parameters, 0-d bfloat16,
truncated files, map_location forms), gradient clipping with non-finite gradients, GradScaler with
inf/NaN gradients, pruning's amount and norm. Each case runs the same code on tcore and torch and
compares outcomes: the value, or the exception's type and message."""
from __future__ import annotations

import collections
import io
import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.utils.prune  # noqa: E402,F401
import torch.optim.swa_utils  # noqa: E402,F401

import tcore  # noqa: E402
import tcore.nn.utils.prune  # noqa: E402,F401

NAN, INF = float("nan"), float("inf")


def _outcome(fn, lib):
    """('ok', value) or (exception class name, message), tcore's names spelled as torch's."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        name = type(e).__name__
        # tcore's argument errors are both RuntimeError and ValueError/TypeError subclasses
        name = {"ArgumentValueError": "RuntimeError", "ArgumentTypeError": "RuntimeError"}.get(name, name)
        return name, str(e).replace("tcore.", "torch.")


def _same(fn, check_message=True):
    ours, theirs = _outcome(fn, tcore), _outcome(fn, torch)
    if check_message or ours[0] == "ok":
        assert ours == theirs
    else:
        assert ours[0] == theirs[0], (ours, theirs)
    return ours


def _plain(x):
    """A comparable form of tensors and containers: (dtype name, shape, values) for a tensor."""
    if isinstance(x, (tcore.Tensor, torch.Tensor)):
        values = x.float().tolist() if x.dtype in (tcore.bfloat16, torch.bfloat16) else x.tolist()
        return ("T", str(x.dtype).split(".")[-1], tuple(x.shape), values)
    if isinstance(x, dict):
        return (type(x).__name__, [(k, _plain(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_plain(v) for v in x])
    return x


# ------------------------------------------------------------------------------------------ optimizers
OPTIMIZERS = ["SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop",
              "LBFGS"]


def _p(lib, n=1):
    return [lib.zeros(3, requires_grad=True) for _ in range(n)]


HOSTILE = [
    ("SGD", dict(lr=NAN)), ("SGD", dict(lr=-INF)), ("SGD", dict(momentum=-1)), ("SGD", dict(weight_decay=-0.1)),
    ("SGD", dict(nesterov=True)), ("SGD", dict(nesterov=True, momentum=0.9, dampening=0.1)),
    ("SGD", dict(foreach=True, fused=True)), ("SGD", dict(fused=True)), ("SGD", dict(foreach=False)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=2)), ("Adam", dict(lr=NAN)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, NAN))), ("Adam", dict(betas=(0, 0.9))), ("Adam", dict(eps=-1e-8)),
    ("Adam", dict(weight_decay=-1)), ("Adam", dict(fused=True, foreach=True)), ("Adam", dict(fused=False)),
    ("Adam", dict(decoupled_weight_decay=True)), ("AdamW", dict(foreach=True)), ("AdamW", dict(betas=(0.9, 1.0))),
    ("Adagrad", dict(lr=-1)), ("Adagrad", dict(fused=True, foreach=True)), ("Adadelta", dict(rho=NAN)),
    ("Adamax", dict(eps=NAN)), ("ASGD", dict(weight_decay=NAN)), ("NAdam", dict(momentum_decay=-1)),
    ("RAdam", dict(betas=(-0.1, 0.9))), ("RMSprop", dict(alpha=NAN)), ("Rprop", dict(etas=(NAN, 1.2))),
    ("Rprop", dict(etas=(0.5, 1.0))), ("LBFGS", dict(lr=-1)), ("LBFGS", dict(max_iter=0)),
]


@pytest.mark.parametrize("name, kwargs", HOSTILE, ids=[f"{n}-{i}" for i, (n, _) in enumerate(HOSTILE)])
def test_hostile_hyperparameters_as_torch(name, kwargs):
    """torch's ValueError/RuntimeError and message, or the same defaults and param_group keys."""
    _same(lambda lib: sorted((k, v) for k, v in getattr(lib.optim, name)(_p(lib), **kwargs).param_groups[0].items()
                             if k != "params"))


PARAM_CASES = {
    "generator": lambda lib, O: len(O((p for p in _p(lib, 2))).param_groups[0]["params"]),
    "empty": lambda lib, O: O([]),
    "empty generator": lambda lib, O: O(iter([])),
    "a tensor": lambda lib, O: O(lib.zeros(3, requires_grad=True)),
    "a set in a group": lambda lib, O: O([{"params": set(_p(lib))}]),
    "a set": lambda lib, O: len(O(set(_p(lib))).param_groups[0]["params"]),
    "duplicates across groups": lambda lib, O: (lambda p: O([{"params": [p]}, {"params": [p]}]))(_p(lib)[0]),
    "a non-leaf": lambda lib, O: O([_p(lib)[0] * 2]),
    "a non-leaf that retains grad": lambda lib, O: (lambda t: (t.retain_grad(), len(O([t]).param_groups))[1])(
        _p(lib)[0] * 2),
    "not a tensor": lambda lib, O: O([1.0]),
    "a group without params": lambda lib, O: O([{"lr": 0.1}]),
    "named": lambda lib, O: O([("a", _p(lib)[0]), ("b", _p(lib)[0])]).state_dict()["param_groups"][0]["param_names"],
    "named and unnamed": lambda lib, O: O([("a", _p(lib)[0]), _p(lib)[0]]),
    "named group then unnamed": lambda lib, O: O([{"params": [("a", _p(lib)[0])]}, {"params": _p(lib)}]),
    "add_param_group list": lambda lib, O: O(_p(lib)).add_param_group(_p(lib)),
    "add_param_group duplicate": lambda lib, O: (lambda o: o.add_param_group({"params": o.param_groups[0]["params"]}))(
        O(_p(lib))),
}


@pytest.mark.parametrize("case", list(PARAM_CASES))
@pytest.mark.parametrize("name", ["SGD", "Adam", "Rprop", "LBFGS"])
def test_params_argument_as_torch(name, case):
    _same(lambda lib: PARAM_CASES[case](lib, lambda params: getattr(lib.optim, name)(params, lr=0.1)))


@pytest.mark.filterwarnings("ignore:optimizer contains a parameter group with duplicate parameters")
def test_param_groups_kept_warned_and_indexed_as_torch():
    """add_param_group keeps the caller's dict (completed), warns of a duplicate parameter, and
    state_dict() indexes parameters by position as torch's (a repeated one by its first)."""
    for lib in (tcore, torch):
        p, q = _p(lib, 2)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        group = {"params": [q, q, p.new_zeros(1).requires_grad_()], "lr": 0.5, "name": "head"}
        with pytest.warns(UserWarning, match="duplicate parameters"):
            opt.add_param_group(group)
        assert opt.param_groups[1] is group and group["momentum"] == 0.9 and group["name"] == "head"
    sd = {lib: lib.optim.SGD([{"params": [x, x]}, {"params": [y]}], lr=0.1).state_dict()["param_groups"]
          for lib in (tcore, torch) for x, y in [_p(lib, 2)]}
    assert [g["params"] for g in sd[tcore]] == [g["params"] for g in sd[torch]] == [[1, 1], [2]]


def test_state_is_a_defaultdict_and_load_keeps_foreign_state():
    for lib in (tcore, torch):
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        assert opt.state[p] == {}
        sd = opt.state_dict()
        sd["state"]["extra"] = {"note": 1}
        sd["param_groups"][0]["name"] = "enc"
        opt2 = lib.optim.SGD([lib.ones(3, requires_grad=True)], lr=0.5)
        opt2.load_state_dict(sd)
        sd["param_groups"][0]["lr"] = 99.0  # the loaded groups are copies
        assert opt2.state["extra"] == {"note": 1}
        assert opt2.param_groups[0]["lr"] == 0.1 and opt2.param_groups[0]["name"] == "enc"


# the update of one step from the same weights and gradients: exact where no sqrt is taken (tcore's
# sqrt is correctly rounded, torch's CPU one is within 1 ulp), else within a few ulps
RUNS = [
    ("SGD", dict(lr=0.1), True), ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1), True),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5, maximize=True), True),
    ("Adamax", dict(lr=0.1, weight_decay=0.1), True), ("ASGD", dict(lr=0.1, t0=2), True),
    ("Rprop", dict(lr=0.1, maximize=True), True), ("Adam", dict(lr=0.1), False),
    ("Adam", dict(lr=0.1, amsgrad=True, weight_decay=0.1, maximize=True), False),
    ("AdamW", dict(lr=0.1, amsgrad=True), False), ("Adagrad", dict(lr=0.1, lr_decay=0.1), False),
    ("Adadelta", dict(), False), ("NAdam", dict(lr=0.1), False), ("RAdam", dict(lr=0.1), False),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True), False),
]
_rng = np.random.default_rng(7)
_INIT = [_rng.standard_normal(s) for s in [(5,), (2, 3)]]


def _grad(a, k):
    return (2 * a * np.cos(a * (k + 1)) + 0.3 * np.sign(a)).astype(a.dtype)


def _trajectory(lib, name, kwargs, dtype, steps=6, resume_at=None, through_file=False):
    """Parameter values after each step; at resume_at the optimizer's state_dict goes (through
    lib.save/lib.load when through_file) into a fresh optimizer over fresh parameters."""
    params = [lib.tensor(a.astype(dtype), requires_grad=True) for a in _INIT]
    opt = getattr(lib.optim, name)(params, **kwargs)
    out = []
    for k in range(steps):
        if k == resume_at:
            sd = opt.state_dict()
            if through_file:
                buf = io.BytesIO()
                lib.save(sd, buf)
                buf.seek(0)
                sd = lib.load(buf)
            params = [lib.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
            opt = getattr(lib.optim, name)(params, **dict(kwargs, lr=123.0))
            opt.load_state_dict(sd)
        for p in params:
            p.grad = lib.tensor(_grad(p.detach().numpy().copy(), k))
        opt.step()
        out.append([p.detach().numpy().copy() for p in params])
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, kwargs, exact", RUNS, ids=[f"{r[0]}-{i}" for i, r in enumerate(RUNS)])
def test_resumed_trajectory_bit_for_bit(name, kwargs, exact, dtype):
    """A run resumed from its state_dict in a fresh optimizer matches torch's resumed run (bit for
    bit where no sqrt is taken), is the same through tcore.save/tcore.load, and is bit for bit the
    run that never stopped wherever torch's is (loading casts 0-d state such as NAdam's mu_product
    to the parameters' dtype, in both)."""
    resumed = _trajectory(tcore, name, kwargs, dtype, resume_at=3)
    theirs = _trajectory(torch, name, kwargs, dtype, resume_at=3)
    for a, b in zip(resumed, theirs):
        for x, y in zip(a, b):
            if exact:
                np.testing.assert_array_equal(x, y)
            else:
                np.testing.assert_array_max_ulp(x, y, maxulp=64)
    for a, b in zip(resumed, _trajectory(tcore, name, kwargs, dtype, resume_at=3, through_file=True)):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)

    def unchanged(lib):
        return all(np.array_equal(x, y) for a, b in zip(_trajectory(lib, name, kwargs, dtype),
                                                         _trajectory(lib, name, kwargs, dtype, resume_at=3))
                   for x, y in zip(a, b))
    assert unchanged(tcore) == unchanged(torch)


def test_adam_first_steps_are_exactly_lr():
    """Adam's first steps move each weight by lr exactly (in float32 too), as torch's."""
    for name in ("Adam", "AdamW"):
        got = {}
        for lib in (tcore, torch):
            p = lib.tensor(1.0, requires_grad=True)
            opt = getattr(lib.optim, name)([p], lr=0.1)
            for _ in range(2):
                p.grad = lib.tensor(0.5)
                opt.step()
            got[lib] = p.item()
        assert got[tcore] == got[torch]


def test_fused_adam_is_close_and_keeps_a_float32_step():
    params = [tcore.tensor(_INIT[1].astype(np.float32), requires_grad=True)]
    opt = tcore.optim.Adam(params, lr=0.1, fused=True)
    ref = torch.tensor(_INIT[1].astype(np.float32), requires_grad=True)
    topt = torch.optim.Adam([ref], lr=0.1)
    for k in range(3):
        params[0].grad = tcore.tensor(_grad(params[0].detach().numpy(), k))
        ref.grad = torch.tensor(_grad(ref.detach().numpy(), k))
        opt.step()
        topt.step()
    assert opt.state[params[0]]["step"].dtype == tcore.float32
    np.testing.assert_allclose(params[0].detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------ schedulers
def _schedule(make, steps=10, metric=None, epochs=None, resume_at=None):
    def run(lib):
        opt = lib.optim.SGD([{"params": [lib.zeros(2, requires_grad=True)]} for _ in range(2)], lr=0.1, momentum=0.9)
        sched = make(lib.optim.lr_scheduler, opt)
        out = [tuple(sched.get_last_lr())]
        for k in range(steps):
            opt.step()
            if k == resume_at:
                state = sched.state_dict()
                opt2 = lib.optim.SGD([{"params": [lib.zeros(2, requires_grad=True)]} for _ in range(2)], lr=0.1,
                                     momentum=0.9)
                opt2.load_state_dict(opt.state_dict())
                sched = make(lib.optim.lr_scheduler, opt2)
                sched.load_state_dict(state)
                opt = opt2
            if metric is not None:
                sched.step(metric(k))
            elif epochs is not None:
                sched.step(epochs[k])
            else:
                sched.step()
            out.append(tuple(sched.get_last_lr()) + tuple(g["lr"] for g in opt.param_groups))
        return out
    return run


SCHEDULES = {
    "plateau-nan": (lambda S, o: S.ReduceLROnPlateau(o, patience=1), dict(metric=lambda k: NAN)),
    "plateau-nan-late": (lambda S, o: S.ReduceLROnPlateau(o, patience=0, cooldown=1, min_lr=[0.01, 0.05]),
                         dict(metric=lambda k: 1.0 if k < 3 else NAN)),
    "plateau-inf-max": (lambda S, o: S.ReduceLROnPlateau(o, mode="max", patience=0, threshold_mode="abs"),
                        dict(metric=lambda k: INF)),
    "onecycle-overflow": (lambda S, o: S.OneCycleLR(o, 1.0, total_steps=5), dict(steps=8)),
    "onecycle-epochs-overflow": (lambda S, o: S.OneCycleLR(o, 1.0, epochs=2, steps_per_epoch=2), dict(steps=6)),
    "onecycle-zero": (lambda S, o: S.OneCycleLR(o, 1.0, total_steps=0), {}),
    "onecycle-pct-int": (lambda S, o: S.OneCycleLR(o, 1.0, total_steps=12, pct_start=1), {}),
    "warm-restarts-fractional": (lambda S, o: S.CosineAnnealingWarmRestarts(o, 2, 2, 0.01),
                                 dict(epochs=[0.5, 1.25, 1.99, 2.0, 2.5, 5.9, 6.0, 13.7, 0.3, 100.5])),
    "warm-restarts-negative": (lambda S, o: S.CosineAnnealingWarmRestarts(o, 3), dict(epochs=[-0.5] * 10)),
    "warm-restarts-T0-float": (lambda S, o: S.CosineAnnealingWarmRestarts(o, 3.0), {}),
    "chained": (lambda S, o: S.ChainedScheduler([S.ExponentialLR(o, 0.9), S.StepLR(o, 3, 0.5)]), {}),
    "sequential-nested": (lambda S, o: S.SequentialLR(o, [S.ChainedScheduler([S.ConstantLR(o, 0.5, 2),
                                                                               S.ExponentialLR(o, 0.9)]),
                                                          S.CosineAnnealingLR(o, 4)], [4]), {}),
    "cyclic-exp-range": (lambda S, o: S.CyclicLR(o, [0.01, 0.02], 0.1, 2, 3, mode="exp_range", gamma=0.9), {}),
    "swalr": (lambda S, o: torch_or_tcore(o).optim.swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=3,
                                                                   anneal_strategy="linear"), {}),
}


def torch_or_tcore(optimizer):
    return torch if isinstance(optimizer, torch.optim.Optimizer) else tcore


@pytest.mark.parametrize("resume_at", [None, 3])
@pytest.mark.parametrize("case", list(SCHEDULES))
def test_schedulers_as_torch(case, resume_at):
    make, kw = SCHEDULES[case]
    _same(_schedule(make, resume_at=resume_at, **kw))


# ------------------------------------------------------------------------------------------------ data
NT = collections.namedtuple("NT", "x y")
COLLATE = {
    "nested": lambda lib: [{"a": lib.tensor([i, i]), "b": (i, float(i), f"x{i}"), "c": np.array([i, i + 0.5]),
                            "d": {"e": [i, True]}} for i in range(3)],
    "namedtuple": lambda lib: [NT(1, 2.0), NT(3, 4.0)],
    "strings": lambda lib: ["a", "b"],
    "ints and a float": lambda lib: [1, 2.5],  # (torch.tensor infers float: nothing truncated)
    "bools": lambda lib: [True, False],
    "numpy float32 scalars": lambda lib: [np.float32(1), np.float32(2)],
    "numpy ints": lambda lib: [np.int32(1), np.int64(2)],
    "numpy 0-d": lambda lib: [np.array(1.5), np.array(2.5)],
    "numpy float16": lambda lib: [np.ones(2, np.float16), np.zeros(2, np.float16)],
    "numpy non-contiguous": lambda lib: [np.arange(6).reshape(2, 3).T] * 2,
    "numpy strings": lambda lib: [np.array(["a"]), np.array(["b"])],
    "numpy objects": lambda lib: [np.array([object()]), np.array([1])],
    "tuples of tensors": lambda lib: [(lib.ones(1), 1), (lib.zeros(1), 2)],
    "lists of str": lambda lib: [[1, "a"], [2, "b"]],
    "OrderedDict": lambda lib: [collections.OrderedDict(b=1, a=2), collections.OrderedDict(b=3, a=4)],
    "ragged lists": lambda lib: [[1, 2], [3]],
    "None": lambda lib: [None, None],
    "complex": lambda lib: [1 + 2j, 3j],
    "sets": lambda lib: [{1, 2}, {3, 4}],
}


@pytest.mark.parametrize("case", list(COLLATE))
def test_default_collate_as_torch(case):
    _same(lambda lib: (lambda out: (type(out).__name__, _plain(out)))(
        lib.utils.data.default_collate(COLLATE[case](lib))))


def _tensor_dataset(lib, n=5):
    return lib.utils.data.TensorDataset(lib.arange(n), lib.arange(n) * 10)


LOADER = [dict(batch_size=0), dict(batch_size=-1), dict(batch_size=2.0), dict(batch_size=True), dict(batch_size=None),
          dict(batch_size=None, drop_last=True), dict(batch_size=2, drop_last=True),
          dict(batch_size=10, drop_last=True),
          dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
          dict(shuffle=True, sampler=[0, 1]), dict(batch_sampler=[[0, 1], [2]], batch_size=2),
          dict(batch_sampler=[[4, 0], [2]]), dict(sampler=[4, 3, 1], batch_size=2),
          dict(collate_fn=lambda b: len(b), batch_size=2)]


@pytest.mark.parametrize("kwargs", LOADER, ids=[str(k) for k in LOADER])
def test_dataloader_arguments_as_torch(kwargs):
    _same(lambda lib: (lambda dl: ([_plain(b) for b in dl], len(dl)))(
        lib.utils.data.DataLoader(_tensor_dataset(lib), **kwargs)))


def _iterable(lib, with_len):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(5))
    if with_len:
        Stream.__len__ = lambda self: 5
    return Stream()


DATA_CASES = {
    "RandomSampler num_samples=0": lambda lib, D: len(D.RandomSampler(range(5), num_samples=0)),
    "RandomSampler num_samples<0": lambda lib, D: len(D.RandomSampler(range(5), num_samples=-1)),
    "RandomSampler num_samples=2**62": lambda lib, D: len(D.RandomSampler(range(5), num_samples=2 ** 62)),
    "RandomSampler float num_samples": lambda lib, D: len(D.RandomSampler(range(5), num_samples=3.0)),
    "RandomSampler empty": lambda lib, D: D.RandomSampler(range(0)),
    "Weighted num_samples=0": lambda lib, D: D.WeightedRandomSampler([1, 2], 0),
    "Weighted num_samples=True": lambda lib, D: D.WeightedRandomSampler([1, 2], True),
    "Weighted 2-d": lambda lib, D: D.WeightedRandomSampler([[1, 2]], 1),
    "Weighted all zero": lambda lib, D: list(D.WeightedRandomSampler([0, 0, 0], 2)),
    "Weighted too many": lambda lib, D: list(D.WeightedRandomSampler([1, 0, 0], 2, replacement=False)),
    "BatchSampler 0": lambda lib, D: D.BatchSampler(range(5), 0, False),
    "BatchSampler drop_last=1": lambda lib, D: D.BatchSampler(range(5), 2, 1),
    "random_split fractions": lambda lib, D: [len(s) for s in D.random_split(range(7), [0.2, 0.3, 0.5])],
    "random_split tenths": lambda lib, D: [len(s) for s in D.random_split(range(5), [0.1] * 10)],
    "random_split negative fraction": lambda lib, D: D.random_split(range(5), [-0.5, 1.5]),
    "random_split not summing": lambda lib, D: D.random_split(range(5), [0.5, 0.6]),
    "random_split lengths": lambda lib, D: D.random_split(range(5), [3, 3]),
    "Subset negative": lambda lib, D: _plain(D.Subset(_tensor_dataset(lib), [0, 2, 4])[-1]),
    "Subset out of range": lambda lib, D: D.Subset(_tensor_dataset(lib), [0, 2, 4])[3],
    "Subset keeps its indices": lambda lib, D: type(D.Subset(_tensor_dataset(lib), range(3)).indices).__name__,
    "ConcatDataset negative": lambda lib, D: D.ConcatDataset([[1, 2], [3, 4, 5]])[-1],
    "ConcatDataset too negative": lambda lib, D: D.ConcatDataset([[1, 2], [3, 4, 5]])[-6],
    "ConcatDataset empty": lambda lib, D: D.ConcatDataset([]),
    "ConcatDataset of a stream": lambda lib, D: D.ConcatDataset([[1], _iterable(lib, True)]),
    "IterableDataset len": lambda lib, D: len(_iterable(lib, False)),
    "loader of a stream len": lambda lib, D: len(D.DataLoader(_iterable(lib, False))),
    "loader of a sized stream": lambda lib, D: (len(D.DataLoader(_iterable(lib, True), batch_size=2)),
                                                [b.tolist() for b in D.DataLoader(_iterable(lib, True), batch_size=2,
                                                                                  drop_last=True)]),
    "loader of a stream, shuffled": lambda lib, D: D.DataLoader(_iterable(lib, True), shuffle=True),
    "ChainDataset len": lambda lib, D: len(D.ChainDataset([_iterable(lib, True), _iterable(lib, False)])),
}


@pytest.mark.parametrize("case", list(DATA_CASES))
def test_data_utilities_as_torch(case):
    _same(lambda lib: DATA_CASES[case](lib, lib.utils.data))


def test_tensor_dataset_checks():
    """A size mismatch is refused with torch's message (a ValueError: torch's is an AssertionError);
    no tensors at all is accepted, as torch's; a 0-d tensor has no rows (IndexError)."""
    for lib in (tcore, torch):
        with pytest.raises((ValueError, AssertionError), match="Size mismatch between tensors"):
            lib.utils.data.TensorDataset(lib.zeros(2), lib.zeros(3))
        assert lib.utils.data.TensorDataset().tensors == ()
        with pytest.raises(IndexError):
            lib.utils.data.TensorDataset(lib.tensor(1.0))


def test_weighted_sampler_bad_weights_refused():
    """NaN, negative and infinite weights are refused when drawing (torch's message differs: tcore's
    multinomial words it as torch's CUDA one)."""
    for weights in ([NAN, 1, 1], [-1, 1, 1], [INF, 1, 1]):
        for lib in (tcore, torch):
            with pytest.raises(RuntimeError):
                list(lib.utils.data.WeightedRandomSampler(weights, 2))


def test_random_split_warns_of_an_empty_split():
    for lib in (tcore, torch):
        with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
            lib.utils.data.random_split(range(1), [0.5, 0.5])


def test_huge_random_samplers_are_drawn_lazily():
    """num_samples far beyond memory: the first indices come at once (torch's lazy draws), also
    through a DataLoader over a TensorDataset."""
    D = tcore.utils.data
    assert 0 <= next(iter(D.RandomSampler(range(5), num_samples=2 ** 62))) < 5
    assert 0 <= next(iter(D.RandomSampler(range(5), replacement=True, num_samples=2 ** 62))) < 5
    ds = _tensor_dataset(tcore)
    batch = next(iter(D.DataLoader(ds, batch_size=2, sampler=D.RandomSampler(ds, num_samples=2 ** 62))))
    assert isinstance(batch, list) and batch[0].shape == (2,)
    counts = collections.Counter(D.RandomSampler(range(4), num_samples=10, generator=tcore.Generator().manual_seed(0)))
    assert sorted(counts) == [0, 1, 2, 3] and sum(counts.values()) == 10 and set(counts.values()) <= {2, 3}


def test_shuffling_is_reproducible_and_the_same_on_every_path():
    """The same seed gives the same batches, over a TensorDataset (batched by indexing) and over a
    list (sample by sample); each epoch draws a new order."""
    D = tcore.utils.data

    def epochs(data):
        loader = D.DataLoader(data, batch_size=3, shuffle=True, generator=tcore.Generator().manual_seed(42))
        return [[(b[0] if isinstance(b, list) else b).tolist() for b in loader] for _ in range(2)]

    fast, slow = epochs(D.TensorDataset(tcore.arange(10))), epochs(list(range(10)))
    assert fast == slow == epochs(list(range(10)))
    assert fast[0] != fast[1] and sorted(sum(fast[0], [])) == list(range(10))
    tcore.manual_seed(3)
    first = [b.tolist() for b in D.DataLoader(list(range(10)), batch_size=4, shuffle=True)]
    tcore.manual_seed(3)
    assert [b.tolist() for b in D.DataLoader(list(range(10)), batch_size=4, shuffle=True)] == first


# ------------------------------------------------------------------------------------------ save/load
def _round_trip(make, post=_plain):
    def run(lib):
        buf = io.BytesIO()
        lib.save(make(lib), buf)
        buf.seek(0)
        return post(lib.load(buf))
    return run


def _values_only(x):
    """_plain without the container types (tcore gives a flat state dict back as an OrderedDict)."""
    if isinstance(x, dict):
        return {k: _values_only(v) for k, v in x.items()}
    return _plain(x)


KEYS = ["é中文😀", "a.b.c", "a/b", "a\0b", "", "x" * 5000, "__tensor__", "__metadata__", '{"a": 1}', "a#1", "tensor"]


@pytest.mark.parametrize("tree", [False, True])
def test_adversarial_keys_round_trip(tree):
    def make(lib):
        obj = {k: lib.arange(i + 1) for i, k in enumerate(KEYS)}
        if tree:
            obj["nested"] = {"__metadata__": [lib.ones(1), {"": lib.zeros(2)}], "n": 1}
        return obj
    _same(_round_trip(make, _values_only))


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_shapes_and_strides_round_trip(dtype):
    def make(lib):
        dt = getattr(lib, dtype)
        grid = lib.tensor([[1, 0, 3], [4, 5, 0]]).to(dt)
        return {"grid": grid, "scalar": lib.tensor(3).to(dt), "empty": lib.zeros(0, 3, dtype=dt),
                "transposed": grid.t(), "strided": grid[:, ::2], "expanded": grid[0].expand(3, 3),
                "list": [lib.tensor(1).to(dt), lib.zeros(2, 0, dtype=dt)]}
    _same(_round_trip(make, _values_only))


def test_aliasing_requires_grad_and_parameters_come_back_as_torch():
    def make(lib):
        base = lib.arange(6.)
        return {"a": base, "b": base[2:], "c": base, "d": base.view(2, 3).t(), "n": [base[1:3], 5],
                "w": lib.nn.Parameter(lib.ones(2)), "g": lib.ones(3, requires_grad=True), "f": lib.ones(1)}

    def post(out):
        out["a"][3] = 100.0
        return ([_plain(out[k]) for k in "abd"], _plain(out["n"][0]), out["a"] is out["c"],
                [(type(out[k]).__name__, out[k].requires_grad, out[k].is_leaf) for k in "wgf"])
    _same(_round_trip(make, post))


TRUNCATIONS = [0, 1, 7, 8, 9, 20, 100, 300, -1, -8]


@pytest.mark.parametrize("cut", TRUNCATIONS)
def test_truncated_or_corrupt_files_raise_cleanly(cut):
    buf = io.BytesIO()
    tcore.save({"a": tcore.arange(100.0), "b": [1, 2]}, buf)
    data = buf.getvalue()
    with pytest.raises(RuntimeError, match="safetensors"):
        tcore.load(io.BytesIO(data[:cut]))
    broken = bytearray(data)
    broken[0:8] = (2 ** 63).to_bytes(8, "little")  # a header longer than the file
    with pytest.raises(RuntimeError, match="safetensors"):
        tcore.load(io.BytesIO(bytes(broken)))


def _load_with(lib, map_location):
    buf = io.BytesIO()
    lib.save({"a": lib.ones(2)}, buf)
    buf.seek(0)
    return _values_only(lib.load(buf, map_location=map_location))


@pytest.mark.parametrize("location", ["cpu", "device", {"cuda:0": "cpu"}, "function"])
def test_map_location_forms_as_torch(location):
    def run(lib):
        where = {"device": lib.device("cpu"), "function": lambda storage, loc: storage}.get(location, location) \
            if isinstance(location, str) else location
        return _load_with(lib, where)
    _same(run)


def test_save_to_a_missing_folder_and_a_bad_device_refused(tmp_path):
    _same(lambda lib: lib.save(lib.ones(1), str(tmp_path / "missing" / "x.pt")))
    with pytest.raises(RuntimeError):
        _load_with(tcore, "bogus")


# ---------------------------------------------------------------------------------------- clipping
GRADS = {"plain": [[3.0, 4.0], [1.0, -2.0]], "nan": [[NAN, 1.0], [1.0, 1.0]], "inf": [[INF, 1.0], [1.0]],
         "-inf": [[-INF], [2.0]], "zeros": [[0.0, 0.0]], "tiny": [[1e-30, 1e-30]]}


def _with_grads(lib, grads):
    params = []
    for g in grads:
        p = lib.zeros(len(g), requires_grad=True)
        p.grad = lib.tensor(g)
        params.append(p)
    return params


def _floats(values):
    return [v if v == v else "nan" for v in values]


@pytest.mark.parametrize("error_if_nonfinite", [False, True])
@pytest.mark.parametrize("norm_type", [2.0, 1, INF, -INF, 0, 0.5, -1, 3, "inf", NAN])
@pytest.mark.parametrize("grads", list(GRADS))
def test_clip_grad_norm_as_torch(grads, norm_type, error_if_nonfinite):
    def run(lib):
        params = _with_grads(lib, GRADS[grads])
        total = lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type, error_if_nonfinite=error_if_nonfinite)
        return _floats([total.item()]), [_floats(p.grad.tolist()) for p in params], tuple(total.shape)
    ours, theirs = _outcome(run, tcore), _outcome(run, torch)
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        assert ours[1][0] == pytest.approx(theirs[1][0], rel=1e-6, nan_ok=True)
        for a, b in zip(ours[1][1], theirs[1][1]):
            assert a == pytest.approx(b, rel=1e-6, nan_ok=True)
    else:
        assert ours == theirs


CLIP_CASES = {
    "value nan": lambda lib: [_floats(p.grad.tolist()) for p in (lambda ps: (
        lib.nn.utils.clip_grad_value_(ps, 0.5), ps)[1])(_with_grads(lib, GRADS["nan"]))],
    "value inf bound": lambda lib: [p.grad.tolist() for p in (lambda ps: (
        lib.nn.utils.clip_grad_value_(ps, INF), ps)[1])(_with_grads(lib, GRADS["inf"]))],
    "max_norm 0": lambda lib: [p.grad.tolist() for p in (lambda ps: (
        lib.nn.utils.clip_grad_norm_(ps, 0), ps)[1])(_with_grads(lib, GRADS["plain"]))],
    "max_norm nan": lambda lib: [_floats(p.grad.tolist()) for p in (lambda ps: (
        lib.nn.utils.clip_grad_norm_(ps, NAN), ps)[1])(_with_grads(lib, GRADS["plain"]))],
    "empty list": lambda lib: _plain(lib.nn.utils.clip_grad_norm_([], 1.0)),
    "empty generator": lambda lib: _plain(lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)),
    "no gradients": lambda lib: _plain(lib.nn.utils.clip_grad_norm_([lib.zeros(2, requires_grad=True)], 1.0)),
}


@pytest.mark.parametrize("case", list(CLIP_CASES))
def test_clipping_edges_as_torch(case):
    _same(CLIP_CASES[case])


# ------------------------------------------------------------------------------------------------- amp
def _scaled_steps(grads, kwargs=None, resume_at=None):
    def run(lib):
        p = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        scaler = lib.amp.GradScaler("cpu", **(kwargs or {}))
        out = []
        for k, g in enumerate(grads):
            if k == resume_at:
                state = scaler.state_dict()
                scaler = lib.amp.GradScaler("cpu")
                scaler.load_state_dict(state)
            scaler.scale((p * lib.tensor(g)).sum()).backward()
            scaler.step(opt)
            scaler.update()
            out.append((scaler.get_scale(), _floats(p.tolist()), scaler.state_dict()["_growth_tracker"]))
            opt.zero_grad()
        return out
    return run


AMP = {
    "inf and nan skip the step and back off": (
        [[1.0, 2.0], [INF, 1.0], [NAN, 0.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]], dict(init_scale=4.0,
                                                                                   growth_interval=2), None),
    "resumed from a state_dict": ([[1.0, 2.0], [INF, 1.0], [1.0, 1.0], [1.0, 1.0]],
                                  dict(init_scale=4.0, growth_interval=2), 2),
    "growth stops short of inf": ([[1e-10, 1e-10]] * 3, dict(init_scale=3e38, growth_interval=1), None),
    "overflowing scaled loss": ([[1e38, 1.0]] * 3, None, None),
    "zero scale": ([[1.0, 2.0]] * 2, dict(init_scale=0.0), None),
    "bad growth factor": ([[1.0]], dict(growth_factor=1.0), None),
    "bad backoff factor": ([[1.0]], dict(backoff_factor=1.0), None),
}


@pytest.mark.parametrize("case", list(AMP))
def test_grad_scaler_as_torch(case):
    grads, kwargs, resume_at = AMP[case]
    _same(_scaled_steps(grads, kwargs, resume_at))


def _scaler_setup(lib, dtype=None):
    p = lib.zeros(2, requires_grad=True, dtype=dtype or lib.float32)
    return p, lib.optim.SGD([p], lr=0.1), lib.amp.GradScaler("cpu", init_scale=4.0)


AMP_MISUSE = {
    "unscale_ twice": lambda lib: (lambda p, o, s: (s.scale(p.sum()).backward(), s.unscale_(o), s.unscale_(o)))(
        *_scaler_setup(lib)),
    "unscale_ after step": lambda lib: (lambda p, o, s: (s.scale(p.sum()).backward(), s.step(o), s.unscale_(o)))(
        *_scaler_setup(lib)),
    "step twice": lambda lib: (lambda p, o, s: (s.scale(p.sum()).backward(), s.step(o), s.step(o)))(
        *_scaler_setup(lib)),
    "step before scale": lambda lib: (lambda p, o, s: (p.sum().backward(), s.step(o)))(*_scaler_setup(lib)),
    "unscale_ before scale": lambda lib: (lambda p, o, s: (p.sum().backward(), s.unscale_(o)))(*_scaler_setup(lib)),
    "update before scale": lambda lib: _scaler_setup(lib)[2].update(),
    "update without a step": lambda lib: (lambda s: (s.scale(lib.ones(1)), s.update()))(_scaler_setup(lib)[2]),
    "float16 gradients": lambda lib: (lambda p, o, s: (s.scale(p.sum()).backward(), s.unscale_(o)))(
        *_scaler_setup(lib, lib.float16)),
    "closure": lambda lib: (lambda p, o, s: (s.scale(p.sum()).backward(), s.step(o, closure=lambda: 1.0)))(
        *_scaler_setup(lib)),
    "new_scale of 2 elements": lambda lib: (lambda s: (s.scale(lib.ones(1)), s.update(lib.tensor([3.0, 4.0]))))(
        _scaler_setup(lib)[2]),
    "new_scale requiring grad": lambda lib: (lambda s: (s.scale(lib.ones(1)), s.update(
        lib.tensor(3.0, requires_grad=True))))(_scaler_setup(lib)[2]),
    "new_scale": lambda lib: (lambda s: (s.scale(lib.ones(1)), s.update(8.0), s.get_scale(),
                                         s.update(lib.tensor(3.0)), s.get_scale())[2::2])(_scaler_setup(lib)[2]),
    "unscale_ then step": lambda lib: (lambda p, o, s: (s.scale((p * lib.tensor([1.0, 2.0])).sum()).backward(),
                                                        s.unscale_(o), p.grad.tolist(), s.step(o), s.update(),
                                                        p.tolist(), s.get_scale())[2::3])(*_scaler_setup(lib)),
    "scale of a list": lambda lib: [t.tolist() for t in _scaler_setup(lib)[2].scale([lib.ones(1), lib.ones(2)])],
    "scale of an int": lambda lib: _scaler_setup(lib)[2].scale(3),
    "empty state dict": lambda lib: _scaler_setup(lib)[2].load_state_dict({}),
}


@pytest.mark.parametrize("case", list(AMP_MISUSE))
def test_grad_scaler_misuse_as_torch(case):
    _same(AMP_MISUSE[case])


def test_grad_scaler_scale_of_another_iterable_is_lazy_as_torch():
    for lib in (tcore, torch):
        out = lib.amp.GradScaler("cpu", init_scale=2.0).scale(iter([lib.ones(1)]))
        assert not isinstance(out, (list, tuple)) and [t.tolist() for t in out] == [[2.0]]


# ----------------------------------------------------------------------------------------------- prune
_W = np.array([[0.5, -2.0, 1.0, 0.1], [3.0, -0.2, 0.0, -1.5], [0.7, 0.7, -0.7, 2.5]], dtype=np.float32)


def _linear(lib):
    m = lib.nn.Linear(4, 3)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(_W))
        m.bias.copy_(lib.tensor([1.0, -1.0, 0.5]))
    return m


PRUNE = {
    "ln_structured n='fro'": lambda P, lib: P.ln_structured(_linear(lib), "weight", amount=1, n="fro", dim=1).weight,
    "ln_structured n=-inf": lambda P, lib: P.ln_structured(_linear(lib), "weight", amount=1, n=-INF, dim=0).weight,
    "l1 amount=True": lambda P, lib: P.l1_unstructured(_linear(lib), "weight", amount=True).weight,
    "random amount=True": lambda P, lib: P.random_unstructured(_linear(lib), "weight", amount=True).weight,
    "l1 amount=nan": lambda P, lib: P.l1_unstructured(_linear(lib), "weight", amount=NAN).weight,
    "l1 amount too large": lambda P, lib: P.l1_unstructured(_linear(lib), "weight", amount=13).weight,
    "l1 amount negative": lambda P, lib: P.l1_unstructured(_linear(lib), "weight", amount=-0.5).weight,
    "l1 twice": lambda P, lib: P.l1_unstructured(P.l1_unstructured(_linear(lib), "weight", amount=0.5), "weight",
                                                 amount=0.5).weight,
    "remove unpruned": lambda P, lib: P.remove(_linear(lib), "weight"),
}


@pytest.mark.parametrize("case", list(PRUNE))
def test_pruning_edges_as_torch(case):
    _same(lambda lib: _plain(PRUNE[case](lib.nn.utils.prune, lib)), check_message=case != "l1 amount=True" and
          case != "random amount=True")
