"""Adadelta (rho, eps, lr, weight decay, maximize), as torch.optim.Adadelta."""
from __future__ import annotations

from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_nonnegative, _check_unsupported, _scalar_state, _to_scalar,
                        _weight_decay)


def _new_state(p, group) -> dict:
    return {"step": _scalar_state(0.0), "square_avg": _C.zeros_like(p), "acc_delta": _C.zeros_like(p)}


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonnegative((eps, "epsilon value"), (weight_decay, "weight_decay value"))
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _step_group(self, group) -> None:
        lr, rho, eps, wd = _to_scalar(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
        for p, grad, state in self._grads(group, _new_state):
            grad = _weight_decay(p, grad, wd)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-lr)
