from __future__ import annotations

import math

import tcore

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _broadcast_params

__all__ = ["FisherSnedecor"]


def _nan_where(mask, value):
    return tcore.where(mask, math.nan, value)


class FisherSnedecor(Distribution):
    """The F distribution of df1 and df2 degrees of freedom: the ratio of Gamma(df1 / 2, df1) and
    Gamma(df2 / 2, df2) draws (reparameterized through both)."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True
    _batch_params = ("df1", "df2", "_gamma1", "_gamma2")

    def __init__(self, df1, df2, validate_args=None):
        (self.df1, self.df2), batch_shape = _broadcast_params(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        df2 = _nan_where(self.df2 <= 2, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        return _nan_where(self.df1 <= 2, (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2))

    @property
    def variance(self):
        df1, df2 = self.df1, _nan_where(self.df2 <= 4, self.df2)
        return 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = tcore.finfo(x2.dtype).tiny
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * tcore.log(value)
        t3 = (ct1 + ct2) * tcore.log1p(ct3 * value)
        return t1 + t2 - t3
