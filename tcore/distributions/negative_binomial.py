from __future__ import annotations

import tcore
from tcore.nn.functional import logsigmoid

from . import _random, constraints
from ._probs_or_logits import ProbsOrLogits
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(ProbsOrLogits, Distribution):
    """The number of successes before total_count failures in independent trials of success
    probability probs (or log-odds logits); total_count may be any nonnegative real. A
    Gamma-Poisson mixture."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer
    _batch_params = ("total_count", "probs", "logits", "_param")

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_count_and_probs_or_logits(total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def param_shape(self):
        return tuple(self._param.shape)

    @property
    def mean(self):
        return self.total_count * tcore.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / tcore.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        """The distribution of the Poisson rate."""
        return Gamma(concentration=self.total_count, rate=tcore.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=()):
        with tcore.no_grad():
            rate = self._gamma.sample(sample_shape)
            # (a count of 0 stops at once: a rate of 0, where the gamma draw is undefined)
            rate = tcore.where(self.total_count == 0, 0.0, rate)
            return _random.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_unnormalized_prob = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = -tcore.lgamma(n + value) + tcore.lgamma(1.0 + value) + tcore.lgamma(n)
        log_normalization = log_normalization.masked_fill(n + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
