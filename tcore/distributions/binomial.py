from __future__ import annotations

import tcore

from . import _random, constraints
from ._probs_or_logits import ProbsOrLogits
from .distribution import Distribution
from .utils import _enumerate_over_batch

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) with gradient 1/2 at 0 (as torch's)
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(ProbsOrLogits, Distribution):
    """The number of successes in total_count independent trials of success probability probs
    (or logits)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True
    _batch_params = ("total_count", "probs", "logits", "_param")

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_count_and_probs_or_logits(total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def param_shape(self):
        return tuple(self._param.shape)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with tcore.no_grad():
            return _random.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_choose = tcore.lgamma(n + 1) - tcore.lgamma(value + 1) - tcore.lgamma(n - value + 1)
        # n log(1 + e^logits), computed stably
        log_norm = n * _clamp_by_zero(logits) + n * tcore.log1p(tcore.exp(-tcore.abs(logits)))
        return value * logits + log_choose - log_norm

    def _homogeneous_count(self, what):
        count = int(self.total_count.max())
        if not self.total_count.min() == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(tcore.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        count = self._homogeneous_count("enumerate_support")
        values = tcore.arange(1 + count, dtype=self._param.dtype, device=self._param.device)
        return _enumerate_over_batch(values, self._batch_shape, expand)
