"""tcore.optim.lr_scheduler against torch.optim.lr_scheduler step by step: every scheduler on two param groups
(lr, and the momentum / beta1 that CyclicLR and OneCycleLR cycle, compared after each step at rel 1e-12), two
schedulers chained on one optimizer, an lr set by hand mid-run, state_dict round trips mid-run, step(epoch),
the constructors' errors and the warnings."""
from __future__ import annotations

import math
import pickle
import warnings

import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
import tcore.optim  # noqa: E402,F401

STEPS = 35
LRS = (0.1, 0.03)
# a scripted metric with improvements, plateaus and regressions (for ReduceLROnPlateau)
METRICS = [5.0, 4.0, 4.0, 4.1, 3.9996, 4.2, 3.0, 3.0, 3.0, 3.0, 3.1, 2.0, 2.5, 2.6, 2.7, 2.8, 1.0, 1.0, 1.5, 1.5,
           1.5, 0.9, 0.9, 0.95, 0.8, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7, 0.7, 0.7, 0.6, 0.6]


def _scale(x):  # a custom CyclicLR scale_fn, shared by both libraries
    return 1.0 / (1.0 + 0.1 * x)


def _plain(s, i):
    s.step()


def _metric(s, i):
    s.step(METRICS[i])


def _optimizer(lib, kind):
    groups = [{"params": [lib.zeros(2, requires_grad=True)], "lr": lr} for lr in LRS]
    if kind == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return getattr(lib.optim, kind)(groups, betas=(0.9, 0.99))


def _snap(opt) -> list[float]:
    """Each group's lr and its momentum (SGD) or beta1 (Adam, AdamW)."""
    out = []
    for g in opt.param_groups:
        out += [g["lr"], g["betas"][0] if "betas" in g else g["momentum"]]
    return out


