"""tcore.nn.functional's spatial ops (pad's reflect / replicate / circular modes, interpolate,
scaled_dot_product_attention, conv1d, conv_transpose1d/2d, unfold, fold) and their tcore.nn
modules against torch: each case runs the same lambda with lib = torch and lib = tcore and
compares shapes, dtypes, float64 values and the gradients of sum(w * out) for non-uniform w;
then torch's errors for wrong calls. torch is a test-only oracle."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from spatial_data import F
from spatial_data import inputs as _inputs
from spatial_data import weights as _weights

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-12, 1e-13  # the index arithmetic is exact; sums run in another order than torch's kernels
GRTOL, GATOL = 1e-11, 1e-12


def _tensor(lib, tcore, a: np.ndarray, dtype: str, grad: bool):
    if lib is torch:
        t = torch.tensor(a, dtype=getattr(torch, dtype)) if a.dtype.kind == "f" else torch.tensor(a)
    else:
        t = tcore.tensor(a, dtype=getattr(tcore, dtype)) if a.dtype.kind == "f" else tcore.tensor(a)
    return t.requires_grad_(True) if grad else t


def run_both(tcore, fn, arrays, dtype="float64", grad=True):
    """(torch's output, its inputs), (tcore's output, its inputs): floating inputs require grad."""
    out = []
    for lib in (torch, tcore):
        xs = [_tensor(lib, tcore, a, dtype, grad and a.dtype.kind == "f") for a in arrays]
        out.append((fn(lib, *xs), xs))
    return out


def check(tcore, fn, specs, dtype="float64", grad=True, rtol=RTOL, atol=ATOL, grtol=GRTOL, gatol=GATOL):
    arrays = _inputs(specs)
    (yt, xt), (yc, xc) = run_both(tcore, fn, arrays, dtype, grad)
    assert tuple(yc.shape) == tuple(yt.shape)
    assert str(yc.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
    np.testing.assert_allclose(yc.detach().double().numpy(), yt.detach().double().numpy(), rtol=rtol, atol=atol)
    diff = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    if not grad or not diff or yt.numel() == 0:
        return
    w = _weights(tuple(yt.shape))
    gt = torch.autograd.grad((yt * torch.tensor(w, dtype=yt.dtype)).sum(), [xt[i] for i in diff], allow_unused=True)
    gc = tcore.autograd.grad((yc * tcore.tensor(w, dtype=yc.dtype)).sum(), [xc[i] for i in diff], allow_unused=True)
    for i, a, b in zip(diff, gt, gc):
        a = np.zeros(arrays[i].shape) if a is None else a.double().numpy()
        b = np.zeros(arrays[i].shape) if b is None else b.double().numpy()
        np.testing.assert_allclose(b, a, rtol=grtol, atol=gatol, err_msg=f"gradient of input {i}")


# ------------------------------------------------------------------ pad
def _pad(mode, pads):
    return lambda lib, x: F(lib).pad(x, pads, mode)


PAD_CASES = [
    # (mode, pads, input shape): 1, 2 and 3 padded dims, batched and not, negative pads (crops),
    # replicate / circular pads as large as torch allows, size-1 dims
    *[(m, p, s) for m in ("reflect", "replicate", "circular") for p, s in [
        ((2, 3), (2, 3, 5)), ((1, 0), (3, 5)), ((-2, 1), (2, 3, 5)), ((0, -1), (2, 1, 4)),
        ((1, 2, 2, 1), (2, 3, 4, 5)), ((1, 2, 0, 3), (3, 4, 5)), ((-1, 2, 2, -2), (2, 2, 4, 5)),
        ((1, 1, 2, 0, 1, 2), (2, 2, 3, 4, 5)), ((2, -1, 0, 1, -1, 2), (2, 3, 4, 5)),
        ((1, 0, 0, 1, 0, 0), (1, 1, 2, 2, 2)),
    ]],
    ("replicate", (7, 9), (2, 3, 4)), ("replicate", (0, 4, 5, 0), (1, 1, 1, 4)), ("replicate", (3, 3), (2, 1, 1)),
    ("circular", (4, 4), (2, 3, 4)), ("circular", (2, 3, 4, 0), (2, 3, 4, 5)), ("reflect", (3, 3, 2, 1), (1, 2, 3, 4)),
    ("circular", (-2, -2), (2, 3, 4)),  # to an empty dim
    ("reflect", (1, 2), (0, 2, 4)), ("replicate", (1, 2, 1, 1), (0, 2, 3, 4)),  # an empty batch
    ("constant", (1, -2, 0, 3), (2, 3, 4)), ("constant", (2, 1, 1, 1, 1, 1, 1, 1), (2, 2, 2, 2)),
]


@pytest.mark.parametrize("mode,pads,shape", PAD_CASES, ids=lambda v: str(v))
def test_pad(tcore, mode, pads, shape):
    check(tcore, _pad(mode, pads), [shape])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_transposed_input_and_float32(tcore, mode):
    check(tcore, lambda lib, x: F(lib).pad(x.transpose(-1, -2), (2, 1, 1, 3), mode), [(2, 3, 5, 4)])
    check(tcore, _pad(mode, (1, 2)), [(2, 3, 4)], dtype="float32", rtol=0, atol=0, grtol=1e-6, gatol=1e-6)


def test_pad_integer_input(tcore):
    x = np.arange(24).reshape(2, 3, 4)
    for mode in ("reflect", "replicate", "circular"):
        want = torch.nn.functional.pad(torch.tensor(x), (2, 1), mode).numpy()
        got = tcore.nn.functional.pad(tcore.tensor(x), (2, 1), mode).numpy()
        np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------ interpolate
def _interp(**kw):
    return lambda lib, x: F(lib).interpolate(x, **kw)


# (keyword arguments, input shape)
INTERP_CASES = [
    *[(dict(mode=m, **kw), s) for m in ("nearest", "nearest-exact") for kw, s in [
        (dict(size=7), (2, 3, 5)), (dict(size=3), (2, 3, 7)), (dict(scale_factor=1.7), (2, 3, 5)),
        (dict(scale_factor=0.6), (1, 2, 9)), (dict(size=4), (1, 1, 1)), (dict(size=(5, 3)), (2, 3, 4, 6)),
        (dict(scale_factor=(1.7, 0.6)), (1, 2, 5, 6)),
        (dict(scale_factor=2.5, recompute_scale_factor=True), (1, 2, 3, 4)),
        (dict(scale_factor=1.1), (1, 2, 5, 4)),  # same size: torch's 2-D nearest then copies whatever the scale
        (dict(scale_factor=2.05), (1, 2, 10, 3)),  # twice the size: i // 2
        (dict(size=(3, 5, 2)), (1, 2, 2, 4, 3)), (dict(scale_factor=(1.5, 0.7, 2.0)), (1, 2, 3, 4, 5)),
    ]],
    *[(dict(mode=m, align_corners=ac, **kw), s) for ac in (False, True) for m, kw, s in [
        ("linear", dict(size=8), (2, 3, 5)), ("linear", dict(size=3), (2, 3, 7)), ("linear", dict(size=1), (2, 3, 4)),
        ("linear", dict(scale_factor=1.7), (2, 3, 5)), ("linear", dict(scale_factor=0.6), (1, 2, 9)),
        ("linear", dict(size=5), (1, 2, 1)), ("linear", dict(scale_factor=1.1), (1, 2, 4)),  # same size: a copy
        ("linear", dict(scale_factor=2.5, recompute_scale_factor=True), (1, 2, 3)),
        ("bilinear", dict(size=(5, 3)), (2, 3, 4, 6)), ("bilinear", dict(scale_factor=(1.7, 0.6)), (1, 2, 5, 6)),
        ("bilinear", dict(scale_factor=2), (1, 1, 1, 3)), ("bilinear", dict(size=(7, 1)), (2, 2, 3, 4)),
        ("bicubic", dict(size=(5, 3)), (2, 3, 4, 6)), ("bicubic", dict(scale_factor=(1.7, 0.6)), (1, 2, 5, 6)),
        ("bicubic", dict(scale_factor=3.3), (1, 1, 2, 1)), ("bicubic", dict(size=(2, 9)), (1, 2, 6, 4)),
        ("trilinear", dict(size=(3, 5, 2)), (1, 2, 2, 4, 3)),
        ("trilinear", dict(scale_factor=(1.5, 0.7, 2.0)), (1, 2, 3, 4, 5)),
    ]],
    (dict(mode="nearest", size=3), (0, 2, 5)), (dict(mode="bilinear", size=(3, 2)), (0, 2, 5, 1)),  # an empty batch
    (dict(mode="area", size=(2, 3)), (1, 2, 4, 6)), (dict(mode="area", scale_factor=0.5), (2, 1, 4, 2)),
    # antialiased (torchvision's Resize): shrinking widens the filter, enlarging renormalizes the edges
    *[(dict(mode=m, antialias=True, align_corners=ac, **kw), s) for m in ("bilinear", "bicubic") for ac in (False, True)
      for kw, s in [(dict(size=(5, 4)), (1, 2, 17, 13)), (dict(scale_factor=0.3), (2, 1, 20, 20)),
                    (dict(size=(9, 20)), (1, 2, 9, 9)), (dict(size=(7, 2)), (1, 1, 30, 7))]],
]


@pytest.mark.parametrize("kw,shape", INTERP_CASES, ids=lambda v: str(v))
def test_interpolate(tcore, kw, shape):
    check(tcore, _interp(**kw), [shape])


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_interpolate_antialias_to_width_one(tcore, mode):
    """torch 2.13's antialiased kernel repeats the first row when the output is one pixel wide; tcore
    gives what torch gives for the transposed input (each row filtered on its own)."""
    x = np.random.default_rng(2).standard_normal((1, 1, 30, 7))
    got = F(tcore).interpolate(tcore.tensor(x), size=(7, 1), mode=mode, antialias=True).numpy()
    want = F(torch).interpolate(torch.tensor(x).transpose(2, 3), size=(1, 7), mode=mode,
                                antialias=True).transpose(2, 3).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
def test_interpolate_transposed_input(tcore, mode):
    kw = {} if "nearest" in mode else {"align_corners": mode == "bicubic"}
    check(tcore, lambda lib, x: F(lib).interpolate(x.transpose(1, 3), size=(5, 7), mode=mode, **kw), [(2, 4, 3, 3)])
    check(tcore, lambda lib, x: F(lib).interpolate(x.permute(0, 2, 3, 1), scale_factor=(1.3, 0.7), mode=mode, **kw),
          [(1, 4, 3, 2)])


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "linear"])
def test_interpolate_float32_indices(tcore, mode):
    """float32 computes the source indices in float (torch's opmath), the multiply-add fused: the
    same picks as torch's at the sizes where that rounding decides (2 -> 41: index 1 at 20). (Only
    values: torch's float32 nearest-exact backward picks otherwise than its forward there.)"""
    kw = {} if "nearest" in mode else {"align_corners": False}
    for n_in, n_out in [(2, 41), (4, 41), (2, 47), (7, 30), (13, 5), (9, 22)]:
        check(tcore, _interp(size=n_out, mode=mode, **kw), [np.arange(2.0 * n_in).reshape(1, 2, n_in)], dtype="float32",
              rtol=1e-6, atol=1e-6, grad=False)


def test_interpolate_uint8_nearest(tcore):
    x = np.arange(30, dtype=np.uint8).reshape(1, 2, 3, 5)
    want = torch.nn.functional.interpolate(torch.tensor(x), size=(4, 7)).numpy()
    got = tcore.nn.functional.interpolate(tcore.tensor(x), size=(4, 7)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kw,shape", [
    (dict(mode="nearest", scale_factor=1.1), (2, 3, 4)),  # 1-D, same size
    (dict(mode="nearest", scale_factor=2.05), (1, 2, 10)),  # 1-D, twice the size
    (dict(mode="nearest", scale_factor=1.1), (1, 1, 2, 3, 4)),  # 3-D, same size
    (dict(mode="bicubic", scale_factor=1.1), (1, 2, 3, 4)),  # same size
], ids=str)
def test_interpolate_gradient_is_the_adjoint_of_torchs_forward(tcore, kw, shape):
    """Where torch's backward takes a shortcut (a copy for an unchanged size, i // 2 for twice it)
    that its forward, given a scale_factor, does not, torch's gradient is not its forward's
    (torch.autograd.gradcheck fails); tcore's values are torch's and its gradient is the exact
    adjoint of them: sum_k w_k * out_k(e_i), the forward of torch at each unit vector e_i."""
    check(tcore, _interp(**kw), [shape], grad=False)
    n = int(np.prod(shape))
    basis = torch.eye(n, dtype=torch.float64).reshape(n, *shape)
    outs = torch.stack([torch.nn.functional.interpolate(e, **kw) for e in basis])
    w = torch.tensor(_weights(tuple(outs.shape[1:])))
    want = (outs * w).reshape(n, -1).sum(1).reshape(shape).numpy()
    x = tcore.from_numpy(_inputs([shape])[0]).requires_grad_(True)
    y = tcore.nn.functional.interpolate(x, **kw)
    (g,) = tcore.autograd.grad((y * tcore.from_numpy(w.numpy())).sum(), [x])
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("name,kw", [("upsample", dict(scale_factor=2, mode="bilinear")),
                                     ("upsample_nearest", dict(size=(5, 3))), ("upsample_bilinear", dict(size=(5, 3)))])
def test_upsample_aliases(tcore, name, kw):
    with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated"):
        check(tcore, lambda lib, x: getattr(F(lib), name)(x, **kw), [(1, 2, 3, 4)])


# ------------------------------------------------------------------ scaled_dot_product_attention
def _sdpa(**kw):
    return lambda lib, q, k, v, *m: F(lib).scaled_dot_product_attention(q, k, v, *m, **kw)


_DEAD_ROW_MASK = np.array([[1, 1, 0, 1, 0, 1], [0] * 6, [1, 0, 0, 0, 0, 0], [1] * 6], dtype=bool)
_FLOAT_MASK = np.where(_DEAD_ROW_MASK, np.linspace(-1, 1, 24).reshape(4, 6), -np.inf)

SDPA_CASES = [
    ("plain", _sdpa(), [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)]),
    ("scale", _sdpa(scale=0.3), [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)]),
    ("causal L<S", _sdpa(is_causal=True), [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)]),
    ("causal L>S", _sdpa(is_causal=True), [(2, 6, 5), (2, 4, 5), (2, 4, 3)]),
    ("bool mask, a row masked out", _sdpa(), [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), _DEAD_ROW_MASK]),
    ("float mask", _sdpa(), [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), (2, 1, 4, 6)]),
    ("float mask with -inf rows", _sdpa(), [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), _FLOAT_MASK]),
    ("gqa", _sdpa(enable_gqa=True), [(2, 4, 4, 5), (2, 2, 6, 5), (2, 2, 6, 7)]),
    ("broadcast heads", _sdpa(), [(2, 4, 4, 5), (2, 1, 6, 5), (2, 1, 6, 7)]),
    ("2-D", _sdpa(), [(4, 5), (6, 5), (6, 7)]),
    ("single key", _sdpa(is_causal=True), [(3, 4, 5), (3, 1, 5), (3, 1, 2)]),
]


@pytest.mark.parametrize("name,fn,specs", SDPA_CASES, ids=[c[0] for c in SDPA_CASES])
def test_scaled_dot_product_attention(tcore, name, fn, specs):
    check(tcore, fn, specs)


def test_sdpa_transposed_inputs_and_dropout(tcore):
    check(tcore, lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q.transpose(-2, -1), k, v.transpose(1, 2)),
          [(2, 5, 4), (2, 6, 5), (2, 7, 6)])
    q = tcore.randn(2, 4, 5, dtype=tcore.float64)
    out = tcore.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=1.0)
    assert out.abs().sum().item() == 0  # every weight dropped, as torch's


# ------------------------------------------------------------------ conv1d, conv_transpose
CONV_CASES = [
    ("conv1d", lambda lib, x, w, b: F(lib).conv1d(x, w, b), [(2, 4, 9), (6, 4, 3), (6,)]),
    ("conv1d same groups dilation", lambda lib, x, w: F(lib).conv1d(x, w, groups=2, padding="same", dilation=2),
     [(2, 4, 9), (6, 2, 4)]),
    ("conv1d stride padding tuple", lambda lib, x, w: F(lib).conv1d(x, w, stride=2, padding=(2,), dilation=(2,)),
     [(2, 4, 11), (3, 4, 3)]),
    ("conv1d unbatched valid", lambda lib, x, w: F(lib).conv1d(x, w, padding="valid"), [(4, 11), (3, 4, 3)]),
    ("conv1d transposed input", lambda lib, x, w: F(lib).conv1d(x.transpose(1, 2), w, padding=1),
     [(2, 7, 3), (5, 3, 3)]),
    ("conv_transpose2d", lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
     [(2, 4, 5, 6), (4, 3, 3, 2), (3,)]),
    ("conv_transpose2d groups dilation",
     lambda lib, x, w: F(lib).conv_transpose2d(x, w, stride=(1, 3), padding=(2, 0), groups=2, dilation=(2, 1)),
     [(2, 4, 5, 6), (4, 3, 3, 2)]),
    ("conv_transpose2d padding crops", lambda lib, x, w: F(lib).conv_transpose2d(x, w, padding=(3, 2)),
     [(1, 2, 5, 6), (2, 3, 3, 3)]),
    ("conv_transpose2d output_padding < dilation",
     lambda lib, x, w: F(lib).conv_transpose2d(x, w, dilation=3, output_padding=2), [(1, 2, 5, 6), (2, 3, 3, 3)]),
    ("conv_transpose2d unbatched", lambda lib, x, w: F(lib).conv_transpose2d(x, w, stride=2),
     [(2, 5, 6), (2, 3, 3, 3)]),
    ("conv_transpose1d", lambda lib, x, w, b: F(lib).conv_transpose1d(x, w, b, stride=3, padding=1, output_padding=2,
                                                                        groups=2), [(2, 4, 5), (4, 3, 3), (6,)]),
]


