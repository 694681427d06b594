"""tcore: a tensor core built from operator schemas (see README.md).

Every operator comes from csrc/native/native_functions.yaml through generated
nanobind bindings in tcore._C; this module adds the Python-only conveniences
(tensor(), operators, repr) on top.
"""
from __future__ import annotations

try:
    from . import _C
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        f"tcore's native extension is not built ({e}). Run `doit` in the repository root first."
    ) from e

from . import _arguments, _functions, _python_modules, _utilities, errors
from ._size import Size
from ._tensor import install as _install
from ._tensor import tensor

_C._set_size_class(Size)  # (what Tensor.shape and Tensor.size() return)

__version__ = _C.__version__
_C._get_cpu_capability()  # a bad TCORE_CPU_CAPABILITY is a RuntimeError here, not later
Tensor = _C.Tensor
dtype = _C.dtype
device = _C.device
layout = _C.layout
memory_format = _C.memory_format
from_numpy = _C.from_numpy


def from_dlpack(obj) -> Tensor:
    """A tensor sharing the memory of any DLPack producer on the CPU (numpy, torch, ...)."""
    import numpy as _np

    return from_numpy(_np.from_dlpack(obj))


bool = _C.dtype.bool  # noqa: A001 - PyTorch's names
uint8 = _C.dtype.uint8
int8 = _C.dtype.int8
int16 = short = _C.dtype.int16
int32 = int = _C.dtype.int32  # noqa: A001
int64 = long = _C.dtype.int64
float32 = float = _C.dtype.float32  # noqa: A001
float64 = double = _C.dtype.float64
float16 = half = _C.dtype.float16
bfloat16 = _C.dtype.bfloat16
strided = _C.layout.strided
contiguous_format = _C.memory_format.contiguous_format
preserve_format = _C.memory_format.preserve_format
channels_last = _C.memory_format.channels_last

_arguments.install()  # one-line errors for arguments of the wrong type
_install(globals())
_functions.install(globals())
_python_modules.install(globals())  # tcore.linalg, tcore.special... (python_module: entries)
_utilities.install(globals())  # is_tensor, finfo, set_default_dtype, get_rng_state, inference_mode...

from . import backends  # noqa: E402 - torch.backends' counterpart (the CPU capability)
from . import cpu  # noqa: E402 - the CPU allocator's cache
from . import cuda  # noqa: E402 - the CUDA backend's runtime
from . import jit  # noqa: E402 - the IR interpreter
from . import lazy  # noqa: E402 - the lazy tensor backend (device "lazy")
from .ops import ops  # noqa: E402 - the boxed path (generated unboxing)

if _C._has_autograd:
    from . import autograd
    from .autograd import (enable_grad, is_anomaly_check_nan_enabled, is_anomaly_enabled, is_grad_enabled, no_grad,
                           set_grad_enabled)

from . import amp, func, nn, optim, utils  # noqa: E402 - the torch-shaped Python API (docs/torch_api.md)
from .amp import (  # noqa: E402
    autocast, autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache, get_autocast_cpu_dtype,
    get_autocast_dtype, get_autocast_gpu_dtype, is_autocast_cache_enabled, is_autocast_cpu_enabled,
    is_autocast_enabled, set_autocast_cache_enabled, set_autocast_dtype, set_autocast_enabled)
from .serialization import load, save  # noqa: E402 - safetensors files

from .nn import functional as _functional  # noqa: E402

# torch's top-level spellings of nn.functional's (the same arguments, in the same order)
for _name in ("conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "pixel_shuffle",
              "pixel_unshuffle", "channel_shuffle", "cosine_similarity", "pairwise_distance", "celu", "selu", "prelu",
              "rrelu", "hardshrink", "rms_norm", "bilinear", "alpha_dropout", "feature_alpha_dropout", "avg_pool1d"):
    if _name not in globals() and hasattr(_functional, _name):
        globals()[_name] = getattr(_functional, _name)

__all__ = sorted(name for name in globals() if not name.startswith("_"))


_UNSELECTED = {name.split(".")[0] for name in _C._unselected_operators()}


def __getattr__(name: str):
    if name == "distributions":  # (imported on first use: 4000 lines most programs never touch)
        import importlib
        return importlib.import_module(".distributions", __name__)
    if name in _UNSELECTED:
        raise AttributeError(f"tcore.{name} is not built in this selective build (TCORE_SELECTED_OP_LIST_PATH)")
    raise AttributeError(f"module 'tcore' has no attribute {name!r}")
