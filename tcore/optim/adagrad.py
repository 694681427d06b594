"""Adagrad (learning-rate decay, weight decay, initial accumulator, maximize), as torch.optim.Adagrad."""
from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_lr, _check_unsupported, _scalar_state, _to_scalar


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
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
                self._init_state(p)

    def _init_state(self, p) -> dict:
        state = self._state(p)
        state["step"] = _scalar_state(0.0)
        state["sum"] = _C.full_like(p, self.defaults["initial_accumulator_value"])
        return state

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        from ..autograd import no_grad
        with no_grad():
            for group in self.param_groups:
                lr, lr_decay, eps, wd = _to_scalar(group["lr"]), group["lr_decay"], group["eps"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state.get(p) or self._init_state(p)
                    step_t = state["step"]
                    step_t.add_(1)
                    step = step_t.item()
                    grad = -p.grad if group["maximize"] else p.grad
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    clr = lr / (1 + (step - 1) * lr_decay)
                    state_sum = state["sum"]
                    state_sum.addcmul_(grad, grad, value=1)
                    std = state_sum.sqrt().add_(eps)
                    p.addcdiv_(grad, std, value=-clr)
        return loss
