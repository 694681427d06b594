"""tcore.amp: torch.amp's autocast and GradScaler.

autocast(device_type, dtype=None, enabled=True, cache_enabled=None): inside the block, the
operators of torch's CPU autocast lists cast their floating arguments (float64 left) first: matmul,
linear, convolutions... to the autocast dtype (bfloat16 unless given), losses, linear algebra,
3-d pooling... to float32, cat/stack/index_copy to the widest among them; other operators run on
what they get. The lists are torch 2.13's (codegen/autocast.py for the C++ operators, the
_autocast decorator below for the functionals tcore writes in Python). The state is per thread and
also governs a backward run inside the block, as torch's. Autocast for CUDA tensors (torch's other
lists) is not implemented: enabled while CUDA is available it raises NotImplementedError; without
CUDA it warns and stays off, as torch's.

GradScaler: loss scaling: the loss multiplied by a scale, the gradients divided back before the
step, a step with an inf or NaN gradient skipped and the scale backed off, grown after
growth_interval clean steps."""
from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Iterable

from . import _C
from ._utilities import _ContextDecorator

__all__ = ["GradScaler", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]

Tensor = _C.Tensor
_DEVICE_TYPES = ("cpu", "cuda")
_POLICIES = {"LowerPrecision": 0, "Float32": 1, "Promote": 2}  # (csrc/include/tcore/core/Autocast.h's order)


def is_autocast_available(device_type: str) -> bool:
    return device_type in _DEVICE_TYPES


def _device_type(device_type) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    return _C._autocast_is_enabled(_device_type(device_type))


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    if not isinstance(enabled, bool):  # (torch's error, which autocast(enabled=1) meets entering)
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not "
                        f"{type(enabled).__name__}")
    _C._autocast_set_enabled(_device_type(device_type), enabled)


def get_autocast_dtype(device_type: str):
    return _C._autocast_dtype(_device_type(device_type))


def set_autocast_dtype(device_type: str, dtype) -> None:
    _C._autocast_set_dtype(_device_type(device_type), dtype)


def is_autocast_cpu_enabled() -> bool:
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    return get_autocast_dtype("cuda")


is_autocast_cache_enabled = _C._autocast_is_cache_enabled
set_autocast_cache_enabled = _C._autocast_set_cache_enabled
clear_autocast_cache = _C._autocast_clear_cache
autocast_increment_nesting = _C._autocast_increment_nesting
autocast_decrement_nesting = _C._autocast_decrement_nesting


