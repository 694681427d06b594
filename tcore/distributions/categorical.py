from __future__ import annotations

import math

import tcore

from . import constraints
from ._probs_or_logits import ProbsOrLogits, one_of_probs_or_logits
from .distribution import Distribution
from .utils import _enumerate_over_batch, _filled

__all__ = ["Categorical"]


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


class Categorical(ProbsOrLogits, Distribution):
    """A distribution over {0, ..., K-1}, given probs (normalized along the last dim) or logits
    (unnormalized log probabilities), not both; the last dim of the parameter is the categories."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True
    _is_binary = False
    _batch_params = ("probs", "logits", "_param")
    _shared_attrs = ("_num_events",)

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, given = one_of_probs_or_logits(probs, logits)
        if given.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        if name == "probs":
            self._param = self.probs = given / given.sum(-1, keepdim=True)
        else:
            self._param = self.logits = given - given.logsumexp(dim=-1, keepdim=True)
        self._num_events = self._param.shape[-1]
        super().__init__(tuple(self._param.shape[:-1]), validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self):
        return tuple(self._param.shape)

    @property
    def mean(self):
        return _filled(self, math.nan, self.probs)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return _filled(self, math.nan, self.probs)

    def sample(self, sample_shape=()):
        sample_shape = tuple(sample_shape)
        with tcore.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            n = _numel(sample_shape)
            if n >= 2 ** 63:
                raise RuntimeError("numel: integer multiplication overflow")
            if n == 0:
                return tcore.empty(self._extended_shape(sample_shape), dtype=tcore.int64, device=probs_2d.device)
            draws = tcore.multinomial(probs_2d, n, True).t()
            return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = tcore.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=tcore.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = tcore.arange(self._num_events, dtype=tcore.int64, device=self._param.device)
        return _enumerate_over_batch(values, self._batch_shape, expand)
