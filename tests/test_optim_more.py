"""The optimizers beyond SGD/Adam against torch.optim, side by side in float64: RMSprop, Adagrad,
Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop (and Adam/AdamW with amsgrad) over 15 steps of the
same problem from the same start, parameters and every state tensor compared (rtol 1e-10), the
param_groups' keys and values as torch's; LBFGS with and without the strong Wolfe line search on
a Rosenbrock function (rtol 1e-8); state_dict round trips mid-run; torch's exceptions and messages
for invalid arguments."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tcore  # noqa: E402

SHAPES = [(3,), (2, 3), (4, 1), (2,)]  # the last parameter never gets a gradient
_rng = np.random.default_rng(1234)
INIT = [_rng.uniform(-1.5, 1.5, size=s) for s in SHAPES]
SCALES = [_rng.uniform(0.5, 2.0, size=s) for s in SHAPES]
RTOL, ATOL = 1e-10, 1e-14


def _params(lib, init=INIT):
    return [lib.tensor(a.copy(), dtype=lib.float64, requires_grad=True) for a in init]


def _loss(lib, params, sign=1.0):
    """sum(scale * p^2 + sin(3 p)) over all but the last parameter: minima with sign flips on the way."""
    total = 0
    for p, s in zip(params[:-1], SCALES[:-1]):
        total = total + (p * p * lib.tensor(s, dtype=p.dtype)).sum() + lib.sin(p * 3.0).sum()
    return total * sign


def _groups(params, spec):
    """spec: None (one group of all parameters) or {group index: options} over two groups
    (the first two parameters, then the rest)."""
    if spec is None:
        return params
    split = [params[:2], params[2:]]
    return [dict(spec.get(i, {}), params=split[i]) for i in range(2)]


def _run(lib, name, kwargs, groups=None, steps=15, sign=1.0, params=None, opt=None):
    params = _params(lib) if params is None else params
    opt = getattr(lib.optim, name)(_groups(params, groups), **kwargs) if opt is None else opt
    for _ in range(steps):
        opt.zero_grad()
        _loss(lib, params, sign).backward()
        opt.step()
    return params, opt


def _np(t):
    return t.detach().numpy()


def _same_dtype(a, b) -> bool:
    return str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]


def _compare_state(ours, theirs, rtol=RTOL):
    """Every parameter's state: the same keys, tensors of the same dtype and shape and close values,
    other values (ints, floats, lists) equal or close."""
    assert set(ours) == set(theirs)
    for key, t in theirs.items():
        o = ours[key]
        if isinstance(t, torch.Tensor):
            assert isinstance(o, tcore.Tensor), key
            assert _same_dtype(o, t) and tuple(o.shape) == tuple(t.shape), (key, o.dtype, t.dtype)
            np.testing.assert_allclose(_np(o), t.numpy(), rtol=rtol, atol=ATOL, err_msg=key)
        elif isinstance(t, list):
            assert len(o) == len(t), key
            _compare_state(dict(enumerate(o)), dict(enumerate(t)), rtol)
        elif isinstance(t, float):
            assert abs(float(o) - t) <= rtol * abs(t) + ATOL, key
        else:
            assert o == t, key


def _compare(ours, theirs, check_groups=True, rtol=RTOL):
    (cp, copt), (tp, topt) = ours, theirs
    for i, (a, b) in enumerate(zip(cp, tp)):
        np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=rtol, atol=ATOL, err_msg=f"param {i}")
    csd, tsd = copt.state_dict(), topt.state_dict()
    assert sorted(csd["state"]) == sorted(tsd["state"])
    for i in tsd["state"]:
        _compare_state(csd["state"][i], tsd["state"][i], rtol)
    if check_groups:
        for cg, tg in zip(csd["param_groups"], tsd["param_groups"]):
            assert set(cg) == set(tg)
            for k in tg:
                assert (list(cg[k]) == list(tg[k])) if isinstance(tg[k], (tuple, list)) else cg[k] == tg[k], k


CONFIGS = [
    ("RMSprop", {}, None),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1), None),
    ("RMSprop", dict(lr=0.02, alpha=0.9, eps=1e-6, maximize=True), None),
    ("RMSprop", dict(lr=0.01), {1: dict(momentum=0.5, centered=True, lr=0.03)}),
    ("Adagrad", dict(lr=0.1), None),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-8), None),
    ("Adagrad", dict(lr=0.2, maximize=True), None),
    # a group's own initial_accumulator_value is not used (torch's constructor fills every sum)
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.2), {1: dict(lr_decay=0.1, initial_accumulator_value=3.0)}),
    ("Adadelta", {}, None),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1), None),
    ("Adadelta", dict(eps=1e-4, maximize=True), {0: dict(rho=0.5)}),
    ("Adamax", dict(lr=0.05), None),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, eps=1e-6), None),
    ("Adamax", dict(lr=0.02, maximize=True), {1: dict(lr=0.1)}),
    ("NAdam", dict(lr=0.05), None),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01), None),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True), None),
    ("NAdam", dict(lr=0.05, betas=(0.8, 0.99), maximize=True), {1: dict(momentum_decay=0.1)}),
    ("RAdam", dict(lr=0.05), None),
    ("RAdam", dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1), None),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True), None),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.9), maximize=True), {0: dict(eps=1e-3)}),
    ("ASGD", dict(lr=0.05), None),
    ("ASGD", dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=5, weight_decay=0.1), None),
    ("ASGD", dict(lr=0.03, t0=3, maximize=True), {1: dict(lr=0.06, lambd=0.1)}),
    ("Rprop", dict(lr=0.05), None),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2)), None),
    ("Rprop", dict(lr=0.02, maximize=True), {1: dict(etas=(0.6, 1.1))}),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1), None),
    ("AdamW", dict(lr=0.05, amsgrad=True, maximize=True), None),
]


@pytest.mark.parametrize("name, kwargs, groups", CONFIGS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CONFIGS)])
def test_matches_torch(name, kwargs, groups):
    sign = -1.0 if kwargs.get("maximize") else 1.0
    ours = _run(tcore, name, kwargs, groups, sign=sign)
    theirs = _run(torch, name, kwargs, groups, sign=sign)
    # tcore's Adam/AdamW keep their own param_group keys (no foreach/fused/capturable/...)
    _compare(ours, theirs, check_groups=name not in ("Adam", "AdamW"))


ROUND_TRIP = [(name, kwargs, groups) for name, kwargs, groups in CONFIGS if name not in ("Adam", "AdamW")][1::2]


@pytest.mark.parametrize("name, kwargs, groups", ROUND_TRIP, ids=[c[0] for c in ROUND_TRIP])
def test_state_dict_round_trip(name, kwargs, groups):
    """Five steps, the state_dict into a fresh optimizer (other options, fresh parameters of the same
    values), five more: as torch (whose load casts 0-d float state such as ASGD's eta and NAdam's
    mu_product to the parameters' dtype), and close to the run that never stopped."""
    sign = -1.0 if kwargs.get("maximize") else 1.0
    results = {}
    for lib in (tcore, torch):
        params, opt = _run(lib, name, kwargs, groups, steps=5, sign=sign)
        sd = opt.state_dict()
        fresh = [lib.tensor(_np(p).copy(), dtype=lib.float64, requires_grad=True) for p in params]
        opt2 = getattr(lib.optim, name)(_groups(fresh, groups), lr=0.5)
        opt2.load_state_dict(sd)
        results[lib] = _run(lib, name, kwargs, groups, steps=5, sign=sign, params=fresh, opt=opt2)
        if lib is tcore:
            assert opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
            straight = _run(lib, name, kwargs, groups, steps=5, sign=sign, params=params, opt=opt)
            for a, b in zip(straight[0], fresh):
                np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=1e-12)
    _compare(results[tcore], results[torch])


