"""The probs-or-logits parameterization (Bernoulli, Binomial, Geometric, LogitRelaxedBernoulli,
Categorical): exactly one of the two is given, the other computed from it on first use."""
from __future__ import annotations

from .utils import _broadcast_params, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ProbsOrLogits", "one_of_probs_or_logits"]


def one_of_probs_or_logits(probs, logits):
    """The name and value of whichever of probs and logits is given (an error unless exactly one
    is)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)


class ProbsOrLogits:
    """A mixin (before the Distribution base) for a distribution given probs or logits: lazy
    probs and logits. The given one is also _param (its class lists
    "probs", "logits", "_param" in _batch_params, for expand). _is_binary: a success probability
    and its log-odds (sigmoid); otherwise probabilities along the last dim and their logarithms
    (softmax)."""

    _is_binary = True

    def _set_probs_or_logits(self, probs, logits):
        """Stores the given one of probs and logits as a tensor (and as _param); returns the batch
        shape it makes."""
        name, given = one_of_probs_or_logits(probs, logits)
        (param,), batch_shape = _broadcast_params(given)
        setattr(self, name, param)
        self._param = param
        return batch_shape

    def _set_count_and_probs_or_logits(self, total_count, probs, logits):
        """The given one of probs and logits and total_count (as the parameter's dtype), broadcast
        together (Binomial, NegativeBinomial); returns the batch shape they make."""
        name, given = one_of_probs_or_logits(probs, logits)
        count, param = broadcast_all(total_count, given)
        setattr(self, name, param)
        self._param = param
        self.total_count = count.type_as(param)
        return param.shape

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._is_binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._is_binary)
