"""SGD with momentum (dampening, Nesterov), weight decay and maximize, as torch.optim.SGD."""
from __future__ import annotations

from .optimizer import Optimizer, Tensor, _check_fused, _check_unsupported, _to_scalar, _weight_decay, required


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum: float = 0, dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        # torch's SGD tests `< 0` (a NaN passes), unlike the other optimizers' _check_nonnegative
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))
        _check_fused(fused, foreach, differentiable)
        _check_unsupported(differentiable)

    def _step_group(self, group) -> None:
        lr, momentum, dampening = _to_scalar(group["lr"]), group["momentum"], group["dampening"]
        wd, nesterov = group["weight_decay"], group["nesterov"]
        for p, d_p, _ in self._grads(group):
            d_p = _weight_decay(p, d_p, wd)
            if momentum != 0:
                # the buffer starts as the first (decayed) gradient; no state without momentum
                state = self._state(p)
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = d_p.clone()
                    state["momentum_buffer"] = buf
                else:
                    buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
            p.add_(d_p, alpha=-lr)
