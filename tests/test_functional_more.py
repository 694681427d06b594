"""tcore.nn.functional's composite activations, losses, pixel shuffles, channel dropouts and
normalizations (and their tcore.nn modules) against torch: float64 values and gradients at
ordinary points and at the edges (the boundaries of each piece, where the gradient is the one
torch's backward picks; large and tiny magnitudes; inf and NaN), every reduction, in place, and
torch's errors for bad arguments. torch is a test-only oracle."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RTOL, ATOL = 1e-13, 1e-300  # values
GRTOL, GATOL = 1e-12, 1e-15  # gradients (autograd's order of operations is not the kernel's)


def _weights(shape) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    return np.linspace(0.5, 1.75, n).reshape(shape)


def _ours(tcore, a, grad: bool):
    t = tcore.from_numpy(np.array(a, dtype=np.float64 if np.asarray(a).dtype.kind == "f" else None))
    return t.requires_grad_(grad) if grad else t


def _theirs(a, grad: bool):
    a = np.asarray(a)
    return torch.tensor(a, dtype=torch.float64, requires_grad=grad) if a.dtype.kind == "f" else torch.tensor(a)


def compare(tcore, ours, theirs, arrays, diff=None, kw=None, rtol=RTOL, grtol=GRTOL, signed_zeros=False):
    """ours(*tensors, **kw) against theirs(*tensors, **kw): values, then the gradients of
    sum(w * f) for the inputs listed in diff (all floating ones by default)."""
    kw = kw or {}
    if diff is None:
        diff = [i for i, a in enumerate(arrays) if np.asarray(a).dtype.kind == "f"]
    t_in = [_theirs(a, i in diff) for i, a in enumerate(arrays)]
    c_in = [_ours(tcore, a, i in diff) for i, a in enumerate(arrays)]
    yt, yc = theirs(*t_in, **kw), ours(*c_in, **kw)
    assert tuple(yc.shape) == tuple(yt.shape)
    assert str(yc.dtype) == "tcore.float64"
    want, got = yt.detach().numpy(), yc.detach().numpy()
    np.testing.assert_allclose(got, want, rtol=rtol, atol=ATOL)
    if signed_zeros:
        zero = (want == 0) & (got == 0)
        np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))
    if not diff:
        return
    w = _weights(tuple(yt.shape))
    gt = torch.autograd.grad((yt * torch.tensor(w)).sum(), [t_in[i] for i in diff], allow_unused=True)
    gc = tcore.autograd.grad((yc * tcore.from_numpy(w)).sum(), [c_in[i] for i in diff], allow_unused=True)
    for i, a, b in zip(diff, gt, gc):
        a = np.zeros(np.shape(arrays[i])) if a is None else a.numpy()
        b = np.zeros(np.shape(arrays[i])) if b is None else b.numpy()
        np.testing.assert_allclose(b, a, rtol=grtol, atol=GATOL, err_msg=f"gradient of input {i}")


# ------------------------------------------------------------------ activations
def _edges() -> np.ndarray:
    """Each piece's boundaries and the floats either side, zeros of both signs, exp's overflow
    edges, large and tiny magnitudes, then ordinary points."""
    up, down = (lambda v: np.nextafter(v, np.inf)), (lambda v: np.nextafter(v, -np.inf))
    bounds = [-3.0, 3.0, -0.5, 0.5, -1.0, 1.0, 1.5, -1.5, 0.25, 20.0, -20.0]
    pts = [p for b in bounds for p in (down(b), b, up(b))]
    pts += [0.0, -0.0, 1e-300, -1e-300, 1e-10, -1e-10, 40.0, -40.0, 700.0, -700.0, 710.0, -710.0, 745.5, -745.5,
            1000.0, -1000.0, 1e300, -1e300]
    return np.concatenate([pts, np.random.default_rng(7).standard_normal(40) * 4])


SPECIAL = np.array([np.inf, -np.inf, np.nan])

# name -> keyword-argument sets
ACTIVATIONS = {
    "logsigmoid": [{}], "hardsigmoid": [{}], "hardswish": [{}], "mish": [{}], "selu": [{}],
    "celu": [{}, {"alpha": 0.5}, {"alpha": -1.5}, {"alpha": 0.7}],  # 0.7: torch's backward uses float32(0.7)
    "softsign": [{}], "tanhshrink": [{}],
    "hardshrink": [{}, {"lambd": 1.5}, {"lambd": 0.0}], "softshrink": [{}, {"lambd": 1.0}, {"lambd": 0.0}],
    "threshold": [{"threshold": 0.5, "value": -2.0}, {"threshold": -1.0, "value": 20.0}],
    "relu6": [{}], "hardtanh": [{}, {"min_val": -0.5, "max_val": 1.5}],
}
ACT_CASES = [(n, kw) for n, kws in ACTIVATIONS.items() for kw in kws]
INPLACE = {"hardsigmoid": {}, "hardswish": {}, "mish": {}, "selu": {}, "celu": {"alpha": 0.5},
           "threshold": {"threshold": 0.5, "value": -2.0}, "relu6": {}, "hardtanh": {"min_val": -0.5, "max_val": 1.5}}


def _act_id(case):
    name, kw = case
    return name + "".join(f"-{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("case", ACT_CASES, ids=[_act_id(c) for c in ACT_CASES])
def test_activation_values_and_gradients(tcore, case):
    name, kw = case
    x = np.concatenate([_edges(), SPECIAL])
    if name in ("hardshrink", "softshrink", "hardtanh", "relu6"):
        # torch's backwards send a NaN input the gradient in their scalar loop but 0 in their vector
        # loop (so it depends on where the NaN is); tcore's shrinks send it, as the scalar formula
        x = x[:-1]
    if name in ("hardshrink", "softshrink"):
        c = tcore.tensor([np.nan, 5.0], dtype=tcore.float64, requires_grad=True)
        getattr(tcore.nn.functional, name)(c, **kw).sum().backward()
        assert c.grad.tolist() == [1.0, 1.0]
    # (torch's softshrink gives -0.0 or 0.0 inside [-lambd, 0) as its loops differ; tcore 0.0)
    compare(tcore, getattr(tcore.nn.functional, name), getattr(TF, name), [x], kw=kw,
            signed_zeros=name != "softshrink")


@pytest.mark.parametrize("case", ACT_CASES, ids=[_act_id(c) for c in ACT_CASES])
def test_activation_float32_and_double_backward(tcore, case):
    name, kw = case
    x = _edges()
    f, g = getattr(tcore.nn.functional, name), getattr(TF, name)
    with np.errstate(over="ignore"):  # (1e300 is inf in float32)
        x = x.astype(np.float32)
    got = f(tcore.from_numpy(x), **kw)
    assert str(got.dtype) == "tcore.float32"
    # an ulp of x besides: x - tanh(x) cancels, and the two libraries' float32 tanh may be an ulp apart
    want = g(torch.tensor(x, dtype=torch.float32), **kw).numpy()
    close = np.isclose(got.numpy(), want, rtol=2e-6, atol=0, equal_nan=True)
    with np.errstate(invalid="ignore"):
        close |= np.abs(got.numpy() - want) <= np.finfo(np.float32).eps * np.abs(x)
    assert close.all(), (x[~close], got.numpy()[~close], want[~close])
    xs = np.random.default_rng(3).standard_normal(30) * 3  # second derivatives away from the boundaries
    t, c = _theirs(xs, True), _ours(tcore, xs, True)
    (gt,) = torch.autograd.grad(g(t, **kw).sum(), t, create_graph=True)
    (gc,) = tcore.autograd.grad(f(c, **kw).sum(), c, create_graph=True)
    np.testing.assert_allclose(gc.detach().numpy(), gt.detach().numpy(), rtol=GRTOL, atol=GATOL)
    if gt.requires_grad and name != "hardsigmoid":  # (torch has no derivative of hardsigmoid_backward)
        (ggt,) = torch.autograd.grad(gt.sum(), t)
        want = ggt.numpy()
        if gc.requires_grad:
            (ggc,) = tcore.autograd.grad(gc.sum(), c)
            got = ggc.numpy()
        else:
            got = np.zeros_like(want)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_activation_in_place(tcore, name):
    kw = INPLACE[name]
    x = np.concatenate([_edges(), SPECIAL[:2]])
    f, g = getattr(tcore.nn.functional, name), getattr(TF, name)
    # on a non-leaf: the input is overwritten and returned, gradients flow through it
    t_leaf, c_leaf = _theirs(x, True), _ours(tcore, x, True)
    t_mid, c_mid = t_leaf * 1, c_leaf * 1
    yt, yc = g(t_mid, inplace=True, **kw), f(c_mid, inplace=True, **kw)
    assert yc.data_ptr() == c_mid.data_ptr()
    np.testing.assert_allclose(c_mid.detach().numpy(), t_mid.detach().numpy(), rtol=RTOL, atol=ATOL)
    w = _weights(x.shape)
    (yt * torch.tensor(w)).sum().backward()
    (yc * tcore.tensor(w.tolist(), dtype=tcore.float64)).sum().backward()
    np.testing.assert_allclose(c_leaf.grad.numpy(), t_leaf.grad.numpy(), rtol=GRTOL, atol=GATOL)
    # without autograd, on a strided view
    buf = tcore.tensor(np.tile(x, (2, 1)).tolist(), dtype=tcore.float64)
    f(buf[1], inplace=True, **kw)
    np.testing.assert_allclose(buf[1].numpy(), g(torch.tensor(x), **kw).numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(buf[0].numpy(), x)
    # a leaf that requires grad cannot be written in place
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        f(_ours(tcore, x, True), inplace=True, **kw)


def test_logsigmoid_and_mish_are_finite_far_out(tcore):
    F = tcore.nn.functional
    x = tcore.tensor([-1000.0, -50.0, 50.0, 1000.0], dtype=tcore.float64, requires_grad=True)
    y = F.logsigmoid(x)
    np.testing.assert_allclose(y.detach().numpy(), [-1000.0, -50.0, -np.exp(-50.0), 0.0], rtol=1e-15)
    y.sum().backward()
    assert x.grad.tolist()[0] == 1.0 and x.grad.tolist()[-1] == 0.0
    x.grad = None
    F.mish(x).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


@pytest.mark.parametrize("dim", [-1, 0, 1, 2, -3])
def test_glu(tcore, dim):
    x = np.random.default_rng(1).standard_normal((4, 6, 2)) * 3
    compare(tcore, tcore.nn.functional.glu, TF.glu, [x], kw={"dim": dim})


# ------------------------------------------------------------------ losses
REDUCTIONS = ["none", "mean", "sum"]


def _grid(rng, n=12):
    """Inputs on a dyadic grid, so input - target is exact and lands on the pieces' boundaries."""
    return rng.integers(-12, 13, n) / 4.0