def _rosenbrock_params(lib):
    return [lib.tensor([[-1.2, 1.0, -0.5], [0.8, 1.3, -1.0]], dtype=lib.float64, requires_grad=True),
            lib.tensor([0.3, -0.7], dtype=lib.float64, requires_grad=True)]


def _rosenbrock(lib, params):
    x = lib.cat([params[0].reshape(-1), params[1]])
    return (100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2).sum()


def _lbfgs(lib, kwargs, steps=3, params=None, opt=None):
    params = _rosenbrock_params(lib) if params is None else params
    opt = lib.optim.LBFGS(params, **kwargs) if opt is None else opt
    losses = []

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(lib, params)
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
    return params, opt, losses


# few enough iterations that the line search's cubic steps (which turn last-bit differences of the
# reductions into larger ones along Rosenbrock's valley) keep the two runs within rtol 1e-8
LBFGS_CONFIGS = [
    dict(lr=0.1, max_iter=10),
    dict(lr=0.05, max_iter=8, history_size=3, tolerance_change=1e-12),
    dict(lr=1, max_iter=6, line_search_fn="strong_wolfe"),
    dict(lr=0.5, max_iter=5, max_eval=8, history_size=4, line_search_fn="strong_wolfe"),
    dict(lr=0.5, max_iter=6, history_size=2, line_search_fn="strong_wolfe"),
]


