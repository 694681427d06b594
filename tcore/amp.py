"""tcore.amp: torch.amp's GradScaler (loss scaling: the loss multiplied by a scale, the
gradients divided back before the step, a step with an inf or NaN gradient skipped and the scale
backed off, grown after growth_interval clean steps) and autocast.

autocast runs its block as it is when disabled (autocast(..., enabled=False), the common
"mixed precision off" switch); enabled, it raises NotImplementedError: tcore does not cast
operators to lower precision behind the caller's back, and silently running in full precision
would give other dtypes than torch's."""
from __future__ import annotations

import functools
import warnings

from . import _C

__all__ = ["GradScaler", "autocast", "is_autocast_available"]

Tensor = _C.Tensor


def is_autocast_available(device_type: str) -> bool:
    return False


class autocast:  # noqa: N801 - torch's name
    def __init__(self, device_type: str = "cuda", dtype=None, enabled: bool = True, cache_enabled=None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device_type, self.fast_dtype, self.enabled = device_type, dtype, enabled

    def __enter__(self):
        if self.enabled:
            raise NotImplementedError("tcore has no automatic mixed precision: autocast(enabled=True) would not cast "
                                      "anything. Run in one dtype (model.to(tcore.bfloat16) and bfloat16 inputs), or "
                                      "pass enabled=False")
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self.enabled):
                return fn(*args, **kwargs)

        return wrapper


class GradScaler:
    """torch.amp.GradScaler: scale(loss).backward(); scaler.step(optimizer); scaler.update()."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        if enabled and device == "cuda":
            from . import cuda
            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled
        if enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale, self._growth_factor, self._backoff_factor = init_scale, growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._scale: Tensor | None = None
        self._growth_tracker = 0
        self._per_optimizer: dict[int, dict] = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def _lazy_scale(self) -> Tensor:
        if self._scale is None:
            self._scale = _C.full([], self._init_scale, dtype=_C.dtype.float32)
        return self._scale

    def scale(self, outputs):
        """outputs (a tensor, or tensors in lists/tuples) times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._lazy_scale().to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": "ready", "found_inf": False})

    def unscale_(self, optimizer) -> None:
        """The optimizer's gradients divided by the scale (once per step), noting inf/NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._lazy_scale().item()
        found = False
        from .autograd import no_grad
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if not found and not bool(_C.isfinite(p.grad).all()):
                        found = True
                    p.grad.mul_(inv)
        state.update(stage="unscaled", found_inf=found)

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(...) unless a gradient was inf or NaN (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] == "stepped":
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == "ready":
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = "stepped"
        return result

    def update(self, new_scale=None) -> None:
        """The scale for the next iteration: new_scale if given, else backed off after an inf or
        NaN gradient, grown after growth_interval clean steps."""
        if not self._enabled:
            return
        scale = self._lazy_scale()
        if new_scale is not None:
            scale.fill_(new_scale.item() if isinstance(new_scale, Tensor) else float(new_scale))
        else:
            if not self._per_optimizer:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(s["found_inf"] for s in self._per_optimizer.values()):
                scale.mul_(self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    scale.mul_(self._growth_factor)
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._lazy_scale().fill_(state_dict["scale"])
        self._growth_factor, self._backoff_factor = state_dict["growth_factor"], state_dict["backoff_factor"]
        self._growth_interval, self._growth_tracker = state_dict["growth_interval"], state_dict["_growth_tracker"]
