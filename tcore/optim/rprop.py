"""Rprop (resilient backpropagation: etas, step_sizes, maximize), as torch.optim.Rprop."""
from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_lr, _check_unsupported, _scalar_state, _to_scalar


def _new_state(p, group) -> dict:
    return {"step": _scalar_state(0.0), "prev": _C.zeros_like(p),
            "step_size": _C.full_like(p.grad, _to_scalar(group["lr"]))}


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _step_group(self, group) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p, grad, state in self._grads(group, _new_state):
            prev, step_size = state["prev"], state["step_size"]
            # the factor per element: etaplus where the gradient kept its sign, etaminus where
            # it flipped, 1 where either is zero (a NaN product stays NaN, as torch's)
            sign = grad.mul(prev).sign()
            sign[sign.gt(0)] = etaplus
            sign[sign.lt(0)] = etaminus
            sign[sign.eq(0)] = 1
            step_size.mul_(sign).clamp_(step_size_min, step_size_max)
            # no step (and no memory of the gradient) where the sign flipped
            grad = grad.clone()
            grad[sign.eq(etaminus)] = 0
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
