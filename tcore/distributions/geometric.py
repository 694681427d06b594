from __future__ import annotations

import tcore
from tcore.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._probs_or_logits import ProbsOrLogits
from .distribution import Distribution
from .utils import _uniform, broadcast_all

__all__ = ["Geometric"]


class Geometric(ProbsOrLogits, Distribution):
    """The number of failures before the first success in trials of success probability probs
    (or logits)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer
    _batch_params = ("probs", "logits", "_param")

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not bool(valid.all()):
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                                 f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                                 f"invalid values:\n{self.probs.detach()[~valid]}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return tcore.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with tcore.no_grad():
            u = _uniform(shape, self.probs.dtype, tcore.finfo(self.probs.dtype).tiny, 1, self.probs.device)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # 0 log 0 = 0 where probs == 1 and value == 0
        probs = tcore.where((probs == 1) & (value == 0), tcore.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
