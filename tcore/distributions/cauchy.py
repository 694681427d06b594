from __future__ import annotations

import math

import tcore

from . import constraints
from ._location_scale import LocationScale
from .distribution import Distribution
from .utils import _filled

__all__ = ["Cauchy"]


class Cauchy(LocationScale, Distribution):
    """The Cauchy (Lorentz) distribution of median loc and half width at half maximum scale
    (no mean, infinite variance)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _batch_params = ("loc", "scale")

    @property
    def mean(self):
        return _filled(self, math.nan, self.loc)

    @property
    def variance(self):
        return _filled(self, math.inf, self.loc)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = tcore.empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return tcore.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return tcore.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
