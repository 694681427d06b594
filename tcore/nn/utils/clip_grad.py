"""Gradient clipping as torch.nn.utils': the total p-norm of the gradients (the norm of the
per-tensor norms), gradients scaled by min(1, max_norm / (total + 1e-6)); clamping by value."""
from __future__ import annotations

import types
import warnings

from ... import _C
from ...autograd import no_grad


def _as_list(tensors) -> list:
    return [tensors] if isinstance(tensors, _C.Tensor) else list(tensors)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None):
    """The norm_type-norm of the tensors taken together (a 0-dim tensor; 0 for none)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    with no_grad():
        if not tensors:
            return _C.zeros([])
        first = tensors[0].device
        norms = [_C._linalg.linalg_vector_norm(t, norm_type).to(first) for t in tensors]
        total = _C._linalg.linalg_vector_norm(_C.stack(norms), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm, foreach=None) -> None:
    """Each gradient times min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = _C.clamp((float(max_norm) / (total_norm + 1e-6)), max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None):
    """Scales the gradients so that their total norm is at most max_norm; returns the total norm
    before clipping."""
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    else:
        generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None):
    """The deprecated spelling of clip_grad_norm_, with torch's warning."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Each gradient element clamped to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
