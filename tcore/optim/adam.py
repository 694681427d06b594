"""Adam and AdamW (decoupled weight decay), with amsgrad and maximize, as torch.optim.

The update is torch's single-tensor one, operator for operator (lerp_, addcmul_, addcdiv_), so a
run matches torch's default (foreach/fused unset on the CPU) but for the last bits of sqrt.
fused=True runs tcore's one-pass kernel (native/cpu/FusedOptim.cpp) instead, for contiguous
float32/float64 parameters without amsgrad: faster, not the same roundings (as torch's own
fused=True is not)."""
from __future__ import annotations

from .. import _C
from .optimizer import Optimizer, Tensor, _check_fused, _check_lr, _check_nonnegative, _check_unsupported, \
    _scalar_state, _to_scalar, _weight_decay

_FUSED = (_C.dtype.float32, _C.dtype.float64)  # one pass per parameter (native/cpu/FusedOptim.cpp)


def _check(eps, betas, weight_decay) -> None:
    """The Adam family's checks after lr's, in torch's order: eps, betas[0], betas[1], weight_decay."""
    _check_nonnegative((eps, "epsilon value"))
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    _check_nonnegative((weight_decay, "weight_decay value"))


def _new_state(p, group) -> dict:
    # a fused step keeps 'step' in float32, as torch's
    step = _C.zeros([], dtype=_C.dtype.float32) if group["fused"] else _scalar_state(0.0)
    state = {"step": step, "exp_avg": _C.zeros_like(p), "exp_avg_sq": _C.zeros_like(p)}
    if group["amsgrad"]:
        state["max_exp_avg_sq"] = _C.zeros_like(p)
    return state


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        _check_lr(lr)
        _check(eps, betas, weight_decay)
        if not (all(isinstance(b, float) for b in betas[:2]) or all(isinstance(b, Tensor) for b in betas[:2])):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, b in enumerate(betas[:2]):
            if isinstance(b, Tensor) and b.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
        _check_unsupported(differentiable, capturable)
        super().__init__(params, dict(lr=lr, betas=tuple(map(_to_scalar, betas)), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))
        _check_fused(fused, foreach, differentiable)

    def _step_group(self, group) -> None:
        lr, (beta1, beta2), eps, wd = _to_scalar(group["lr"]), group["betas"], group["eps"], group["weight_decay"]
        decoupled = group["decoupled_weight_decay"]
        for p, grad, state in self._grads(group, _new_state):
            step = state["step"].item()
            if (group["fused"] and not group["amsgrad"] and p.device.type == "cpu" and p.dtype in _FUSED
                    and p.is_contiguous() and p.grad.dtype == p.dtype):
                # the kernel reads p.grad and applies maximize itself
                _C._fused_adam_(p, p.grad.contiguous(), state["exp_avg"], state["exp_avg_sq"], lr, beta1, beta2, eps,
                                wd, step, decoupled, group["maximize"])
                continue
            grad = _weight_decay(p, grad, wd, lr, decoupled)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            step_size = lr / (1 - beta1 ** step)
            bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
            second = exp_avg_sq
            if group["amsgrad"]:
                second = _C.maximum(state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"])
            denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
            p.addcdiv_(exp_avg, denom, value=-step_size)


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
