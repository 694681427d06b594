"""Helpers shared by the distributions (torch.distributions.utils' counterparts)."""
from __future__ import annotations

import functools
import numbers

import tcore

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni

_Number = (numbers.Number,)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, tcore.Tensor)


def broadcast_all(*values):
    """Tensors and numbers broadcast to one shape; numbers become tensors of the first tensor's
    dtype (the default dtype when every value is a number)."""
    if not all(isinstance(v, tcore.Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, tcore.Tensor or objects "
                         "implementing __torch_function__.")
    first = next((v for v in values if isinstance(v, tcore.Tensor)), None)
    if first is None:
        opts = {"dtype": tcore.get_default_dtype()}
    else:
        opts = {"dtype": first.dtype, "device": first.device}
    tensors = [v if isinstance(v, tcore.Tensor) else tcore.full((), v, **opts) for v in values]
    return tuple(tcore.broadcast_tensors(*tensors))


def _broadcast_params(*values):
    """broadcast_all(*values), and the batch shape they make: () when every value is a number."""
    tensors = broadcast_all(*values)
    return tensors, (() if all(_is_number(v) for v in values) else tensors[0].shape)


def _enumerate_over_batch(values, batch_shape, expand):
    """A support's values (1-D) along a new leading dim, broadcast (expand: expanded) over batch_shape."""
    values = values.view((-1,) + (1,) * len(batch_shape))
    return values.expand((-1,) + batch_shape) if expand else values


def _sum_rightmost(value, dim: int):
    """value summed over its last dim dims."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def _filled(dist, value, like):
    """A tensor of dist's batch + event shape, all value, of like's dtype and device (the mean or
    variance of a distribution that has none)."""
    return tcore.full(tuple(dist._extended_shape()), value, dtype=like.dtype, device=like.device)


def _standard_normal(shape, dtype, device=None):
    return tcore.empty(tuple(shape), dtype=dtype, device=device).normal_()


def _uniform(shape, dtype, low=0.0, high=1.0, device=None):
    return tcore.empty(tuple(shape), dtype=dtype, device=device).uniform_(low, high)


def clamp_probs(probs):
    eps = tcore.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary: bool = False):
    return tcore.sigmoid(logits) if is_binary else tcore.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary: bool = False):
    p = clamp_probs(probs)
    if is_binary:
        return p.log() - (-p).log1p()
    return p.log()


class lazy_property:
    """A property computed once per instance (with grad enabled) and stored on it; the class
    attribute is a property, so documentation tools and hasattr see it."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with tcore.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int, device=None):
    ar = tcore.arange(n, device=device)
    return ar < ar.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag: int = 0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag: int = 0):
    m = vec.shape[-1]
    k = 1 + 2 * diag
    n = (-k + (k * k + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > tcore.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat
