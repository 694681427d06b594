"""RMSprop (momentum, centered, weight decay, maximize), as torch.optim.RMSprop."""
from __future__ import annotations

from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_nonnegative, _check_unsupported, _scalar_state, _to_scalar,
                        _weight_decay)


def _new_state(p, group) -> dict:
    state = {"step": _scalar_state(0.0), "square_avg": _C.zeros_like(p)}
    if group["momentum"] > 0:
        state["momentum_buffer"] = _C.zeros_like(p)
    if group["centered"]:
        state["grad_avg"] = _C.zeros_like(p)
    return state


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check_nonnegative((eps, "epsilon value"), (momentum, "momentum value"), (weight_decay, "weight_decay value"),
                           (alpha, "alpha value"))
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _step_group(self, group) -> None:
        lr, alpha, eps = _to_scalar(group["lr"]), group["alpha"], group["eps"]
        wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
        for p, grad, state in self._grads(group, _new_state):
            grad = _weight_decay(p, grad, wd)
            square_avg = state["square_avg"]
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if centered:
                grad_avg = state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).addcdiv_(grad, avg)
                p.add_(buf, alpha=-lr)
            else:
                p.addcdiv_(grad, avg, value=-lr)
