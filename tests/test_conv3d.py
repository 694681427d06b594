"""tcore.nn.functional.conv3d / conv_transpose3d (and conv_transpose1d/2d, which share their code)
and the Conv3d, ConvTranspose1d/2d/3d modules against torch: each case runs the same lambda with
lib = torch and lib = tcore and compares shapes, dtypes, float64 values and the gradients of
sum(w * out) for non-uniform w; then torch's errors for wrong calls, the modules' repr, state_dict
keys, initialization bounds, output_size= and padding_mode. torch is a test-only oracle."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from spatial_data import F
from spatial_data import inputs as _inputs
from spatial_data import weights as _weights

torch = pytest.importorskip("torch")

# the sums run in another order than torch's kernels (and a 3-D kernel sums more terms than conv1d's)
RTOL, ATOL = 1e-11, 1e-12
GRTOL, GATOL = 1e-11, 1e-12

pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")  # torch's note on asymmetric padding


def _tensor(lib, tcore, a: np.ndarray, dtype: str, grad: bool):
    t = (torch if lib is torch else tcore).tensor(a, dtype=getattr(lib, dtype))
    return t.requires_grad_(True) if grad else t


def check(tcore, fn, specs, dtype="float64", rtol=RTOL, atol=ATOL, grtol=GRTOL, gatol=GATOL, params=((), ())):
    """params: (torch's, tcore's) further tensors (a module's parameters) whose gradients to compare."""
    arrays = _inputs(specs)
    (yt, xt), (yc, xc) = [(fn(lib, *xs), xs + list(ps)) for lib, ps in zip((torch, tcore), params)
                          for xs in [[_tensor(lib, tcore, a, dtype, True) for a in arrays]]]
    assert tuple(yc.shape) == tuple(yt.shape)
    assert str(yc.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
    np.testing.assert_allclose(yc.detach().double().numpy(), yt.detach().double().numpy(), rtol=rtol, atol=atol)
    if yt.numel() == 0:
        return
    w = _weights(tuple(yt.shape))
    gt = torch.autograd.grad((yt * torch.tensor(w, dtype=yt.dtype)).sum(), xt)
    gc = tcore.autograd.grad((yc * tcore.tensor(w, dtype=yc.dtype)).sum(), xc)
    for i, (a, b) in enumerate(zip(gt, gc)):
        np.testing.assert_allclose(b.double().numpy(), a.double().numpy(), rtol=grtol, atol=gatol,
                                   err_msg=f"gradient of input {i}")


# ------------------------------------------------------------------ conv3d
def _conv3d_grid():
    """stride x padding x dilation (no 'same' with a stride), cycling groups, bias and an unbatched
    input through the combinations; odd, unequal sizes and a non-cubic kernel throughout."""
    strides = [1, 2, (1, 2, 3)]
    paddings = [0, 1, (2, 0, 1), "same", "valid"]
    dilations = [1, 2, (2, 1, 1)]
    cases = []
    for i, (s, p, d) in enumerate(itertools.product(strides, paddings, dilations)):
        if p == "same" and s != 1:
            continue
        groups, bias, unbatched = 1 + i % 2, i % 3 != 0, i % 4 == 3
        x = (4, 7, 8, 9) if unbatched else (2, 4, 7, 8, 9)
        specs = [x, (6, 4 // groups, 3, 2, 3)] + ([(6,)] if bias else [])
        cases.append((f"s={s} p={p} d={d} g={groups} bias={bias} unbatched={unbatched}",
                      dict(stride=s, padding=p, dilation=d, groups=groups), specs))
    return cases


CONV3D_SPECIAL = [
    ("1x1x1 kernel", dict(), [(2, 3, 4, 5, 6), (5, 3, 1, 1, 1), (5,)]),
    ("kernel as large as the input", dict(), [(2, 3, 3, 4, 2), (2, 3, 3, 4, 2)]),
    ("kernel as large as the padded input", dict(padding=(1, 0, 2)), [(1, 2, 1, 4, 1), (3, 2, 3, 4, 5)]),
    ("depthwise", dict(groups=4, padding=1), [(2, 4, 5, 5, 5), (8, 1, 3, 3, 3), (8,)]),
    ("depth stride leaves a remainder", dict(stride=(3, 1, 1)), [(1, 2, 8, 3, 3), (2, 2, 2, 2, 2)]),
    ("1-tuples", dict(stride=(2,), padding=(1,), dilation=(1,)), [(1, 2, 5, 6, 7), (3, 2, 3, 3, 3)]),
    ("list arguments", dict(stride=[1, 2, 1], padding=[0, 1, 1], dilation=[1, 1, 2]),
     [(1, 2, 5, 6, 7), (3, 2, 3, 3, 3)]),
    ("same even kernel odd dilation", dict(padding="same", dilation=(1, 3, 1)), [(2, 3, 5, 6, 7), (2, 3, 2, 4, 3)]),
    ("same even kernel groups", dict(padding="same", groups=3), [(1, 6, 5, 4, 5), (3, 2, 4, 2, 2), (3,)]),
    ("unbatched depthwise same", dict(padding="same", groups=2), [(2, 4, 5, 6), (4, 1, 2, 3, 2)]),
    ("empty batch", dict(padding=1), [(0, 2, 3, 4, 5), (3, 2, 3, 3, 3), (3,)]),
]


@pytest.mark.parametrize("name,kw,specs", _conv3d_grid() + CONV3D_SPECIAL,
                         ids=[c[0] for c in _conv3d_grid() + CONV3D_SPECIAL])
def test_conv3d(tcore, name, kw, specs):
    check(tcore, lambda lib, x, w, *b: F(lib).conv3d(x, w, *b, **kw), specs)


def test_conv3d_strided_input_and_float32(tcore):
    check(tcore, lambda lib, x, w: F(lib).conv3d(x.transpose(1, 4)[:, :, ::2], w, padding=1),
          [(2, 7, 6, 5, 3), (4, 3, 3, 3, 3)])
    check(tcore, lambda lib, x, w, b: F(lib).conv3d(x, w, b, stride=2, padding=1),
          [(2, 3, 6, 7, 8), (4, 3, 3, 3, 3), (4,)], dtype="float32", rtol=1e-5, atol=1e-5, grtol=1e-5, gatol=1e-4)


def test_conv3d_output_is_contiguous(tcore):
    out = tcore.nn.functional.conv3d(tcore.randn(2, 3, 4, 5, 6), tcore.randn(4, 3, 2, 2, 2))
    assert out.is_contiguous()
    assert out.view(-1).shape == (2 * 4 * 3 * 4 * 5,)


# ------------------------------------------------------------------ transposed convolutions
CONV_TRANSPOSE_CASES = [
    ("3d", dict(), [(2, 4, 3, 4, 5), (4, 3, 3, 2, 3), (3,)]),
    ("3d stride padding output_padding", dict(stride=2, padding=1, output_padding=1),
     [(2, 4, 3, 4, 5), (4, 3, 3, 3, 3)]),
    ("3d per-dim stride output_padding groups",
     dict(stride=(2, 1, 3), padding=(1, 0, 1), output_padding=(1, 0, 2), groups=2),
     [(2, 4, 3, 4, 5), (4, 3, 3, 2, 3), (6,)]),
    ("3d output_padding < dilation", dict(dilation=(2, 1, 3), padding=(3, 1, 2), output_padding=(1, 0, 2)),
     [(1, 2, 3, 4, 5), (2, 3, 3, 2, 3)]),
    ("3d padding crops", dict(padding=(2, 1, 1)), [(1, 2, 4, 3, 5), (2, 2, 3, 3, 3)]),
    ("3d unbatched", dict(stride=(1, 2, 2), groups=4), [(4, 3, 4, 2), (4, 1, 2, 3, 2), (4,)]),
    ("3d 1-tuples", dict(stride=(2,), padding=(1,), output_padding=(1,), dilation=(1,)),
     [(1, 2, 3, 3, 3), (2, 2, 3, 3, 3)]),
    ("3d empty batch", dict(stride=2), [(0, 2, 3, 3, 3), (2, 2, 3, 3, 3)]),
    # conv_transpose1d/2d share _conv_transpose with conv_transpose3d
    ("2d", dict(stride=2, padding=1, output_padding=1, groups=2), [(2, 4, 5, 6), (4, 3, 3, 2), (6,)], 2),
    ("2d unbatched dilation", dict(stride=(1, 3), dilation=(2, 1), padding=(2, 0)), [(2, 5, 6), (2, 3, 3, 3)], 2),
    ("1d", dict(stride=3, padding=1, output_padding=2, groups=2), [(2, 4, 5), (4, 3, 3), (6,)], 1),
    ("1d unbatched", dict(dilation=2), [(2, 7), (2, 3, 4)], 1),
]


@pytest.mark.parametrize("case", CONV_TRANSPOSE_CASES, ids=[c[0] for c in CONV_TRANSPOSE_CASES])
def test_conv_transpose(tcore, case):
    name, kw, specs, *nd = case
    fn = f"conv_transpose{nd[0] if nd else 3}d"
    check(tcore, lambda lib, x, w, *b: getattr(F(lib), fn)(x, w, *b, **kw), specs)


def test_conv_transpose3d_is_the_adjoint_of_conv3d(tcore):
    """<conv3d(x, w), y> = <x, conv_transpose3d(y, w)> for the same stride/padding/dilation/groups."""
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 4, 7, 6, 5)), rng.standard_normal((6, 2, 3, 2, 3))
    kw = dict(stride=(2, 1, 2), padding=(1, 1, 0), dilation=(1, 2, 1), groups=2)
    y = rng.standard_normal(tuple(F(tcore).conv3d(tcore.tensor(x), tcore.tensor(w), **kw).shape))
    fwd = F(tcore).conv3d(tcore.tensor(x), tcore.tensor(w), **kw).numpy()
    adj = F(tcore).conv_transpose3d(tcore.tensor(y), tcore.tensor(w), output_padding=(0, 0, 0), **kw).numpy()
    assert adj.shape == x.shape
    assert math.isclose((fwd * y).sum(), (x * adj).sum(), rel_tol=1e-12)


# ------------------------------------------------------------------ errors
_X, _W = (2, 4, 5, 6, 7), (6, 2, 3, 3, 3)
_WT = (4, 3, 3, 3, 3)

# (fn(lib, *tensors), input specs, a distinctive part of torch's message, or None where tcore's differs)
ERROR_CASES = [
    (lambda lib, x, w: F(lib).conv3d(x[0, 0], w), [_X, _W], "Expected 4D (unbatched) or 5D (batched) input to conv3d"),
    (lambda lib, x, w: F(lib).conv3d(x, w[:, :, 0]), [_X, _W], None),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=3), [_X, _W],
     "Given groups=3, weight of size [6, 2, 3, 3, 3], expected input[2, 4, 5, 6, 7] to have 6 channels"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=4), [_X, _W], "expected weight to be divisible by 4 at dimension 0"),
    (lambda lib, x, w: F(lib).conv3d(x, w[:2, :1], groups=4), [_X, _W],
     "expected weight to be at least 4 at dimension"),
    (lambda lib, x, w: F(lib).conv3d(x, w), [_X, _W], "expected input[2, 4, 5, 6, 7] to have 2 channels"),
    (lambda lib, x, w: F(lib).conv3d(x[0], w), [_X, _W], "expected input[1, 4, 5, 6, 7] to have 2 channels"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=0), [_X, _W], "non-positive groups is not supported"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=2, stride=(1, 0, 1)), [_X, _W],
     "non-positive stride is not supported"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=2, padding=-1), [_X, _W], "negative padding is not supported"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=2, dilation=0), [_X, _W], "dilation should be greater than zero"),
    (lambda lib, x, w, b: F(lib).conv3d(x, w, b[:5], groups=2), [_X, _W, (6,)],
     "expected bias to be 1-dimensional with 6 elements, but got bias of size [5]"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=2, dilation=(3, 1, 1)), [_X, _W],
     "Calculated padded input size per channel: (5 x 6 x 7). Kernel size: (7 x 3 x 3). Kernel size can't be greater"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=2, padding="same", stride=(1, 1, 2)), [_X, _W],
     "padding='same' is not supported for strided convolutions"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=2, padding="foo"), [_X, _W], "Invalid padding string: 'foo'"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=2, padding=(1, 2)), [_X, _W],
     "expected padding to be a single integer value or a list of 3 values"),
    (lambda lib, x, w: F(lib).conv3d(x, w, groups=2, stride=(1, 2, 1, 1)), [_X, _W],
     "expected stride to be a single integer value or a list of 3 values"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x[0, 0], w), [_X, _WT],
     "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w[:, :, 0]), [_X, _WT], None),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, stride=2, output_padding=2), [_X, _WT],
     "output padding must be smaller than either stride or dilation, but got output_padding_depth: 2 "
     "output_padding_height: 2 output_padding_width: 2 stride_depth: 2"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w[:3]), [_X, _WT],
     "Given transposed=1, weight of size [3, 3, 3, 3, 3], expected input[2, 4, 5, 6, 7] to have 3 channels"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, groups=3), [_X, _WT],
     "Given groups=3, expected weight to be divisible by 3 at dimension 0"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, groups=8), [_X, _WT], "expected weight to be at least 8"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, groups=0), [_X, _WT], "non-positive groups is not supported"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, padding=-1), [_X, _WT], "negative padding is not supported"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, output_padding=-1), [_X, _WT],
     "negative output_padding is not supported"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, stride=(1, 2)), [_X, _WT],
     "expected stride to be a single integer value or a list of 3 values"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, dilation=0), [_X, _WT], None),
    (lambda lib, x, w, b: F(lib).conv_transpose3d(x, w, b), [_X, _WT, (4,)],
     "Given transposed=1, weight of size [4, 3, 3, 3, 3], expected bias to be 1-dimensional with 3 elements"),
    (lambda lib, x, w: F(lib).conv_transpose3d(x, w, padding="same"), [_X, _WT],
     "argument 'padding' must be tuple of ints, not str"),
]