def _huber_arrays(rng):
    t = _grid(rng, 16)
    d = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.25, -0.25, 2.0, -2.0, 1.5, -1.5, 3.0, -0.75, 0.75, 4.0])
    return [t + d, t]


def _ranking_arrays(rng):
    x2 = _grid(rng)
    x1 = x2 + np.array([0.0, 0.5, -0.5, 1.0, -1.0, 0.25, -0.25, 2.0, -2.0, 0.0, 0.5, -0.5])
    return [x1, x2, np.array([1.0, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1])]


def _hinge_arrays(rng):
    x = np.array([1.0, 0.5, -0.5, 0.0, 2.0, 0.25, 1.0, 0.5, -0.5, 0.0, 2.0, 0.3])
    return [x, np.array([1.0, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1])]


def _margin_arrays(rng):
    x = np.concatenate([rng.standard_normal(8) * 3, [30.0, -30.0, 700.0, 0.0]])
    return [x, np.array([1.0, -1, 1, -1, 1, -1, 1, -1, 1, -1, -1, 1])]


def _cosine_arrays(rng):
    a, b = rng.standard_normal((6, 5)), rng.standard_normal((6, 5))
    b[1] = a[1]  # cos = 1
    b[2] = -a[2]  # cos = -1
    b[3] = 0.0  # a zero vector: the 1e-12 guards it
    return [a, b, np.array([1.0, -1, 1, -1, -1, 1])]


