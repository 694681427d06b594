"""NAdam (Adam with Nesterov momentum; momentum_decay, decoupled weight decay), as torch.optim.NAdam."""
from __future__ import annotations

from .. import _C
from .adam import _check
from .optimizer import (Optimizer, _check_lr, _check_nonnegative, _check_unsupported, _scalar_state, _to_scalar,
                        _weight_decay)


def _new_state(p, group) -> dict:
    return {"step": _scalar_state(0.0), "mu_product": _scalar_state(1.0), "exp_avg": _C.zeros_like(p),
            "exp_avg_sq": _C.zeros_like(p)}


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(eps, betas, weight_decay)
        _check_nonnegative((momentum_decay, "momentum_decay value"))
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _step_group(self, group) -> None:
        lr, (beta1, beta2), eps = _to_scalar(group["lr"]), group["betas"], group["eps"]
        wd, momentum_decay = group["weight_decay"], group["momentum_decay"]
        for p, grad, state in self._grads(group, _new_state):
            step = state["step"].item()
            grad = _weight_decay(p, grad, wd, lr, group["decoupled_weight_decay"])
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            # the product is kept in the 0-d state's dtype (float32 by default), as torch's
            mu_product = state["mu_product"].mul_(mu).item()
            mu_product_next = mu_product * mu_next
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add_(eps)
            p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
            p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
