"""tcore's exception types (see csrc/python/errors.cpp).

As in PyTorch, a bad shape, size, dim, value or dtype raises a RuntimeError; tcore's are
of these two classes, which are also ValueError and TypeError respectively:

    ArgumentValueError(RuntimeError, ValueError)
    ArgumentTypeError(RuntimeError, TypeError)

An index out of range is an IndexError; a Python argument of the wrong type a TypeError
that names the argument, what was given and what is accepted (tcore/_arguments.py).
"""
from __future__ import annotations

from . import _C

ArgumentValueError = _C._ArgumentValueError
ArgumentTypeError = _C._ArgumentTypeError

__all__ = ["ArgumentValueError", "ArgumentTypeError"]