def _triplet_arrays(rng):
    a = rng.standard_normal((7, 4))
    p, n = a + rng.standard_normal((7, 4)) * 0.5, a + rng.standard_normal((7, 4))
    n[0] = p[0]  # dist_neg == dist_pos
    return [a, p, n]


def _poisson_arrays(rng):
    return [rng.uniform(0.1, 3, 8), np.array([0.0, 1.0, 0.5, 2.0, 5.0, 1.5, 10.0, 3.0])]


LOSSES = [  # (name, arrays, kwargs, diff)
    ("huber_loss", _huber_arrays, {}, None),
    ("huber_loss", _huber_arrays, {"delta": 0.5}, None),
    ("huber_loss", _huber_arrays, {"delta": 2.0}, None),
    ("smooth_l1_loss", _huber_arrays, {}, None),
    ("smooth_l1_loss", _huber_arrays, {"beta": 0.5}, None),
    ("smooth_l1_loss", _huber_arrays, {"beta": 0.0}, None),
    ("margin_ranking_loss", _ranking_arrays, {}, [0, 1]),
    ("margin_ranking_loss", _ranking_arrays, {"margin": 0.5}, [0, 1]),
    ("hinge_embedding_loss", _hinge_arrays, {}, [0]),
    ("hinge_embedding_loss", _hinge_arrays, {"margin": 0.5}, [0]),
    ("soft_margin_loss", _margin_arrays, {}, [0]),
    ("cosine_embedding_loss", _cosine_arrays, {}, [0, 1]),
    ("cosine_embedding_loss", _cosine_arrays, {"margin": 0.3}, [0, 1]),
    ("cosine_embedding_loss", _cosine_arrays, {"margin": -0.5}, [0, 1]),
    ("triplet_margin_loss", _triplet_arrays, {}, None),
    ("triplet_margin_loss", _triplet_arrays, {"margin": 0.3, "p": 1}, None),
    ("triplet_margin_loss", _triplet_arrays, {"swap": True}, None),
    ("triplet_margin_loss", _triplet_arrays, {"swap": True, "p": 3, "eps": 0.0}, None),
    ("poisson_nll_loss", _poisson_arrays, {}, [0]),
    ("poisson_nll_loss", _poisson_arrays, {"full": True}, [0]),
    ("poisson_nll_loss", _poisson_arrays, {"log_input": False}, [0]),
    ("poisson_nll_loss", _poisson_arrays, {"log_input": False, "full": True, "eps": 1e-3}, [0]),
]


