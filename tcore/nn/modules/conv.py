"""Conv1d, Conv2d, Conv3d (padding an int/tuple or 'same'/'valid'; padding_mode 'zeros', or 'reflect' /
'replicate' / 'circular' through F.pad, as in PyTorch) and ConvTranspose1d/2d/3d (padding_mode 'zeros'
only; forward's output_size picks the output_padding, as in PyTorch)."""
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
    dilation * (k - 1) split with the odd element at the end) and convolves unpadded. A transposed
    one (_ConvTransposeNd) holds the weight (in, out / groups, *kernel) and an output_padding."""
    _n = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None,
                 output_padding=0) -> None:
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
        self.transposed, self.output_padding = self._transposed, _ntuple(output_padding, n)
        if padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            self._reversed_padding_repeated_twice = [p for t in reversed(totals) for p in (t // 2, t - t // 2)]
        elif padding == "valid":
            self._reversed_padding_repeated_twice = [0] * (2 * n)
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding) for _ in range(2)]
        if self._transposed:
            shape = [in_channels, out_channels // groups, *self.kernel_size]
        else:
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
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
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


class Conv3d(_ConvNd):
    _n = 3

    def _conv(self, input, padding):
        return F.conv3d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    """torch's _ConvTransposeNd: its constructor's argument order, padding_mode 'zeros' only, and
    forward(input, output_size=None), output_size (the spatial sizes, or with the batch and channel
    dims too) choosing the output_padding within [0, stride)."""
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size) -> list[int]:
        n = self._n
        if output_size is None:
            return list(self.output_padding)
        non_spatial = 2 if input.ndim == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have {n} or "
                             f"{non_spatial + n} elements (got {len(output_size)})")
        min_sizes = [(input.shape[d + non_spatial] - 1) * self.stride[d] - 2 * self.padding[d]
                     + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, self.stride)]
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of {tuple(input.shape[2:])})")
        return [size - lo for size, lo in zip(output_size, min_sizes)]

    def _conv_transpose(self, input, output_padding):
        raise NotImplementedError

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        return self._conv_transpose(input, self._output_padding(input, output_size))


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1

    def _conv_transpose(self, input, output_padding):
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    _n = 2

    def _conv_transpose(self, input, output_padding):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3

    def _conv_transpose(self, input, output_padding):
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)
