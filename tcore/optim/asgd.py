"""ASGD (averaged SGD: lambd, alpha, t0, weight decay, maximize), as torch.optim.ASGD."""
from __future__ import annotations

from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_nonnegative, _check_unsupported, _scalar_state, _to_scalar,
                        _weight_decay)


def _default_dtype_scalar(value: float):
    return _C.zeros([], dtype=_C._get_default_dtype()).fill_(value)


def _new_state(p, group) -> dict:
    # eta and mu are 0-d state of the scalar dtype (float32 by default) as torch's: the step reads
    # eta back rounded to it
    return {"step": _scalar_state(0.0), "eta": _scalar_state(_to_scalar(group["lr"])), "mu": _scalar_state(1.0),
            "ax": _C.zeros_like(p)}


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        _check_nonnegative((weight_decay, "weight_decay value"))
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _step_group(self, group) -> None:
        lr, lambd, alpha, t0 = _to_scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        for p, grad, state in self._grads(group, _new_state):
            grad = _weight_decay(p, grad, group["weight_decay"])
            eta, mu, ax = state["eta"], state["mu"], state["ax"]
            eta_value = eta.item()
            p.mul_(1 - lambd * eta_value)
            p.add_(grad, alpha=-eta_value)
            if mu.item() != 1:
                ax.add_(p.sub(ax).mul_(mu))
            else:
                ax.copy_(p)
            step = state["step"].item()
            # the new values pass through a tensor of the default dtype, as torch's (as_tensor)
            eta.copy_(_default_dtype_scalar(lr / ((1 + lambd * lr * step) ** alpha)))
            mu.copy_(_default_dtype_scalar(1 / max(1, step - t0)))
