"""tcore.func: function transforms: torch.func's grad, vjp, jvp, jacrev, jacfwd, hessian, vmap,
functional_call and stack_module_state (tcore/_transforms.py), and functionalize, here.

`functionalize(fn)` runs fn the way PyTorch's torch.func.functionalize does: on functional
wrappers of its tensor arguments (tcore/core/FunctionalTensor.h), so that every in-place or
out= operator fn calls runs as its functional counterpart and every view is replayed from its
base; mutations of the inputs are copied back into them when fn returns. Traced
(`tcore.jit.trace(functionalize(fn), inputs)`), it gives a graph with no in-place or out=
operator: the new values of mutated inputs are extra outputs, copied back by the caller."""
from __future__ import annotations

import functools

from . import _C
from ._transforms import (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp,  # noqa: F401
                          stack_module_state, vjp, vmap)

__all__ = ["functionalize", "Functionalized", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "vmap", "functional_call", "stack_module_state"]


def _map(fn, tree):
    """fn applied to every Tensor of tree (tuples, lists and dicts are walked)."""
    if isinstance(tree, _C.Tensor):
        return fn(tree)
    if isinstance(tree, (list, tuple)):
        mapped = [_map(fn, x) for x in tree]
        return type(tree)(mapped) if type(tree) in (list, tuple) else type(tree)(*mapped)
    if isinstance(tree, dict):
        return {k: _map(fn, v) for k, v in tree.items()}
    return tree


def _leaves(tree) -> list:
    out: list = []
    _map(lambda t: out.append(t) or t, tree)
    return out


def _unwrap(t):
    return _C._from_functional(t) if _C._is_functional(t) else t


class Functionalized:
    """fn, functionalized: call it like fn."""

    def __init__(self, fn, remove: str = "mutations"):
        if not callable(fn):
            raise TypeError(f"tcore.func.functionalize expects a callable, not {type(fn).__name__}")
        if remove not in ("mutations", "mutations_and_views"):
            raise ValueError(f"tcore.func.functionalize: remove must be 'mutations' or 'mutations_and_views', "
                             f"not {remove!r}")
        self.fn = fn
        self.remove = remove
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        out, mutated = self.run(args, kwargs)
        for original, value in mutated:
            if tuple(original.shape) != tuple(value.shape):  # an out= input resized inside: resized here too
                _C.clone(value, out=original)
            else:
                original.copy_(value)
        return out

    def run(self, args: tuple, kwargs: dict):
        """(fn's outputs, [(input, its new value)] for the inputs fn wrote to); nothing is copied back."""
        if _C._functionalize_active():  # nested: the outer functionalization already covers fn
            return self.fn(*args, **kwargs), []
        originals: list = []
        wrappers: list = []

        def wrap(t):
            w = _C._to_functional(t)
            originals.append(t)
            wrappers.append(w)
            return w

        wargs, wkwargs = _map(wrap, args), _map(wrap, kwargs)
        _C._functionalize_views_as_copies(self.remove == "mutations_and_views")
        try:
            _C._functionalize_set(True)
            try:
                out = self.fn(*wargs, **wkwargs)
            finally:
                _C._functionalize_set(False)
            out = _map(_unwrap, out)
            mutated = [(t, _C._from_functional(w)) for t, w in zip(originals, wrappers) if _C._functional_mutated(w)]
        finally:
            _C._functionalize_views_as_copies(False)
        return out, mutated


def functionalize(fn, *, remove: str = "mutations") -> Functionalized:
    """fn without mutation: in-place and out= operators become functional ones, views are
    replayed from their bases, the inputs fn mutates are written back at the end. As in torch,
    remove="mutations_and_views" also runs views as their view_copy operators (select_copy...),
    so no value aliases another."""
    return Functionalized(fn, remove)