@pytest.mark.parametrize("fn,specs,message", ERROR_CASES, ids=[f"{i}-{(c[2] or '')[:50]}" for i, c in
                                                                enumerate(ERROR_CASES)])
def test_errors(tcore, fn, specs, message):
    arrays = _inputs(specs)
    errors = []
    for lib in (torch, tcore):
        xs = [_tensor(lib, tcore, a, "float64", False) for a in arrays]
        with pytest.raises(Exception) as info:
            fn(lib, *xs)
        errors.append(info.value)
    want, got = errors
    assert isinstance(got, type(want)), f"tcore raised {type(got).__name__}, torch {type(want).__name__}: {got}"
    if message is not None:
        assert message in str(want), f"torch's message changed: {want}"
        assert message in str(got), f"tcore's message: {got}"


# ------------------------------------------------------------------ modules
MODULE_CASES = [
    (lambda nn: nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 1), padding=1, groups=2), (2, 4, 5, 6, 7)),
    (lambda nn: nn.Conv3d(3, 2, 2, padding="same", padding_mode="reflect", bias=False), (3, 4, 5, 6)),
    (lambda nn: nn.Conv3d(3, 2, 3, padding=(1, 2, 0), padding_mode="circular", dilation=(1, 1, 2)), (1, 3, 4, 5, 6)),
    (lambda nn: nn.Conv3d(2, 4, (1, 3, 2), padding=(0, 1, 1), padding_mode="replicate", stride=2), (2, 2, 3, 5, 4)),
    (lambda nn: nn.Conv3d(2, 2, 3, padding="valid", dilation=2), (1, 2, 5, 6, 5)),
    (lambda nn: nn.Conv3d(2, 2, 3, padding="same", padding_mode="zeros"), (1, 2, 3, 4, 5)),
    (lambda nn: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), (2, 4, 5)),
    (lambda nn: nn.ConvTranspose1d(2, 3, 2, dilation=3, bias=False), (2, 6)),
    (lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=1, dilation=2, bias=False), (2, 4, 5, 6)),
    (lambda nn: nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=(1, 0), groups=2), (2, 3, 4)),
    (lambda nn: nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1), (4, 3, 4, 5)),
    (lambda nn: nn.ConvTranspose3d(4, 4, (2, 3, 1), stride=(1, 2, 3), padding=(0, 1, 0), output_padding=(0, 1, 2),
                                   groups=4, dilation=(2, 1, 1)), (1, 4, 3, 4, 2)),
]
_MODULE_IDS = ["conv3d", "conv3d reflect same", "conv3d circular", "conv3d replicate", "conv3d valid", "conv3d same",
               "T1d", "T1d unbatched", "T2d", "T2d unbatched", "T3d unbatched", "T3d groups"]


