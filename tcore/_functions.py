"""Python-level forms of operators whose PyTorch signatures the schema language cannot
say (as torch/functional.py): nonzero(as_tuple=), where(condition) with one argument.
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


def install(namespace: dict) -> None:
    T = _C.Tensor
    namespace["nonzero"] = _nonzero(namespace["nonzero"])
    T.nonzero = _nonzero(T.nonzero)
    namespace["where"] = _where(namespace["where"])