# id: (optimizer, make(lr_scheduler module, optimizer) -> scheduler or tuple of schedulers, step(sched, i))
CASES = {
    "LambdaLR": ("SGD", lambda S, o: S.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1 / (1 + e)]), _plain),
    "LambdaLR-one": ("Adam", lambda S, o: S.LambdaLR(o, lambda e: 1 + math.sin(e)), _plain),
    "MultiplicativeLR": ("SGD", lambda S, o: S.MultiplicativeLR(o, [lambda e: 0.97, lambda e: 1 - 0.01 * (e % 3)]),
                         _plain),
    "StepLR": ("SGD", lambda S, o: S.StepLR(o, step_size=3, gamma=0.5), _plain),
    "MultiStepLR": ("Adam", lambda S, o: S.MultiStepLR(o, milestones=[20, 3, 7, 7], gamma=0.3), _plain),
    "ConstantLR": ("SGD", lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=4), _plain),
    "LinearLR": ("AdamW", lambda S, o: S.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=10), _plain),
    "LinearLR-default": ("SGD", lambda S, o: S.LinearLR(o), _plain),
    "ExponentialLR": ("SGD", lambda S, o: S.ExponentialLR(o, gamma=0.9), _plain),
    "PolynomialLR": ("Adam", lambda S, o: S.PolynomialLR(o, total_iters=20, power=2.0), _plain),
    "CosineAnnealingLR": ("SGD", lambda S, o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001), _plain),
    "SequentialLR": ("SGD", lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, start_factor=0.1, total_iters=5), S.ExponentialLR(o, gamma=0.9)], milestones=[5]), _plain),
    "SequentialLR-3": ("Adam", lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o, factor=0.5, total_iters=3), S.StepLR(o, 4, 0.5), S.CosineAnnealingLR(o, T_max=8)],
        milestones=[6, 15]), _plain),
    "ChainedScheduler": ("SGD", lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.1, total_iters=2), S.ExponentialLR(o, gamma=0.9)]), _plain),
    "ChainedScheduler-optimizer": ("AdamW", lambda S, o: S.ChainedScheduler(
        [S.LinearLR(o, start_factor=0.5, total_iters=6), S.StepLR(o, 5, 0.7)], optimizer=o), _plain),
    "chained-Step-Exponential": ("SGD", lambda S, o: (S.StepLR(o, 2, 0.5), S.ExponentialLR(o, 0.9)), _plain),
    "chained-Cosine-Multiplicative": ("Adam", lambda S, o: (S.CosineAnnealingLR(o, T_max=7, eta_min=0.002),
                                                            S.MultiplicativeLR(o, lambda e: 0.99)), _plain),
    "chained-Linear-Polynomial": ("SGD", lambda S, o: (S.LinearLR(o, 0.2, total_iters=8),
                                                       S.PolynomialLR(o, total_iters=30, power=0.5)), _plain),
    "chained-Constant-MultiStep": ("SGD", lambda S, o: (S.ConstantLR(o, 0.25, total_iters=9),
                                                        S.MultiStepLR(o, [4, 12, 25], gamma=0.5)), _plain),
    "CyclicLR-triangular": ("SGD", lambda S, o: S.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3],
                                                             step_size_up=4, step_size_down=6), _plain),
    "CyclicLR-triangular2": ("Adam", lambda S, o: S.CyclicLR(
        o, 0.001, 0.01, step_size_up=5, mode="triangular2", base_momentum=[0.8, 0.85], max_momentum=0.95), _plain),
    "CyclicLR-exp_range": ("SGD", lambda S, o: S.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=3, mode="exp_range",
                                                            gamma=0.97), _plain),
    "CyclicLR-scale_fn": ("AdamW", lambda S, o: S.CyclicLR(o, 0.01, 0.05, step_size_up=4, scale_fn=_scale,
                                                             scale_mode="iterations"), _plain),
    "CyclicLR-scale_fn-cycle": ("SGD", lambda S, o: S.CyclicLR(o, 0.01, 0.05, step_size_up=2, step_size_down=5,
                                                                 scale_fn=_scale), _plain),
    "CyclicLR-no-momentum": ("Adam", lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=7, cycle_momentum=False),
                             _plain),
    "OneCycleLR-cos": ("SGD", lambda S, o: S.OneCycleLR(o, max_lr=[0.1, 0.5], total_steps=STEPS), _plain),
    "OneCycleLR-linear": ("Adam", lambda S, o: S.OneCycleLR(
        o, 0.2, epochs=5, steps_per_epoch=7, pct_start=0.25, anneal_strategy="linear", div_factor=10.0,
        final_div_factor=100.0), _plain),
    "OneCycleLR-three_phase": ("SGD", lambda S, o: S.OneCycleLR(
        o, [0.3, 0.1], total_steps=40, three_phase=True, base_momentum=[0.8, 0.85], max_momentum=0.97), _plain),
    "OneCycleLR-no-momentum": ("AdamW", lambda S, o: S.OneCycleLR(o, 0.1, total_steps=50, cycle_momentum=False),
                               _plain),
    "CosineAnnealingWarmRestarts": ("SGD", lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                                      eta_min=0.001), _plain),
    "CosineAnnealingWarmRestarts-1": ("Adam", lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=7), _plain),
    "ReduceLROnPlateau-min-rel": ("SGD", lambda S, o: S.ReduceLROnPlateau(
        o, factor=0.5, patience=2, cooldown=2, min_lr=[0.01, 0.005]), _metric),
    "ReduceLROnPlateau-max-abs": ("Adam", lambda S, o: S.ReduceLROnPlateau(
        o, mode="max", factor=0.3, patience=1, threshold=0.05, threshold_mode="abs", cooldown=1, min_lr=0.001),
        _metric),
    "ReduceLROnPlateau-min-abs-eps": ("SGD", lambda S, o: S.ReduceLROnPlateau(
        o, factor=0.9, patience=0, threshold=0.2, threshold_mode="abs", min_lr=0.08, eps=1e-3), _metric),
    "ReduceLROnPlateau-max-rel": ("AdamW", lambda S, o: S.ReduceLROnPlateau(o, mode="max", patience=3), _metric),
}


def _build(lib, case):
    kind, make, _ = CASES[case]
    opt = _optimizer(lib, kind)
    scheds = make(lib.optim.lr_scheduler, opt)
    return opt, list(scheds) if isinstance(scheds, tuple) else [scheds]


def _advance(opt, scheds, step, start, stop, hook=None) -> list[list[float]]:
    trace = []
    for i in range(start, stop):
        if hook is not None:
            hook(i, opt)
        opt.step()
        for s in scheds:
            step(s, i)
        trace.append(_snap(opt))
        assert scheds[-1].get_last_lr() == [g["lr"] for g in opt.param_groups]
    return trace


def _halve_at_12(i, opt):
    if i == 12:
        for g in opt.param_groups:
            g["lr"] *= 0.5


