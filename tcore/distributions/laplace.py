from __future__ import annotations

import tcore

from . import constraints
from .distribution import Distribution
from .utils import _is_number, _uniform, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution: density exp(-|x - loc| / scale) / (2 scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = () if _is_number(loc) and _is_number(scale) else self.loc.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

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
