"""Python-level forms of operators whose PyTorch signatures the schema language cannot
say (as torch/functional.py): nonzero(as_tuple=), where(condition) with one argument,
unique's optional outputs, einsum's operands as varargs, unbind's tuple.
Each wraps the generated binding and keeps its behaviour for every other call."""
from __future__ import annotations

import functools

from . import _C


def _nonzero(fn):
    @functools.wraps(fn)
    def nonzero(input, *, as_tuple: bool = False, out=None):
        if out is not None:
            raise TypeError("nonzero(): out= is not supported")
        if not as_tuple or not isinstance(input, _C.Tensor):
            return fn(input)
        return _columns(input)
    return nonzero


def _columns(input) -> tuple:
    """nonzero as a tuple of 1-d index tensors, one per dim (a 0-dim input reads as a
    1-element vector, as in PyTorch)."""
    if input.ndim == 0:
        input = input.view([1])
    nz = _C.nonzero(input)
    return tuple(nz.select(1, d) for d in range(input.ndim))


def _where(fn):
    @functools.wraps(fn)
    def where(condition, *args, **kwargs):
        if not args and not kwargs and isinstance(condition, _C.Tensor):
            return _columns(condition)
        return fn(condition, *args, **kwargs)
    return where


def unique(input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """The distinct values (sorted), and optionally the index of each element's value and
    the count of each value; with dim, the distinct slices along dim (torch.unique)."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"unique(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if dim is None:
        values, inverse, counts = _C._unique2(input, sorted, return_inverse, return_counts)
    else:
        values, inverse, counts = _C.unique_dim(input, dim, sorted, return_inverse, return_counts)
    out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out[0] if len(out) == 1 else out


def _einsum(fn):
    @functools.wraps(fn)
    def einsum(*args, **kwargs):
        """einsum("ij,jk->ik", a, b) or einsum("ij,jk->ik", [a, b]), as in PyTorch."""
        if len(args) > 2 or (len(args) == 2 and not isinstance(args[1], (list, tuple))):
            args = (args[0], list(args[1:]))
        return fn(*args, **kwargs)
    return einsum


def _as_tuple(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return tuple(fn(*args, **kwargs))
    return wrapper


def install(namespace: dict) -> None:
    T = _C.Tensor
    namespace["nonzero"] = _nonzero(namespace["nonzero"])
    T.nonzero = _nonzero(T.nonzero)
    namespace["where"] = _where(namespace["where"])
    namespace["unique"] = unique
    T.unique = unique
    namespace["einsum"] = _einsum(namespace["einsum"])
    namespace["unbind"] = _as_tuple(namespace["unbind"])  # PyTorch returns a tuple
    T.unbind = _as_tuple(T.unbind)