@pytest.mark.parametrize("name,fn,specs", CONV_CASES, ids=[c[0] for c in CONV_CASES])
def test_conv(tcore, name, fn, specs):
    check(tcore, fn, specs)


# ------------------------------------------------------------------ unfold / fold
FOLD_CASES = [
    ("unfold", lambda lib, x: F(lib).unfold(x, 3), [(2, 3, 5, 6)]),
    ("unfold all args", lambda lib, x: F(lib).unfold(x, (3, 2), dilation=(2, 1), padding=(1, 2), stride=(2, 3)),
     [(2, 3, 7, 8)]),
    ("unfold unbatched", lambda lib, x: F(lib).unfold(x, 2), [(3, 4, 5)]),
    ("unfold transposed", lambda lib, x: F(lib).unfold(x.transpose(2, 3), 3, padding=1), [(2, 3, 7, 8)]),
    ("unfold 1x1 kernel", lambda lib, x: F(lib).unfold(x, 1, stride=2), [(1, 2, 1, 5)]),
    ("fold", lambda lib, x: F(lib).fold(x, (6, 7), 2), [(2, 12, 30)]),
    ("fold all args", lambda lib, x: F(lib).fold(x, (7, 8), (3, 2), dilation=(2, 1), padding=(1, 2), stride=(2, 3)),
     [(2, 18, 12)]),
    ("fold unbatched", lambda lib, x: F(lib).fold(x, (4, 5), 2, stride=2, padding=1), [(8, 9)]),
    ("fold transposed", lambda lib, x: F(lib).fold(x.transpose(1, 2), (3, 4), 2), [(2, 6, 8)]),
    ("fold of unfold", lambda lib, x: F(lib).fold(F(lib).unfold(x, 3, padding=1), (4, 5), 3, padding=1),
     [(2, 3, 4, 5)]),
]


