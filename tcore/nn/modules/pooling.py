"""MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d, LPPool1d/2d/3d,
MaxUnpool1d/2d/3d, FractionalMaxPool2d/3d."""
from __future__ import annotations

from .. import functional as F
from .module import Module


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxPool1d(MaxPool2d):
    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        single = lambda v: tuple(v) if isinstance(v, (list, tuple)) else (v,)  # noqa: E731  (torch's repr)
        self.kernel_size = single(kernel_size)
        self.stride = single(stride if stride is not None else kernel_size)
        self.padding = single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool1d(Module):
    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool2d(LPPool1d):
    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class MaxUnpool2d(Module):
    """Each value back at its max_pool2d index, zeros elsewhere."""

    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        tup = lambda v: tuple(v) if isinstance(v, (list, tuple)) else (v,) * self._n  # noqa: E731  (torch's repr)
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def forward(self, input, indices, output_size=None):
        unpool = F.max_unpool2d if self._n == 2 else F.max_unpool1d
        return unpool(input, indices, list(self.kernel_size), list(self.stride), list(self.padding), output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(MaxUnpool2d):
    _n = 1


class MaxPool3d(MaxPool2d):
    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool3d(AvgPool2d):
    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)


class LPPool3d(LPPool1d):
    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class MaxUnpool3d(MaxUnpool2d):
    _n = 3

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, list(self.kernel_size), list(self.stride), list(self.padding),
                              output_size)


class FractionalMaxPool2d(Module):
    """Max pooling at pseudo-random fractional strides (Graham's), as torch's."""

    _k = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        k = self._k
        self.kernel_size = F._ints(kernel_size, k)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = F._ints(output_size, k) if output_size is not None else None
        self.output_ratio = (list(output_ratio) if isinstance(output_ratio, (list, tuple)) else [output_ratio] * k) \
            if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{k}d requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = F.fractional_max_pool2d if self._k == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)


class FractionalMaxPool3d(FractionalMaxPool2d):
    _k = 3
