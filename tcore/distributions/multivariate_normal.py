from __future__ import annotations

import math

import tcore

from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products of broadcastable batches: bmat (..., n, n), bvec (..., n)."""
    return tcore.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """|L^-1 x|^2 over broadcast batches of lower-triangular L (..., n, n) and x (..., n)."""
    n = bx.shape[-1]
    lbatch = tuple(bL.shape[:-2])
    if all(s == 1 for s in lbatch):
        # one factor for every x: a single triangular solve with the x's as columns
        L = bL.reshape(n, n)
        flat = bx.reshape(-1, n)
        sol = tcore.linalg.solve_triangular(L, flat.t(), upper=False)
        m = sol.pow(2).sum(0).reshape(tuple(bx.shape[:-1]))
        shape = tcore.broadcast_shapes(tuple(bx.shape[:-1]), lbatch)
        return m.expand(shape) if tuple(m.shape) != tuple(shape) else m
    shape = tcore.broadcast_shapes(tuple(bx.shape[:-1]), lbatch)
    L = bL.expand(shape + (n, n))
    x = bx.expand(shape + (n,)).unsqueeze(-1)
    return tcore.linalg.solve_triangular(L, x, upper=False).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    # Cholesky of the flipped precision gives the inverse of the covariance's factor
    Lf = tcore.linalg.cholesky(tcore.flip(P, (-2, -1)))
    L_inv = tcore.transpose(tcore.flip(Lf, (-2, -1)), -2, -1)
    eye = tcore.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return tcore.linalg.solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution of mean loc, given exactly one of covariance_matrix,
    precision_matrix or scale_tril (the lower Cholesky factor of the covariance)."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True
    _batch_params = ("loc", "covariance_matrix", "scale_tril", "precision_matrix")
    _shared_attrs = ("_unbroadcasted_scale_tril",)

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        for name, m, msg in (("scale_tril", scale_tril, "scale_tril matrix must be at least two-dimensional"),
                             ("covariance_matrix", covariance_matrix, "covariance_matrix must be at least "
                              "two-dimensional"),
                             ("precision_matrix", precision_matrix, "precision_matrix must be at least "
                              "two-dimensional")):
            if m is None:
                continue
            if m.dim() < 2:
                raise ValueError(msg + ", with optional leading batch dimensions")
            batch_shape = tcore.broadcast_shapes(tuple(m.shape[:-2]), tuple(loc.shape[:-1]))
            setattr(self, name, m.expand(batch_shape + (-1, -1)))
            given = m
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = tcore.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(given)

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return tcore.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return tcore.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    mode = mean

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, self.loc.dtype, self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
