"""tcore.nn.functional: torch.nn.functional's names and keyword conventions over tcore's
operators (reduction='mean'|'sum'|'none' as strings, stride=None for pools, padding as
'same'/'valid', p/training/inplace for dropout, ...)."""
from __future__ import annotations

import math
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
    out = _C._nn.hardtanh(input, min_val, max_val)  # its gradient is 0 at the bounds, as torch's
    return input.copy_(out) if inplace else out


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


# ------------------------------------------------------------------ dropout, embedding, padding
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    out = _C.dropout(input, p, training)
    return input.copy_(out) if inplace and training else out


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
    r = _reduction(reduction, size_average, reduce)
    diff = _C.abs(input - target)
    if beta == 0:
        return _reduce(diff, r)
    return _reduce(_C.where(diff < beta, diff * diff * (0.5 / beta), diff - 0.5 * beta), r)


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


__all__ = [name for name in dir() if not name.startswith("_") and name not in ("annotations", "math", "warnings",
                                                                                "Tensor")]
del math
