"""ASGD (averaged SGD: lambd, alpha, t0, weight decay, maximize), as torch.optim.ASGD."""
from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, _check_lr, _check_unsupported, _scalar_state, _to_scalar


def _default_dtype_scalar(value: float):
    return _C.zeros([], dtype=_C._get_default_dtype()).fill_(value)


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def step(self, closure=None):
        loss = self._closure_loss(closure)
        from ..autograd import no_grad
        with no_grad():
            for group in self.param_groups:
                lr, lambd, alpha, t0 = _to_scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
                wd = group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self._state(p)
                    if not state:
                        # eta and mu are 0-d state of the scalar dtype (float32 by default) as torch's:
                        # the step reads eta back rounded to it
                        state["step"] = _scalar_state(0.0)
                        state["eta"] = _scalar_state(lr)
                        state["mu"] = _scalar_state(1.0)
                        state["ax"] = _C.zeros_like(p)
                    state["step"].add_(1)
                    grad = -p.grad if group["maximize"] else p.grad
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    eta, mu, ax = state["eta"], state["mu"], state["ax"]
                    eta_value = eta.item()
                    p.mul_(1 - lambd * eta_value)
                    p.add_(grad, alpha=-eta_value)
                    if mu.item() != 1:
                        ax.add_(p.sub(ax).mul_(mu))
                    else:
                        ax.copy_(p)
                    step = state["step"].item()
                    # the new values pass through a tensor of the default dtype, as torch's (as_tensor)
                    eta.copy_(_default_dtype_scalar(lr / ((1 + lambd * lr * step) ** alpha)))
                    mu.copy_(_default_dtype_scalar(1 / max(1, step - t0)))
        return loss
