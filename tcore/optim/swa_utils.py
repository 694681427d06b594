"""Stochastic Weight Averaging and EMA with torch.optim.swa_utils' semantics: AveragedModel (a deep copy
of a module whose parameters, and with use_buffers its buffers, are running averages of another
module's; the first update_parameters copies), the averaging functions get_swa_avg_fn / get_ema_avg_fn
(one tensor at a time) and get_swa_multi_avg_fn / get_ema_multi_avg_fn (lists, in place), update_bn
(recomputes BatchNorm running statistics with one pass over a loader) and the SWALR scheduler
(anneals each group's lr to its swa_lr over anneal_epochs, "cos" or "linear", then holds it).

As torch's on the CPU, AveragedModel's default average is get_swa_avg_fn's, tensor by tensor; the
multi-tensor functions interpolate with lerp_, SWA's weight 1 / (n + 1) computed as a tensor in the
default dtype when n is one (as torch's, so the values agree bit for bit)."""
from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .. import _C
from ..autograd import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm, _InstanceNorm
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer, Tensor

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]

# torch runs the multi-tensor SWA average (lerp_) by default on the devices with foreach kernels
_FOREACH_DEVICE_TYPES = ("cuda", "xpu")


def _floating_or_complex(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """fn(ema_params, model_params, n) moving each EMA tensor in place towards the model's:
    ema = decay * ema + (1 - decay) * model (a lerp_ with weight 1 - decay for floating tensors)."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _) -> None:
        with no_grad():
            if _floating_or_complex(ema_param_list[0]):
                for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                    p_ema.lerp_(p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """fn(averaged_params, model_params, n) updating the equal-weight average of n models in place
    with the (n + 1)-th."""

    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        with no_grad():
            if _floating_or_complex(averaged_param_list[0]):
                weight = 1 / (num_averaged + 1)  # a tensor in the default dtype when n is one, as torch's
                weight = float(weight.item()) if isinstance(weight, Tensor) else weight
                for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                    p_avg.lerp_(p_model, weight)
                return
            diffs = [p_model - p_avg for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True)]
            for p_avg, diff in zip(averaged_param_list, diffs, strict=True):
                if isinstance(num_averaged, Tensor):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """fn(ema_param, model_param, n) -> decay * ema_param + (1 - decay) * model_param."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """fn(averaged_param, model_param, n) -> the equal-weight average of n models and this one."""

    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _device_of(t: Tensor):
    return t.device


class AveragedModel(Module):
    """A deep copy of `model` (moved to `device` if given) holding running averages of another module's
    parameters (and buffers with use_buffers=True), updated by update_parameters(model); `n_averaged`
    (an int64 buffer) counts the models averaged. avg_fn(avg, model, n) returns one new tensor;
    multi_avg_fn(avgs, models, n) updates lists in place; neither: the equal-weight (SWA) average.
    Without use_buffers the buffers are copied from the model at each update. forward calls the copy."""

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _C.zeros([], dtype=_C.dtype.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        if self.use_buffers:
            self_tensors = itertools.chain(self.module.parameters(), self.module.buffers())
            model_tensors = itertools.chain(model.parameters(), model.buffers())
        else:
            self_tensors, model_tensors = self.parameters(), model.parameters()
        averaged, current = [], []
        copy_param = bool(self.n_averaged == 0)
        with no_grad():
            for p_averaged, p_model in zip(self_tensors, model_tensors):
                p_model_ = p_model.detach().to(_device_of(p_averaged))
                averaged.append(p_averaged.detach())
                current.append(p_model_)
                if copy_param:
                    p_averaged.detach().copy_(p_model_)

            if self.n_averaged > 0:
                if self.multi_avg_fn is not None or self.avg_fn is None:
                    groups: dict = {}
                    for p_averaged, p_model in zip(averaged, current, strict=True):
                        key = (str(_device_of(p_averaged)), p_averaged.dtype)
                        groups.setdefault(key, ([], [], _device_of(p_averaged)))
                        groups[key][0].append(p_averaged)
                        groups[key][1].append(p_model)
                    for self_params, model_params, device in groups.values():
                        n_averaged = self.n_averaged.to(device)
                        if self.multi_avg_fn:
                            self.multi_avg_fn(self_params, model_params, n_averaged)
                        elif device is not None and device.type in _FOREACH_DEVICE_TYPES:
                            get_swa_multi_avg_fn()(self_params, model_params, n_averaged)
                        else:
                            avg_fn = get_swa_avg_fn()
                            for p_averaged, p_model in zip(self_params, model_params, strict=True):
                                p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))
                else:
                    for p_averaged, p_model in zip(averaged, current, strict=True):
                        n_averaged = self.n_averaged.to(_device_of(p_averaged))
                        p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, n_averaged))

            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_swa.detach().copy_(b_model.detach().to(_device_of(b_swa)))
            self.n_averaged += 1


def update_bn(loader, model: Module, device=None) -> None:
    """One pass over `loader` in train mode recomputing every BatchNorm layer's running_mean and
    running_var from zero (momentum None: a cumulative average); each batch is a tensor or a
    list/tuple whose first item is the input (moved to `device` if given). The layers' momenta
    and the model's train/eval mode are restored; a model without BatchNorm is left untouched."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each param group's lr from its value when the scheduler starts to its swa_lr (one value
    or one per group, kept as group["swa_lr"]) over anneal_epochs steps, by cosine ("cos") or linear
    ("linear") interpolation, then keeps it at swa_lr."""

    def __init__(self, optimizer: Optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1) -> None:
        swa_lrs = _per_group("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        # the lr the schedule started from, recovered from the current one and the previous step's alpha
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        """Every attribute but the optimizer and anneal_func."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