def _trace(lib, case, hook=None) -> list[list[float]]:
    opt, scheds = _build(lib, case)
    return [_snap(opt)] + _advance(opt, scheds, CASES[case][2], 0, STEPS, hook)


def _same(ours, theirs) -> None:
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == pytest.approx(b, rel=1e-12, abs=0), f"after step {i}: tcore {a}, torch {b}"


@pytest.mark.parametrize("manual", [False, True], ids=["", "lr-set-by-hand"])
@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch(case, manual):
    hook = _halve_at_12 if manual else None
    ours, theirs = _trace(tcore, case, hook), _trace(torch, case, hook)
    _same(ours, theirs)
    assert len({tuple(t) for t in ours}) > 1  # the schedule does change something


def test_chaining_composes():
    opt = tcore.optim.SGD([tcore.zeros(1, requires_grad=True)], lr=1.0)
    a, b = tcore.optim.lr_scheduler.StepLR(opt, 2, 0.5), tcore.optim.lr_scheduler.ExponentialLR(opt, 0.9)
    got = []
    for _ in range(3):
        opt.step()
        a.step()
        b.step()
        got.append(opt.param_groups[0]["lr"])
    assert got == pytest.approx([0.9, 0.405, 0.3645], rel=1e-12)


def _no_callables(obj) -> bool:
    if isinstance(obj, dict):
        return all(_no_callables(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return all(_no_callables(v) for v in obj)
    return not callable(obj)


def _resumed(lib, case, at=13):
    """Runs `at` steps, saves both state_dicts through pickle, continues on a fresh optimizer and scheduler."""
    opt, scheds = _build(lib, case)
    step = CASES[case][2]
    trace = [_snap(opt)] + _advance(opt, scheds, step, 0, at)
    states = [s.state_dict() for s in scheds]
    if lib is tcore:
        assert all(_no_callables(s) and "optimizer" not in s for s in states)
    blob = pickle.dumps((opt.state_dict(), states))
    opt, scheds = _build(lib, case)
    opt_state, states = pickle.loads(blob)
    opt.load_state_dict(opt_state)
    for s, state in zip(scheds, states):
        s.load_state_dict(state)
    return trace + _advance(opt, scheds, step, at, STEPS)


@pytest.mark.parametrize("case", list(CASES))
def test_state_dict_round_trip(case):
    ours = _resumed(tcore, case)
    _same(ours, _resumed(torch, case))
    _same(ours, _trace(tcore, case))


def test_lambda_object_state_is_saved():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate ** epoch

    def run(lib):
        opt = _optimizer(lib, "SGD")
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [Decay(0.9), lambda e: 1.0])
        opt.step()
        sched.step()
        sched.lr_lambdas[0].rate = 0.5
        state = pickle.loads(pickle.dumps(sched.state_dict()))
        fresh = lib.optim.lr_scheduler.LambdaLR(opt, [Decay(0.9), lambda e: 1.0])
        fresh.load_state_dict(state)
        fresh.step()
        return state["lr_lambdas"], fresh.lr_lambdas[0].rate, fresh.get_last_lr()

    ours, theirs = run(tcore), run(torch)
    assert ours[:2] == theirs[:2] == ([{"rate": 0.5}, None], 0.5)
    assert ours[2] == pytest.approx(theirs[2], rel=1e-12)


# make(lr_scheduler module, optimizer, last_epoch)
RESUME = {
    "StepLR": lambda S, o, e: S.StepLR(o, 3, 0.5, last_epoch=e),
    "MultiStepLR": lambda S, o, e: S.MultiStepLR(o, [4, 12, 12], 0.5, last_epoch=e),
    "ExponentialLR": lambda S, o, e: S.ExponentialLR(o, 0.9, last_epoch=e),
    "CosineAnnealingLR": lambda S, o, e: S.CosineAnnealingLR(o, 8, 0.001, last_epoch=e),
    "ConstantLR": lambda S, o, e: S.ConstantLR(o, 0.5, total_iters=12, last_epoch=e),
    "LinearLR": lambda S, o, e: S.LinearLR(o, 0.2, 0.8, total_iters=15, last_epoch=e),
    "PolynomialLR": lambda S, o, e: S.PolynomialLR(o, total_iters=20, power=1.5, last_epoch=e),
    "LambdaLR": lambda S, o, e: S.LambdaLR(o, lambda k: 0.9 ** k, last_epoch=e),
    "MultiplicativeLR": lambda S, o, e: S.MultiplicativeLR(o, lambda k: 0.95, last_epoch=e),
    "CyclicLR": lambda S, o, e: S.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=4, last_epoch=e),
    "OneCycleLR": lambda S, o, e: S.OneCycleLR(o, 0.1, total_steps=40, three_phase=True, last_epoch=e),
    "CosineAnnealingWarmRestarts": lambda S, o, e: S.CosineAnnealingWarmRestarts(o, 3, 2, last_epoch=e),
}


