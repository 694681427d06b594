"""NAdam (Adam with Nesterov momentum; momentum_decay, decoupled weight decay), as torch.optim.NAdam."""
from __future__ import annotations

from .. import _C
from .adam import _check
from .optimizer import Optimizer, _check_lr, _check_unsupported, _scalar_state, _to_scalar


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        from ..autograd import no_grad
        with no_grad():
            for group in self.param_groups:
                lr, (beta1, beta2) = _to_scalar(group["lr"]), group["betas"]
                eps, wd = group["eps"], group["weight_decay"]
                momentum_decay = group["momentum_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self._state(p)
                    if not state:
                        state["step"] = _scalar_state(0.0)
                        state["mu_product"] = _scalar_state(1.0)
                        state["exp_avg"] = _C.zeros_like(p)
                        state["exp_avg_sq"] = _C.zeros_like(p)
                    state["step"].add_(1)
                    step = state["step"].item()
                    grad = -p.grad if group["maximize"] else p.grad
                    bias_correction2 = 1 - beta2 ** step
                    if wd != 0:
                        if group["decoupled_weight_decay"]:
                            p.mul_(1 - lr * wd)
                        else:
                            grad = grad.add(p, alpha=wd)
                    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                    # the product is kept in the 0-d state's dtype (float32 by default), as torch's
                    mu_product = state["mu_product"].mul_(mu).item()
                    mu_product_next = mu_product * mu_next
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.lerp_(grad, 1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                    p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
                    p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return loss