@pytest.mark.parametrize("kwargs", LBFGS_CONFIGS, ids=range(len(LBFGS_CONFIGS)))
def test_lbfgs_matches_torch(kwargs):
    cp, copt, closses = _lbfgs(tcore, kwargs)
    tp, topt, tlosses = _lbfgs(torch, kwargs)
    np.testing.assert_allclose(closses, tlosses, rtol=1e-8)
    _compare((cp, copt), (tp, topt), rtol=1e-8)
    state = copt.state[cp[0]]
    assert state["func_evals"] > 3 and state["n_iter"] >= 3
    if kwargs.get("line_search_fn"):
        assert closses[-1] < 0.5 * closses[0]


def test_lbfgs_round_trip_and_stops():
    results = {}
    for lib in (tcore, torch):
        params, opt, _ = _lbfgs(lib, LBFGS_CONFIGS[3], steps=2)
        sd = opt.state_dict()
        fresh = [lib.tensor(_np(p).copy(), dtype=lib.float64, requires_grad=True) for p in params]
        opt2 = lib.optim.LBFGS(fresh, lr=0.1)
        opt2.load_state_dict(sd)
        results[lib] = _lbfgs(lib, None, steps=2, params=fresh, opt=opt2)[:2]
    _compare(results[tcore], results[torch], rtol=1e-8)
    # at the minimum the gradient tolerance returns the loss before any iteration
    for lib in (tcore, torch):
        w = lib.tensor([1.0, 1.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([w])
        opt.step(lambda: _closure_of(lib, opt, w))
        assert opt.state[w]["n_iter"] == 0 and opt.state[w]["func_evals"] == 1


def _closure_of(lib, opt, w):
    opt.zero_grad()
    loss = _rosenbrock(lib, [w[:1].reshape(1, 1), w[1:]])
    loss.backward()
    return loss


def _backward(loss):
    loss.backward()
    return loss


def _error(lib, name, kwargs, groups=False, step=False):
    p = lib.tensor([1.0, 2.0], requires_grad=True)
    q = lib.tensor([3.0], requires_grad=True)
    kwargs = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    params = [{"params": [p]}, {"params": [q]}] if groups else [p]
    with pytest.raises(Exception) as info:
        opt = getattr(lib.optim, name)(params, **kwargs)
        if step:
            opt.step(lambda: _backward((p * p).sum()))
    return type(info.value).__name__, str(info.value)


ERRORS = [
    ("RMSprop", dict(lr=-0.1)), ("RMSprop", dict(alpha=-0.5)), ("RMSprop", dict(momentum=-1.0)),
    ("RMSprop", dict(eps=-1e-8)), ("RMSprop", dict(weight_decay=-0.1)), ("RMSprop", dict(lr=[0.1, 0.2])),
    ("Adagrad", dict(lr_decay=-1.0)), ("Adagrad", dict(initial_accumulator_value=-0.5)),
    ("Adagrad", dict(eps=-1.0)), ("Adagrad", dict(fused=True, foreach=True)),
    ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(lr=-1.0)), ("Adadelta", dict(weight_decay=-2)),
    ("Adamax", dict(betas=(1.0, 0.9))), ("Adamax", dict(betas=(0.9, -0.1))), ("Adamax", dict(eps=-1.0)),
    ("NAdam", dict(momentum_decay=-0.1)), ("NAdam", dict(betas=(0.9, 1.0))), ("NAdam", dict(lr=-2e-3)),
    ("RAdam", dict(weight_decay=-0.1)), ("RAdam", dict(eps=-1.0)), ("RAdam", dict(betas=(-0.1, 0.9))),
    ("ASGD", dict(lr=-0.5)), ("ASGD", dict(weight_decay=-1e-3)),
    ("Rprop", dict(etas=(1.5, 2.0))), ("Rprop", dict(etas=(0.5, 0.9))), ("Rprop", dict(lr=-1.0)),
    ("LBFGS", dict(lr=-1.0)), ("LBFGS", dict(lr=[0.1, 0.2])),
]


@pytest.mark.parametrize("name, kwargs", ERRORS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ERRORS)])
def test_invalid_arguments_as_torch(name, kwargs):
    assert _error(tcore, name, kwargs) == _error(torch, name, kwargs)