def _resume_trace(lib, case, done=9):
    """A scheduler built with last_epoch=done on an optimizer a first one has run; its get_lr() called once
    outside step, then 20 steps."""
    opt = _optimizer(lib, "SGD")
    first = RESUME[case](lib.optim.lr_scheduler, opt, -1)
    _advance(opt, [first], _plain, 0, done + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = RESUME[case](lib.optim.lr_scheduler, opt, done)
        trace = [_snap(opt), list(sched.get_lr())]
    return trace + _advance(opt, [sched], _plain, 0, 20)


@pytest.mark.parametrize("case", list(RESUME))
def test_resume_with_last_epoch(case):
    _same(_resume_trace(tcore, case), _resume_trace(torch, case))


EPOCHS = [1, 2, 3, 5, 4, 8, 8, 12, 20, 6, 30, 31, 0, 9]
FRACTIONAL = [0.5, 1.25, 2.9, 3.0, 7.5, 9.0, 12.1, 27.3, 2.2, 40.0, 20.999, 0.0, 45.5]
EXPLICIT = {
    "StepLR": EPOCHS, "MultiStepLR": EPOCHS, "ExponentialLR": EPOCHS, "CosineAnnealingLR": EPOCHS,
    "ConstantLR": EPOCHS, "LinearLR": EPOCHS, "PolynomialLR": EPOCHS, "LambdaLR": EPOCHS, "MultiplicativeLR": EPOCHS,
    "CyclicLR-triangular2": EPOCHS, "CosineAnnealingWarmRestarts": FRACTIONAL, "CosineAnnealingWarmRestarts-1":
    FRACTIONAL, "ReduceLROnPlateau-min-rel": EPOCHS,
}


def _explicit_trace(lib, case):
    epochs = EXPLICIT[case]
    opt, (sched,) = _build(lib, case)
    trace = [_snap(opt)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i, epoch in enumerate(epochs):
            opt.step()
            if case.startswith("ReduceLROnPlateau"):
                sched.step(METRICS[i], epoch)
            else:
                sched.step(epoch)
            trace.append(_snap(opt))
    deprecated = sum(str(w.message).startswith("The epoch parameter in `scheduler.step()`") for w in caught)
    return trace, deprecated


@pytest.mark.parametrize("case", list(EXPLICIT))
def test_step_with_explicit_epoch(case):
    (ours, our_warnings), (theirs, their_warnings) = _explicit_trace(tcore, case), _explicit_trace(torch, case)
    _same(ours, theirs)
    assert our_warnings == their_warnings == (0 if case.startswith("CosineAnnealingWarm") else len(EXPLICIT[case]))


@pytest.mark.parametrize("lib", [tcore, torch], ids=["tcore", "torch"])
def test_one_cycle_past_total_steps(lib):
    opt = _optimizer(lib, "SGD")
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=10)
    for _ in range(10):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match=r"^Tried to step 11 times. The specified number of total steps is 10$"):
        sched.step()


def _expect(make):
    def error(lib):
        opt = _optimizer(lib, "SGD")
        try:
            make(lib.optim.lr_scheduler, opt)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, e.args[0]
        return None
    return error