@pytest.mark.parametrize("name,fn,specs", FOLD_CASES, ids=[c[0] for c in FOLD_CASES])
def test_fold_unfold(tcore, name, fn, specs):
    check(tcore, fn, specs)


# ------------------------------------------------------------------ errors
_X3, _X4, _X5 = (2, 3, 4), (2, 3, 4, 5), (1, 2, 3, 4, 5)

# (fn(lib, *tensors), input specs, a distinctive part of torch's message)
ERROR_CASES = [
    (_pad("reflect", (4, 0)), [_X3], "Padding size should be less than the corresponding input dimension"),
    (_pad("reflect", (1, 1, 1, 5)), [_X4], "Argument #6: Padding size should be less than"),
    (_pad("reflect", (2, 2)), [(4,)], "Padding size 2 is not supported for 1D input tensor"),
    (_pad("replicate", (1, 1, 1, 1)), [(2, 4)], "Padding size 4 is not supported for 2D input tensor"),
    (_pad("circular", (1, 1)), [(2, 2, 2, 4)], "Supported combinations for non-constant padding"),
    (_pad("circular", (5, 0)), [_X3], "Padding value causes wrapping around more than once"),
    (_pad("circular", (-3, -2)), [_X3], "Negative padding value is resulting in an empty dimension"),
    (_pad("replicate", (-2, -2)), [_X3], "input (W: 4) is too small. Calculated output W: 0"),
    (_pad("reflect", (-3, -3, -2, -2)), [_X4], "is too small. Calculated output H: 0 W: -1"),
    (_pad("reflect", (1,)), [_X3], "Padding length must be divisible by 2"),
    (_pad("replicate", (1,) * 8), [_X3], "Padding length should be less than or equal to two times the input"),
    (_pad("foo", (1, 1)), [_X3], "Unrecognised padding mode foo"),
    (lambda lib, x: F(lib).pad(x, (1, 1), "reflect", 2.0), [_X3], "doesn't take in value argument"),
    (_pad("reflect", (1, 1)), [(2, 0, 4)], "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size"),
    (_interp(size=3, mode="linear", align_corners=None, scale_factor=2), [_X3], "only one of size or scale_factor"),
    (_interp(mode="linear"), [_X3], "either size or scale_factor should be defined"),
    (_interp(size=3, align_corners=True), [_X3], "align_corners option can only be set with the interpolating modes"),
    (_interp(size=(3, 3)), [_X3], "Input and output must have the same number of spatial dimensions"),
    (_interp(scale_factor=(2.0, 2.0)), [_X3], "Input and scale_factor must have the same number of spatial"),
    (_interp(size=(3.5,)), [_X3], "expected size to be one of int or Tuple[int]"),
    (_interp(size=3, recompute_scale_factor=True), [_X3], "recompute_scale_factor is not meaningful"),
    (_interp(size=3, mode="bilinear"), [_X3], "Got 3D input, but bilinear mode needs 4D input"),
    (_interp(size=3, mode="linear"), [_X5], "Got 5D input, but linear mode needs 3D input"),
    (_interp(size=3, mode="bicubic"), [_X3], "Only 3D, 4D and 5D input Tensors supported (got 3D)"),
    (_interp(size=3), [(3, 4)], "Only 3D, 4D and 5D input Tensors supported (got 2D)"),
    (_interp(size=(0, 2)), [_X4], "Input and output sizes should be greater than 0, but got input (H: 4, W: 5)"),
    (_interp(scale_factor=0.1, mode="linear"), [_X3], "but got input (W: 4) and output (W: 0)"),
    (_interp(size=3), [(2, 0, 5)], "Non-empty 3D data tensor expected"),
    (_interp(size=3, mode="bilinear", antialias=True), [_X3], "Anti-alias option is restricted"),
    (_interp(size=3, mode="nearest", antialias=True), [_X4], "Anti-alias option is restricted"),
    (_sdpa(is_causal=True), [(2, 4, 5), (2, 6, 5), (2, 6, 3), np.ones((4, 6), bool)],
     "Explicit attn_mask should not be set when is_causal=True"),
    (_sdpa(enable_gqa=True), [(2, 3, 4, 5), (2, 2, 6, 5), (2, 2, 6, 3)],
     "Number of heads in key and value must divide"),
    (_sdpa(), [(2, 4, 5), (2, 6, 5), (2, 6, 3), np.zeros((4, 6), np.int64)], "Expected attn_mask dtype to be bool or"),
    (lambda lib, x, w: F(lib).conv1d(x[0, 0], w), [(2, 4, 9), (6, 4, 3)], "Expected 2D (unbatched) or 3D (batched)"),
    (lambda lib, x, w: F(lib).conv1d(x, w, padding="foo"), [(2, 4, 9), (6, 4, 3)], "Invalid padding string: 'foo'"),
    (lambda lib, x, w: F(lib).conv1d(x, w, padding="same", stride=2), [(2, 4, 9), (6, 4, 3)],
     "padding='same' is not supported for strided convolutions"),
    (lambda lib, x, w: F(lib).conv2d(x[..., None], w[..., None], padding="foo"), [(2, 4, 9), (6, 4, 3)],
     "Invalid padding string: 'foo'"),
    (lambda lib, x, w: F(lib).conv2d(x[..., None], w[..., None], padding="same", stride=(1, 2)),
     [(2, 4, 9), (6, 4, 3)], "padding='same' is not supported for strided convolutions"),
    (lambda lib, x, w: F(lib).conv1d(x, w, padding=(1, 2)), [(2, 4, 9), (6, 4, 3)],
     "expected padding to be a single integer value or a list of 1 values"),
    (lambda lib, x, w: F(lib).conv1d(x, w), [(2, 4, 9), (6, 2, 3)], "expected input[2, 4, 9] to have 2 channels"),
    (lambda lib, x, w: F(lib).conv_transpose2d(x, w, stride=2, output_padding=2), [(2, 4, 5, 6), (4, 3, 3, 2)],
     "output padding must be smaller than either stride or dilation"),
    (lambda lib, x, w: F(lib).conv_transpose2d(x, w), [(2, 5, 5, 6), (4, 3, 3, 2)],
     "Given transposed=1, weight of size [4, 3, 3, 2], expected input[2, 5, 5, 6] to have 4 channels"),
    (lambda lib, x: F(lib).unfold(x, 9), [(2, 3, 7, 8)], "calculated shape of the array of sliding blocks as (-1, 0)"),
    (lambda lib, x: F(lib).unfold(x, 0), [_X4], "kernel size should be greater than zero"),
    (lambda lib, x: F(lib).unfold(x, 2, stride=0), [_X4], "stride should be greater than zero"),
    (lambda lib, x: F(lib).unfold(x, 2, padding=-1), [_X4], "padding should be non-negative"),
    (lambda lib, x: F(lib).unfold(x, (3, 3, 3)), [_X4], "It is expected kernel_size equals to 2, but got size 3"),
    (lambda lib, x: F(lib).unfold(x, 2), [(2, 0, 7, 8)], "Expected 3D or 4D (batch mode) tensor"),
    (lambda lib, x: F(lib).fold(x, (6, 7), 2), [(2, 12, 20)],
     "expected size of input's dimension 2 to match the calculated number of sliding blocks 5 * 6 = 30"),
    (lambda lib, x: F(lib).fold(x, (6, 7), 2), [(2, 13, 30)], "to be divisible by the product of kernel_size"),
    (lambda lib, x: F(lib).fold(x, (6, 7, 3), 2), [(2, 12, 30)], "It is expected output_size equals to 2"),
    (lambda lib, x: F(lib).fold(x, (6, 7), 2), [(2, 12, 0)], "Expected 2D or 3D (batch mode) tensor for input"),
]


