"""Conv1d, Conv2d (padding an int/tuple or 'same'/'valid'; padding_mode 'zeros', or 'reflect' /
'replicate' / 'circular' through F.pad, as in PyTorch)."""
from __future__ import annotations

import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(v, n: int) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def _pair(v) -> tuple:
    return _ntuple(v, 2)


class _ConvNd(Module):
    """torch's _ConvNd for n spatial dims: the weight (out, in / groups, *kernel), kaiming-uniform
    initialized; padding_mode other than 'zeros' pads with F.pad first (for 'same': the total
    dilation * (k - 1) split with the odd element at the end) and convolves unpadded."""
    _n = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of ['valid', 'same']")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _ntuple(kernel_size, n), _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation, self.groups, self.padding_mode = _ntuple(dilation, n), groups, padding_mode
        if padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            self._reversed_padding_repeated_twice = [p for t in reversed(totals) for p in (t // 2, t - t // 2)]
        elif padding == "valid":
            self._reversed_padding_repeated_twice = [0] * (2 * n)
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding) for _ in range(2)]
        shape = [out_channels, in_channels // groups, *self.kernel_size]
        self.weight = Parameter(_C.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty([out_channels], device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _conv(self, input, padding):
        raise NotImplementedError

    def forward(self, input):
        if self.padding_mode != "zeros":
            return self._conv(F.pad(input, self._reversed_padding_repeated_twice, self.padding_mode), 0)
        return self._conv(input, self.padding)

    def extra_repr(self) -> str:
        n = self._n
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    _n = 1

    def _conv(self, input, padding):
        return F.conv1d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    _n = 2

    def _conv(self, input, padding):
        return F.conv2d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)
