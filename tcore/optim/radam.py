"""RAdam (rectified Adam; decoupled weight decay), as torch.optim.RAdam."""
from __future__ import annotations

from .. import _C
from .adam import _check
from .optimizer import Optimizer, _check_lr, _check_unsupported, _scalar_state, _to_scalar


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0, eps, betas, weight_decay)
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

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
                        state["exp_avg_sq"] = _C.zeros_like(p)
                    state["step"].add_(1)
                    step = state["step"].item()
                    grad = -p.grad if group["maximize"] else p.grad
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            grad = grad.add(p, alpha=wd)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.lerp_(grad, 1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    bias_correction1 = 1 - beta1 ** step
                    bias_correction2 = 1 - beta2 ** step
                    bias_corrected_exp_avg = exp_avg / bias_correction1
                    # the length of the approximated simple moving average decides whether the
                    # variance is tractable enough to rectify the adaptive step
                    rho_inf = 2 / (1 - beta2) - 1
                    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                    if rho_t > 5.0:
                        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                        adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                        p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
                    else:
                        p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
        return loss