def _pair(tcore, build):
    """torch's module (float64) and tcore's with torch's parameters copied in."""
    theirs, ours = build(torch.nn).double(), build(tcore.nn).double()
    ours.load_state_dict({k: tcore.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()})
    return theirs, ours


@pytest.mark.parametrize("build,shape", MODULE_CASES, ids=_MODULE_IDS)
def test_modules_against_torch(tcore, build, shape):
    theirs, ours = _pair(tcore, build)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name, p in theirs.named_parameters():
        assert tuple(getattr(ours, name).shape) == tuple(p.shape), name
    names = [name for name, _ in theirs.named_parameters()]  # the gradients of the weight and bias too
    params = ([getattr(theirs, n) for n in names], [getattr(ours, n) for n in names])
    check(tcore, lambda lib, x: (theirs if lib is torch else ours)(x), [shape], params=params)


@pytest.mark.parametrize("nd,kw,shape,sizes", [
    (1, dict(stride=3, padding=1), (2, 2, 4), [[10], [11], [12], [2, 3, 12]]),
    (2, dict(stride=(2, 3), padding=1, dilation=2), (2, 2, 5, 6), [[11, 18], [12, 20], (2, 3, 12, 19)]),
    (3, dict(stride=2, padding=(1, 0, 1)), (2, 3, 4, 5), [[5, 9, 9], [6, 10, 10], [3, 6, 9, 10]]),
    (3, dict(stride=(1, 2, 2)), (1, 2, 3, 3, 3), [[5, 8, 7], [1, 3, 5, 7, 8]]),
], ids=["1d", "2d", "3d unbatched", "3d"])
def test_conv_transpose_output_size(tcore, nd, kw, shape, sizes):
    theirs, ours = _pair(tcore, lambda nn: getattr(nn, f"ConvTranspose{nd}d")(2, 3, 3, **kw))
    for size in sizes:
        check(tcore, lambda lib, x: (theirs if lib is torch else ours)(x, output_size=size), [shape],
              params=([theirs.weight], [ours.weight]))
    x = np.zeros(shape)
    for bad in ([1] * (nd + 3), [10 ** 3] * nd):
        errors = []
        for module, lib in ((theirs, torch), (ours, tcore)):
            with pytest.raises(ValueError) as info:
                module(lib.tensor(x), output_size=bad)
            errors.append(str(info.value))
        assert errors[1].split(" (for")[0] == errors[0].split(" (for")[0]


