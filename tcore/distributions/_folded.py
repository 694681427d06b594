"""|X| for X of a location-0, symmetric base distribution (HalfNormal, HalfCauchy)."""
from __future__ import annotations

import math

import tcore

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["Folded"]

_LOG_2 = math.log(2)


class Folded(TransformedDistribution):
    """The distribution of |X| for X ~ _base(0, scale): twice the base density on [0, inf).
    A subclass names its base distribution's class in _base."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base = None

    def __init__(self, scale, validate_args=None):
        super().__init__(self._base(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Folded, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return tcore.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = tcore.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        return tcore.where(value >= 0, self.base_dist.log_prob(value) + _LOG_2, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - _LOG_2