@pytest.mark.parametrize("fn,specs,message", ERROR_CASES, ids=[c[2][:60] for c in ERROR_CASES])
def test_errors(tcore, fn, specs, message):
    arrays = _inputs(specs)
    errors = []
    for lib in (torch, tcore):
        xs = [_tensor(lib, tcore, a, "float64", False) for a in arrays]
        with pytest.raises(Exception) as info:
            fn(lib, *xs)
        errors.append(info.value)
    want, got = errors
    assert message in str(want), f"torch's message changed: {want}"
    assert isinstance(got, type(want)), f"tcore raised {type(got).__name__}, torch {type(want).__name__}: {got}"
    assert message in str(got), f"tcore's message: {got}"


# ------------------------------------------------------------------ modules
MODULE_CASES = [
    (lambda nn: nn.ReflectionPad1d(2), (2, 3, 5)), (lambda nn: nn.ReflectionPad2d((1, 0, 2, 1)), (2, 3, 4, 5)),
    (lambda nn: nn.ReflectionPad3d(1), (1, 2, 3, 4, 5)), (lambda nn: nn.ReplicationPad1d((3, 1)), (3, 4)),
    (lambda nn: nn.ReplicationPad2d(3), (1, 2, 3, 2)),
    (lambda nn: nn.ReplicationPad3d((1, 2, 0, 1, 2, 0)), (2, 2, 3, 4)),
    (lambda nn: nn.CircularPad1d(2), (2, 3, 5)), (lambda nn: nn.CircularPad2d((1, 2, -1, 2)), (2, 3, 4, 5)),
    (lambda nn: nn.CircularPad3d(1), (1, 2, 3, 4, 5)), (lambda nn: nn.ZeroPad1d((1, 2)), (2, 3, 4)),
    (lambda nn: nn.ZeroPad2d(1), (2, 3, 4)), (lambda nn: nn.ZeroPad3d((1, 0, 0, 1, 2, 0)), (1, 2, 3, 4, 5)),
    (lambda nn: nn.ConstantPad1d(2, 3.5), (2, 3)), (lambda nn: nn.ConstantPad2d((1, 0, 0, 2), -1.0), (2, 3, 4)),
    (lambda nn: nn.ConstantPad3d(1, 0.5), (2, 3, 4, 5)),
    (lambda nn: nn.Upsample(scale_factor=2), (1, 2, 3)),
    (lambda nn: nn.Upsample(size=(5, 4), mode="bilinear", align_corners=False), (1, 2, 3, 6)),
    (lambda nn: nn.Upsample(scale_factor=(1.5, 0.5), mode="bicubic"), (1, 2, 4, 6)),
    (lambda nn: nn.UpsamplingNearest2d(scale_factor=3), (1, 2, 2, 3)),
    (lambda nn: nn.UpsamplingBilinear2d(size=(4, 7)), (1, 2, 2, 3)),
    (lambda nn: nn.Unfold(2, padding=1, stride=(1, 2)), (2, 3, 4, 5)),
    (lambda nn: nn.Fold((4, 5), 2), (2, 12, 12)),
    (lambda nn: nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 9)),
    (lambda nn: nn.Conv1d(3, 2, 4, padding="same", padding_mode="reflect", bias=False), (2, 3, 7)),
    (lambda nn: nn.Conv1d(3, 2, 3, padding=2, padding_mode="circular", dilation=2), (3, 6)),
    (lambda nn: nn.Conv2d(2, 3, (3, 2), padding=(2, 1), padding_mode="replicate"), (1, 2, 4, 5)),
]


