from __future__ import annotations

import math

import tcore

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The counts of each of K categories in total_count independent draws of a Categorical
    (probs or logits along the last dim, normalized). total_count is one int for the whole batch
    (what sample needs; log_prob takes the count of each value from the value itself)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    _batch_params = ("_categorical",)
    _shared_attrs = ("total_count",)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    @lazy_property
    def _binomial(self):
        """The marginal count of each category."""
        return Binomial(total_count=self.total_count, probs=self.probs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = tuple(sample_shape)
        draws = self._categorical.sample((self.total_count,) + sample_shape)
        draws = draws.permute(*range(1, draws.dim()), 0)  # (the draws along the last dim)
        counts = tcore.zeros(self._extended_shape(sample_shape), dtype=draws.dtype, device=draws.device)
        counts.scatter_add_(-1, draws, tcore.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        n = self.total_count
        term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = tcore.exp(self._binomial.log_prob(support))
        term2 = (binomial_probs * tcore.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = tcore.lgamma(value.sum(-1) + 1)
        log_factorial_xs = tcore.lgamma(value + 1).sum(-1)
        # 0 log 0 = 0 where a category of probability 0 is not drawn
        logits = tcore.where((value == 0) & (logits == -math.inf), 0.0, logits)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
