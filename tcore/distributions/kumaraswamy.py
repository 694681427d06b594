from __future__ import annotations

import math

import tcore

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moment(a, b, n):
    """E[X^n] = b B(1 + n / a, b)."""
    arg = 1 + n / a
    return b * tcore.exp(tcore.lgamma(arg) + tcore.lgamma(b) - tcore.lgamma(arg + b))


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on [0, 1], density a b x^(a-1) (1 - x^a)^(b-1) for
    a = concentration1, b = concentration0: (1 - U^(1/b))^(1/a) for U uniform."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(tcore.full_like(self.concentration0, 0), tcore.full_like(self.concentration0, 1),
                            validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # ((a - 1) / (a b - 1))^(1/a) where a, b >= 1 (not both 1); NaN elsewhere.
        # (torch 2.13's formula gives NaN everywhere.)
        a, b = self.concentration1, self.concentration0
        mode = ((a - 1) / (a * b - 1)) ** a.reciprocal()
        return tcore.where((a < 1) | (b < 1), math.nan, mode)

    @property
    def variance(self):
        return _moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = tcore.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - tcore.log(self.concentration1) - tcore.log(self.concentration0)
