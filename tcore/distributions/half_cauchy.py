from __future__ import annotations

import math

from ._folded import Folded
from .cauchy import Cauchy
from .utils import _filled

__all__ = ["HalfCauchy"]


class HalfCauchy(Folded):
    """|X| for X ~ Cauchy(0, scale) (infinite mean and variance)."""

    _base = Cauchy

    @property
    def mean(self):
        return _filled(self, math.inf, self.scale)

    @property
    def variance(self):
        return self.base_dist.variance