@pytest.mark.parametrize("name,args,kw", [
    ("Conv3d", (4, 6, (3, 2, 1)), dict(groups=2)),
    ("ConvTranspose1d", (4, 6, 3), dict(groups=2)),
    ("ConvTranspose2d", (3, 8, (2, 3)), dict(bias=False)),
    ("ConvTranspose3d", (6, 4, 2), dict(groups=2)),
])
def test_modules_init_and_attributes(tcore, name, args, kw):
    """torch's parameter shapes, attributes and initialization: kaiming-uniform with a=sqrt(5) (a
    bound of 1/sqrt(fan_in), fan_in from the weight's dim 1 also for a transposed one), and the
    bias uniform within the same bound."""
    theirs, ours = getattr(torch.nn, name)(*args, **kw), getattr(tcore.nn, name)(*args, **kw)
    for attr in ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "transposed",
                 "output_padding", "groups", "padding_mode"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    w = ours.weight.detach().numpy()
    bound = 1 / math.sqrt(int(np.prod(w.shape[1:])))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.3 * bound
    if ours.bias is not None:
        assert np.abs(ours.bias.detach().numpy()).max() <= bound
    assert ours.weight.requires_grad and isinstance(ours.weight, tcore.nn.Parameter)


def test_module_errors(tcore):
    for name in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"):
        with pytest.raises(ValueError, match=f'Only "zeros" padding mode is supported for {name}'):
            getattr(tcore.nn, name)(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        tcore.nn.Conv3d(1, 1, 3, padding_mode="foo")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        tcore.nn.Conv3d(1, 1, 3, padding="same", stride=(1, 2, 1))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        tcore.nn.ConvTranspose3d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        tcore.nn.ConvTranspose2d(4, 3, 3, groups=2)


def test_exported(tcore):
    names = ["Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]
    assert all(n in tcore.nn.__all__ and hasattr(tcore.nn, n) for n in names)
    assert all(n in tcore.nn.functional.__all__ for n in ("conv3d", "conv_transpose3d"))
