"""torch's top-level functions that are not operators (torch/__init__.py, torch/functional.py,
torch/random.py): type queries, the default dtype, finfo/iinfo, broadcast_shapes, the random
state, inference_mode, as_tensor/asarray, print options and a few aliases."""
from __future__ import annotations

import copy
import functools
import inspect
import math

import numpy as np

from . import _C
from ._tensor import PRINT_OPTIONS, numpy_dtype, tensor


def _zero_grads(params, set_to_none: bool) -> None:
    """Module.zero_grad and Optimizer.zero_grad: .grad set to None, or zeroed in place (torch's:
    a reference to .grad held elsewhere sees the zeros; a gradient with history is detached)."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        elif p.grad.grad_fn is not None:
            p.grad = _C.zeros_like(p.grad.detach())
        else:
            p.grad.requires_grad_(False)
            p.grad.zero_()


# ------------------------------------------------------------------ type queries
def is_tensor(obj) -> bool:
    return isinstance(obj, _C.Tensor)


def _tensor_arg(input, name: str) -> _C.Tensor:
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input


def is_floating_point(input) -> bool:
    return _tensor_arg(input, "is_floating_point").dtype.is_floating_point


def is_complex(input) -> bool:
    """Always False: tcore has no complex dtypes."""
    _tensor_arg(input, "is_complex")
    return False


def is_nonzero(input) -> bool:
    t = _tensor_arg(input, "is_nonzero")
    if t.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if t.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(t.item() != 0)


def numel(input) -> int:
    return _tensor_arg(input, "numel").numel()


# ------------------------------------------------------------------ the default dtype
def get_default_dtype() -> _C.dtype:
    """The dtype of Python floats in tensor() and of floating results of integer operands."""
    return _C._get_default_dtype()


def set_default_dtype(d: _C.dtype) -> None:
    """float32 (the default), float64, float16 or bfloat16, process-wide, as torch's."""
    if not isinstance(d, _C.dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C._set_default_dtype(d)


# ------------------------------------------------------------------ finfo, iinfo
def _short(v: float) -> str:
    return f"{v:.6g}"


class finfo:  # noqa: N801 - torch's name
    """The limits of a floating dtype (the default dtype without an argument), as torch.finfo."""

    def __init__(self, type: _C.dtype | None = None) -> None:  # noqa: A002 - torch's keyword
        d = get_default_dtype() if type is None else type
        if not isinstance(d, _C.dtype) or not d.is_floating_point:
            raise TypeError("tcore.finfo() requires a floating point input type. Use tcore.iinfo to handle "
                            "'tcore.finfo'")
        self.dtype = d.name
        if d == _C.dtype.bfloat16:  # (numpy has none: 8 exponent bits, 8 significand bits)
            self.bits, self.eps, self.max = 16, 2.0 ** -7, float((2 - 2.0 ** -7) * 2.0 ** 127)
            self.smallest_normal, self.resolution = 2.0 ** -126, 0.01
        else:
            info = np.finfo(numpy_dtype(d))
            self.bits, self.eps, self.max = info.bits, float(info.eps), float(info.max)
            self.smallest_normal, self.resolution = float(info.smallest_normal), 10.0 ** -int(info.precision)
        self.min, self.tiny = -self.max, self.smallest_normal

    def __repr__(self) -> str:
        return (f"finfo(resolution={_short(self.resolution)}, min={_short(self.min)}, max={_short(self.max)}, "
                f"eps={_short(self.eps)}, smallest_normal={_short(self.smallest_normal)}, "
                f"tiny={_short(self.tiny)}, dtype={self.dtype})")


class iinfo:  # noqa: N801 - torch's name
    """The limits of an integer dtype, as torch.iinfo."""

    def __init__(self, type: _C.dtype) -> None:  # noqa: A002 - torch's keyword
        if not isinstance(type, _C.dtype) or type.is_floating_point or type == _C.dtype.bool:
            raise TypeError("tcore.iinfo() requires an integer input type. Use tcore.finfo to handle 'tcore.iinfo'")
        info = np.iinfo(numpy_dtype(type))
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), type.name

    def __repr__(self) -> str:
        return f"iinfo(min={_short(self.min)}, max={_short(self.max)}, dtype={self.dtype})"


# ------------------------------------------------------------------ shapes
def broadcast_shapes(*shapes) -> tuple:
    """The shape the given shapes broadcast to (each an int or a sequence), with torch's error."""
    result: list[int] = []
    for i, shape in enumerate(shapes):
        dims = [shape] if isinstance(shape, int) else [int(v) for v in shape]
        if len(dims) > len(result):
            result = [1] * (len(dims) - len(result)) + result
        for k in range(1, len(dims) + 1):
            have, size = result[-k], dims[-k]
            if size < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {dims}")
            if have == 1 or have == size:
                result[-k] = size
            elif size != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {-k}! Mismatching "
                                   f"argument at index {i} had {tuple(dims)}; but expected shape should be "
                                   f"broadcastable to {result}")
    return tuple(result)


# ------------------------------------------------------------------ the random state
def get_rng_state() -> _C.Tensor:
    """The default generator's state, a uint8 tensor that set_rng_state takes back."""
    return _C.default_generator.get_state()


def set_rng_state(new_state: _C.Tensor) -> None:
    _C.default_generator.set_state(new_state)


def initial_seed() -> int:
    return _C.default_generator.initial_seed()


def seed() -> int:
    """Seeds the default generator from the operating system's entropy and returns the seed."""
    return _C.default_generator.seed()