class autocast(_ContextDecorator):  # noqa: N801 - torch's name
    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None) -> None:
        self.device = _device_type(device_type)
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled and self.device == "cuda":
            from . import cuda
            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                enabled = False
            else:
                raise NotImplementedError("tcore implements CPU autocast only (torch's CUDA autocast lists are not "
                                          "implemented): use autocast('cpu') or enabled=False")
        elif enabled and self.fast_dtype not in (_C.dtype.bfloat16, _C.dtype.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.", stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc) -> bool:
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False


def _autocast(policy):
    """Marks a functional of torch's autocast lists written in Python (the C++ operators' policies
    are codegen/autocast.py's): under autocast its tensor arguments (and those in list or tuple
    arguments) are cast by the policy, then it runs below autocast (what it calls is not cast).
    policy: "LowerPrecision", "Float32" or "Promote" (torch's), or "Below": no cast, only the run
    below autocast, for a functional torch runs as one kernel outside its lists where tcore's
    composes operators autocast would cast (a cat of float16 pieces under bfloat16 autocast would
    raise, a product would be cast); or a function of the call's arguments (by parameter name,
    defaults applied) choosing one of those, or None to run the call as if undecorated (for a
    functional torch dispatches by its arguments: max_pool3d's return_indices, the pad mode)."""
    choose = policy if callable(policy) else None
    if choose is None and policy not in _POLICIES and policy != "Below":
        raise ValueError(f"unknown autocast policy {policy!r}")

    def wrap(fn):
        signature = inspect.signature(fn) if choose is not None else None

        @functools.wraps(fn)
        def cast_then_call(*args, **kwargs):
            if not _C._autocast_active():
                return fn(*args, **kwargs)
            chosen = policy
            if choose is not None:
                try:
                    bound = signature.bind(*args, **kwargs)
                except TypeError:
                    return fn(*args, **kwargs)  # (fn's own error)
                bound.apply_defaults()
                chosen = choose(bound.arguments)
                if chosen is None:
                    return fn(*args, **kwargs)
            if chosen != "Below":
                args, kwargs = _cast_arguments(_POLICIES[chosen], args, kwargs)
            below = _C._autocast_set_below(True)
            try:
                return fn(*args, **kwargs)
            finally:
                _C._autocast_set_below(below)

        return cast_then_call

    return wrap


def _cast_arguments(code: int, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    values = list(args) + list(kwargs.values())
    found = [t for v in values for t in (v if isinstance(v, (list, tuple)) else (v,)) if isinstance(t, Tensor)]
    cast = iter(_C._autocast_cast(code, found))

    def swap(v):
        if isinstance(v, Tensor):
            return next(cast)
        if isinstance(v, (list, tuple)) and any(isinstance(t, Tensor) for t in v):
            return type(v)(next(cast) if isinstance(t, Tensor) else t for t in v)
        return v

    values = [swap(v) for v in values]
    return tuple(values[:len(args)]), dict(zip(kwargs, values[len(args):]))


def _cast(value, device_type: str, dtype):
    """custom_fwd's cast: floating tensors on device_type (float64 left) to dtype, through
    containers (strings and arrays passed as they are)."""
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != _C.dtype.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)) or type(value).__module__ == "numpy":
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """For a custom Function's forward: records the autocast state for custom_bwd; with
    cast_inputs, under autocast its floating inputs are cast to it and it runs without autocast."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """For a custom Function's backward: runs under the autocast state its forward ran under."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd


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
        """outputs (a tensor, or tensors in lists/tuples; another iterable gives a lazy map, as torch's)
        times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._lazy_scale().to(outputs.device)
        if isinstance(outputs, Iterable):
            scaled = map(self.scale, outputs)
            return type(outputs)(scaled) if isinstance(outputs, (list, tuple)) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _check_scale(self, funcname: str) -> Tensor:
        """The scale, which scale() creates: torch's error when a step or update comes first."""
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")
        return self._scale

    def _state(self, optimizer) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": "ready", "found_inf": False})

    def unscale_(self, optimizer) -> None:
        """The optimizer's gradients divided by the scale (once per step), noting inf/NaN."""
        if not self._enabled:
            return
        scale = self._check_scale("unscale_").item()
        state = self._state(optimizer)
        if state["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / scale if scale != 0 else math.inf  # (torch's float32 reciprocal of a zero scale)
        found = False
        from .autograd import no_grad
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype == _C.dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
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
        self._check_scale("step")
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
        scale = self._check_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.device.type != scale.device.type or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                         "torch.FloatTensor with requires_grad=False.")
                new_scale = new_scale.item()
            scale.fill_(float(new_scale))
        else:
            if not self._per_optimizer:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(s["found_inf"] for s in self._per_optimizer.values()):
                scale.mul_(self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    grown = scale * self._growth_factor  # (kept only if finite, as torch's)
                    if bool(_C.isfinite(grown)):
                        scale.copy_(grown)
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


def _legacy(device_type: str):
    """torch.cpu.amp / torch.cuda.amp: the deprecated spellings of autocast and GradScaler (and, for
    cuda, custom_fwd/custom_bwd) for one device type, each call warning as torch's."""
    import types

    def deprecated(what: str, new: str) -> None:
        warnings.warn(f"`torch.{device_type}.amp.{what}(args...)` is deprecated. Please use `{new}` instead.",
                      FutureWarning, stacklevel=3)

    def legacy_autocast(enabled: bool = True, dtype=None, cache_enabled: bool = True) -> autocast:
        deprecated("autocast", f"torch.amp.autocast('{device_type}', args...)")
        return autocast(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    def legacy_scaler(*args, **kwargs) -> GradScaler:
        deprecated("GradScaler", f"torch.amp.GradScaler('{device_type}', args...)")
        return GradScaler(device_type, *args, **kwargs)

    names = dict(autocast=legacy_autocast, GradScaler=legacy_scaler)
    if device_type == "cuda":
        names.update(custom_fwd=functools.partial(custom_fwd, device_type="cuda"),
                     custom_bwd=functools.partial(custom_bwd, device_type="cuda"))
    return types.SimpleNamespace(**names)