def test_lbfgs_errors_as_torch():
    for kwargs, groups, step in [({}, True, False), (dict(line_search_fn="bogus"), False, True)]:
        assert _error(tcore, "LBFGS", kwargs, groups, step) == _error(torch, "LBFGS", kwargs, groups, step)
    for lib in (tcore, torch):
        with pytest.raises(TypeError):
            lib.optim.LBFGS([lib.tensor([1.0], requires_grad=True)]).step()  # the closure is required


def test_tensor_lr_default_dtype_and_unsupported_flags():
    """lr as a 1-element tensor; 0-d state follows a float64 default dtype as torch's; turning on
    differentiable=/capturable= is refused (torch's keys stay, with their defaults)."""
    out = {}
    for lib in (tcore, torch):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            out[lib] = _run(lib, "NAdam", dict(lr=lib.tensor(0.05)), steps=4)
        finally:
            lib.set_default_dtype(old)
    state = out[tcore][1].state[out[tcore][0][0]]
    assert state["step"].dtype == tcore.float64 and state["mu_product"].dtype == tcore.float64
    for a, b in zip(out[tcore][0], out[torch][0]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=RTOL, atol=ATOL)
    w = tcore.tensor([1.0], requires_grad=True)
    for name in ("RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"):
        with pytest.raises(NotImplementedError, match="differentiable"):
            getattr(tcore.optim, name)([w], differentiable=True)
        with pytest.raises(NotImplementedError, match="capturable"):
            getattr(tcore.optim, name)([w], capturable=True)
    with pytest.raises(NotImplementedError, match="differentiable"):
        tcore.optim.Adagrad([w], differentiable=True)


def test_exported():
    import tcore.optim as optim
    for name in ("RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS"):
        assert name in optim.__all__ and issubclass(getattr(optim, name), optim.Optimizer)


FLOAT32 = [("RMSprop", dict(centered=True, momentum=0.5)), ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
           ("Adadelta", dict(weight_decay=0.1)), ("Adamax", dict(lr=0.05)), ("NAdam", dict(lr=0.05)),
           ("RAdam", dict(lr=0.05)), ("ASGD", dict(lr=0.05, t0=4)), ("Rprop", dict(lr=0.05))]


def test_float32_close_to_torch():
    """In float32 (0-d state float32 too, as torch's) the runs agree to float32's precision."""
    init32 = [a.astype(np.float32) for a in INIT]
    for name, kwargs in FLOAT32:
        runs = []
        for lib in (tcore, torch):
            params = [lib.tensor(a.copy(), requires_grad=True) for a in init32]
            runs.append(_run(lib, name, kwargs, steps=10, params=params)[0])
        for a, b in zip(*runs):
            np.testing.assert_allclose(_np(a), _np(b), rtol=2e-5, atol=1e-6, err_msg=name)
    for kwargs in LBFGS_CONFIGS[::2]:
        runs = []
        for lib in (tcore, torch):
            params = [p.detach().float().requires_grad_(True) for p in _rosenbrock_params(lib)]
            runs.append(_lbfgs(lib, kwargs, steps=2, params=params)[0])
        for a, b in zip(*runs):
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-4, atol=1e-5, err_msg=str(kwargs))
