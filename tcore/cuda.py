"""The CUDA (or ROCm) backend from Python, as torch.cuda: whether it is built and usable, devices,
synchronization and the caching allocator's figures. Tensors move with
`t.cuda()`, `t.to("cuda")`, `t.cpu()` and `device=` on the factories."""
from __future__ import annotations

from . import _C


def is_built() -> bool:
    """The library was compiled with a GPU backend: CUDA (nvcc at configure time) or ROCm,
    which masquerades as CUDA as in PyTorch (hipcc; the device is still "cuda")."""
    return _C._cuda_is_built()


def runtime() -> str:
    """The GPU runtime compiled in: "CUDA 13.0", "HIP 5.2", or "" without a GPU backend."""
    return _C._cuda_runtime()


def is_available() -> bool:
    """A CUDA device can be used: built with CUDA, a driver loaded, a GPU visible."""
    return _C._cuda_is_available()


def unavailable_reason() -> str:
    """Why is_available() is False, in words ('' when it is True)."""
    return _C._cuda_unavailable_reason()


def device_count() -> int:
    return _C._cuda_device_count()


def current_device() -> int:
    return _C._cuda_current_device()


def set_device(device: int) -> None:
    _C._cuda_set_device(device)


def synchronize(device: int = -1) -> None:
    """Waits for the work queued on the current stream of `device` (the current one by default)."""
    _C._cuda_synchronize(device)


def memory_allocated(device: int = -1) -> int:
    """Bytes held by live tensors on `device`."""
    return _C._cuda_memory_allocated(device)


def memory_reserved(device: int = -1) -> int:
    """Bytes the caching allocator holds from the driver on `device` (cached blocks included)."""
    return _C._cuda_memory_reserved(device)


def empty_cache() -> None:
    """Returns the cached, unused blocks to the driver."""
    _C._cuda_empty_cache()
