from __future__ import annotations

import math

import tcore

from . import constraints
from .distribution import Distribution
from .gamma import Chi2
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution of df degrees of freedom, location loc and scale scale."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _batch_params = ("df", "loc", "scale", "_chi2")

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return tcore.where(self.df > 1, self.loc, tcore.full_like(self.loc, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / tcore.where(df > 2, df - 2, tcore.ones_like(df))
        v = tcore.where(df > 2, finite, tcore.full_like(df, math.inf))
        return tcore.where(df > 1, v, tcore.full_like(df, math.nan))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, self.df.dtype, self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * tcore.rsqrt(z / self.df))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        df = self.df
        log_z = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi) + tcore.lgamma(0.5 * df)
                 - tcore.lgamma(0.5 * (df + 1.0)))
        return -0.5 * (df + 1.0) * tcore.log1p(y ** 2.0 / df) - log_z

    def entropy(self):
        df = self.df
        lbeta = tcore.lgamma(0.5 * df) + math.lgamma(0.5) - tcore.lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (tcore.digamma(0.5 * (df + 1)) - tcore.digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)
