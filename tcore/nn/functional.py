"""tcore.nn.functional: torch.nn.functional's names and keyword conventions over tcore's
operators (reduction='mean'|'sum'|'none' as strings, stride=None for pools, padding as
'same'/'valid', p/training/inplace for dropout, ...)."""
from __future__ import annotations

import fractions
import functools
import math
import operator
import struct
import warnings

import numpy as np

from .. import Tensor, _C  # tcore.Tensor: typed by the generated stubs
from .._tensor import tensor
from ..amp import _autocast

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction: str, size_average=None, reduce=None) -> int:
    """The schema's int for a reduction string; the legacy size_average/reduce flags too."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else "mean" if size_average else "sum"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _in_place(input: Tensor, fn) -> Tensor:
    """inplace=True for a composite: fn computed on a copy when autograd records (so no tensor
    its backward saved is the one overwritten), then written into input, as torch's f_ does."""
    src = input.clone() if input.requires_grad and _C.is_grad_enabled() else input
    return input.copy_(fn(src))


def _ints(v, n: int, error: str | None = None) -> list[int]:
    """An int (repeated n times) or a sequence of ints (one repeated n times); a sequence of
    another length than n is error's RuntimeError ({vals}: the values), or left as it is."""
    vals = list(v) if isinstance(v, (list, tuple)) else [v]
    if len(vals) == 1:
        vals = vals * n
    if len(vals) != n and error is not None:
        raise RuntimeError(error.format(vals=vals))
    return [int(x) for x in vals]


def _pair(v) -> list[int]:
    return _ints(v, 2)


# ------------------------------------------------------------------ activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    out = _C.relu(input)
    return input.copy_(out) if inplace else out


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:  # its gradient is 0 at the bounds, as torch's
        return _in_place(input, lambda x: _C._nn.hardtanh(x, min_val, max_val))
    return _C._nn.hardtanh(input, min_val, max_val)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _C._nn.leaky_relu_(input, negative_slope) if inplace else _C._nn.leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _C._nn.elu_(input, alpha) if inplace else _C._nn.elu(input, alpha)


# torch.nn.functional's in-place forms: the inplace=True calls
def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


@_autocast("LowerPrecision")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else weight * x: one weight, or one per channel (dim 1), as torch's."""
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    w = weight.reshape([]) if weight.numel() == 1 else weight.reshape([channels] + [1] * (input.ndim - 2))
    return _C.where(input > 0, input, w * input)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """x where x > 0, else x times a slope: drawn uniformly from [lower, upper) per element in
    training, (lower + upper) / 2 otherwise."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slope = _C.empty(list(input.shape), dtype=input.dtype, device=input.device).uniform_(lower, upper)
    out = _C.where(input > 0, input, input * slope)
    return input.copy_(out) if inplace else out


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")
    return _C._nn.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _C._nn.silu_(input) if inplace else _C._nn.silu(input)


def sigmoid(input: Tensor) -> Tensor:
    return _C.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _C.tanh(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return _C._nn.softplus(input, beta, threshold)


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return _C.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return _C.log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    return softmax(-input, dim, _stacklevel, dtype)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + g) / tau) with g Gumbel(0, 1) noise (-log of exponential draws); hard: the
    one-hot of its argmax, with the soft sample's gradient (straight-through), as torch's."""
    gumbels = -_C.empty_like(logits).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot = _C.zeros_like(logits).scatter(dim, index, 1.0)
    return one_hot - soft.detach() + soft


# The piecewise activations below pick their branches with `where` on the input itself, so the
# gradient at each boundary is the branch torch's backward kernel picks there, and an unpicked
# branch (exp of a large x, ...) never sends inf * 0 = nan back.
def logsigmoid(input: Tensor) -> Tensor:
    """min(x, 0) - log1p(exp(-|x|)), as torch's kernel: finite for any finite x."""
    neg = input < 0
    low = _C.where(neg, input, 0.0)  # min(x, 0)
    mag = _C.where(neg, -input, input)  # |x|, with d|x|/dx = 1 at 0 (torch's gradient there: 1/2)
    return low - _C.log1p(_C.exp(-mag))


def _with_gradient_of(value: Tensor, surrogate: Tensor) -> Tensor:
    """value's values (signed zeros and NaN too) with surrogate's gradient, for where torch's
    backward formula is not the derivative of its forward's arithmetic; surrogate must be finite."""
    return value.detach() - (surrogate.detach() - surrogate)


def _float32(v: float) -> float:
    """v rounded to float32, as torch's `scalar.toFloat()`."""
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _in_place(input, hardsigmoid)
    value = _C.clamp(input + 3, 0.0, 6.0) / 6
    # torch's gradient: grad * float(1/6) (a float32 constant, in every dtype) strictly inside (-3, 3), else 0
    slope = _C.where((input > -3) & (input < 3), input, 0.0) * _float32(1 / 6)
    return _with_gradient_of(value, slope)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * clamp(x + 3, 0, 6) / 6; the gradient is 0 for x <= -3, x / 3 + 1/2 inside, 1 for x >= 3
    (and for NaN), as torch's kernel."""
    if inplace:
        return _in_place(input, hardswish)
    gate = _C.where(input <= -3, 0.0, _C.where(input < 3, input + 3, 6.0))
    return input * gate / 6


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _in_place(input, mish)
    return input * _C.tanh(_C._nn.softplus(input, 1.0, 20.0))  # tanh(softplus(x)) is 1 where softplus is x


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _C._nn.elu_(input, _SELU_ALPHA, _SELU_SCALE, 1.0)
    return _C._nn.elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return _in_place(input, lambda x: celu(x, alpha))
    value = _C._nn.elu(input, alpha, 1.0, 1.0 / alpha)
    if _float32(alpha) == alpha:
        return value
    # torch's backward scales x by 1 / float32(alpha), not 1 / alpha: that elu's gradient, where finite
    neg = input <= 0
    surrogate = _C._nn.elu(_C.where(neg, input, 0.0), alpha, 1.0, 1.0 / _float32(alpha))
    return _C.where(neg & _C.isfinite(surrogate.detach()), _with_gradient_of(value, surrogate), value)


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _C.where((input >= -lambd) & (input <= lambd), 0.0, input)


_DTYPE_MAX = {"float64": ("Double", 1.7976931348623157e308), "float32": ("Float", 3.4028234663852886e38),
              "float16": ("Half", 65504.0), "bfloat16": ("BFloat16", 3.3895313892515355e38)}


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    name, top = _DTYPE_MAX.get(input.dtype.name, (None, math.inf))
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {name}, but found {lambd:g}")
    inside = (input >= -lambd) & (input <= lambd)  # NaN: outside, its gradient passes (torch's scalar kernel)
    return _C.where(inside, 0.0, _C.where(input > lambd, input - lambd, input + lambd))


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return (_C.threshold_ if inplace else _C.threshold)(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return globals()["threshold"](input, threshold, value, inplace=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = _wrap_dim(dim, input.ndim)
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {n}")
    return input.narrow(dim, 0, n // 2) * _C.sigmoid(input.narrow(dim, n // 2, n // 2))


# ------------------------------------------------------------------ linear and convolution
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    return _C._nn.linear(input, weight, bias)


@_autocast("Below")  # (torch: _trilinear, no product cast)
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y_o = x1^T W_o x2 + b_o over the last dims; the leading dims must match."""
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    for i, x in ((1, input1), (2, input2)):
        if x.shape[-1] != weight.shape[i]:
            raise RuntimeError(f"bilinear(): input{i} size does not match weight size: got {x.shape[-1]} but expected "
                               f"{weight.shape[i]}")
    out = _C.einsum("...i,oij,...j->...o", [input1, weight, input2])
    return out if bias is None else out + bias


def _same_padding(kernel: list[int], dilation: list[int]) -> tuple[list[int], list[int] | None]:
    """padding='same': the symmetric part, and an extra (left, right, top, bottom) pad when
    the total is odd (PyTorch pads the extra element at the end)."""
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    sym = [t // 2 for t in totals]
    if all(t % 2 == 0 for t in totals):
        return sym, None
    extra = []
    for t in reversed(totals):  # constant_pad_nd takes the last dim first
        extra += [0, t % 2]
    return sym, extra


@_autocast("LowerPrecision")
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            if _pair(stride) != [1, 1]:  # torch: a RuntimeError (tcore's is a ValueError too)
                raise _C._ArgumentValueError("padding='same' is not supported for strided convolutions")
            sym, extra = _same_padding(list(weight.shape[2:]), _pair(dilation))
            if extra is not None:
                input = _C.constant_pad_nd(input, extra, 0)
            padding = sym
        else:
            raise _C._ArgumentValueError(f"Invalid padding string: {padding!r}")
    return _C.conv2d(input, weight, bias, _pair(stride), _pair(padding), _pair(dilation), groups)


# ------------------------------------------------------------------ conv1d, conv3d, transposed convolutions
def _ntuple_arg(v, n: int, name: str) -> list[int]:
    """n ints of a convolution's argument, else torch's error."""
    return _ints(v, n, f"expected {name} to be a single integer value or a list of {n} values to match the "
                       f"convolution dimensions, but got {name}={{vals}}")


def _conv_arguments(name: str, input: Tensor, weight: Tensor, nd: int, stride, dilation, padding):
    """torch's first checks of conv{nd}d (the input's and weight's dims) and its stride/dilation as
    lists of nd ints; a padding string checked ('same' only unstrided), else padding as nd ints."""
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{list(weight.shape)}, but got {input.ndim}-dimensional input of size {list(input.shape)} "
                           f"instead")
    stride, dilation = _ntuple_arg(stride, nd, "stride"), _ntuple_arg(dilation, nd, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and stride != [1] * nd:
            raise RuntimeError("padding='same' is not supported for strided convolutions")
    else:
        padding = _ntuple_arg(padding, nd, "padding")
    return stride, dilation, padding


@_autocast("LowerPrecision")
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """conv2d of the (N, C, L) (or unbatched (C, L)) input seen as (N, C, 1, L), with the weight
    seen as (O, C / groups, 1, K); padding an int, a 1-tuple, 'same' or 'valid', as torch's."""
    stride, dilation, padding = _conv_arguments("conv1d", input, weight, 1, stride, dilation, padding)
    padding2 = padding if isinstance(padding, str) else [0] + padding
    batch = input if input.ndim == 3 else input.unsqueeze(0)
    if batch.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(batch.shape)} to have {weight.shape[1] * groups} channels, but got {batch.shape[1]} "
                           f"channels instead")
    out = conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, [1] + stride, padding2, [1] + dilation, groups)
    return out.squeeze(-2)


