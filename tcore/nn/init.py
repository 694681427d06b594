"""tcore.nn.init: torch.nn.init's initializers (in place, without recording gradients;
each returns its tensor). The fans and gains follow PyTorch."""
from __future__ import annotations

import math

from .. import _C

Tensor = _C.Tensor


def _no_grad():
    from ..autograd import no_grad
    return no_grad()


def calculate_gain(nonlinearity: str, param=None) -> float:
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    with _no_grad():
        tensor.uniform_(a, b, generator=generator)
    return tensor


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    with _no_grad():
        tensor.normal_(mean, std, generator=generator)
    return tensor


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Normal values redrawn until they fall in [a, b]."""
    with _no_grad():
        tensor.normal_(mean, std, generator=generator)
        for _ in range(100):
            outside = (tensor < a) | (tensor > b)
            if not outside.any().item():
                break
            fresh = _C.empty(list(tensor.shape), dtype=tensor.dtype).normal_(mean, std, generator=generator)
            tensor.copy_(_C.where(outside, fresh, tensor))
        tensor.copy_(_C.clamp(tensor, a, b))
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    with _no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with _no_grad():
        tensor.copy_(_C.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a convolution: 1 at the kernel's centre for channel d -> d of each group."""
    sizes = tuple(tensor.shape)
    if len(sizes) not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(n // 2 for n in sizes[2:])
    with _no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix (the tensor flattened to (size(0), rest)): Q of the QR
    factorization of a normal matrix, its columns' signs made those of R's diagonal, times gain."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows, cols = tensor.shape[0], tensor.numel() // tensor.shape[0]
    flat = _C.empty([rows, cols], dtype=tensor.dtype, device=tensor.device).normal_(0, 1, generator=generator)
    if rows < cols:
        flat = flat.t()
    from .. import linalg
    q, r = linalg.qr(flat)
    q = q * _C.diagonal(r, 0, -2, -1).sign()
    if rows < cols:
        q = q.t()
    with _no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Normal(0, std) values with ceil(sparsity * rows) zeros at random rows of each column."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    with _no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            picked = _C.randperm(rows, generator=generator)[:zeros]
            tensor[picked, col] = 0
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    if 0 in tuple(tensor.shape):
        warnings_empty()
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    if 0 in tuple(tensor.shape):
        warnings_empty()
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def warnings_empty() -> None:
    import warnings
    warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)
