from __future__ import annotations

import tcore
from tcore.nn.functional import one_hot

from . import _random, constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _sample_dirichlet(concentration, reparameterized):
    g = (_random.rsample_standard_gamma(concentration) if reparameterized
         else _random.standard_gamma(concentration.detach()))
    tiny = tcore.finfo(g.dtype).tiny
    g = g + (g.detach().clamp(min=tiny) - g.detach())
    x = g / g.sum(-1, keepdim=True)
    # keep draws inside the open simplex (as torch's sampler does)
    eps = tcore.finfo(x.dtype).eps
    return x + (x.detach().clamp(min=tiny, max=1 - eps) - x.detach())


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex of concentration.shape[-1] elements.

    rsample draws independent gammas (reparameterized, tcore/distributions/_random.py) and
    normalizes them; its gradient is the pathwise gradient of that construction, an unbiased
    reparameterization gradient like torch's, though not torch's (implicit, per marginal)
    per-draw values."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True
    _batch_params = ("concentration",)

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with tcore.no_grad():
            return _sample_dirichlet(self.concentration.expand(shape), False)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _sample_dirichlet(self.concentration.expand(shape), True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return tcore.xlogy(c - 1.0, value).sum(-1) + tcore.lgamma(c.sum(-1)) - tcore.lgamma(c).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        all_below_one = (self.concentration < 1).all(dim=-1)
        if bool(all_below_one.any()):
            corner = one_hot(mode[all_below_one].argmax(dim=-1), cm1.shape[-1]).to(mode)
            mode[all_below_one] = corner
        return mode

    @property
    def variance(self):
        c = self.concentration
        c0 = c.sum(-1, True)
        return c * (c0 - c) / (c0.pow(2) * (c0 + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return (tcore.lgamma(c).sum(-1) - tcore.lgamma(a0) - (k - a0) * tcore.digamma(a0)
                - ((c - 1.0) * tcore.digamma(c)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - tcore.lgamma(x.sum(-1))
