"""Adamax (Adam with the infinity norm), as torch.optim.Adamax."""
from __future__ import annotations

from .. import _C
from .adam import _check
from .optimizer import Optimizer, _check_lr, _check_unsupported, _scalar_state, _to_scalar


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0, eps, betas, weight_decay)
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        from ..autograd import no_grad
        with no_grad():
            for group in self.param_groups:
                lr, (beta1, beta2) = _to_scalar(group["lr"]), group["betas"]
                eps, wd = group["eps"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self._state(p)
                    if not state:
                        state["step"] = _scalar_state(0.0)
                        state["exp_avg"] = _C.zeros_like(p)
                        state["exp_inf"] = _C.zeros_like(p)
                    state["step"].add_(1)
                    grad = -p.grad if group["maximize"] else p.grad
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                    exp_avg.lerp_(grad, 1 - beta1)
                    _C.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
                    clr = lr / (1 - beta1 ** state["step"].item())
                    p.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