def _loss_id(i):
    name, _, kw, _ = LOSSES[i]
    return name + "".join(f"-{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("i", range(len(LOSSES)), ids=_loss_id)
def test_loss_values_and_gradients(tcore, i, reduction):
    name, make, kw, diff = LOSSES[i]
    arrays = make(np.random.default_rng(i))
    compare(tcore, getattr(tcore.nn.functional, name), getattr(TF, name), arrays, diff=diff,
            kw={**kw, "reduction": reduction})


@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
def test_losses_legacy_flags(tcore):
    """size_average / reduce select the reduction, as in torch."""
    F = tcore.nn.functional
    a = _ranking_arrays(np.random.default_rng(5))
    for flags in ({"size_average": False}, {"reduce": False}, {"size_average": True, "reduce": True}):
        for name, arrays, diff in (("margin_ranking_loss", a, [0, 1]), ("soft_margin_loss", a[1:], [0]),
                                   ("hinge_embedding_loss", a[1:], [0]), ("poisson_nll_loss", a[:2], [0]),
                                   ("triplet_margin_loss", a, None)):
            compare(tcore, getattr(F, name), getattr(TF, name), arrays, diff=diff, kw=flags)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_losses_odd_shapes(tcore, reduction):
    rng = np.random.default_rng(5)
    F = tcore.nn.functional
    # cosine_embedding_loss of 1-D inputs and a 0-D target
    for t in (1.0, -1.0):
        compare(tcore, F.cosine_embedding_loss, TF.cosine_embedding_loss,
                [rng.standard_normal(4), rng.standard_normal(4), np.array(t)], diff=[0, 1],
                kw={"reduction": reduction})
    # huber with weights, target gradients, broadcast target (warns, as torch)
    x, t = _huber_arrays(rng)
    compare(tcore, lambda a, b, w, **k: F.huber_loss(a, b, weight=w, **k),
            lambda a, b, w, **k: TF.huber_loss(a, b, weight=w, **k), [x, t, rng.uniform(0, 2, x.shape)],
            kw={"reduction": reduction, "delta": 0.5}, diff=[0, 1, 2])
    with pytest.warns(UserWarning, match="Using a target size"):
        compare(tcore, F.huber_loss, TF.huber_loss, [rng.standard_normal((3, 4)), rng.standard_normal(4)],
                kw={"reduction": reduction})
    # triplet loss of unbatched (1-D) inputs, poisson target gradients (target > 1 where Stirling counts)
    compare(tcore, F.triplet_margin_loss, TF.triplet_margin_loss, [r[0] for r in _triplet_arrays(rng)],
            kw={"reduction": reduction, "swap": True})
    compare(tcore, F.poisson_nll_loss, TF.poisson_nll_loss, [rng.uniform(0.1, 3, 6), rng.uniform(1.5, 9, 6)],
            kw={"reduction": reduction, "full": True})


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", ["same", "short", "ones", "float", "bcast"])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss(tcore, reduction, var_shape, full):
    rng = np.random.default_rng(11)
    x, t = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    var = {"same": rng.uniform(0, 2, (4, 3)), "short": rng.uniform(0, 2, 4), "ones": rng.uniform(0, 2, (4, 1)),
           "bcast": rng.uniform(0, 2, (1, 3)), "float": None}[var_shape]
    kw = {"full": full, "reduction": reduction}
    if var is None:
        compare(tcore, lambda a, b, **k: tcore.nn.functional.gaussian_nll_loss(a, b, 0.7, **k),
                lambda a, b, **k: TF.gaussian_nll_loss(a, b, 0.7, **k), [x, t], kw=kw)
        return
    var.flat[0] = 0.0  # below eps: clamped, the gradient passes as if it were not
    var.flat[-1] = 1e-7
    compare(tcore, tcore.nn.functional.gaussian_nll_loss, TF.gaussian_nll_loss, [x, t, var], kw=kw)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf"), 0.5])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(tcore, p, keepdim):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    b[1] = a[1]  # the distance is |eps| per component
    kw = {"p": p, "keepdim": keepdim}
    compare(tcore, tcore.nn.functional.pairwise_distance, TF.pairwise_distance, [a, b], kw=kw)
    compare(tcore, tcore.nn.functional.pairwise_distance, TF.pairwise_distance, [a, b[0]], kw=kw)  # broadcast
    compare(tcore, tcore.nn.functional.pairwise_distance, TF.pairwise_distance, [a[0], b[0]], kw=kw)


# ------------------------------------------------------------------ shapes and normalization
@pytest.mark.parametrize("shape,r", [((2, 8, 3, 5), 2), ((9, 2, 4), 3), ((2, 1, 4, 2, 3), 2), ((1, 5, 2, 2), 1)])
def test_pixel_shuffle_and_unshuffle(tcore, shape, r):
    F = tcore.nn.functional
    x = np.random.default_rng(0).standard_normal(shape)
    compare(tcore, F.pixel_shuffle, TF.pixel_shuffle, [x], kw={"upscale_factor": r}, rtol=0)
    y = TF.pixel_shuffle(torch.tensor(x), r).numpy()
    compare(tcore, F.pixel_unshuffle, TF.pixel_unshuffle, [y], kw={"downscale_factor": r}, rtol=0)
    back = F.pixel_unshuffle(F.pixel_shuffle(tcore.tensor(x.tolist(), dtype=tcore.float64), r), r)
    np.testing.assert_array_equal(back.numpy(), x)


@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 1), ((2, 6, 5), 2), ((2, 6, 5), 6), ((3, 4), 2),
                                          ((2, 4, 3, 2), 2), ((1, 4, 3), 4)])