def _check_groups_stride_padding(groups: int, stride: list[int], padding: list[int]) -> None:
    """The first of torch's convolution checks (plain and transposed), with its messages."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")


def _conv_checks(x: Tensor, weight: Tensor, bias: Tensor | None, stride: list[int], padding: list[int],
                 dilation: list[int], groups: int) -> None:
    """torch's shape checks of a (batched) convolution, in its order and with its messages."""
    _check_groups_stride_padding(groups, stride, padding)
    if min(dilation) <= 0:  # (torch's float32 kernels say "non-positive dilation is not supported")
        raise RuntimeError(f"dilation should be greater than zero, but got {dilation}")
    if weight.shape[0] < groups or weight.shape[0] % groups:
        size = list(weight.shape) if weight.shape[0] < groups else [list(weight.shape)]  # (torch's brackets)
        kind = "at least" if weight.shape[0] < groups else "divisible by"
        raise RuntimeError(f"Given groups={groups}, expected weight to be {kind} {groups} at dimension 0, but got "
                           f"weight of size {size} instead")
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {weight.shape[1] * groups} channels, but got {x.shape[1]} "
                           f"channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead")
    padded = [n + 2 * p for n, p in zip(x.shape[2:], padding)]
    kernel = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation)]
    if any(k > n for k, n in zip(kernel, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input "
                           f"size")


def _conv3d(x: Tensor, weight: Tensor, bias: Tensor | None, stride: list[int], padding: list[int],
            dilation: list[int], groups: int) -> Tensor:
    """conv3d of a checked (N, C, D, H, W) input as one conv2d: the kD depth taps of each output
    depth (unfold along D, every dilation-th element) become kD * C channels of an image in a
    batch of N * D_out, ordered (group, tap, channel) so each group's channels stay together, and
    the weight (O, C / groups, kD, kH, kW) becomes (O, kD * C / groups, kH, kW) in that order. The
    2-D stride/padding/dilation are conv2d's; the bias is added once, by it."""
    n, _, _, h, w = x.shape
    o, cg, kd, kh, kw = weight.shape
    if padding[0]:
        x = _C.constant_pad_nd(x, [0, 0, 0, 0, padding[0], padding[0]], 0)
    taps = x.unfold(2, dilation[0] * (kd - 1) + 1, stride[0])  # (N, C, D_out, H, W, span)
    if dilation[0] > 1:
        taps = taps[..., ::dilation[0]]
    d_out = taps.shape[2]
    taps = taps.reshape([n, groups, cg, d_out, h, w, kd]).permute(0, 3, 1, 6, 2, 4, 5)
    w2 = weight.permute(0, 2, 1, 3, 4).reshape([o, kd * cg, kh, kw])
    out = _C.conv2d(taps.reshape([n * d_out, groups * kd * cg, h, w]), w2, bias, stride[1:], padding[1:],
                    dilation[1:], groups)
    return out.reshape([n, d_out, o] + list(out.shape[2:])).permute(0, 2, 1, 3, 4).contiguous()


@_autocast("LowerPrecision")
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """torch's conv3d of the (N, C, D, H, W) (or unbatched (C, D, H, W)) input with the weight
    (O, C / groups, kD, kH, kW); stride/padding/dilation an int or a 3-tuple, padding 'same' or
    'valid' too. Composed of unfold, reshapes and one conv2d (see _conv3d)."""
    stride, dilation, padding = _conv_arguments("conv3d", input, weight, 3, stride, dilation, padding)
    x = input if input.ndim == 5 else input.unsqueeze(0)
    if padding == "valid":
        padding = [0, 0, 0]
    elif padding == "same":
        padding, extra = _same_padding(list(weight.shape[2:]), dilation)
        if extra is not None:
            x = _C.constant_pad_nd(x, extra, 0)
    _conv_checks(x, weight, bias, stride, padding, dilation, groups)
    out = _conv3d(x, weight, bias, stride, padding, dilation, groups)
    return out if input.ndim == 5 else out.squeeze(0)


def _dilate(x: Tensor, dim: int, step: int) -> Tensor:
    """x with step - 1 zeros between neighbours along dim: size (n - 1) * step + 1."""
    n = x.shape[dim]
    if step == 1 or n == 0:
        return x
    z = _C.constant_pad_nd(x.unsqueeze(dim + 1), [0, 0] * (x.ndim - dim - 1) + [0, step - 1], 0)
    shape = list(x.shape)
    shape[dim] = n * step
    return z.reshape(shape).narrow(dim, 0, (n - 1) * step + 1)


@_autocast("LowerPrecision")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv2d (weight (C_in, C_out / groups, kH, kW)): conv2d, stride 1, of the input
    with stride - 1 zeros between its elements, padded by dilation * (k - 1) - padding on each side
    (a negative pad crops) and output_padding more at the end, with the kernel flipped and its
    channels swapped per group. Output size (in - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1, as torch's."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


@_autocast("LowerPrecision")
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """conv_transpose2d of the input seen with a unit height."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


@_autocast("LowerPrecision")
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv3d (weight (C_in, C_out / groups, kD, kH, kW)), as conv_transpose2d: conv3d,
    stride 1, of the zero-dilated, padded input with the flipped, channel-swapped kernel."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd: int) -> Tensor:
    name = f"conv_transpose{nd}d"
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{list(weight.shape)}, but got {input.ndim}-dimensional input of size {list(input.shape)} "
                           f"instead")
    for v, n in ((stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation")):
        if isinstance(v, str):  # torch's argument parser
            raise TypeError(f"{name}(): argument '{n}' must be tuple of ints, not str")
    dims = max(nd, 2)  # conv_transpose1d runs as conv_transpose2d with a unit height
    lead = dims - nd  # (that height neither padded nor strided)
    stride, dilation = ([1] * lead + _ntuple_arg(v, nd, n) for v, n in ((stride, "stride"), (dilation, "dilation")))
    padding, output_padding = ([0] * lead + _ntuple_arg(v, nd, n)
                               for v, n in ((padding, "padding"), (output_padding, "output_padding")))
    _check_groups_stride_padding(groups, stride, padding)
    if min(output_padding) < 0:
        raise RuntimeError("negative output_padding is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    if any(p >= s and p >= d for p, s, d in zip(output_padding, stride, dilation)):
        labels = ("depth", "height", "width")[3 - nd:]

        def got(label, vals):
            return " ".join(f"{label}_{n}: {v}" for n, v in zip(labels, vals[lead:]))

        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                           f"{got('output_padding', output_padding)} {got('stride', stride)} "
                           f"{got('dilation', dilation)}")
    batched = input.ndim == nd + 2
    x = input if batched else input.unsqueeze(0)
    c_in = weight.shape[0]
    if x.shape[1] != c_in:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} to "
                           f"have {c_in} channels, but got {x.shape[1]} channels instead")
    if c_in < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead")
    if c_in % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")  # (torch's double brackets)
    c_out = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != c_out):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {c_out} elements, but got bias of size {list(bias.shape)} instead")
    w = weight
    if nd == 1:
        x, w = x.unsqueeze(2), w.unsqueeze(2)
    k = list(w.shape[2:])
    for i, s in enumerate(stride):
        x = _dilate(x, 2 + i, s)
    pads = []
    for i in reversed(range(dims)):  # constant_pad_nd lists the last dim first
        before = dilation[i] * (k[i] - 1) - padding[i]
        pads += [before, before + output_padding[i]]
    x = _C.constant_pad_nd(x, pads, 0)
    w = w.reshape([groups, c_in // groups, w.shape[1]] + k).transpose(1, 2).reshape([c_out, c_in // groups] + k)
    w = w.flip(list(range(2, 2 + dims)))
    if dims == 2:
        out = _C.conv2d(x, w, bias, [1, 1], [0, 0], dilation, groups)
    else:
        _conv_checks(x, w, bias, [1, 1, 1], [0, 0, 0], dilation, groups)
        out = _conv3d(x, w, bias, [1, 1, 1], [0, 0, 0], dilation, groups)
    if nd == 1:
        out = out.squeeze(2)
    return out if batched else out.squeeze(0)


# ------------------------------------------------------------------ unfold / fold (im2col / col2im)
def _pair_arg(v, name: str) -> list[int]:
    vals = list(v) if isinstance(v, (list, tuple)) else [v, v]
    if len(vals) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(vals)}")
    return [int(x) for x in vals]


def _im2col_args(kernel_size, dilation, padding, stride) -> tuple[list[int], ...]:
    """The four pairs, with torch's im2col/col2im shape checks on them (in its order)."""
    k, d = _pair_arg(kernel_size, "kernel_size"), _pair_arg(dilation, "dilation")
    p, s = _pair_arg(padding, "padding"), _pair_arg(stride, "stride")
    for ok, what, label, vals in ((min(k) > 0, "kernel size should be greater than zero", "kernel", k),
                                  (min(d) > 0, "dilation should be greater than zero", "dilation", d),
                                  (min(p) >= 0, "padding should be non-negative", "pad", p),
                                  (min(s) > 0, "stride should be greater than zero", "stride", s)):
        if not ok:
            raise RuntimeError(f"{what}, but got {label}_height: {vals[0]} {label}_width: {vals[1]}")
    return k, d, p, s


def _sliding_blocks(padded: list[int], k: list[int], d: list[int], s: list[int]) -> list[int]:
    """(padded - dilation * (kernel - 1) - 1) / stride + 1 per dim, C++'s truncating division as torch's."""
    spans = [padded[i] - d[i] * (k[i] - 1) - 1 for i in (0, 1)]
    return [(a // st if a >= 0 else -(-a // st)) + 1 for a, st in zip(spans, s)]


def _block_index(padded: list[int], k: list[int], d: list[int], s: list[int], blocks: list[int],
                 like: Tensor) -> Tensor:
    """The flat index, in a padded (H, W) plane, of kernel tap (i, j) of sliding block (bh, bw), in
    im2col's (i, j, bh, bw) order."""
    def ar(n, step, shape):
        return (_C.arange(n, dtype=_C.dtype.int64, device=like.device) * step).reshape(shape)

    rows = ar(k[0], d[0], [-1, 1, 1, 1]) + ar(blocks[0], s[0], [1, 1, -1, 1])
    cols = ar(k[1], d[1], [1, -1, 1, 1]) + ar(blocks[1], s[1], [1, 1, 1, -1])
    return (rows * padded[1] + cols).reshape([-1])


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """torch's im2col: (N, C, H, W) (or unbatched (C, H, W)) -> (N, C * kH * kW, L), each column
    one sliding block (row-major over the blocks), gathered with index_select from the zero-padded
    input (so overlapping blocks' gradients accumulate)."""
    k, d, p, s = _im2col_args(kernel_size, dilation, padding, stride)
    shape = list(input.shape)
    if input.ndim not in (3, 4) or 0 in shape[input.ndim - 3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {shape}")
    x = input if input.ndim == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    padded = [h + 2 * p[0], w + 2 * p[1]]
    blocks = _sliding_blocks(padded, k, d, s)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), but its components must be at least one.")
    flat = _C.constant_pad_nd(x, [p[1], p[1], p[0], p[0]], 0).reshape([n, c, padded[0] * padded[1]])
    cols = flat.index_select(2, _block_index(padded, k, d, s, blocks, x))
    out = cols.reshape([n, c * k[0] * k[1], blocks[0] * blocks[1]])
    return out if input.ndim == 4 else out.squeeze(0)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """torch's col2im, the adjoint of unfold: (N, C * kH * kW, L) (or unbatched (C * kH * kW, L))
    -> (N, C, H, W), each column's values added (index_add) into its block of the zero-padded
    output, the padding then cropped."""
    size = _pair_arg(output_size, "output_size")
    k, d, p, s = _im2col_args(kernel_size, dilation, padding, stride)
    shape = list(input.shape)
    if input.ndim not in (2, 3) or 0 in shape[input.ndim - 2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {shape}")
    x = input if input.ndim == 3 else input.unsqueeze(0)
    n, ckk, length = x.shape
    if ckk % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={ckk} and kernel_size=({k[0]}, {k[1]}).")
    padded = [size[0] + 2 * p[0], size[1] + 2 * p[1]]
    blocks = _sliding_blocks(padded, k, d, s)
    if min(blocks) < 1 or blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's "
                           f"dimension 2 to match the calculated number of sliding blocks {max(blocks[0], 0)} * "
                           f"{max(blocks[1], 0)} = {max(blocks[0], 0) * max(blocks[1], 0)}, but got "
                           f"input.size(2)={length}.")
    c = ckk // (k[0] * k[1])
    plane = _C.zeros([n, c, padded[0] * padded[1]], dtype=x.dtype, device=x.device)
    plane = plane.index_add(2, _block_index(padded, k, d, s, blocks, x), x.reshape([n, c, -1]))
    out = plane.reshape([n, c] + padded).narrow(2, p[0], size[0]).narrow(3, p[1], size[1])
    return out if input.ndim == 3 else out.squeeze(0)


# ------------------------------------------------------------------ pooling
def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor:
    if return_indices:  # (values, the flat index h * W + w of each maximum in its plane), as torch
        return _C._nn.max_pool2d_with_indices(input, _pair(kernel_size), [] if stride is None else _pair(stride),
                                              _pair(padding), _pair(dilation), ceil_mode)
    return _C.max_pool2d(input, _pair(kernel_size), [] if stride is None else _pair(stride), _pair(padding),
                         _pair(dilation), ceil_mode)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _C._nn.avg_pool2d(input, _pair(kernel_size), [] if stride is None else _pair(stride), _pair(padding), ceil_mode,
                         count_include_pad, divisor_override)


def _one(v) -> int:
    return _ints(v, 1)[0]


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """max_pool2d over (N, C, 1, L): the same windows, values and (flat) indices, as torch's."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    out = max_pool2d(input.unsqueeze(-2), [1, _one(kernel_size)], None if stride is None else [1, _one(stride)],
                     [0, _one(padding)], [1, _one(dilation)], ceil_mode, return_indices)
    return (out[0].squeeze(-2), out[1].squeeze(-2)) if return_indices else out.squeeze(-2)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for avg_pool1d)")
    return avg_pool2d(input.unsqueeze(-2), [1, _one(kernel_size)], None if stride is None else [1, _one(stride)],
                      [0, _one(padding)], ceil_mode, count_include_pad).squeeze(-2)


def _adaptive_sizes(input: Tensor, output_size, n: int, name: str) -> list[int]:
    """output_size as n ints (None: the input's size), with torch's checks of input and sizes."""
    if n == 1:
        if input.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                               f"'self' (while checking arguments for {name})")
    elif input.ndim not in (n + 1, n + 2):
        got = ":" if name.startswith("adaptive_max") else ""
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got{got} {list(input.shape)}")
    for d in range(1, input.ndim):  # (dim 0 may be empty, batched or not, as torch's)
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {d} being empty")
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * n
    if len(sizes) != n:
        raise RuntimeError(f"{name}: output_size must be {n}")
    spatial = input.shape[input.ndim - n:]
    sizes = [int(spatial[i]) if v is None else int(v) for i, v in enumerate(sizes)]
    if any(v < 0 for v in sizes):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, sizes))}}}")
    return sizes


def _adaptive_windows(size: int, out: int) -> list[tuple[int, int]]:
    """torch's adaptive windows: output i pools [floor(i * size / out), ceil((i + 1) * size / out))."""
    return [((i * size) // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive_avg(input: Tensor, output_size, n: int, name: str) -> Tensor:
    """The mean over each window, one spatial dim at a time (the windows are products of
    per-dim ranges): a reshape and mean where the size divides, else each window's mean."""
    sizes = _adaptive_sizes(input, output_size, n, name)
    if all(v == 1 for v in sizes):
        return input.mean(list(range(-n, 0)), keepdim=True)
    spatial = list(input.shape[input.ndim - n:])
    if n == 2 and all(v and size % v == 0 for v, size in zip(sizes, spatial)):  # (one kernel, any layout)
        return avg_pool2d(input, [size // v for v, size in zip(sizes, spatial)])
    x = input
    for i, out in enumerate(sizes):
        dim = input.ndim - n + i
        size = x.shape[dim]
        if out == size:
            continue
        if out and size % out == 0:
            x = x.unflatten(dim, (out, size // out)).mean(dim + 1)
            continue
        # each window's own mean (a product with a matrix of window weights would spread a NaN
        # or an infinity of one window to all: 0 * nan)
        x = _C.cat([x.narrow(dim, a, b - a).mean(dim, keepdim=True) for a, b in _adaptive_windows(size, out)], dim) \
            if out else x.narrow(dim, 0, 0)
    return _layout_of(x, input)


def _layout_of(result: Tensor, input: Tensor) -> Tensor:
    """result in input's memory format: channels_last for a channels_last 4-D input, as torch's
    pools give, else contiguous."""
    if input.ndim == 4 and not input.is_contiguous() and input.is_contiguous(memory_format=_C.memory_format.channels_last):
        return result.contiguous(memory_format=_C.memory_format.channels_last)
    return result.contiguous()


@_autocast("Below")  # (torch: one kernel, no cat)
def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg(input, output_size, 1, "adaptive_avg_pool1d")


@_autocast("Below")
def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")


@_autocast("Float32")
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg(input, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_max(input: Tensor, output_size, n: int, name: str):
    """(values, indices): the maximum of each window and its flat index in the input's spatial
    plane (the first in row-major order; a NaN counts as the maximum and torch's index is its
    last NaN's: the last NaN of the last row holding one), found one spatial dim at a time; the values gathered from the input at those indices,
    so a gradient flows to that one element, as torch's."""
    sizes = _adaptive_sizes(input, output_size, n, name)
    spatial = list(input.shape[input.ndim - n:])
    lead = list(input.shape[:input.ndim - n])
    x = input.detach()  # (the search records nothing)
    where = _C.arange(math.prod(spatial), device=input.device).reshape(spatial).expand(list(input.shape))
    for i in reversed(range(n)):  # the last dim first: ties then go to the first row-major
        dim = input.ndim - n + i
        vals, idx = [], []
        for a, b in _adaptive_windows(spatial[i], sizes[i]):
            window = x.narrow(dim, a, b - a)
            best = window.argmax(dim, keepdim=True)  # (the first maximum, or the first NaN)
            if x.is_floating_point():  # torch's kernel keeps the last NaN
                nan = window.isnan()
                last = (b - a - 1) - nan.flip([dim]).to(_C.dtype.uint8).argmax(dim, keepdim=True)
                best = _C.where(nan.any(dim, keepdim=True), last, best)
            vals.append(window.gather(dim, best))
            idx.append(where.narrow(dim, a, b - a).gather(dim, best))
        x = _C.cat(vals, dim) if vals else x.narrow(dim, 0, 0)
        where = _C.cat(idx, dim) if idx else where.narrow(dim, 0, 0)
    flat = input.reshape(lead + [math.prod(spatial)])  # (not -1: an empty batch)
    values = flat.gather(-1, where.reshape(lead + [math.prod(sizes)])).reshape(lead + sizes)
    return _layout_of(values, input), _layout_of(where, input)


def _adaptive_max_pool(n: int):
    name = f"adaptive_max_pool{n}d"

    def pool(input: Tensor, output_size, return_indices: bool = False):
        values, indices = _adaptive_max(input, output_size, n, name)
        return (values, indices) if return_indices else values

    def with_indices(input: Tensor, output_size, return_indices: bool = True):
        return _adaptive_max(input, output_size, n, name)

    pool.__name__, with_indices.__name__ = name, f"{name}_with_indices"
    return pool, with_indices


adaptive_max_pool1d, adaptive_max_pool1d_with_indices = map(_autocast("Below"), _adaptive_max_pool(1))
adaptive_max_pool2d, adaptive_max_pool2d_with_indices = map(_autocast("Below"), _adaptive_max_pool(2))
adaptive_max_pool3d, adaptive_max_pool3d_with_indices = map(_autocast("Float32"), _adaptive_max_pool(3))


def _fractional_starts(sample: np.ndarray, n_in: int, n_out: int, pool: int, dtype) -> np.ndarray:
    """torch's generate_intervals for each plane's sample u in [0, 1): window i starts at
    int((i + u) * alpha) - int(u * alpha), alpha = (in - pool) / (out - 1) (in the input's
    precision), the last at in - pool."""
    u = sample.astype(dtype)[..., None]
    out = np.empty(sample.shape + (n_out,), dtype=np.int64)
    if n_out > 1:
        alpha = dtype(n_in - pool) / dtype(n_out - 1)
        i = np.arange(n_out - 1, dtype=dtype)
        out[..., :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if n_out > 0:
        out[..., -1] = n_in - pool
    return out


def _fractional_max_pool(input: Tensor, kernel_size, output_size, output_ratio, return_indices: bool,
                         _random_samples, k: int):
    """fractional_max_pool2d/3d: windows of kernel_size at pseudo-random fractional strides (one
    sample per plane and dim; _random_samples (N, C, k) gives them), each output the window's
    maximum (the first maximum; a NaN wins, the last one), indices into the plane; the gradient
    through a gather."""
    name = f"fractional_max_pool{k}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    unbatched = input.ndim == k + 1
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"{name}(): Expected {k + 1}D or {k + 2}D tensor, but got: {list(input.shape)}")
    x = input.unsqueeze(0) if unbatched else input
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    pools = _ints(kernel_size, k)
    if output_size is None:
        ratios = list(output_ratio) if isinstance(output_ratio, (list, tuple)) else [output_ratio] * k
        output_size = [int(spatial[d] * ratios[d]) for d in range(k)]
    outs = _ints(output_size, k)
    names = ("time", "height", "width")[3 - k:]
    for d in range(k):
        if outs[d] + pools[d] - 1 > spatial[d]:
            raise RuntimeError(f"{name}(): pool {names[d]} {pools[d]} too large relative to input {names[d]} "
                               f"{spatial[d]}")
    if _random_samples is None:
        _random_samples = _C.rand([n, c, k], dtype=x.dtype, device=x.device)
    if _random_samples.ndim == 3 and _random_samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if _random_samples.ndim != 3 or _random_samples.shape[0] != n or _random_samples.shape[2] < k:
        raise RuntimeError(f"Expect _random_samples to be of size ({n}, {c}, {k}), got {list(_random_samples.shape)}")
    dtype = np.float64 if x.dtype == _C.dtype.float64 else np.float32
    samples = np.asarray(_random_samples.detach().to("cpu").double().tolist(), dtype=np.float64).reshape(n, c, -1)
    # torch's samples run from the last dim: sample 0 is the width's, 1 the height's, 2 the time's
    starts = [_fractional_starts(samples[:, :, k - 1 - d], spatial[d], outs[d], pools[d], dtype) for d in range(k)]
    strides = [math.prod(spatial[d + 1:]) for d in range(k)]
    flat = np.zeros((n, c) + tuple(outs) + tuple(pools), dtype=np.int64)
    for d in range(k):  # flat[n, c, o..., j...] = sum_d (starts_d[n, c, o_d] + j_d) * stride_d
        start = starts[d].reshape((n, c) + tuple(outs[e] if e == d else 1 for e in range(k)) + (1,) * k)
        offset = np.arange(pools[d]).reshape((1,) * (2 + k) + tuple(pools[e] if e == d else 1 for e in range(k)))
        flat = flat + (start + offset) * strides[d]
    window = math.prod(pools)
    index = tensor(flat.reshape(n, c, -1)).to(x.device)
    values = x.reshape([n, c, -1]).gather(2, index).reshape([n, c] + outs + [window])
    nan = values.isnan()
    peak = _C.where(nan, -math.inf, values).amax(-1, keepdim=True)
    first_max = (values == peak).to(_C.dtype.int32).argmax(-1, keepdim=True)
    last_nan = window - 1 - nan.flip([-1]).to(_C.dtype.int32).argmax(-1, keepdim=True)
    pick = _C.where(nan.any(-1, keepdim=True), last_nan, first_max)
    out = values.gather(-1, pick).squeeze(-1)
    indices = index.reshape([n, c] + outs + [window]).gather(-1, pick).squeeze(-1)
    if unbatched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return (out, indices) if return_indices else out


@_autocast("Float32")
def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                          _random_samples=None):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


@_autocast("Float32")
def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                          _random_samples=None):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def _triple(v, name: str) -> list[int]:
    return _ints(v, 3, f"{name} must either be a single int, or a tuple of three ints")


def _pool3d_geometry(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool, name: str):
    """(kernel, stride, padding, dilation, output sizes, extra right padding) of a 3-D pool, with
    torch's checks; the output size as torch's pooling_output_shape (a last window must start
    within the input or its left padding)."""
    if input.ndim not in (4, 5) or input.numel() == 0:
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    k = _triple(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _triple(stride, "stride")
    p, d = _triple(padding, "padding"), _triple(dilation, "dilation")
    spatial = list(input.shape[-3:])
    out, extra = [], []
    for i in range(3):
        span = d[i] * (k[i] - 1) + 1
        if p[i] > span // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
        room = spatial[i] + 2 * p[i] - span
        n = (-(-room // s[i]) if ceil_mode else room // s[i]) + 1
        if ceil_mode and (n - 1) * s[i] >= spatial[i] + p[i]:
            n -= 1
        if n < 1:
            raise RuntimeError(f"Given input size: ({input.shape[-4]}x{spatial[0]}x{spatial[1]}x{spatial[2]}). "
                               f"Calculated output size: ({input.shape[-4]}x{max(n, 0)}). Output size is too small")
        out.append(n)
        extra.append(max(0, (n - 1) * s[i] + span - (spatial[i] + 2 * p[i])))
    return k, s, p, d, out, extra


def _windows3d(x: Tensor, k, s, d, out) -> Tensor:
    """(..., oD, oH, oW, kD * kH * kW): each output's window (its dilated taps) of a padded x
    (the last 3 dims), as views until the final reshape."""
    nd = x.ndim
    w = x
    for i in range(3):  # (each unfold appends its window dim: (..., oD, oH, oW, spanD, spanH, spanW))
        w = w.unfold(nd - 3 + i, d[i] * (k[i] - 1) + 1, s[i]).narrow(nd - 3 + i, 0, out[i])
    taps = w[..., ::d[0], :, :][..., ::d[1], :][..., ::d[2]]
    return taps.reshape(list(w.shape[:nd]) + [-1])


@_autocast(lambda a: "Below" if a["return_indices"] else "Float32")  # (torch: max_pool3d_with_indices, unlisted)
def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The maximum of each (dilated) window over the -inf padded input, and its flat index in the
    input's D * H * W plane (the first maximum; a NaN counts as one); the gradient reaches that
    element only, as torch's."""
    k, s, p, d, out, extra = _pool3d_geometry(input, kernel_size, stride, padding, dilation, ceil_mode,
                                              "max_pool3d")
    pads = []
    for i in reversed(range(3)):
        pads += [p[i], p[i] + extra[i]]
    if not input.is_floating_point():
        raise NotImplementedError(f"\"max_pool3d\" not implemented for '{input.dtype.name}'")
    padded = pad(input, pads, value=-math.inf)
    spatial = list(input.shape[-3:])
    where = _C.arange(math.prod(spatial), device=input.device).reshape(spatial)
    where = pad(where, pads, value=-1)
    windows = _windows3d(padded, k, s, d, out)
    best = windows.detach().argmax(-1, keepdim=True)
    values = windows.gather(-1, best).squeeze(-1)
    if not return_indices:
        return values
    places = _windows3d(where.expand(list(padded.shape)), k, s, d, out)
    return values, places.gather(-1, best).squeeze(-1)


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@_autocast("Float32")
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window: its sum over the zero-padded input divided by the window's size
    within the padded input (count_include_pad) or within the input, or by divisor_override."""
    k, s, p, d, out, extra = _pool3d_geometry(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    pads = []
    for i in reversed(range(3)):
        pads += [p[i], p[i] + extra[i]]
    sums = _windows3d(pad(input, pads), k, s, d, out).sum(-1)
    if divisor_override is not None:
        return sums / divisor_override
    spatial = list(input.shape[-3:])
    ones = _C.ones(spatial, dtype=input.dtype, device=input.device)
    if count_include_pad:  # (the padding counts; the ceil_mode extension does not)
        inner = []
        for i in reversed(range(3)):
            inner += [p[i], p[i]]
        mask = pad(pad(ones, inner, value=1.0), [v for i in reversed(range(3)) for v in (0, extra[i])])
    else:
        mask = pad(ones, pads)
    counts = _windows3d(mask, k, s, d, out).sum(-1)
    return sums / counts


def lp_pool1d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p), as torch's: avg_pool of x^p times the window's size."""
    k = _one(kernel_size)
    out = avg_pool1d(input.pow(norm_type), k, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(k).pow(1.0 / norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    kh, kw = _pair(kernel_size)
    out = avg_pool2d(input.pow(norm_type), [kh, kw], stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kh * kw).pow(1.0 / norm_type)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    k = _triple(kernel_size, "kernel_size")
    out = avg_pool3d(input.pow(norm_type), k, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(math.prod(k)).pow(1.0 / norm_type)


def _unpool_size(input: Tensor, kernel, stride, padding, output_size, n: int) -> list[int]:
    """The unpooled spatial sizes: (in - 1) * stride - 2 * padding + kernel, or output_size's
    (its last n entries), which must lie strictly within a stride of them."""
    spatial = list(input.shape[input.ndim - n:])
    default = [(spatial[d] - 1) * stride[d] - 2 * padding[d] + kernel[d] for d in range(n)]
    if output_size is None:
        return default
    size = [int(v) for v in output_size]
    if len(size) == n + 2:
        size = size[2:]
    if len(size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(size)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < size[d] < high:
            raise ValueError(f'invalid output_size "{tuple(size)}" (dim {d} must be between {low} and {high})')
    return size


def _max_unpool(input: Tensor, indices: Tensor, kernel_size, stride, padding, output_size, n: int) -> Tensor:
    """Each value written at its flat index in a zero plane of the unpooled size (max_pool's
    indices), per (sample, channel)."""
    as_n = {1: lambda v: [_one(v)], 2: _pair, 3: lambda v: _triple(v, "kernel_size")}[n]
    kernel = as_n(kernel_size)
    stride = kernel if stride is None else as_n(stride)
    padding = as_n(padding)
    size = _unpool_size(input, kernel, stride, padding, output_size, n)
    lead = list(input.shape[:input.ndim - n])
    plane = _C.zeros(lead + [math.prod(size)], dtype=input.dtype, device=input.device)
    return plane.scatter(-1, indices.reshape(lead + [-1]), input.reshape(lead + [-1])).reshape(lead + size)


@_autocast("Float32")  # (torch: max_unpool2d)
def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


@_autocast("Float32")
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


@_autocast("Float32")
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


# ------------------------------------------------------------------ normalization
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalizes over every dim but the channels (dim 1); in training the batch statistics
    are used and the running ones updated (unbiased variance), as in PyTorch."""
    return _C.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return _C.layer_norm(input, shape, weight, bias, eps)


# machine epsilon of each floating dtype's compute type (float16/bfloat16 compute in float32), rms_norm's eps
_EPS = {"float64": 2.220446049250313e-16, "float32": 1.1920928955078125e-07, "float16": 1.1920928955078125e-07,
        "bfloat16": 1.1920928955078125e-07}


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the trailing normalized_shape dims (float16/bfloat16 computed in
    float32 and rounded once), times weight; eps defaults to the compute type's machine epsilon, as
    torch's. The root mean square as ||x|| / sqrt(n) and the denominator as hypot(rms, sqrt(eps)):
    x^2 of float32 values past 1.8e19 does not overflow (torch's gives 0 there)."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    k = len(shape)
    if k == 0 or k > input.ndim or list(input.shape[input.ndim - k:]) != shape:
        dims = ", ".join(map(str, shape))
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape [*{dims}], "
                           f"but got input of size{list(input.shape)}")
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {shape}")
    dtype = str(input.dtype).rsplit(".", 1)[-1]
    if dtype not in _EPS:
        raise RuntimeError(f"rms_norm: expected a floating point input, got {dtype}")
    x = input.float() if dtype in ("float16", "bfloat16") else input
    dims = list(range(input.ndim - k, input.ndim))
    n = 1
    for d in shape:
        n *= d
    rms = _C.norm(x, 2, dims, True) / math.sqrt(n)
    out = x / _C.hypot(rms, _C.full_like(rms, math.sqrt(_EPS[dtype] if eps is None else eps)))
    # (times the weight before the one rounding to the input's dtype, whatever the weight's, as torch's)
    return (out if weight is None else out * weight).to(input.dtype)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p over dim, eps) (into out when given)."""
    norm = _C.clamp(_C.norm(input, p, [dim], True), eps)
    return input / norm if out is None else _C.div(input, norm, out=out)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """layer_norm over each group of channels (with its spatial dims), then the per-channel affine."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    shape = list(input.shape)
    _verify_batch_size([shape[0] * shape[1] // num_groups, num_groups] + shape[2:])
    n, c = shape[0], shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {shape} and num_groups={num_groups}")
    shown = [0] if weight is None else list(weight.shape)  # torch's messages show the weight's shape, both
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {shown} and input of shape {shape}")
    # torch's mixed dtype: a float16/bfloat16 input with float32 weight and bias (Conv -> GroupNorm under
    # autocast) is computed in float32 and gives the input's dtype
    params = [t.dtype for t in (weight, bias) if t is not None]
    mixed = any(d != input.dtype for d in params)
    if mixed and input.dtype == _C.dtype.float64:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if mixed and (input.dtype not in (_C.dtype.float16, _C.dtype.bfloat16) or set(params) != {_C.dtype.float32}):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    group = c // num_groups
    for d in shape[2:]:
        group *= d
    x = (input.float() if mixed else input).reshape([n, num_groups, group])
    out = _C.layer_norm(x, [group], None, None, eps).reshape(shape)
    per_channel = [c] + [1] * (len(shape) - 2)
    if weight is not None:
        out = out * weight.reshape(per_channel)
    if bias is not None:
        out = out + bias.reshape(per_channel)
    return out.to(input.dtype) if mixed else out


def _verify_batch_size(size: list[int]) -> None:
    prod = size[0]
    for d in size[2:]:
        prod *= d
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """batch_norm of the input seen as one sample of N * C channels, as torch does; the running
    statistics (if given) get the mean over the batch of each sample's update."""
    shape = list(input.shape)
    if use_input_stats:
        spatial = 1
        for d in shape[2:]:
            spatial *= d
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"tcore.Size({shape})")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = shape[0], shape[1]

    def repeat(t: Tensor | None) -> Tensor | None:
        return None if t is None else t.repeat(b)

    rm, rv = repeat(running_mean), repeat(running_var)
    x = input.contiguous().reshape([1, b * c] + shape[2:])
    out = _C.batch_norm(x, repeat(weight), repeat(bias), rm, rv, use_input_stats, momentum, eps, True)
    from ..autograd import no_grad
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(rm.reshape([b, c]).mean(0))
        if running_var is not None:
            running_var.copy_(rv.reshape([b, c]).mean(0))
    return out.reshape(shape)


@_autocast(lambda a: "Float32" if a["input"].ndim > 3 else None)  # (torch: avg_pool3d past 3-D)
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """input / (k + alpha * mean of input^2 over `size` neighbouring channels) ** beta."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    shape = list(input.shape)
    div = (input * input).reshape([shape[0], 1, shape[1], -1])  # (N, 1, C, rest): a window over C only
    div = _C.constant_pad_nd(div, [0, 0, size // 2, (size - 1) // 2], 0)
    div = avg_pool2d(div, (size, 1), stride=1).reshape(shape)
    div = (div * alpha + k) ** beta
    return input / div


# ------------------------------------------------------------------ dropout, embedding, padding
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    out = _C.dropout(input, p, training)
    return input.copy_(out) if inplace and training else out


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched: bool) -> Tensor:
    """Zeroes whole channels (dim 1, or dim 0 of an unbatched input), scaling the rest by 1 / (1 - p)."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = _C.zeros([], dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    if input.ndim + (0 if batched else 1) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    lead = 2 if batched else 1
    shape = list(input.shape[:lead]) + [1] * (input.ndim - lead)
    noise = (_C.rand(shape, dtype=input.dtype, device=input.device) < 1 - p).to(input.dtype) / (1 - p)
    return input.mul_(noise) if inplace else input * noise


def _check_dropout_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_dropout_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, input.ndim == 3)


def _warn_channel_dropout_rank(name: str, ndim: int, spatial: int) -> None:
    """torch's warning for dropout2d/dropout3d given an input of another rank (stacklevel: the caller's caller)."""
    warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error in "
                  "a future release. To retain the behavior and silence this warning, please use dropout instead. "
                  f"Note that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial "
                  "dimensions, a channel dimension, and an optional batch dimension (i.e. "
                  f"{spatial + 1}D or {spatial + 2}D inputs).", stacklevel=3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_dropout_p(p)
    if input.ndim not in (3, 4):
        _warn_channel_dropout_rank("dropout2d", input.ndim, 2)
    if input.ndim == 3:  # taken as (N, C, L), as torch does for now
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _check_dropout_p(p)
    if input.ndim not in (4, 5):
        _warn_channel_dropout_rank("dropout3d", input.ndim, 3)
    return _feature_dropout(input, p, training, inplace, input.ndim == 5)


_SELU_ALPHA_SCALE = 1.7580993408473766  # (selu's scale * alpha)


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    """SELU's dropout: kept values a x + a alpha' p, dropped ones -a alpha' (1 - p), a =
    1 / sqrt((alpha'^2 p + 1)(1 - p)): zero mean and unit variance stay so (torch's formula);
    feature: one draw per (sample, channel)."""
    _check_dropout_p(p)
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    shape = list(input.shape[:2]) + [1] * (input.ndim - 2) if feature else list(input.shape)
    keep = (_C.rand(shape, dtype=input.dtype, device=input.device) < 1 - p).to(input.dtype)
    a = 1.0 / math.sqrt((_SELU_ALPHA_SCALE ** 2 * p + 1) * (1 - p))
    b = (keep - 1) * (_SELU_ALPHA_SCALE * a) + _SELU_ALPHA_SCALE * a * p
    out = input * (keep * a) + b
    return input.copy_(out) if inplace else out


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, inplace, True)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    if padding_idx is not None:
        n = weight.shape[0]
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Each bag's embeddings summed (times per_sample_weights), averaged or maxed: the rows of a
    2-D input, or the runs of a 1-D input that offsets start; padding_idx's entries left out (an
    empty bag gives zeros), as torch's. Gradients through index_add / scatter_reduce."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  f"GitHub.")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                             f"length sequences. However, found offsets of type {type(offsets)}")
        bags, length = input.shape
        offsets = _C.arange(0, bags * length, length, device=input.device) if length else \
            _C.zeros([bags], dtype=_C.dtype.int64, device=input.device)
        input = input.reshape([-1])
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape([-1])
    elif input.ndim == 1:
        if offsets is None or offsets.ndim != 1:
            raise ValueError(f"offsets has to be a 1D Tensor but got {None if offsets is None else offsets.ndim}")
        if offsets.numel() and offsets[0].item() != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                               f"position 0. However, got {offsets[0].item()}")
        if include_last_offset:
            offsets = offsets[:-1]
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if padding_idx is not None:
        n = weight.shape[0]
        if not -n <= padding_idx < n:
            raise AssertionError("padding_idx must be within num_embeddings")
        padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    bags = offsets.numel()
    count = input.numel()
    # each entry's bag: the last offset at or before it
    bag = _C.searchsorted(offsets.contiguous(), _C.arange(count, device=input.device), right=True) - 1
    rows = weight.index_select(0, input)
    keep = None if padding_idx is None else (input != padding_idx)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    dim = weight.shape[1]
    # a padding_idx entry goes to a bag past the last, which is dropped (no value, no gradient)
    bag_kept = bag if keep is None else _C.where(keep, bag, bags)
    if mode == "max":
        return _bag_max(rows, bag_kept, bags, count, dim)
    out = _C.zeros([bags + 1, dim], dtype=weight.dtype, device=weight.device).index_add(0, bag_kept, rows)[:bags]
    if mode == "mean":
        ones = _C.ones([count], dtype=weight.dtype, device=weight.device)
        counts = _C.zeros([bags + 1], dtype=weight.dtype, device=weight.device).index_add(0, bag_kept, ones)[:bags]
        out = out / counts.clamp_min(1).unsqueeze(1)
    return out


def _bag_max(rows: Tensor, bag: Tensor, bags: int, count: int, dim: int) -> Tensor:
    """Each bag's column maxima as torch's kernel finds them: a running maximum from the bag's
    first entry, replaced only by a greater value, so equal maxima give the first entry (and
    the gradient to it alone), a NaN counts only as the first entry; an empty bag gives zeros."""
    from ..autograd import no_grad
    if not count:  # zeros still linked to weight, whose gradient is then zeros, as torch's
        return rows.sum(0).expand([bags, dim])
    index = bag.unsqueeze(1).expand([count, dim])
    with no_grad():
        position = _C.arange(count, device=rows.device).unsqueeze(1).expand([count, dim])
        unset = _C.full([bags + 1, dim], count, dtype=_C.dtype.int64, device=rows.device)
        first = unset.scatter_reduce(0, index, position, "amin")
        nan = rows.isnan()
        finite = _C.where(nan, float("-inf"), rows)
        best = _C.zeros([bags + 1, dim], dtype=rows.dtype, device=rows.device) \
            .scatter_reduce(0, index, finite, "amax", include_self=False).gather(0, index)
        holds = (finite == best) & ~nan
        largest = unset.scatter_reduce(0, index, _C.where(holds, position, count), "amin")
        first_is_nan = rows.gather(0, first.clamp_max(count - 1)).isnan()
        chosen = _C.where(first_is_nan, first, largest)[:bags]
        empty = chosen == count
    return rows.gather(0, chosen.clamp_max(count - 1)).masked_fill(empty, 0)


def _renorm_rows(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescales in place the rows `input` refers to whose norm exceeds max_norm (no grad)."""
    from ..autograd import no_grad
    with no_grad():
        rows = _C._unique2(input.reshape([-1]), True, False, False)[0]
        picked = weight[rows]
        norms = _C.norm(picked, norm_type, [1], True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), _C.ones_like(norms))
        weight[rows] = picked * scale


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype != _C.dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() else 0
    if tensor.numel() and (tensor.min().item() < 0 or tensor.max().item() >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes." if tensor.min().item() >= 0
                           else "Class values must be non-negative.")
    return (tensor.unsqueeze(-1) == _C.arange(num_classes)).long()


def _torch_scalar_name(dtype) -> str:
    """torch's C++ ScalarType name of a dtype, for its 'not implemented for' messages."""
    return {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
            "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double"}.get(dtype.name,
                                                                                               dtype.name)


_PAD_NON_CONSTANT = ("Padding size {} is not supported for {}D input tensor.\n"
                     "Supported combinations for non-constant padding:\n"
                     "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                     "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                     "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """torch.nn.functional.pad. pad lists (left, right) pairs from the last dim backwards; a
    negative entry crops. 'constant' takes any number of dims; 'reflect', 'replicate' and
    'circular' pad the last 1, 2 or 3 dims of a 2-D/3-D, 3-D/4-D or 4-D/5-D input (torch's
    _pad_enum rule), each padded dim gathered (_resample's one tap) from torch's source index
    (reflect: |i| mirrored at both ends, which needs each pad < the dim's size; replicate: i
    clamped; circular: i modulo the size after the crops, each pad at most the size), so the
    gradient of an element copied several times accumulates."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    try:
        pad = [operator.index(p) for p in pad]
    except TypeError:
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but got {pad!r}") from None
    n = input.ndim
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * n:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {n}")
    if mode == "constant":
        return _C.constant_pad_nd(input, pad, 0 if value is None else value)
    if mode != "circular" and _C._autocast_active():  # (reflection/replication pads: float32 under autocast)
        return _pad_float32(input, pad, mode, value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k = len(pad) // 2
    if k not in (1, 2, 3) or n not in (k + 1, k + 2):
        raise NotImplementedError(_PAD_NON_CONSTANT.format(len(pad), n))
    dims = list(range(n - k, n))  # the padded dims, and their (left, right) pads
    pairs = [(pad[2 * (n - 1 - d)], pad[2 * (n - 1 - d) + 1]) for d in dims]
    sources = (_circular_sources if mode == "circular" else _clamped_sources)(input, dims, pairs, mode)
    first = next((i for i, src in enumerate(sources) if src is not None), None)
    if first is None:  # nothing padded: still a new (contiguous) tensor, as torch's
        return input.clone(memory_format=_C.memory_format.contiguous_format)
    # the dims from the first padded one on as one flat dim, gathered in one pass (_resample with
    # one tap: its CPU kernel copies runs of consecutive sources; a pass per dim took 2.7x torch's
    # time), the flat source index of each output element built from each dim's sources
    inner = dims[first:]
    flat = np.zeros(1, dtype=np.int64)
    for d, src in zip(inner, sources[first:]):
        size = input.shape[d]
        flat = (flat[:, None] * size + (np.arange(size) if src is None else src)).reshape(-1)
    lead = list(input.shape[:inner[0]])
    index = _C.from_numpy(flat.reshape(1, -1)).to(input.device)
    out = _C._resample(input.reshape(lead + [math.prod(input.shape[inner[0]:])]), len(lead), index, None)
    return out.reshape(lead + [input.shape[d] if src is None else len(src) for d, src in zip(inner, sources[first:])])


_pad_float32 = _autocast(lambda a: "Below" if (a["mode"], len(a["pad"])) == ("reflect", 6) else "Float32")(pad)


def _clamped_sources(input: Tensor, dims: list[int], pairs: list[tuple[int, int]], mode: str) -> list:
    """Source indices of 'reflect' / 'replicate' padding, after torch's checks (reflection_padNd,
    replication_padNd): no bool, no empty non-batch dim, reflect pads < size, some output size >= 1
    and none < 0."""
    k, shape = len(dims), list(input.shape)
    kernel = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d"
    if input.dtype == _C.dtype.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if any(s == 0 for s in shape[1 if len(shape) == k + 2 else 0:]):
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {shape}")
    if mode == "reflect":
        for j, (d, (l, r)) in enumerate(reversed(list(zip(dims, pairs)))):  # the last dim first, as torch
            if l >= shape[d] or r >= shape[d]:
                raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({l}, {r}) at dimension {d} of input {shape}")
    sizes = [shape[d] for d in dims]
    outs = [s + l + r for s, (l, r) in zip(sizes, pairs)]
    if max(outs) < 1:  # (sic: torch lets through an output with some dims < 1 if one is >= 1)
        given = {1: "W: {}", 2: "H: {}, W: {}" + (" " if mode == "replicate" else ""), 3: "D: {} H: {}, W: {}"}[k]
        raise RuntimeError(f"input ({given.format(*sizes)}) is too small. Calculated output "
                           + " ".join(f"{c}: {o}" for c, o in zip("DHW"[3 - k:], outs)))
    if min(outs) < 0:
        bad = next(o for o in outs if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {shape[:-k] + outs}")
    sources = []
    for s, (l, r), o in zip(sizes, pairs, outs):
        if l == r == 0:
            sources.append(None)
        elif mode == "reflect":  # mirrored about 0 and s - 1, the edges not repeated
            t = np.arange(-l, o - l)
            sources.append(np.minimum(np.abs(t), 2 * (s - 1) - t))
        else:
            sources.append(np.clip(np.arange(-l, o - l), 0, s - 1))
    return sources


def _circular_sources(input: Tensor, dims: list[int], pairs: list[tuple[int, int]], mode: str) -> list:
    """Source indices of 'circular' padding (torch's _pad_circular: negative pads crop first, then
    the cropped dim wraps around), after its checks: each pad at most the size, an output >= 0."""
    sources = []
    for d, (l, r) in zip(dims, pairs):
        s = input.shape[d]
        if l > s or r > s:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if s + l + r < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        start, kept = max(-l, 0), s - max(-l, 0) - max(-r, 0)
        lead, out = max(l, 0), s + l + r
        if kept <= 0 < out:
            raise RuntimeError("pad: circular padding of a dimension its negative padding crops away entirely is "
                               "not supported (torch reads uninitialized memory there)")
        sources.append(None if l == r == 0 else start + (np.arange(out) - lead) % kept)
    return sources


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return _C.flatten(input, start_dim, end_dim)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""
    _check_pixel(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    r = upscale_factor
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(batch)
    x = input.reshape([*batch, c // (r * r), r, r, h, w]).permute([*range(n), n, n + 3, n + 1, n + 4, n + 2])
    return x.reshape([*batch, c // (r * r), h * r, w * r])


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with its channels regrouped: (groups, C / groups) transposed."""
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], list(input.shape[2:])
    return input.reshape([n, groups, c // groups] + rest).transpose(1, 2).reshape(list(input.shape))


native_channel_shuffle = channel_shuffle


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""
    _check_pixel(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    r = downscale_factor
    *batch, c, h, w = input.shape
    for name, size, d in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({d})={size} is not divisible by {r}")
    n = len(batch)
    x = input.reshape([*batch, c, h // r, r, w // r, r]).permute([*range(n), n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape([*batch, c * r * r, h // r, w // r])


def _check_pixel(input: Tensor, factor: int, name: str, arg: str) -> None:
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with {input.ndim} "
                           "dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {arg}, but got {factor}")


# ------------------------------------------------------------------ interpolation
# Each mode resamples one spatial dim at a time (the last first, so a 2-D output is
# sum_h w_h * (sum_w w_w * x), torch's order) as sum_k index_select(x, dim, idx_k) * w_k, with the
# source indices and weights computed as torch's CPU kernels do (UpSample.h, UpSampleKernel.cpp):
# in the dtype's opmath (double for float64, float for the others), floorf (through float) for the
# floor, and the multiply-add of the source index contracted (fused), as the compiled kernels are.
def _opmath(dtype):
    return float if dtype == _C.dtype.float64 else _float32


def _fma(a: float, b: float, c: float, r) -> float:
    """a * b + c rounded once (to r's precision), as a fused multiply-add."""
    return r(float(fractions.Fraction(a) * fractions.Fraction(b) + fractions.Fraction(c)))


def _floorf(v: float) -> int:
    return math.floor(_float32(v))


def _interp_scale(n_in: int, n_out: int, align_corners: bool, scale: float | None, r) -> float:
    """torch's area_pixel_compute_scale: (in - 1) / (out - 1) aligning corners, else 1 / scale_factor
    when one was given (and not recomputed), else in / out."""
    if align_corners:
        return r((n_in - 1) / (n_out - 1)) if n_out > 1 else 0.0
    return r(1.0 / scale) if scale is not None and scale > 0 else r(n_in / n_out)


def _interp_source(s: float, i: int, align_corners: bool, cubic: bool, r) -> float:
    """torch's area_pixel_compute_source_index: s * i aligning corners, else s * (i + 0.5) - 0.5,
    clamped at 0 unless cubic."""
    if align_corners:
        return r(s * i)
    src = _fma(s, i + 0.5, -0.5, r)
    return src if cubic or src >= 0 else 0.0


def _nearest_taps(n_in, n_out, align_corners, scale, r, exact: bool, shortcut: bool = False):
    """'nearest': floor(i * s); 'nearest-exact': floor(max(s * (i + 0.5) - 0.5, 0) + 0.5); at most
    in - 1. shortcut: torch's nearest_idx, which its 2-D 'nearest' kernel uses: i where the output
    size is the input's, i // 2 where it is twice it, whatever the scale_factor."""
    if shortcut and n_out in (n_in, 2 * n_in):
        return [([i * n_in // n_out for i in range(n_out)], None)]
    s = _interp_scale(n_in, n_out, False, scale, r)
    if exact:
        idx = [_floorf(r(_interp_source(s, i, False, False, r) + 0.5)) for i in range(n_out)]
    else:
        idx = [_floorf(r(s * i)) for i in range(n_out)]
    return [([min(i, n_in - 1) for i in idx], None)]


def _floor_and_lambda(src: float, n_in: int, r) -> tuple[int, float]:
    """torch's guard_index_and_lambda: the floor (at most in - 1) and the fraction, clamped to [0, 1]."""
    i = min(_floorf(src), n_in - 1)
    return i, min(max(r(src - i), 0.0), 1.0)


def _linear_taps(n_in, n_out, align_corners, scale, r):
    """x[i0] * (1 - t) + x[i1] * t, i1 = i0 + 1 but for the last index; an unchanged size copies."""
    if n_in == n_out:
        return [(list(range(n_in)), None)]
    s = _interp_scale(n_in, n_out, align_corners, scale, r)
    i0, i1, w0, w1 = [], [], [], []
    for i in range(n_out):
        k, t = _floor_and_lambda(_interp_source(s, i, align_corners, False, r), n_in, r)
        i0.append(k)
        i1.append(k + 1 if k < n_in - 1 else k)
        w0.append(r(1.0 - t))
        w1.append(t)
    return [(i0, w0), (i1, w1)]


def _cubic_coefficients(t: float, r) -> list[float]:
    """torch's get_cubic_upsample_coefficients (Keys' kernel, A = -0.75)."""
    a = -0.75

    def near(x):  # |x| <= 1
        return r(r(r(r(r((a + 2) * x) - (a + 3)) * x) * x) + 1)

    def far(x):  # 1 < |x| < 2
        return r(r(r(r(r(r(a * x) - 5 * a) * x) + 8 * a) * x) - 4 * a)

    u = r(1.0 - t)
    return [far(r(t + 1.0)), near(t), near(u), far(r(u + 1.0))]


def _cubic_taps(n_in, n_out, align_corners, scale, r):
    """sum_j x[clamp(i0 - 1 + j)] * c_j(t) over 4 taps, the source index not clamped at 0."""
    s = _interp_scale(n_in, n_out, align_corners, scale, r)
    taps = [([], []) for _ in range(4)]
    for i in range(n_out):
        k, t = _floor_and_lambda(_interp_source(s, i, align_corners, True, r), n_in, r)
        for j, c in enumerate(_cubic_coefficients(t, r)):
            taps[j][0].append(min(max(k - 1 + j, 0), n_in - 1))
            taps[j][1].append(c)
    return taps


def _aa_taps(n_in, n_out, align_corners, scale, r, *, interp_size: int, kernel):
    """torch's antialiased taps (_compute_weights_aa): output i averages the inputs within
    interp_size / 2 output pixels of its centre, weighted by kernel at the distance measured in
    output pixels when shrinking; the weights normalized to sum 1 (cut at the edges); padded with
    zero weights to the widest row."""
    s = _interp_scale(n_in, n_out, align_corners, scale, r)
    support = interp_size * 0.5 * s if s >= 1.0 else interp_size * 0.5
    invscale = 1.0 / s if s >= 1.0 else 1.0
    rows = []
    for i in range(n_out):
        centre = s * (i + 0.5)
        low = max(int(centre - support + 0.5), 0)
        width = min(int(centre + support + 0.5), n_in) - low
        weights = [kernel((j + low - centre + 0.5) * invscale) for j in range(width)]
        total = sum(weights)
        rows.append((low, [w / total for w in weights] if total != 0 else weights))
    widest = max(len(w) for _, w in rows)
    return [([min(low + j, n_in - 1) for low, _ in rows], [w[j] if j < len(w) else 0.0 for _, w in rows])
            for j in range(widest)]


def _triangle(x: float) -> float:
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _aa_cubic(x: float) -> float:
    """The antialiasing cubic (Keys' kernel with a = -0.5, PIL's and torch's)."""
    a, x = -0.5, abs(x)
    if x < 1.0:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    return (((x - 5) * x + 8) * x - 4) * a if x < 2.0 else 0.0


_AA_TAPS = {"bilinear": functools.partial(_aa_taps, interp_size=2, kernel=_triangle),
            "bicubic": functools.partial(_aa_taps, interp_size=4, kernel=_aa_cubic)}


def _resample(x: Tensor, dim: int, taps) -> Tensor:
    """sum over taps of x.index_select(dim, idx) * w (w along dim; None: 1): one _resample, whose CPU
    kernel makes each output element in one pass (computed in float32 for float16/bfloat16)."""
    from .._tensor import tensor
    indices = tensor([idx for idx, _ in taps], dtype=_C.dtype.int64).to(x.device)
    weights = None if taps[0][1] is None else tensor([w for _, w in taps], dtype=_C.dtype.float64).to(x.device)
    return _C._resample(x, dim, indices, weights)


# mode -> (the number of spatial dims it takes, the taps builder, torch's index kernel's name)
_INTERP_MODES = {
    "nearest": ((1, 2, 3), functools.partial(_nearest_taps, exact=False), "nearest"),
    "nearest-exact": ((1, 2, 3), functools.partial(_nearest_taps, exact=True), "nearest"),
    "linear": ((1,), _linear_taps, "linear"), "bilinear": ((2,), _linear_taps, "linear"),
    "trilinear": ((3,), _linear_taps, "linear"), "bicubic": ((2,), _cubic_taps, "cubic"),
}
_LINEAR_DIMS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _interp_sizes(input: Tensor, size, scale_factor, recompute_scale_factor) -> tuple[list[int], list]:
    """torch's interpolate argument rules: exactly one of size / scale_factor, either a number or one
    per spatial dim; the output size floor(in * scale); the scales handed to the kernel (None where
    the output size decides them: size given, or recompute_scale_factor)."""
    dim, spatial = input.ndim - 2, list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * dim
        if isinstance(size, (list, tuple)) and len(size) != dim:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {spatial} and output size of {size}. Please provide input tensor "
                             f"in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        if not all(isinstance(s, int) or (hasattr(s, "__index__") and not isinstance(s, Tensor)) for s in sizes):
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], "
                            f"but got size with types {[type(s) for s in sizes]}")
        return [operator.index(s) for s in sizes], [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {spatial} and scale_factor of shape {scale_factor}. Please "
                             f"provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                             f"...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dim
    sizes = [math.floor(n * s) for n, s in zip(spatial, scales)]
    return sizes, [None] * dim if recompute_scale_factor else scales


def _check_interp_sizes(input: Tensor, sizes: list[int]) -> None:
    """torch's upsample_Nd_common_check: every size > 0, no empty channel or spatial dim."""
    spatial, names = list(input.shape[2:]), "DHW"[3 - len(sizes):]
    if min(spatial + sizes) <= 0:
        given = ", ".join(f"{c}: {s}" for c, s in zip(names, spatial))
        wanted = ", ".join(f"{c}: {s}" for c, s in zip(names, sizes))
        joint = " and output" if len(sizes) == 1 else " output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given}){joint} "
                           f"({wanted})")
    if input.shape[1] == 0:
        raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")


_ALIGN_CORNERS_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                          "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                          "grid_sample for details.")


def _base_coordinates(n: int, align_corners: bool, like: Tensor) -> Tensor:
    """The n sample positions along one axis in [-1, 1]: the pixels' centers (align_corners=False)
    or their corners (torch's linspace_from_neg_one: range * (n - 1) / n, two roundings)."""
    if n <= 1:
        return _C.zeros([n], dtype=like.dtype, device=like.device)
    line = _C.linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
    return line if align_corners else line * (n - 1) / n


def _size_entries(size) -> list[int]:
    """size's entries as ints, refusing floats as torch's argument parser does."""
    for i, v in enumerate(size):
        if not isinstance(v, int) and not hasattr(v, "__index__"):
            kind = type(v).__name__
            if i == 0:
                raise TypeError(f"affine_grid_generator(): argument 'size' (position 2) must be tuple of ints, but "
                                f"found element of type {kind} at pos 0")
            raise TypeError(f"affine_grid_generator(): argument 'size' failed to unpack the object at pos {i + 1} "
                            f"with error \"type must be tuple of ints,but got {kind}\"")
    return [operator.index(v) for v in size]


def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """The (N, H, W, 2) (or (N, D, H, W, 3)) sampling grid of the affine maps theta (N, 2, 3) (or
    (N, 3, 4)) over an output of `size`, as torch's (its checks, warnings and messages too)."""
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    k = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (k, k + 1):
        raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for size {size}. Got "
                         f"{theta.shape}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    size = _size_entries(size)
    spatial = size[2:]  # (H, W) or (D, H, W); the grid's last dim is (x, y[, z]): W's first
    axes = [_base_coordinates(n, align_corners, theta) for n in spatial]
    mesh = _C.meshgrid(axes, indexing="ij")
    points = _C.stack(list(reversed(mesh)) + [_C.ones_like(mesh[0])], -1)  # (..., k + 1): x, y[, z], 1
    flat = points.reshape([1, -1, k + 1]).expand([size[0], math.prod(spatial), k + 1])
    return _C.bmm(flat, theta.transpose(1, 2)).reshape([size[0]] + spatial + [k])


# grid_sample follows torch's CPU kernels, which differ: 4-D input goes through a vectorized kernel
# ("vec" below), 5-D input through a scalar one. They unnormalize and reflect with differently
# rounded formulas (which matters where a point lands exactly on a pixel: the floor, and so the
# gradient, depends on it), clip NaN to 0 (vec) or to the far border (scalar), and vec multiplies
# masked-out taps' zeros by their weights (NaN weights give NaN) where scalar skips them. Both give
# the padding's clip a zero gradient on the borders and past them.

def _grid_unnormalize(g: Tensor, size: int, align_corners: bool, vec: bool) -> Tensor:
    if not vec:
        return (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
    if align_corners:
        return (g + 1) * ((size - 1) / 2)
    # (g + 1) * (size / 2) - 0.5 rounded once, as the vec kernel's fused multiply-add does: which side of a
    # pixel's center a point falls on (so the floor, and the grid's gradient) depends on it. The product is
    # exact for a power-of-two size, float32's in float64; float64's g + 1 splits into a float32 head and a
    # tail whose products with size are exact.
    a = g + 1
    if size & (size - 1) == 0 or a.dtype not in (_C.dtype.float32, _C.dtype.float64):
        return a * (size / 2) - 0.5
    if a.dtype == _C.dtype.float32:
        return (a.to(_C.dtype.float64) * (size / 2) - 0.5).to(a.dtype)
    head = a.detach().clamp(-1e30, 1e30).to(_C.dtype.float32).to(a.dtype)
    return ((head * size - 1) + (a - head) * size) / 2


def _grid_reflect(x: Tensor, size: int, align_corners: bool, vec: bool) -> Tensor:
    """x reflected into [low, low + span] (the corner pixels' centers, or the input's edges)."""
    if align_corners and size <= 1:  # (an empty span: 0, its gradient 0)
        return _C.where(_C.zeros_like(x, dtype=_C.dtype.bool), x, 0.0)
    low, span = (0.0, size - 1.0) if align_corners else (-0.5, float(size))
    x = (x - low).abs()
    if vec:  # whole double flips off by trunc, then one more flip if past the span
        extra = x - _C.trunc(x / (2 * span)) * (2 * span)
        flipped = 2 * span - extra
        return _C.where(extra > flipped, flipped, extra) + low
    extra = _C.fmod(x, span)
    flips = _C.floor(x / span)  # (torch casts it to int: past INT_MAX, NaN included, it counts as even)
    odd = (_C.fmod(flips, 2) == 1) & (flips < 2.0 ** 31)
    return _C.where(odd, span - extra + low, extra + low)


def _grid_clip(x: Tensor, size: int, vec: bool) -> Tensor:
    """x clipped to [0, size - 1], its gradient 1 strictly inside, else 0; NaN to 0 (vec) or to
    size - 1."""
    high = float(size - 1)
    above, below = x > 0, x < high
    edge = _C.where(above, _C.full_like(x, high), 0.0) if vec else _C.where(below, 0.0, _C.full_like(x, high))
    return _C.where(above & below, x, edge)


def _grid_pad(x: Tensor, size: int, padding_mode: str, align_corners: bool, vec: bool) -> Tensor:
    """A position in pixels brought inside by the border or reflection padding (torch's
    compute_coordinates)."""
    if padding_mode == "reflection":
        x = _grid_reflect(x, size, align_corners, vec)
    return x if padding_mode == "zeros" else _grid_clip(x, size, vec)


def _cubic_convolution(t: Tensor) -> list[Tensor]:
    """The 4 taps' weights at fraction t (torch's get_cubic_coefficients, A = -0.75, its order of
    operations). Their gradient is torch's get_cubic_coefficients_grad's polynomials times the
    incoming gradient, not autograd's sum over the polynomials' products (whose infinities, from an
    infinite input, cancel into NaN where torch's stay infinite)."""
    a, u = -0.75, t.detach()

    def outer(x):
        return ((x * a - 5 * a) * x + 8 * a) * x - 4 * a

    def inner(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    values = [outer(u + 1), inner(u), inner(1 - u), outer(2 - u)]
    if not t.requires_grad:
        return values
    x0, x1, x2, x3 = -1 - u, 0 - u, 1 - u, 2 - u  # (torch's slopes are d weight / d x: minus d weight / d t)
    slopes = [(-3 * a * x0 - 10 * a) * x0 - 8 * a, (-3 * (a + 2) * x1 - 2 * (a + 3)) * x1,
              (3 * (a + 2) * x2 - 2 * (a + 3)) * x2, (3 * a * x3 - 10 * a) * x3 + 8 * a]
    shift = t - u  # (exactly 0, its gradient 1)
    return [v - shift * s for v, s in zip(values, slopes)]


def _grid_axis_taps(g: Tensor, size: int, mode: str, padding_mode: str, align_corners: bool, vec: bool):
    """Along one input axis: the taps' positions (float, maybe outside) and weights (None for
    nearest), each stacked to (N, T, P), and where the padded position is NaN (the scalar kernel's
    backward skips such points) or None."""
    x = _grid_unnormalize(g, size, align_corners, vec)
    if mode == "bicubic":  # (padding applies to each tap, the gradient comes through the weights only)
        x0 = _C.floor(x)
        positions = [_grid_pad(x0 + (j - 1), size, padding_mode, align_corners, vec) for j in range(4)]
        return _C.stack(positions, 1), _C.stack(_cubic_convolution(x - x0), 1), None
    if padding_mode == "reflection":
        x = _grid_reflect(x, size, align_corners, vec)
    lost = None if vec or padding_mode == "zeros" else x.isnan()
    if padding_mode != "zeros":
        x = _grid_clip(x, size, vec)
    if mode == "nearest":
        return _C.round(x).unsqueeze(1), None, lost
    x0 = _C.floor(x)
    w = x - x0
    if not vec:  # (NaN or inf here: the point's taps are all outside, and the scalar kernel skips them)
        w = _C.where(w.isfinite(), w, 0.0)
    return _C.stack([x0, x0 + 1], 1), _C.stack([1 - w, w], 1), lost


def _grid_sample_checks(ishape: list[int], gshape: list[int], mode: str) -> None:
    """torch's grid_sampler checks, in its order (the shapes as lists)."""
    if not ishape or not gshape:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    sizes = f"input with sizes {ishape} and grid with sizes {gshape}"
    if ishape[0] != gshape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    if gshape[-1] != len(ishape) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(ishape) - 2} in last dimension, but got "
                           f"grid with sizes {gshape}")
    for i in range(2, len(ishape)):
        if ishape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {ishape} with dimension {i} being empty")
    dims = 4 if len(ishape) == 4 else 5
    if len(ishape) != dims or len(gshape) != dims:
        raise RuntimeError(f"grid_sampler(): expected {dims}D input and grid with same number of dimensions, but got "
                           f"{sizes}")
    if dims == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


_GRID_TAPS = {"nearest": 1, "bilinear": 2, "bicubic": 4}


@_autocast("Float32")
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2)'s (x, y) positions in [-1, 1], or
    (N, C, D, H, W) at (N, Do, Ho, Wo, 3)'s (x, y, z): bilinear (trilinear), nearest (round half to
    even) or bicubic (4-D only), outside the input zeros, the border's values or the reflection's, as
    torch's CPU kernels (see above); gradients to input and grid through one gather of all taps and
    their weights."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=3)  # (past the _autocast wrapper)
        align_corners = False
    ishape, gshape = list(input.shape), list(grid.shape)
    _grid_sample_checks(ishape, gshape, mode)
    vec = len(ishape) == 4
    (n, c), sizes, out_sizes = ishape[:2], ishape[2:], gshape[1:-1]
    shape = [n, c] + out_sizes
    if not (vec and 0 in shape) and not input.is_floating_point():
        kernel = "grid_sampler_2d_cpu_kernel_impl" if vec else "grid_sampler3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_torch_scalar_name(input.dtype)}'")
    if 0 in shape:  # (still in the graph: zero gradients, as torch's)
        empty = _C.zeros(shape, dtype=input.dtype, device=input.device)
        if not input.is_floating_point():
            return empty
        return empty + (input.flatten()[:0].sum() + grid.flatten()[:0].sum()).to(input.dtype)
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_torch_scalar_name(input.dtype)} but found "
                           f"{_torch_scalar_name(grid.dtype)}")
    k, p, s, t = len(sizes), math.prod(out_sizes), math.prod(sizes), _GRID_TAPS[mode]
    coordinates = _C.unbind(grid.reshape([n, p, k]), -1)  # x, y[, z]: (N, P) each
    # per input axis (D, H, W order): its taps broadcast against the others' to (N, T, .., T, P)
    index, inside, weight, lost, stride = None, None, None, None, s
    for d, size in enumerate(sizes):
        positions, w, nan = _grid_axis_taps(coordinates[k - 1 - d], size, mode, padding_mode, align_corners, vec)
        view = [n] + [1] * d + [t] + [1] * (k - 1 - d) + [p]
        positions = positions.reshape(view)
        ok = (positions >= 0) & (positions <= size - 1)
        stride //= size
        at = _C.where(ok, positions, 0.0).to(_C.dtype.int64)
        at = at * stride if stride > 1 else at
        index, inside = (at, ok) if index is None else (index + at, inside & ok)
        if w is not None:
            weight = w.reshape(view) if weight is None else weight * w.reshape(view)
        if nan is not None:
            lost = nan if lost is None else lost | nan
    taps = t ** k
    # outside taps read a zero appended to each plane (and their gradient lands there)
    plane = _C.cat([input.reshape([n, c, s]), _C.zeros([n, c, 1], dtype=input.dtype, device=input.device)], 2)
    index = _C.where(inside, index, s).reshape([n, 1, taps * p]).expand([n, c, taps * p])
    values = plane.gather(2, index)
    if weight is None:  # nearest: times an exact 1 that depends on the grid (its gradient zeros, as torch's)
        x = coordinates[0]
        out = values * _C.where(_C.zeros_like(x, dtype=_C.dtype.bool), x, 1.0).unsqueeze(1)
    else:
        weight = weight.reshape([n, 1, taps, p])
        if not vec:  # (the scalar kernel skips outside taps: not even a NaN gradient flows through them)
            weight = _C.where(inside.reshape([n, 1, taps, p]), weight, 0.0)
        out = (values.reshape([n, c, taps, p]) * weight).sum(2)
    if lost is not None:  # NaN positions: the scalar kernel's forward clips them, its backward skips them
        out = _C.where(lost.unsqueeze(1), out.detach(), out)
    return out.reshape(shape)


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """torch.nn.functional.interpolate for 'nearest' / 'nearest-exact' (3-D, 4-D, 5-D input),
    'linear' (3-D), 'bilinear' / 'bicubic' (4-D), 'trilinear' (5-D), and 'area' where
    adaptive_avg_pool2d can (4-D, output sizes dividing the input's); torch's source indices and
    weights (see above), the gradient through index_select; antialias=True for bilinear and bicubic
    (torch's separable filters, widened by the shrink factor)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    sizes, scales = _interp_sizes(input, size, scale_factor, recompute_scale_factor)
    if antialias:
        if not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                             "4-D tensor as input")
        if mode not in _AA_TAPS:
            raise NotImplementedError(f"interpolate: antialias=True with mode '{mode}' is not supported by tcore")
    if mode == "area" and input.ndim == 4:
        return adaptive_avg_pool2d(input, sizes)
    dims, build, kernel = _INTERP_MODES.get(mode, ((), None, None))
    if antialias:
        build = _AA_TAPS[mode]
    if input.ndim - 2 not in dims:
        if mode in _LINEAR_DIMS and 3 <= input.ndim <= 5:
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR_DIMS[mode]}D input")
        if mode == "area" and 3 <= input.ndim <= 5:
            raise NotImplementedError("interpolate: mode 'area' is supported by tcore for 4-D input only")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if not input.is_floating_point() and not (kernel == "nearest" and input.dtype == _C.dtype.uint8):
        raise NotImplementedError(f"\"compute_indices_weights_{kernel}\" not implemented for "
                                  f"'{_torch_scalar_name(input.dtype)}'")
    _check_interp_sizes(input, sizes)
    if mode == "nearest" and len(sizes) == 2 and not antialias:  # torch's 2-D nearest kernel: nearest_idx's shortcuts
        build = functools.partial(_nearest_taps, exact=False, shortcut=True)
    r = _opmath(input.dtype)
    out = input
    for d in reversed(range(len(sizes))):
        out = _resample(out, d + 2, build(input.shape[d + 2], sizes[d], align_corners, scales[d], r))
    if input.ndim == 4 and input.shape[1] > 1 and input.is_contiguous(memory_format=_C.memory_format.channels_last) \
            and not input.is_contiguous():  # torch's kernels keep a channels_last input's layout
        out = out.contiguous(memory_format=_C.memory_format.channels_last)
    return out


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ------------------------------------------------------------------ attention
_CPP_TYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                   "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                   "uint8": "unsigned char", "bool": "bool"}


def _cpp_type(t: Tensor) -> str:
    return _CPP_TYPE_NAMES.get(t.dtype.name, t.dtype.name)


@_autocast("LowerPrecision")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(query @ key^T * scale + bias) @ value, torch's math reference: scale defaults to
    1 / sqrt(E); bias is -inf where a bool attn_mask is False, the float attn_mask itself, or -inf
    above the diagonal of the (L, S) score matrix (top-left aligned) when is_causal; with
    enable_gqa, key and value heads (dim -3) repeat to the query's. A row masked everywhere gives
    zeros and zero gradients, as torch's _safe_softmax, not NaN."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_cpp_type(query)} key.dtype: {_cpp_type(key)} and value.dtype: {_cpp_type(value)} "
                           f"instead.")
    if attn_mask is not None and attn_mask.dtype != _C.dtype.bool and not attn_mask.is_floating_point():
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_cpp_type(attn_mask)} and  query.dtype: {_cpp_type(query)} instead.")
    if enable_gqa and query.ndim >= 3:
        heads = query.shape[-3]
        for t in (key, value):
            if heads % t.shape[-3]:
                raise RuntimeError("Number of heads in key and value must divide the number of heads in query")
        key = key.repeat_interleave(heads // key.shape[-3], -3)
        value = value.repeat_interleave(heads // value.shape[-3], -3)
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = _C.matmul(query * s, key.transpose(-2, -1))  # (scaling the smaller operand: L * E, not L * S)
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:  # every row keeps its first key: no row is masked everywhere
        weights = _C._causal_softmax(scores)  # (the keys above the diagonal never read)
    elif attn_mask is None:
        weights = _C.softmax(scores, -1, None)
    else:
        if attn_mask.dtype == _C.dtype.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
        dead = (scores == -math.inf).all(-1, keepdim=True)  # rows with no key to attend to
        weights = _C.where(dead, 0.0, _C.softmax(_C.where(dead, 0.0, scores), -1, None))
    if dropout_p > 0.0:
        weights = _C.dropout(weights, dropout_p, True)
    return _C.matmul(weights, value)



def _mha_batched(query: Tensor, key: Tensor, value: Tensor, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """torch's shape rules of multi_head_attention_forward: True for batched (3-D) inputs."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             f"tensor")
    batched = query.dim() == 3
    kind, n = ("batched (3-D)", 3) if batched else ("unbatched (2-D)", 2)
    if key.dim() != n or value.dim() != n:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {n}-D but found {key.dim()}-D and "
                             f"{value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != n - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {n - 1}-D but found "
                             f"{key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
    return batched


def _additive_mask(mask, name: str, dtype, other=None, other_name: str = ""):
    """A bool mask as 0 / -inf of dtype (True: masked out); a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype != _C.dtype.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and mask.dtype != other.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      f"instead.", stacklevel=3)
    if mask.is_floating_point():
        return mask
    return _C.zeros_like(mask, dtype=dtype).masked_fill_(mask, -math.inf)


def _split_heads(t: Tensor, length: int, rows: int, head_dim: int) -> Tensor:
    """(length, batch, heads * head_dim) -> (batch * heads, length, head_dim)."""
    return t.reshape(length, rows, head_dim).transpose(0, 1)


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias, training: bool = True,
                                 key_padding_mask=None, need_weights: bool = True, attn_mask=None,
                                 use_separate_proj_weight: bool = False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False):
    """torch's multi-head attention over (L, N, E) inputs ((L, E) unbatched): the projections
    (packed in_proj_weight, or q/k/v_proj_weight), bias_k/bias_v and a zero key appended, bool
    masks as -inf (key_padding_mask and attn_mask added), per-head scaled dot products, dropout on
    the weights, out projection. need_weights: scores by baddbmm and softmax, the weights returned
    (averaged over heads unless average_attn_weights=False; a row masked everywhere is NaN, as
    torch's); otherwise scaled_dot_product_attention (such a row gives zeros), and None."""
    batched = _mha_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _additive_mask(key_padding_mask, "key_padding_mask", query.dtype, attn_mask, "attn_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # (scaled_dot_product_attention's own causal mask)
    else:
        attn_mask = _additive_mask(attn_mask, "attn_mask", query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        weights = in_proj_weight.chunk(3)
        biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        if query is key and key is value:  # self-attention: one product with the packed weight
            q, k, v = linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
        else:
            q, k, v = (linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None else "bias_v is set but bias_k is None")
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError(f"bias cannot be added to static {'key' if static_k is not None else 'value'}.")
        k = _C.cat([k, bias_k.repeat(1, bsz, 1)], 0)
        v = _C.cat([v, bias_v.repeat(1, bsz, 1)], 0)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    rows = bsz * num_heads
    q = _split_heads(q, tgt_len, rows, head_dim)
    given = {}
    for name, static, t in (("k", static_k, k), ("v", static_v, v)):
        if static is None:
            given[name] = _split_heads(t, t.shape[0], rows, head_dim)
            continue
        if static.shape[0] != rows:
            raise AssertionError(f"expecting static_{name}.size(0) of {rows}, but got {static.shape[0]}")
        if static.shape[2] != head_dim:
            raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {static.shape[2]}")
        given[name] = static
    k, v = given["k"], given["v"]
    if add_zero_attn:
        zero = _C.zeros([rows, 1, head_dim], dtype=k.dtype, device=k.device)
        k, v = _C.cat([k, zero], 1), _C.cat([v, zero], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        per_row = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(rows, 1, src_len)
        attn_mask = per_row if attn_mask is None else attn_mask + per_row
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        scores = (_C.bmm(q_scaled, k.transpose(-2, -1)) if attn_mask is None
                  else _C.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1)))
        weights = softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = _C.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        return (out, weights) if batched else (out.squeeze(1), weights.squeeze(0))
    if attn_mask is not None:
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 and attn_mask.dim() == 3
                     else attn_mask.view(bsz, num_heads, -1, src_len))
    q, k, v = (t.view(bsz, num_heads, -1, head_dim) for t in (q, k, v))
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    return (out if batched else out.squeeze(1)), None


# ------------------------------------------------------------------ losses
def _check_batch(input: Tensor, target: Tensor) -> None:
    if input.ndim >= 1 and target.ndim >= 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]}).")


@_autocast("Float32")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if target.dtype == _C.dtype.int64:
        _check_batch(input, target)
    return _C.cross_entropy(input, target, weight, r, ignore_index, label_smoothing)


@_autocast("Float32")
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    _check_batch(input, target)
    return _C._nn.nll_loss(input, target, weight, r, ignore_index)


def _reduce(loss: Tensor, r: int) -> Tensor:
    return loss if r == 0 else loss.mean() if r == 1 else loss.sum()


def _log_sum_exp_safe(stacked: Tensor) -> Tensor:
    """logsumexp over dim 0 whose gradient is 0, not NaN, where every term is -inf."""
    top = stacked.detach().amax(0)
    top = _C.where(top.isinf(), 0.0, top)
    total = (stacked - top).exp().sum(0)
    some = total > 0
    return _C.where(some, top + _C.where(some, total, 1.0).log(), -math.inf)


@_autocast("Float32")
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """-log p(target | input) summed over CTC alignments (log-space forward recursion over the
    targets with blanks between and around them; each sequence stops at its input length), as
    torch's: log_probs (T, N, C) or (T, C), targets (N, S) padded or 1-D concatenated; 'mean'
    divides each loss by its target length, then averages; zero_infinity maps impossible
    alignments (inf) to 0. Gradients by autograd through the recursion."""
    r = _reduction(reduction)
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    steps, batch, classes = lp.shape
    as_list = lambda v: [int(x) for x in (v.tolist() if isinstance(v, _C.Tensor) else v)]  # noqa: E731
    in_lengths = as_list(input_lengths) if batched or isinstance(input_lengths, (list, tuple)) else \
        [int(input_lengths.item() if isinstance(input_lengths, _C.Tensor) else input_lengths)]
    tg_lengths = as_list(target_lengths) if batched or isinstance(target_lengths, (list, tuple)) else \
        [int(target_lengths.item() if isinstance(target_lengths, _C.Tensor) else target_lengths)]
    if len(in_lengths) != batch or len(tg_lengths) != batch:
        raise RuntimeError(f"ctc_loss: expected input_lengths and target_lengths of size {batch}, got "
                           f"{len(in_lengths)} and {len(tg_lengths)}")
    for n, (t, s) in enumerate(zip(in_lengths, tg_lengths)):
        if not 0 <= t <= steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {t} (while "
                               f"checking arguments for ctc_loss_cpu)")
        if s < 0:
            raise RuntimeError(f"Expected tensor to have size at least 0 at dimension 1, but got size {s} for argument "
                               f"#2 'targets' (while checking arguments for ctc_loss_cpu)")
    longest = max(tg_lengths) if tg_lengths else 0
    labels = np.zeros((batch, longest), dtype=np.int64)
    flat = targets.reshape([-1]).tolist() if targets.ndim == 1 or not batched else None
    offset = 0
    for n, s in enumerate(tg_lengths):
        row = flat[offset:offset + s] if flat is not None else targets[n, :s].tolist()
        offset += s
        labels[n, :s] = row
    # the extended labels: blank, l1, blank, l2, ..., blank (2S + 1 states per sequence)
    states = 2 * longest + 1
    extended = np.full((batch, states), blank, dtype=np.int64)
    extended[:, 1::2] = labels
    # skip transitions s - 2 -> s: to a label differing from the one two states back
    skip = np.zeros((batch, states), dtype=bool)
    skip[:, 3::2] = labels[:, 1:] != labels[:, :-1]
    valid = np.arange(states)[None, :] < (2 * np.array(tg_lengths) + 1)[:, None]
    device, dtype = lp.device, lp.dtype
    ext = tensor(extended).to(device)
    neg_inf = _C.full([batch, states], -math.inf, dtype=dtype, device=device)
    skip_t, valid_t = tensor(skip).to(device), tensor(valid).to(device)
    emit = lp.gather(2, ext.unsqueeze(0).expand([steps, batch, states]))  # (T, N, states)
    start = np.full((batch, states), False)
    start[:, 0] = True
    start[:, 1] = np.array(tg_lengths) > 0
    alpha = _C.where(tensor(start).to(device) & valid_t, emit[0], neg_inf) if steps else neg_inf
    running = tensor(np.array(in_lengths)[None, :] > np.arange(steps)[:, None]).to(device)
    for t in range(1, steps):
        stay = alpha
        step = _C.cat([neg_inf[:, :1], alpha[:, :-1]], 1)
        jump = _C.where(skip_t, _C.cat([neg_inf[:, :2], alpha[:, :-2]], 1), neg_inf)
        moved = _log_sum_exp_safe(_C.stack([stay, step, jump], 0)) + emit[t]
        alpha = _C.where(running[t].unsqueeze(1) & valid_t, moved, alpha)
    last = tensor(2 * np.array(tg_lengths)).to(device).unsqueeze(1)
    end = alpha.gather(1, last)
    before = _C.where(last > 0, alpha.gather(1, (last - 1).clamp_min(0)), neg_inf[:, :1])
    loss = -_log_sum_exp_safe(_C.stack([end.squeeze(1), before.squeeze(1)], 0))
    loss = _C.where(tensor(np.array(in_lengths) == 0).to(device) & (tensor(np.array(tg_lengths)) > 0).to(device),
                    math.inf, loss)  # (no input steps: no alignment of a non-empty target)
    if zero_infinity:
        loss = _C.where(loss.isinf(), 0.0, loss)
    if r == 1:
        return (loss / tensor(np.maximum(np.array(tg_lengths), 1)).to(device, dtype)).mean()
    loss = loss if batched else loss.reshape([])
    return _reduce(loss, r)


def _check_same_size(input: Tensor, target: Tensor, name: str) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size (tcore.Size({list(target.shape)})) that is different to the input size "
                      f"(tcore.Size({list(input.shape)})). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=4)  # (the loss's caller: past the loss and its _autocast wrapper)


@_autocast("Float32")
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "mse_loss")
    if weight is None:
        return _C._nn.mse_loss(input, target, r)
    loss = (input - target) ** 2
    return _reduce(loss if weight is None else loss * weight, r)


@_autocast("Float32")
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "l1_loss")
    loss = _C.abs(input - target)
    return _reduce(loss if weight is None else loss * weight, r)


@_autocast("Float32")
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    _check_same_size(input, target, "smooth_l1_loss")
    r = _reduction(reduction, size_average, reduce)
    diff = _C.abs(input - target)
    if beta == 0:
        return _reduce(diff, r)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _reduce(_C.where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta), r)


@_autocast("Float32")
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size (tcore.Size({list(target.shape)})) that is different to the input "
                         f"size (tcore.Size({list(input.shape)})) is deprecated. Please ensure they have the same size.")
    for t, what in ((input, "input"), (target, "target")):  # (NaN fails too, as torch's kernel check)
        if t.numel() and not bool(((t >= 0) & (t <= 1)).all()):
            raise RuntimeError(f"all elements of {what} should be between 0 and 1")
    log_p = _C.clamp(_C.log(input), -100.0)  # PyTorch clamps the logs at -100
    log_q = _C.clamp(_C.log(1 - input), -100.0)
    loss = -(target * log_p + (1 - target) * log_q)
    return _reduce(loss if weight is None else loss * weight, r)


@_autocast("Float32")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size (tcore.Size({list(target.shape)})) must be the same as input size "
                         f"(tcore.Size({list(input.shape)}))")
    log_sig_neg = -logsigmoid(input)  # -log(sigmoid(x)): finite for any x, gradient sigmoid(x) - 1 (at 0 too)
    if pos_weight is None:
        loss = (1 - target) * input + log_sig_neg
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * log_sig_neg
    return _reduce(loss if weight is None else loss * weight, r)


@_autocast("Float32")
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    if reduction == "batchmean":
        loss = _kl(input, target, log_target)
        return loss.sum() / input.shape[0]
    return _reduce(_kl(input, target, log_target), _reduction(reduction, size_average, reduce))


def _kl(input: Tensor, target: Tensor, log_target: bool) -> Tensor:
    if log_target:
        return _C.exp(target) * (target - input)
    return _C.xlogy(target, target) - target * input  # (torch's: NaN where a target is negative or NaN)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    # each side broadcast, divided by its norm, then the dot product (torch's order): the dot of
    # float32 vectors near 1e30 overflowed where the normalized ones do not
    x1, x2 = _C.broadcast_tensors([x1, x2])
    n1 = _C.clamp(_C.norm(x1, 2, [dim], True), eps)
    n2 = _C.clamp(_C.norm(x2, 2, [dim], True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@_autocast("Float32")
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    _check_same_size(input, target, "huber_loss")
    if weight is None:
        r = _reduction(reduction)
    elif tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    diff = input - target
    z = _C.abs(diff)
    loss = _C.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    if weight is None:
        return _reduce(loss, r)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return _reduce(loss * weight, _REDUCTIONS[reduction])


@_autocast("Float32")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: tcore.Size({list(input1.shape)}), input2: tcore.Size({list(input2.shape)}), "
                           f"target: tcore.Size({list(target.shape)}) ")
    return _reduce(_C.clamp(-target * (input1 - input2) + margin, min=0), r)


@_autocast("Float32")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    margin_clamp = _C.clamp(margin - input, min=0)
    loss = _C.where(target != 1, margin_clamp, 0.0) + _C.where(target != -1, input, 0.0)
    return _reduce(loss, r)


@_autocast("Float32")
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    return _reduce(_C.log1p(_C.exp(-input * target)), r)  # torch's formula: inf for -x * y > ~709


@_autocast("Float32")
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """sum over the classes i != y of max(0, margin - x[y] + x[i])^p (times weight[y]), over C; input
    (N, C) or (C,), target (N,) or ()."""
    r = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if input.ndim not in (1, 2) or target.ndim != input.ndim - 1:
        raise RuntimeError(f"multi_margin_loss: expected input of 1 or 2 dims and a target of one dim fewer, got "
                           f"input of size {list(input.shape)} and target of size {list(target.shape)}")
    x = input if input.ndim == 2 else input.unsqueeze(0)
    y = target.reshape([-1]).long()
    c = x.shape[1]
    if y.numel() and not bool(((y >= 0) & (y < c)).all()):
        raise RuntimeError("target out of range")
    picked = _C.gather(x, 1, y.unsqueeze(1))  # x[y], (N, 1)
    terms = _C.clamp(margin - picked + x, min=0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * _C.index_select(weight, 0, y).unsqueeze(1)
    others = _C.ne(_C.arange(c, device=x.device).unsqueeze(0), y.unsqueeze(1))  # i != y
    loss = (terms * others).sum(1) / c
    return _reduce(loss if input.ndim == 2 else loss.reshape([]), r)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)) (times weight), averaged over the class (last)
    dim, as torch's."""
    r = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.ndim - 1) / input.shape[input.ndim - 1]
    return _reduce(loss, r)


@_autocast("Float32")
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """sum over target classes j (target's entries before its first -1) and other classes i of
    max(0, 1 - (x[j] - x[i])), divided by the number of classes, per sample, as torch's."""
    r = _reduction(reduction, size_average, reduce)
    if input.ndim > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    x = input.reshape([1, -1]) if input.ndim < 2 else input
    y = target.reshape([1, -1]) if target.ndim < 2 else target
    classes = x.shape[1]
    valid = (y == -1).cumsum(1) == 0  # (the targets before the first -1)
    if bool((valid & ((y < 0) | (y >= classes))).any()):
        raise RuntimeError(f"multilabel_margin_loss: target values must be in [0, {classes}) before the first -1")
    index = _C.where(valid, y, 0)
    is_target = _C.zeros(list(x.shape), dtype=x.dtype, device=x.device).scatter_add(1, index, valid.to(x.dtype)) > 0
    margins = (1 - x.gather(1, index).unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)  # (N, j, i)
    pairs = valid.unsqueeze(2) & is_target.logical_not().unsqueeze(1)
    loss = (margins * pairs.to(x.dtype)).sum([1, 2]) / classes
    return _reduce(loss if input.ndim == 2 else loss.reshape([]), r)


@_autocast("Float32")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    d = target.ndim
    if d not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if (input1.ndim, input2.ndim) != ((2, 2) if d == 1 else (1, 1)):
        raise RuntimeError(f"{d}D target tensor expects {d + 1}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    eps = 9.999999960041972e-13  # torch's EPSILON: the float32 1e-12
    prod_sum = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + eps
    mag2 = (input2 * input2).sum(d) + eps
    cos = prod_sum / _C.sqrt(mag1 * mag2)
    pos = 1 - cos
    neg = _C.clamp(cos - margin, min=0)
    loss = _C.where(target == 1, pos, 0.0) + _C.where(target == -1, neg, 0.0)
    return _reduce(loss, r)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    innermost = max(x1.ndim, x2.ndim) - 1
    return _C.norm(x1 - x2 + eps, p, [innermost], keepdim)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between the rows of an (N, M) input, pairs i < j in row-major order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    pairs = _C.triu_indices(n, n, 1, device=input.device)
    return _C.norm(input[pairs[0]] - input[pairs[1]], p, [1], False)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """max(d(a, p) - d(a, n) + margin, 0) with any distance (pairwise_distance by default); swap:
    d(a, n) replaced by d(p, n) where smaller."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    r = _reduction(reduction)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, distance(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), r)


@_autocast("Float32")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pd, n = anchor.ndim, positive.ndim, negative.ndim
    if not a == pd == n:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {n}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _C.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    # (the distances' difference first: margin + dist_pos lost the margin beside distances near 1e30)
    return _reduce(_C.clamp(margin + (dist_pos - dist_neg), min=0), r)


@_autocast("Float32")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if log_input:
        loss = _C.exp(input) - target * input
    else:
        loss = input - target * _C.log(input + eps)
    if full:  # Stirling's approximation of log(target!), for target > 1
        stirling = target * _C.log(target) - target + 0.5 * _C.log(2 * math.pi * target)
        loss = loss + _C.masked_fill(stirling, target <= 1, 0)
    return _reduce(loss, r)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _C.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):  # homoscedastic: one variance per row
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    from ..autograd import no_grad
    var = var.clone()
    with no_grad():  # clamped for stability; the gradient passes as if it were not
        var.clamp_(min=eps)
    loss = 0.5 * (_C.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, _REDUCTIONS[reduction])


_NOT_EXPORTED = ("annotations", "fractions", "functools", "math", "operator", "struct", "warnings", "Tensor")
__all__ = [name for name in dir() if not name.startswith("_") and name not in _NOT_EXPORTED]
