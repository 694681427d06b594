from __future__ import annotations

import math

import tcore
from tcore.nn.functional import softplus

from . import constraints
from ._probs_or_logits import ProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ProbsOrLogits, ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019): density
    C(p) p^x (1 - p)^(1 - x), given probs p (in (0, 1), not a probability) or logits, not both.
    Within lims of p = 1/2, where the closed forms lose precision, Taylor expansions stand in
    (and probs are clamped to (eps, 1 - eps))."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True
    _batch_params = ("probs", "logits", "_param")
    _shared_attrs = ("_lims",)

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits)
        if probs is not None:
            # (torch's rule: checked here only when validate_args is given, True or False)
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self._param = self.probs = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return tuple(self._param.shape)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return tcore.where(self._outside_unstable_region(), self.probs, self._lims[0] * tcore.ones_like(self.probs))

    def _closed_or_taylor(self, closed, taylor):
        return tcore.where(self._outside_unstable_region(), closed, taylor)

    def _cont_bern_log_norm(self):
        """log C(probs)."""
        p = self._cut_probs()
        below = tcore.where(p <= 0.5, p, tcore.zeros_like(p))
        above = tcore.where(p >= 0.5, p, tcore.ones_like(p))
        log_norm = (tcore.log(tcore.abs(tcore.log1p(-p) - tcore.log(p)))
                    - tcore.where(p <= 0.5, tcore.log1p(-2.0 * below), tcore.log(2.0 * above - 1.0)))
        x = (self.probs - 0.5).pow(2)
        return self._closed_or_taylor(log_norm, math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x)

    @property
    def mean(self):
        p = self._cut_probs()
        closed = p / (2.0 * p - 1.0) + 1.0 / (tcore.log1p(-p) - tcore.log(p))
        x = self.probs - 0.5
        return self._closed_or_taylor(closed, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x)

    @property
    def stddev(self):
        return tcore.sqrt(self.variance)

    @property
    def variance(self):
        p = self._cut_probs()
        closed = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / (tcore.log1p(-p) - tcore.log(p)).pow(2)
        x = (self.probs - 0.5).pow(2)
        return self._closed_or_taylor(closed, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x)

    def sample(self, sample_shape=()):
        u = tcore.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        with tcore.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        u = tcore.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # -binary_cross_entropy_with_logits(logits, value), whose gradient at logits 0 tcore's
        # nn.functional gets wrong
        return value * logits - softplus(logits) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        cdfs = (tcore.pow(p, value) * tcore.pow(1.0 - p, 1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        cdfs = self._closed_or_taylor(cdfs, value)
        return tcore.where(value <= 0.0, tcore.zeros_like(value),
                           tcore.where(value >= 1.0, tcore.ones_like(value), cdfs))

    def icdf(self, value):
        p = self._cut_probs()
        closed = (tcore.log1p(-p + value * (2.0 * p - 1.0)) - tcore.log1p(-p)) / (tcore.log(p) - tcore.log1p(-p))
        return self._closed_or_taylor(closed, value)

    def entropy(self):
        log_probs0 = tcore.log1p(-self.probs)
        log_probs1 = tcore.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalizer as a function of the natural parameter (the logits)."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = tcore.where(outside, x, (self._lims[0] - 0.5) * tcore.ones_like(x))
        log_norm = tcore.log(tcore.abs(tcore.special.expm1(cut))) - tcore.log(tcore.abs(cut))
        return tcore.where(outside, log_norm, 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0)
