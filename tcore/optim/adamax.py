"""Adamax (Adam with the infinity norm), as torch.optim.Adamax."""
from __future__ import annotations

from .. import _C
from .adam import _check
from .optimizer import Optimizer, _check_lr, _check_unsupported, _scalar_state, _to_scalar, _weight_decay


def _new_state(p, group) -> dict:
    return {"step": _scalar_state(0.0), "exp_avg": _C.zeros_like(p), "exp_inf": _C.zeros_like(p)}


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_lr(lr)
        _check(eps, betas, weight_decay)
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _step_group(self, group) -> None:
        lr, (beta1, beta2), eps, wd = _to_scalar(group["lr"]), group["betas"], group["eps"], group["weight_decay"]
        for p, grad, state in self._grads(group, _new_state):
            grad = _weight_decay(p, grad, wd)
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            exp_avg.lerp_(grad, 1 - beta1)
            _C.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
            clr = lr / (1 - beta1 ** state["step"].item())
            p.addcdiv_(exp_avg, exp_inf, value=-clr)
