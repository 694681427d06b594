"""tcore.nn.functional: torch.nn.functional's names and keyword conventions over tcore's
operators (reduction='mean'|'sum'|'none' as strings, stride=None for pools, padding as
'same'/'valid', p/training/inplace for dropout, ...)."""
from __future__ import annotations

import math
import struct
import warnings

from .. import Tensor, _C  # tcore.Tensor: typed by the generated stubs

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


def _pair(v) -> list[int]:
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return [int(v[0])] * 2
        return [int(x) for x in v]
    return [int(v), int(v)]


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
    out = _C.where(input <= threshold, value, input)
    return input.copy_(out) if inplace else out  # (where saves no tensor of input's)


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


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
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


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            if _pair(stride) != [1, 1]:
                raise ValueError("padding='same' is not supported for strided convolutions")
            sym, extra = _same_padding(list(weight.shape[2:]), _pair(dilation))
            if extra is not None:
                input = _C.constant_pad_nd(input, extra, 0)
            padding = sym
        else:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of ['valid', 'same']")
    return _C.conv2d(input, weight, bias, _pair(stride), _pair(padding), _pair(dilation), groups)


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


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Only output sizes that divide the input (the common (1, 1) included)."""
    out = _pair(output_size)
    h, w = input.shape[-2], input.shape[-1]
    out = [h if out[0] is None else out[0], w if out[1] is None else out[1]]
    if h % out[0] or w % out[1]:
        raise NotImplementedError(f"adaptive_avg_pool2d: output size {out} must divide the input size {[h, w]}")
    if out == [1, 1]:
        return input.mean([-2, -1], keepdim=True)
    return avg_pool2d(input, [h // out[0], w // out[1]])


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


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    norm = _C.norm(input, p, [dim], True)
    return input / _C.clamp(norm, eps)


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
    group = c // num_groups
    for d in shape[2:]:
        group *= d
    x = input.reshape([n, num_groups, group])
    out = _C.layer_norm(x, [group], None, None, eps).reshape(shape)
    per_channel = [c] + [1] * (len(shape) - 2)
    if weight is not None:
        out = out * weight.reshape(per_channel)
    if bias is not None:
        out = out + bias.reshape(per_channel)
    return out


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


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    if mode != "constant":
        raise NotImplementedError(f"pad: mode {mode!r} is not supported by tcore yet (only 'constant')")
    if len(pad) % 2:
        raise ValueError("Padding length must be divisible by 2")
    return _C.constant_pad_nd(input, list(pad), 0 if value is None else value)


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


# ------------------------------------------------------------------ losses
def _check_batch(input: Tensor, target: Tensor) -> None:
    if input.ndim >= 1 and target.ndim >= 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]}).")


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if target.dtype == _C.dtype.int64:
        _check_batch(input, target)
    return _C.cross_entropy(input, target, weight, r, ignore_index, label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    _check_batch(input, target)
    return _C._nn.nll_loss(input, target, weight, r, ignore_index)


def _reduce(loss: Tensor, r: int) -> Tensor:
    return loss if r == 0 else loss.mean() if r == 1 else loss.sum()


def _check_same_size(input: Tensor, target: Tensor, name: str) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size (tcore.Size({list(target.shape)})) that is different to the input size "
                      f"(tcore.Size({list(input.shape)})). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=3)


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "mse_loss")
    if weight is None:
        return _C._nn.mse_loss(input, target, r)
    loss = (input - target) ** 2
    return _reduce(loss if weight is None else loss * weight, r)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "l1_loss")
    loss = _C.abs(input - target)
    return _reduce(loss if weight is None else loss * weight, r)


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


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size (tcore.Size({list(target.shape)})) that is different to the input "
                         f"size (tcore.Size({list(input.shape)})) is deprecated. Please ensure they have the same size.")
    log_p = _C.clamp(_C.log(input), -100.0)  # PyTorch clamps the logs at -100
    log_q = _C.clamp(_C.log(1 - input), -100.0)
    loss = -(target * log_p + (1 - target) * log_q)
    return _reduce(loss if weight is None else loss * weight, r)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size (tcore.Size({list(target.shape)})) must be the same as input size "
                         f"(tcore.Size({list(input.shape)}))")
    # log(1 + exp(-|x|)) + max(-x, 0): stable for any x
    log_sig_neg = _C.log1p(_C.exp(-_C.abs(input))) + _C.clamp(-input, 0.0)  # -log(sigmoid(x))
    if pos_weight is None:
        loss = (1 - target) * input + log_sig_neg
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * log_sig_neg
    return _reduce(loss if weight is None else loss * weight, r)


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    if reduction == "batchmean":
        loss = _kl(input, target, log_target)
        return loss.sum() / input.shape[0]
    return _reduce(_kl(input, target, log_target), _reduction(reduction, size_average, reduce))


def _kl(input: Tensor, target: Tensor, log_target: bool) -> Tensor:
    if log_target:
        return _C.exp(target) * (target - input)
    return _C.where(target > 0, target * (_C.log(_C.where(target > 0, target, _C.ones_like(target))) - input),
                    _C.zeros_like(input * target))


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    dot = (x1 * x2).sum(dim)
    n1 = _C.clamp(_C.norm(x1, 2, [dim], False), eps)
    n2 = _C.clamp(_C.norm(x2, 2, [dim], False), eps)
    return dot / (n1 * n2)


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


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: tcore.Size({list(input1.shape)}), input2: tcore.Size({list(input2.shape)}), "
                           f"target: tcore.Size({list(target.shape)}) ")
    return _reduce(_C.clamp(-target * (input1 - input2) + margin, min=0), r)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    margin_clamp = _C.clamp(margin - input, min=0)
    loss = _C.where(target != 1, margin_clamp, 0.0) + _C.where(target != -1, input, 0.0)
    return _reduce(loss, r)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    r = _reduction(reduction, size_average, reduce)
    return _reduce(_C.log1p(_C.exp(-input * target)), r)  # torch's formula: inf for -x * y > ~709


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
    return _reduce(_C.clamp(margin + dist_pos - dist_neg, min=0), r)


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


__all__ = [name for name in dir() if not name.startswith("_") and name not in ("annotations", "math", "struct",
                                                                                "warnings", "Tensor")]
