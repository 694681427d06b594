"""tcore.autograd: grad(), backward() and the grad-mode switches (context managers
and decorators), over the engine in csrc/autograd."""
from __future__ import annotations

import functools
from . import _C

__all__ = ["grad", "backward", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


def _as_list(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple:
    """The gradients of `outputs` w.r.t. `inputs`; nothing is accumulated into .grad."""
    outs, ins = _as_list(outputs), _as_list(inputs)
    gouts = _as_list(grad_outputs) or [None] * len(outs)
    return _C._autograd_grad(outs, ins, gouts, retain_graph, create_graph, allow_unused)


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False) -> None:
    outs = _as_list(tensors)
    gouts = _as_list(grad_tensors) or [None] * len(outs)
    _C._autograd_backward(outs, gouts, retain_graph, create_graph)


def is_grad_enabled() -> bool:
    return _C.is_grad_enabled()


class _GradMode:
    """Sets grad mode for a with-block, or for every call of a decorated function."""

    enabled: bool

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self.enabled)
        return self

    def __exit__(self, *exc) -> None:
        _C._set_grad_enabled(self._prev)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _Scoped(self.enabled):
                return fn(*args, **kwargs)

        return wrapper


class _Scoped(_GradMode):
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled


class no_grad(_GradMode):
    enabled = False


class enable_grad(_GradMode):
    enabled = True


class set_grad_enabled(_GradMode):
    def __init__(self, mode: bool) -> None:
        self.enabled = bool(mode)
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self.enabled)  # also works as a plain function call

    def __enter__(self):
        return self