@pytest.mark.parametrize("affine", [False, True])
def test_group_norm(tcore, shape, groups, affine):
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape) * 3 + 1
    arrays = [x] + ([rng.standard_normal(shape[1]), rng.standard_normal(shape[1])] if affine else [])
    f = lambda lib: lambda inp, *wb, **k: lib.nn.functional.group_norm(inp, groups, *wb, **k)  # noqa: E731
    compare(tcore, f(tcore), f(torch), arrays, kw={"eps": 1e-3}, rtol=1e-12, grtol=1e-10)


@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 2, 4, 3), (2, 2, 2, 3, 2)])
@pytest.mark.parametrize("mode", ["plain", "affine", "running", "eval"])
def test_instance_norm(tcore, shape, mode):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape) * 2 + 0.5
    c = shape[1]
    wb = [rng.standard_normal(c), rng.standard_normal(c)] if mode != "plain" else []
    stats = {"momentum": 0.3, "eps": 1e-4}
    if mode in ("running", "eval"):
        rm, rv = rng.standard_normal(c), rng.uniform(0.5, 2, c)
        t_stats = [torch.tensor(rm), torch.tensor(rv)]
        c_stats = [tcore.tensor(rm.tolist(), dtype=tcore.float64), tcore.tensor(rv.tolist(), dtype=tcore.float64)]
        use = mode == "running"

        def ours(inp, *p, **k):
            return tcore.nn.functional.instance_norm(inp, *c_stats, *p, use_input_stats=use, **k)

        def theirs(inp, *p, **k):
            return TF.instance_norm(inp, *t_stats, *p, use_input_stats=use, **k)

        compare(tcore, ours, theirs, [x] + wb, kw=stats, rtol=1e-12, grtol=1e-10)
        for a, b in zip(c_stats, t_stats):  # updated (twice: compare runs each once) or kept, as torch's
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
        return
    f = lambda lib: lambda inp, *p, **k: lib.nn.functional.instance_norm(inp, None, None, *p, **k)  # noqa: E731
    compare(tcore, f(tcore), f(torch), [x] + wb, kw=stats, rtol=1e-12, grtol=1e-10)


@pytest.mark.parametrize("shape", [(2, 6, 4), (2, 5, 3, 2), (1, 7, 2, 2, 2), (2, 0, 3)])
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_local_response_norm(tcore, shape, size):
    x = np.random.default_rng(8).standard_normal(shape) * 4
    compare(tcore, tcore.nn.functional.local_response_norm, TF.local_response_norm, [x],
            kw={"size": size, "alpha": 0.3, "beta": 0.6, "k": 1.5}, rtol=1e-12, grtol=1e-10)


# ------------------------------------------------------------------ channel dropout
DROPOUTS = [  # (name, shape, the dims that make a channel's index)
    ("dropout1d", (16, 40, 3), 2), ("dropout1d", (400, 3), 1), ("dropout2d", (16, 40, 2, 2), 2),
    ("dropout2d", (16, 40, 3), 2), ("dropout3d", (8, 50, 2, 1, 2), 2), ("dropout3d", (400, 2, 1, 2), 1),
]


@pytest.mark.parametrize("name,shape,lead", DROPOUTS)
def test_channel_dropout(tcore, name, shape, lead):
    F = tcore.nn.functional
    f = getattr(F, name)
    tcore.manual_seed(0)
    x = tcore.ones(*shape, dtype=tcore.float64, requires_grad=True)
    p = 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropout2d's 3-D warning
        y = f(x, p=p)
        assert tuple(y.shape) == shape
        v = y.detach().numpy().reshape(int(np.prod(shape[:lead])), -1)
        # each channel is all dropped or all kept (scaled by 1 / (1 - p))
        assert (v == v[:, :1]).all()
        np.testing.assert_allclose(np.unique(v), [0.0, 1 / (1 - p)], rtol=1e-15)
        assert abs((v[:, 0] == 0).mean() - p) < 0.07
        y.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())
        # identity when not training or p = 0, zeros for p = 1
        z = tcore.tensor(np.random.default_rng(0).standard_normal(shape).tolist(), dtype=tcore.float64)
        assert f(z, p=p, training=False).tolist() == z.tolist()
        assert f(z, p=0.0).tolist() == z.tolist()
        assert not f(z, p=1.0).numpy().any()
        # in place: the input is scaled and returned
        out = f(z, p=0.5, inplace=True)
        assert out.data_ptr() == z.data_ptr()
        assert set(np.unique(np.round(z.numpy().ravel() / np.random.default_rng(0).standard_normal(shape).ravel(),
                                      12))) <= {0.0, 2.0}
        nn_cls = {"dropout1d": "Dropout1d", "dropout2d": "Dropout2d", "dropout3d": "Dropout3d"}[name]
        m = getattr(tcore.nn, nn_cls)(p=0.25)
        assert repr(m) == repr(getattr(torch.nn, nn_cls)(p=0.25))
        m.eval()
        assert m(z).tolist() == z.tolist()


