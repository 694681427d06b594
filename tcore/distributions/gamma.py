from __future__ import annotations

import tcore

from . import _random, constraints
from .exp_family import ExponentialFamily
from .utils import _broadcast_params

__all__ = ["Gamma", "Chi2"]


class Gamma(ExponentialFamily):
    """The gamma distribution of shape concentration and inverse scale rate. rsample's gradient
    with respect to concentration is the implicit reparameterization gradient, computed to double
    precision (tcore/distributions/_random.py)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0
    _batch_params = ("concentration", "rate")

    def __init__(self, concentration, rate, validate_args=None):
        (self.concentration, self.rate), batch_shape = _broadcast_params(concentration, rate)
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = _random.rsample_standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return _clamp_tiny_keep_grad(value)

    def log_prob(self, value):
        value = tcore.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return tcore.xlogy(a, b) + tcore.xlogy(a - 1, value) - b * value - tcore.lgamma(a)

    def entropy(self):
        a = self.concentration
        return a - tcore.log(self.rate) + tcore.lgamma(a) + (1.0 - a) * tcore.digamma(a)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return tcore.lgamma(x + 1) + (x + 1) * tcore.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _random.gammainc(self.concentration, self.rate * value)


def _clamp_tiny_keep_grad(value):
    # torch clamps the draw's values in place, leaving the gradient as it was
    tiny = tcore.finfo(value.dtype).tiny
    return value + (value.detach().clamp(min=tiny) - value.detach())


class Chi2(Gamma):
    """The chi-squared distribution of df degrees of freedom: Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2