# ------------------------------------------------------------------ autograd modes
class _ContextDecorator:
    """A context manager that also decorates a function: each call runs inside a fresh copy of it
    (so recursive and concurrent calls keep their own saved state); a generator function's every
    resumption does, as torch's (its caller's code between resumptions runs outside)."""

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def generator(*args, **kwargs):
                gen = fn(*args, **kwargs)
                send, value = gen.send, None
                while True:
                    try:
                        with copy.copy(self):
                            response = send(value)
                    except StopIteration as stop:
                        return stop.value
                    try:
                        send, value = gen.send, (yield response)
                    except GeneratorExit:
                        with copy.copy(self):
                            gen.close()
                        raise
                    except BaseException as error:  # (thrown into the generator: passed on inside)
                        send, value = gen.throw, error

            return generator

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with copy.copy(self):
                return fn(*args, **kwargs)

        return wrapper


class inference_mode(_ContextDecorator):  # noqa: N801 - torch's name
    """torch.inference_mode as a no_grad (tcore has no inference tensors): nothing inside records
    a graph; mode=False leaves grad mode as it is. A context manager and a decorator."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self._previous: list[bool] = []

    def __enter__(self) -> None:
        from . import autograd

        self._previous.append(autograd.is_grad_enabled())
        if self.mode:
            autograd.set_grad_enabled(False)

    def __exit__(self, *exc) -> None:
        from . import autograd

        autograd.set_grad_enabled(self._previous.pop())


def is_inference_mode_enabled() -> bool:
    """False: tcore's inference_mode is grad mode off, not a mode of its own."""
    return False


# ------------------------------------------------------------------ construction
def as_tensor(data, dtype: _C.dtype | None = None, device=None) -> _C.Tensor:
    """data as a tensor, sharing memory where it can: a tensor as it is (or converted), a numpy
    array through from_numpy; anything else copied, as torch.as_tensor."""
    if isinstance(data, _C.Tensor):
        return data.to(device=device, dtype=dtype) if (device is not None or dtype is not None) else data
    if isinstance(data, np.ndarray) and data.dtype in (np.float64, np.float32, np.float16, np.int64, np.int32,
                                                       np.int16, np.int8, np.uint8, np.bool_):
        t = _C.from_numpy(data if data.flags.writeable else data.copy())
    else:
        t = tensor(data, dtype=dtype)
    if dtype is not None and t.dtype != dtype:
        t = t.to(dtype)
    return t.to(device) if device is not None else t


def asarray(obj, *, dtype: _C.dtype | None = None, device=None, copy: bool | None = None,
            requires_grad: bool = False) -> _C.Tensor:
    """torch.asarray: as_tensor, a copy with copy=True; copy=False refuses to copy."""
    t = as_tensor(obj, dtype, device)
    shares = t is obj or (isinstance(obj, np.ndarray) and isinstance(t, _C.Tensor) and t.dtype.name == obj.dtype.name
                          and t.device.type == "cpu")
    if copy is False and not shares:
        raise ValueError("Can't alias the given object: it needs a copy (dtype, device or type) and copy=False")
    if copy:
        t = t.clone() if shares or t is obj else t
    return t.requires_grad_(True) if requires_grad else t


def detach(input: _C.Tensor) -> _C.Tensor:
    return input.detach()


def rsub(input: _C.Tensor, other, alpha=1) -> _C.Tensor:
    """other - alpha * input (a number other promotes as a 0-dim tensor)."""
    return _C.sub(other if isinstance(other, _C.Tensor) else tensor(other), input, alpha=alpha)


# ------------------------------------------------------------------ printing
_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """torch.set_printoptions: a profile ('default', 'short', 'full') and the named overrides."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Unknown profile {profile!r}: 'default', 'short' or 'full'")
        PRINT_OPTIONS.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            PRINT_OPTIONS[name] = value
    PRINT_OPTIONS["sci_mode"] = sci_mode


def get_printoptions() -> dict:
    return dict(PRINT_OPTIONS)


_SETTINGS = {"float32_matmul_precision": "highest", "deterministic": False, "deterministic_warn_only": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded only: tcore's float32 matmuls always run in full float32 ("highest"), which
    is at least as precise as what "high" and "medium" allow."""
    if precision not in ("highest", "high", "medium"):
        import warnings
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _SETTINGS["float32_matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _SETTINGS["float32_matmul_precision"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded: tcore's CPU kernels give the same results run after run (they reduce in a
    fixed order), so no operator needs refusing."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _SETTINGS["deterministic"], _SETTINGS["deterministic_warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _SETTINGS["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _SETTINGS["deterministic_warn_only"]


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None, options=None,  # noqa: A001
            disable: bool = False):
    """torch.compile's signature; tcore does not compile: the model or function is returned as
    it is (the same results, eager speed). Also a decorator, with or without arguments."""
    if model is None:
        return lambda m: m
    if not callable(model):
        raise RuntimeError("model must be a callable (a Module or a function)")
    return model


def install(namespace: dict) -> None:
    for name in ("is_tensor", "is_floating_point", "is_complex", "is_nonzero", "numel", "get_default_dtype",
                 "set_default_dtype", "finfo", "iinfo", "broadcast_shapes", "get_rng_state", "set_rng_state",
                 "initial_seed", "seed", "inference_mode", "is_inference_mode_enabled", "as_tensor", "asarray",
                 "detach", "rsub", "set_printoptions", "get_printoptions", "set_float32_matmul_precision",
                 "get_float32_matmul_precision", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
                 "is_deterministic_algorithms_warn_only_enabled", "compile"):
        namespace[name] = globals()[name]
    # torch's aliases
    for alias, name in (("concat", "cat"), ("concatenate", "cat"), ("row_stack", "vstack")):
        if name in namespace:
            namespace[alias] = namespace[name]
