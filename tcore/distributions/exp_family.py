"""ExponentialFamily: distributions p(x; t) = exp(<t, T(x)> - F(t) + k(x)), whose entropy (and
KL to the same family) follow from the log normalizer F through autograd."""
from __future__ import annotations

import tcore

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        # H = F(t) - <t, grad F(t)> - E[k(x)]
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg = self._log_normalizer(*nparams)
        grads = tcore.autograd.grad(lg.sum(), nparams, create_graph=True)
        result = result + lg
        for p, g in zip(nparams, grads):
            result = result - (p * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
