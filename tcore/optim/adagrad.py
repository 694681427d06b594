"""Adagrad (learning-rate decay, weight decay, initial accumulator, maximize), as torch.optim.Adagrad."""
from __future__ import annotations

from .. import _C
from .optimizer import (Optimizer, _check_lr, _check_nonnegative, _check_unsupported, _scalar_state, _to_scalar,
                        _weight_decay)


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        _check_nonnegative((lr_decay, "lr_decay value"), (weight_decay, "weight_decay value"),
                           (initial_accumulator_value, "initial_accumulator_value value"), (eps, "epsilon value"))
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        _check_unsupported(differentiable)
        # as torch's: every parameter's state exists from the start, filled with the constructor's
        # initial_accumulator_value (a group's own value is not used)
        for group in self.param_groups:
            for p in group["params"]:
                self._state(p).update(self._new_state(p, group))

    def _new_state(self, p, group) -> dict:
        return {"step": _scalar_state(0.0), "sum": _C.full_like(p, self.defaults["initial_accumulator_value"])}

    def _step_group(self, group) -> None:
        lr, lr_decay, eps, wd = _to_scalar(group["lr"]), group["lr_decay"], group["eps"], group["weight_decay"]
        for p, grad, state in self._grads(group, self._new_state):
            grad = _weight_decay(p, grad, wd)
            clr = lr / (1 + (state["step"].item() - 1) * lr_decay)
            state_sum = state["sum"]
            state_sum.addcmul_(grad, grad, value=1)
            std = state_sum.sqrt().add_(eps)
            p.addcdiv_(grad, std, value=-clr)