def test_dropout_warnings_and_errors(tcore):
    F = tcore.nn.functional
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(tcore.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="Received a 5-D input to dropout2d"):
        F.dropout2d(tcore.ones(2, 3, 4, 5, 6))
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        F.dropout3d(tcore.ones(2, 3, 4))
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dim"):
        F.dropout2d(tcore.ones(3))


# ------------------------------------------------------------------ errors: torch's type and message
def _t(lib, *shape):
    return lib.ones(*shape, dtype=lib.float64)


ERRORS = {
    "celu_alpha0": lambda lib: lib.nn.functional.celu(_t(lib, 2), 0.0),
    "softshrink_neg64": lambda lib: lib.nn.functional.softshrink(_t(lib, 2), -0.5),
    "softshrink_neg32": lambda lib: lib.nn.functional.softshrink(lib.ones(2), -1.0),
    "glu_scalar": lambda lib: lib.nn.functional.glu(lib.tensor(1.0)),
    "glu_odd": lambda lib: lib.nn.functional.glu(_t(lib, 2, 3)),
    "glu_odd_dim0": lambda lib: lib.nn.functional.glu(_t(lib, 3, 2), 0),
    "glu_dim": lambda lib: lib.nn.functional.glu(_t(lib, 2, 4), 2),
    "huber_delta": lambda lib: lib.nn.functional.huber_loss(_t(lib, 2), _t(lib, 2), delta=0.0),
    "huber_weight": lambda lib: lib.nn.functional.huber_loss(_t(lib, 2), _t(lib, 2), weight=_t(lib, 3)),
    "huber_reduction": lambda lib: lib.nn.functional.huber_loss(_t(lib, 2), _t(lib, 2), reduction="bad"),
    "huber_weight_reduction": lambda lib: lib.nn.functional.huber_loss(_t(lib, 2), _t(lib, 2), reduction="bad",
                                                                       weight=_t(lib, 2)),
    "smooth_l1_beta": lambda lib: lib.nn.functional.smooth_l1_loss(_t(lib, 2), _t(lib, 2), beta=-1.0),
    "ranking_dims": lambda lib: lib.nn.functional.margin_ranking_loss(_t(lib, 3), _t(lib, 3), _t(lib, 3, 1)),
    "ranking_reduction": lambda lib: lib.nn.functional.margin_ranking_loss(_t(lib, 3), _t(lib, 3), _t(lib, 3),
                                                                          reduction="bad"),
    "hinge_reduction": lambda lib: lib.nn.functional.hinge_embedding_loss(_t(lib, 3), _t(lib, 3), reduction="x"),
    "soft_margin_reduction": lambda lib: lib.nn.functional.soft_margin_loss(_t(lib, 3), _t(lib, 3), reduction="x"),
    "cosine_target2d": lambda lib: lib.nn.functional.cosine_embedding_loss(_t(lib, 2, 3), _t(lib, 2, 3),
                                                                           _t(lib, 2, 1)),
    "cosine_target1d": lambda lib: lib.nn.functional.cosine_embedding_loss(_t(lib, 3), _t(lib, 3), _t(lib, 2)),
    "cosine_target0d": lambda lib: lib.nn.functional.cosine_embedding_loss(_t(lib, 2, 3), _t(lib, 2, 3),
                                                                           lib.tensor(1.0)),
    "triplet_dims": lambda lib: lib.nn.functional.triplet_margin_loss(_t(lib, 2, 3), _t(lib, 2, 3), _t(lib, 3)),
    "triplet_margin": lambda lib: lib.nn.functional.triplet_margin_loss(_t(lib, 2), _t(lib, 2), _t(lib, 2), 0.0),
    "triplet_module_margin": lambda lib: lib.nn.TripletMarginLoss(margin=-1.0),
    "poisson_reduction": lambda lib: lib.nn.functional.poisson_nll_loss(_t(lib, 2), _t(lib, 2), reduction="bad"),
    "gaussian_negative": lambda lib: lib.nn.functional.gaussian_nll_loss(_t(lib, 2), _t(lib, 2), -_t(lib, 2)),
    "gaussian_negative_float": lambda lib: lib.nn.functional.gaussian_nll_loss(_t(lib, 2), _t(lib, 2), -1.0),
    "gaussian_size": lambda lib: lib.nn.functional.gaussian_nll_loss(_t(lib, 2, 3), _t(lib, 2, 3), _t(lib, 3, 2)),
    "gaussian_reduction": lambda lib: lib.nn.functional.gaussian_nll_loss(_t(lib, 2), _t(lib, 2), _t(lib, 2),
                                                                          reduction="bad"),
    "pixel_shuffle_dims": lambda lib: lib.nn.functional.pixel_shuffle(_t(lib, 4, 4), 2),
    "pixel_shuffle_factor": lambda lib: lib.nn.functional.pixel_shuffle(_t(lib, 4, 4, 4), 0),
    "pixel_shuffle_channels": lambda lib: lib.nn.functional.pixel_shuffle(_t(lib, 1, 6, 4, 4), 2),
    "pixel_unshuffle_dims": lambda lib: lib.nn.functional.pixel_unshuffle(_t(lib, 4, 4), 2),
    "pixel_unshuffle_factor": lambda lib: lib.nn.functional.pixel_unshuffle(_t(lib, 4, 4, 4), -1),
    "pixel_unshuffle_height": lambda lib: lib.nn.functional.pixel_unshuffle(_t(lib, 1, 1, 5, 4), 2),
    "pixel_unshuffle_width": lambda lib: lib.nn.functional.pixel_unshuffle(_t(lib, 1, 1, 4, 5), 2),
    "dropout1d_dims": lambda lib: lib.nn.functional.dropout1d(_t(lib, 2, 3, 4, 5)),
    "dropout1d_p": lambda lib: lib.nn.functional.dropout1d(_t(lib, 2, 3), p=1.5),
    "dropout2d_p": lambda lib: lib.nn.functional.dropout2d(_t(lib, 2, 3, 4, 4), p=-0.1),
    "dropout3d_p": lambda lib: lib.nn.functional.dropout3d(_t(lib, 2, 3, 4, 4, 4), p=2.0),
    "dropout_module_p": lambda lib: lib.nn.Dropout2d(p=1.5),
    "group_norm_dims": lambda lib: lib.nn.functional.group_norm(_t(lib, 3), 1),
    "group_norm_groups": lambda lib: lib.nn.functional.group_norm(_t(lib, 2, 6, 3), 4),
    "group_norm_weight": lambda lib: lib.nn.functional.group_norm(_t(lib, 2, 6, 3), 3, _t(lib, 5)),
    "group_norm_bias": lambda lib: lib.nn.functional.group_norm(_t(lib, 2, 6, 3), 3, _t(lib, 6), _t(lib, 5)),
    "group_norm_one_value": lambda lib: lib.nn.functional.group_norm(_t(lib, 1, 6), 6),
    "group_norm_module": lambda lib: lib.nn.GroupNorm(4, 6),
    "instance_norm_spatial": lambda lib: lib.nn.functional.instance_norm(_t(lib, 2, 3, 1)),
    "instance_norm_stats": lambda lib: lib.nn.functional.instance_norm(_t(lib, 2, 3, 4), use_input_stats=False),
    "instance_norm_module_dims": lambda lib: lib.nn.InstanceNorm2d(3)(_t(lib, 3, 4)),
    "instance_norm_module_features": lambda lib: lib.nn.InstanceNorm1d(4, affine=True)(_t(lib, 2, 3, 5)),
    "local_response_norm_dims": lambda lib: lib.nn.functional.local_response_norm(_t(lib, 2, 3), 2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(tcore, case):
    with pytest.raises(Exception) as want:
        ERRORS[case](torch)
    with pytest.raises(Exception) as got:
        ERRORS[case](tcore)
    assert isinstance(got.value, want.type), (got.type, want.type)
    assert str(got.value) == str(want.value).replace("torch.Size", "tcore.Size")


def test_size_warnings(tcore):
    F = tcore.nn.functional
    for f in (F.huber_loss, F.smooth_l1_loss):
        with pytest.warns(UserWarning, match=r"Using a target size \(tcore.Size\(\[2\]\)\) that is different"):
            f(tcore.ones(2, 1), tcore.ones(2))
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        tcore.nn.InstanceNorm1d(4)(tcore.ones(2, 3, 5))


# ------------------------------------------------------------------ modules
MODULES = [  # (class name, constructor arguments, input shapes[, the inputs to differentiate])
    ("LogSigmoid", {}, [(3, 4)]), ("Hardsigmoid", {}, [(3, 4)]), ("Hardswish", {"inplace": True}, [(3, 4)]),
    ("Mish", {}, [(3, 4)]), ("SELU", {"inplace": True}, [(3, 4)]), ("CELU", {"alpha": 0.7}, [(3, 4)]),
    ("Softsign", {}, [(3, 4)]), ("Tanhshrink", {}, [(3, 4)]), ("Hardshrink", {"lambd": 0.7}, [(3, 4)]),
    ("Softshrink", {}, [(3, 4)]), ("Threshold", {"threshold": 0.1, "value": 20.0}, [(3, 4)]),
    ("GLU", {"dim": 0}, [(4, 3)]), ("HuberLoss", {"delta": 0.5}, [(3, 4), (3, 4)]),
    ("MarginRankingLoss", {"margin": 0.2, "reduction": "sum"}, [(5,), (5,), "sign5"], [0, 1]),
    ("HingeEmbeddingLoss", {"margin": 0.5}, [(5,), "sign5"], [0]), ("SoftMarginLoss", {}, [(5,), "sign5"], [0]),
    ("CosineEmbeddingLoss", {"margin": 0.1}, [(5, 3), (5, 3), "sign5"], [0, 1]),
    ("TripletMarginLoss", {"margin": 0.5, "swap": True}, [(5, 3), (5, 3), (5, 3)]),
    ("PoissonNLLLoss", {"full": True, "reduction": "none"}, [(5,), "count5"], [0]),
    ("GaussianNLLLoss", {"full": True}, [(5, 2), (5, 2), "positive5"]),
    ("PairwiseDistance", {"p": 1.0, "keepdim": True}, [(5, 3), (5, 3)]),
    ("CosineSimilarity", {"dim": 0}, [(5, 3), (5, 3)]),
    ("PixelShuffle", {"upscale_factor": 2}, [(2, 8, 3, 3)]),
    ("PixelUnshuffle", {"downscale_factor": 2}, [(2, 2, 4, 6)]),
    ("GroupNorm", {"num_groups": 2, "num_channels": 4}, [(3, 4, 5)]),
    ("GroupNorm", {"num_groups": 2, "num_channels": 4, "affine": False}, [(3, 4, 5)]),
    ("InstanceNorm1d", {"num_features": 3, "affine": True}, [(2, 3, 5)]),
    ("InstanceNorm1d", {"num_features": 3}, [(3, 5)]),
    ("InstanceNorm2d", {"num_features": 3, "track_running_stats": True}, [(2, 3, 4, 2)]),
    ("InstanceNorm3d", {"num_features": 2}, [(2, 2, 3, 2, 2)]),
    ("LocalResponseNorm", {"size": 3, "alpha": 0.2}, [(2, 5, 3)]),
]


@pytest.mark.parametrize("i", range(len(MODULES)), ids=lambda i: MODULES[i][0])
def test_modules_against_torch(tcore, i):
    name, kw, shapes, *diff = MODULES[i]
    diff = diff[0] if diff else None
    rng = np.random.default_rng(i)
    arrays = []
    for s in shapes:
        if s == "sign5":
            arrays.append(np.array([1.0, -1.0, 1.0, 1.0, -1.0]))
        elif s == "count5":
            arrays.append(np.array([0.0, 1.0, 2.0, 3.0, 7.0]))
        elif s == "positive5":
            arrays.append(rng.uniform(0.1, 2, 5))
        else:
            arrays.append(rng.standard_normal(s))
    ours, theirs = getattr(tcore.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(ours) == repr(theirs)
    assert sorted(n for n, _ in ours.named_parameters()) == sorted(n for n, _ in theirs.named_parameters())
    assert sorted(n for n, _ in ours.named_buffers()) == sorted(n for n, _ in theirs.named_buffers())
    ours.double(), theirs.double()
    if kw.get("inplace"):  # (in place on a leaf is an error)
        compare(tcore, lambda x: ours(x * 1), lambda x: theirs(x * 1), arrays)
    else:
        compare(tcore, ours, theirs, arrays, diff=diff, rtol=1e-12, grtol=1e-10)
    for (n, a), (_, b) in zip(sorted(ours.named_buffers()), sorted(theirs.named_buffers())):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, err_msg=n)
    if name.startswith("InstanceNorm") and kw.get("track_running_stats"):
        ours.eval(), theirs.eval()
        compare(tcore, ours, theirs, arrays, rtol=1e-12, grtol=1e-10)


def test_names_are_exported(tcore):
    F = tcore.nn.functional
    added = ["logsigmoid", "hardsigmoid", "hardswish", "mish", "selu", "celu", "softsign", "tanhshrink", "hardshrink",
             "softshrink", "threshold", "glu", "huber_loss", "margin_ranking_loss", "hinge_embedding_loss",
             "soft_margin_loss", "cosine_embedding_loss", "pairwise_distance", "triplet_margin_loss",
             "poisson_nll_loss", "gaussian_nll_loss", "pixel_shuffle", "pixel_unshuffle", "dropout1d", "dropout2d",
             "dropout3d", "group_norm", "instance_norm", "local_response_norm"]
    for name in added:
        assert name in F.__all__ and hasattr(TF, name), name
    assert set(tcore.nn.__all__) - {"functional", "init"} <= set(dir(torch.nn))


def test_bce_with_logits_gradient_at_zero_as_torch():
    """At a logit of exactly 0 the gradient is sigmoid(0) - target (it was -target: the |x| and
    max(-x, 0) pieces' one-sided gradients), with weights and pos_weight."""
    import tcore
    x = np.array([0.0, -0.0, 0.0, 2.0, -3.0])
    y = np.array([0.0, 1.0, 0.5, 1.0, 0.25])
    w = np.array([1.0, 2.0, 3.0, 4.0, 0.5])
    for pos_weight in (None, np.full(5, 2.0)):
        grads = []
        for lib in (torch, tcore):
            xt = lib.tensor(x, requires_grad=True)
            pw = None if pos_weight is None else lib.tensor(pos_weight)
            lib.nn.functional.binary_cross_entropy_with_logits(xt, lib.tensor(y), lib.tensor(w), pos_weight=pw,
                                                               reduction="sum").backward()
            grads.append(xt.grad.numpy())
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-14)
