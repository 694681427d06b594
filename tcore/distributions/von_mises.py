from __future__ import annotations

import math

import tcore

from . import constraints
from .distribution import Distribution
from .utils import _broadcast_params, lazy_property

__all__ = ["VonMises"]


def _eval_poly(y, coef):
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


# the polynomial approximations of I0 and I1 (Abramowitz and Stegun 9.8.1-9.8.4) torch uses, for
# x below 3.75 (in (x / 3.75)^2) and above (of e^-x sqrt(x) I(x), in 3.75 / x)
_COEF_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
               [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3])
_COEF_LARGE = ([0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
                -0.1647633e-1, 0.392377e-2],
               [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
                0.1787654e-1, -0.420059e-2])


def _log_modified_bessel_fn(x, order=0):
    """log I_order(x) for x > 0 and order 0 or 1 (torch's approximation, relative error ~1e-7)."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    small = _eval_poly((x / 3.75) ** 2, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return tcore.where(x < 3.75, small.log(), large)


def _rejection_sample(loc, concentration, proposal_r, shape):
    """Best and Fisher (1979)'s sampler, in loc's dtype (float64)."""
    x = tcore.empty(shape, dtype=loc.dtype, device=loc.device)
    done = tcore.zeros(shape, dtype=tcore.bool, device=loc.device)
    while not bool(done.all()):
        u1, u2, u3 = tcore.rand((3,) + tuple(shape), dtype=loc.dtype, device=loc.device).unbind()
        z = tcore.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        x = tcore.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
        done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The circular von Mises distribution of mean direction loc (radians) and concentration;
    loc and values may be any reals, read modulo 2 pi. mean and variance are the circular ones."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False
    _batch_params = ("loc", "concentration")

    def __init__(self, loc, concentration, validate_args=None):
        (self.loc, self.concentration), _ = _broadcast_params(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration * tcore.cos(value - self.loc) - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @lazy_property
    def _loc(self):
        return self.loc.to(tcore.float64)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(tcore.float64)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return tcore.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=()):
        # (in float64 whatever the dtype: in float32 the sampler stalls for small concentrations)
        with tcore.no_grad():
            shape = self._extended_shape(sample_shape)
            x = _rejection_sample(self._loc, self._concentration, self._proposal_r, shape)
            return x.to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        c = self.concentration
        return 1 - (_log_modified_bessel_fn(c, order=1) - _log_modified_bessel_fn(c, order=0)).exp()