ERRORS = {
    "not-an-optimizer": lambda S, o: S.StepLR(object(), 3),
    "resume-without-initial_lr": lambda S, o: S.ExponentialLR(o, 0.9, last_epoch=4),
    "lambdas-count": lambda S, o: S.LambdaLR(o, [lambda e: 1.0]),
    "multiplicative-not-callable": lambda S, o: S.MultiplicativeLR(o, 0.9),
    "constant-factor": lambda S, o: S.ConstantLR(o, factor=1.5),
    "linear-start": lambda S, o: S.LinearLR(o, start_factor=0),
    "linear-end": lambda S, o: S.LinearLR(o, end_factor=1.2),
    "sequential-empty": lambda S, o: S.SequentialLR(o, [], []),
    "sequential-milestones": lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), S.StepLR(o, 3)], [2, 4]),
    "sequential-plateau": lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), S.ReduceLROnPlateau(o)], [2]),
    "sequential-no-optimizer": lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), object()], [2]),
    "chained-empty": lambda S, o: S.ChainedScheduler([]),
    "chained-plateau": lambda S, o: S.ChainedScheduler([S.ReduceLROnPlateau(o)], optimizer=o),
    "plateau-factor": lambda S, o: S.ReduceLROnPlateau(o, factor=1.0),
    "plateau-mode": lambda S, o: S.ReduceLROnPlateau(o, mode="avg"),
    "plateau-threshold-mode": lambda S, o: S.ReduceLROnPlateau(o, threshold_mode="pct"),
    "plateau-min-lrs": lambda S, o: S.ReduceLROnPlateau(o, min_lr=[0.1]),
    "cyclic-mode": lambda S, o: S.CyclicLR(o, 0.01, 0.1, mode="sawtooth"),
    "cyclic-base-lrs": lambda S, o: S.CyclicLR(o, [0.01], 0.1),
    "cyclic-momentums": lambda S, o: S.CyclicLR(o, 0.01, 0.1, max_momentum=(0.9, 0.9, 0.9)),
    "warm-T_0": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=0),
    "warm-T_0-float": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2.5),
    "warm-T_mult": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    "warm-eta_min": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
    "warm-negative-epoch": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    "one-cycle-no-length": lambda S, o: S.OneCycleLR(o, 0.1, epochs=3),
    "one-cycle-total": lambda S, o: S.OneCycleLR(o, 0.1, total_steps=0),
    "one-cycle-epochs": lambda S, o: S.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=3),
    "one-cycle-steps-per-epoch": lambda S, o: S.OneCycleLR(o, 0.1, epochs=2, steps_per_epoch=2.0),
    "one-cycle-pct-int": lambda S, o: S.OneCycleLR(o, 0.1, total_steps=10, pct_start=1),
    "one-cycle-pct": lambda S, o: S.OneCycleLR(o, 0.1, total_steps=10, pct_start=1.5),
    "one-cycle-anneal": lambda S, o: S.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="exp"),
    "one-cycle-max-lrs": lambda S, o: S.OneCycleLR(o, [0.1, 0.2, 0.3], total_steps=10),
}
SHORTER_MESSAGES = {"resume-without-initial_lr"}  # tcore's message is the first sentence of torch's


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_as_torch(case):
    ours, theirs = _expect(ERRORS[case])(tcore), _expect(ERRORS[case])(torch)
    assert ours is not None and ours[0] == theirs[0]
    if case in SHORTER_MESSAGES:
        assert theirs[1].startswith(ours[1])
    else:
        assert ours[1] == theirs[1]


@pytest.mark.parametrize("lib", [tcore, torch], ids=["tcore", "torch"])
def test_warnings(lib):
    S = lib.optim.lr_scheduler
    opt = _optimizer(lib, "SGD")
    sched = S.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        sched.get_lr()
    opt = _optimizer(lib, "SGD")
    sched = S.ExponentialLR(opt, 0.5)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match=r"Seems like `optimizer.step\(\)` has been overridden"):
        sched.step()
    opt = _optimizer(lib, "Adam")
    scheds = [S.CosineAnnealingLR(opt, 5), S.OneCycleLR(opt, 0.1, total_steps=5)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(5):
            opt.step()
            for s in scheds:
                s.step()


def test_plateau_takes_a_tensor_metric_and_reduces_to_min_lr():
    opt = _optimizer(tcore, "SGD")
    sched = tcore.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.05, 0.0])
    for _ in range(4):
        opt.step()
        sched.step(tcore.tensor(1.0))
    assert sched.get_last_lr() == pytest.approx([0.05, 0.03 * 0.1 ** 3], rel=1e-12)


def test_names():
    S = tcore.optim.lr_scheduler
    assert set(S.__all__) == set(torch.optim.lr_scheduler.__all__)
    assert issubclass(S._LRScheduler, S.LRScheduler) and issubclass(S.ReduceLROnPlateau, S.LRScheduler)
