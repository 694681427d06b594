from __future__ import annotations

import tcore

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _broadcast_params

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution of the given rate (mean 1 / rate)."""

    arg_constraints = {"rate": constraints.positive}
    _batch_params = ("rate",)
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,), batch_shape = _broadcast_params(rate)
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return tcore.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        e = tcore.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return e / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - tcore.exp(-self.rate * value)

    def icdf(self, value):
        return -tcore.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - tcore.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -tcore.log(-x)
