"""Padding modules, as torch.nn's: ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d,
CircularPad1d/2d/3d, ConstantPad1d/2d/3d, ZeroPad1d/2d/3d (padding an int, repeated, or a
(left, right[, top, bottom[, front, back]]) tuple), all through F.pad."""
from __future__ import annotations

from .. import functional as F
from .module import Module


class _PadNd(Module):
    _n = 1  # padded dims
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (list, tuple)) else (padding,) * (2 * self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    _n = 1


class ReflectionPad2d(_ReflectionPadNd):
    _n = 2


class ReflectionPad3d(_ReflectionPadNd):
    _n = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    _n = 1


class ReplicationPad2d(_ReplicationPadNd):
    _n = 2


class ReplicationPad3d(_ReplicationPadNd):
    _n = 3


class _CircularPadNd(_PadNd):
    """Checks the input's rank first (n + 1 or n + 2 dims), raising torch's ValueError."""
    _mode = "circular"

    def forward(self, input):
        if input.ndim not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.ndim}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    _n = 1


class CircularPad2d(_CircularPadNd):
    _n = 2


class CircularPad3d(_CircularPadNd):
    _n = 3


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    _n = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
