from __future__ import annotations

import tcore

from . import constraints
from ._location_scale import LocationScale
from .distribution import Distribution
from .utils import _uniform

__all__ = ["Laplace"]


class Laplace(LocationScale, Distribution):
    """The Laplace distribution: density exp(-|x - loc| / scale) / (2 scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _batch_params = ("loc", "scale")

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _uniform(shape, self.loc.dtype, tcore.finfo(self.loc.dtype).eps - 1, 1, self.loc.device)
        return self.loc - self.scale * u.sign() * tcore.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -tcore.log(2 * self.scale) - tcore.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * tcore.expm1(-z.abs() / self.scale)

    def icdf(self, value):
        t = value - 0.5
        return self.loc - self.scale * t.sign() * tcore.log1p(-2 * t.abs())

    def entropy(self):
        return 1 + tcore.log(2 * self.scale)
