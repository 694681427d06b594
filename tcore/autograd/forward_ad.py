"""Forward-mode automatic differentiation, as torch.autograd.forward_ad: within a
`dual_level()`, `make_dual(primal, tangent)` gives a dual tensor whose operations carry
tangents (Jacobian-vector products, from the `result:` formulas of derivatives.yaml);
`unpack_dual` reads them back. One level at a time."""
from __future__ import annotations

import collections

from .. import _C

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level() -> int:
    return _C._enter_dual_level()


def exit_dual_level(*, level: int | None = None) -> None:
    _C._exit_dual_level(_C._current_dual_level() if level is None else level)


def _level(level: int | None) -> int:
    current = _C._current_dual_level()
    if level is None:
        if current < 0:
            raise RuntimeError("make_dual/unpack_dual need an active forward AD level (`with dual_level():`)")
        return current
    return level


def make_dual(tensor, tangent, *, level: int | None = None):
    """A tensor with the values of `tensor` and the tangent `tangent` (same shape and dtype)."""
    return _C._make_dual(tensor, tangent, _level(level))


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent): tangent is None when the tensor has none at this level."""
    current = _C._current_dual_level()
    if level is None and current < 0:
        return UnpackedDualTensor(tensor, None)
    primal, tangent = _C._unpack_dual(tensor, current if level is None else level)
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """Context manager: tangents live until the block ends (all of them are dropped then)."""

    def __enter__(self) -> int:
        self.level = enter_dual_level()
        return self.level

    def __exit__(self, *exc) -> None:
        exit_dual_level(level=self.level)
