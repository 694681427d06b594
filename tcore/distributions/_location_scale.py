"""The location-scale families' common part (Normal, Laplace)."""
from __future__ import annotations

from .utils import _broadcast_params

__all__ = ["LocationScale"]


class LocationScale:
    """A mixin (before the Distribution base) for a family of loc and scale: the two broadcast
    together at construction, and mean and mode at loc. The class names them in its
    _batch_params for expand (see Distribution.expand)."""

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), batch_shape = _broadcast_params(loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    mode = mean
