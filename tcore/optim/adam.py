"""Adam and AdamW (decoupled weight decay), with amsgrad and maximize, as torch.optim."""
from __future__ import annotations

import math

from .. import _C
from .optimizer import Optimizer, _check_nonnegative, _weight_decay

_FUSED = (_C.dtype.float32, _C.dtype.float64)  # one pass per parameter (native/cpu/FusedOptim.cpp)


def _check(eps, betas, weight_decay) -> None:
    """The Adam family's checks after lr's, in torch's order: eps, betas[0], betas[1], weight_decay."""
    _check_nonnegative((eps, "epsilon value"))
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    _check_nonnegative((weight_decay, "weight_decay value"))


def _new_state(p, group) -> dict:
    state = {"step": _C.zeros([], dtype=_C.dtype.float32), "exp_avg": _C.zeros_like(p),
             "exp_avg_sq": _C.zeros_like(p)}
    if group["amsgrad"]:
        state["max_exp_avg_sq"] = _C.zeros_like(p)
    return state


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, maximize: bool = False) -> None:
        _check_nonnegative((lr, "learning rate"))
        _check(eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    def _step_group(self, group) -> None:
        # not _grads: the fused kernel reads p.grad and applies maximize itself
        for p in group["params"]:
            if p.grad is not None:
                self._update(p, group)

    def _update(self, p, group) -> None:
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        state = self._step_state(p, group, _new_state)
        step = state["step"].item()
        if (not group["amsgrad"] and p.device.type == "cpu" and p.dtype in _FUSED and p.is_contiguous()
                and p.grad.dtype == p.dtype):
            _C._fused_adam_(p, p.grad.contiguous(), state["exp_avg"], state["exp_avg_sq"], lr, beta1, beta2, eps, wd,
                            step, self._decoupled, group["maximize"])
            return
        grad = -p.grad if group["maximize"] else p.grad
        grad = _weight_decay(p, grad, wd, lr, self._decoupled)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
        bias1 = 1 - beta1 ** step
        bias2 = 1 - beta2 ** step
        second = exp_avg_sq
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = second = _C.maximum(state["max_exp_avg_sq"], exp_avg_sq)
        denom = (second.sqrt() / math.sqrt(bias2)).add_(eps)
        p.sub_(exp_avg / denom, alpha=lr / bias1)


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