@pytest.mark.parametrize("build,shape", MODULE_CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_modules_against_torch(tcore, build, shape):
    theirs, ours = build(torch.nn).double(), build(tcore.nn).double()
    state = {k: tcore.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    if state:
        ours.load_state_dict(state)
    assert repr(ours) == repr(theirs)
    check(tcore, lambda lib, x: (theirs if lib is torch else ours)(x), [shape])


def test_module_errors(tcore):
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        tcore.nn.CircularPad1d(1)(tcore.zeros(1, 2, 3, 4))
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        tcore.nn.Conv1d(1, 1, 3, padding_mode="foo")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        tcore.nn.Conv1d(1, 1, 3, padding="same", stride=2)


def test_warnings_are_not_raised_by_interpolate(tcore):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tcore.nn.functional.interpolate(tcore.zeros(1, 1, 3), size=5)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_by_nothing_is_a_new_tensor(tcore, mode):
    """Zero pads returned the input itself: writing the result wrote the input (and a leaf's in-place
    write was refused)."""
    for lib in (torch, tcore):
        x = lib.arange(6.0).reshape(1, 2, 3)
        y = F(lib).pad(x, (0, 0), mode=mode)
        y.add_(1)
        assert x.tolist() == [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]]
        assert F(lib).pad(x.transpose(1, 2), (0, 0, 0, 0), mode=mode).stride() == (6, 2, 1)
        leaf = lib.ones(1, 2, 2, requires_grad=True)
        F(lib).pad(leaf, (0, 0), mode=mode).mul_(2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_threshold_compares_16_bit_floats_in_float32(tcore, dtype):
    def run(lib):
        dt = getattr(lib, dtype)
        return [F(lib).threshold(lib.tensor([0.10003], dtype=dt), 0.10003, -1.0).float().tolist(),
                F(lib).threshold(lib.tensor([float("inf"), 65504.0], dtype=dt), 70000.0, 1.0).float().tolist()]

    assert run(tcore) == run(torch)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest", "nearest-exact"])
@pytest.mark.parametrize("shape", [(1, 3, 2, 2), (1, 1, 2, 2), (2, 3, 1, 1)])
def test_interpolate_keeps_channels_last_as_torch(tcore, mode, shape):
    def run(lib):
        x = lib.arange(float(np.prod(shape))).reshape(*shape).contiguous(memory_format=lib.channels_last)
        y = F(lib).interpolate(x, scale_factor=2.0, mode=mode)
        return y.stride(), np.round(np.array(y.tolist()), 5).tolist()

    assert run(tcore) == run(torch)


def test_threshold_in_place_function(tcore):
    for lib in (torch, tcore):
        x = lib.tensor([1.0, 2.0, -3.0])
        assert F(lib).threshold_(x, 1.5, 0.0) is x and x.tolist() == [0.0, 2.0, 0.0]
