"""The CUDA (or ROCm) backend from Python, as torch.cuda: whether it is built and usable, devices,
streams, synchronization and the caching allocator's figures. Tensors move with
`t.cuda()`, `t.to("cuda")`, `t.cpu()` and `device=` on the factories."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

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


class Stream:
    """A CUDA stream of one's own (as torch.cuda.Stream): the kernels and copies queued while
    it is current (`with tcore.cuda.stream(s):`) run on it in order, concurrently with the
    work of other streams. Memory freed while another stream still reads it is not held back
    (no record_stream): synchronize before dropping a tensor that another stream uses."""

    def __init__(self, device: int = -1, *, _handle: int | None = None):
        self.device = device if device >= 0 else current_device()
        self._owned = _handle is None
        self._handle = _C._cuda_create_stream(self.device) if _handle is None else _handle

    @property
    def cuda_stream(self) -> int:
        """The cudaStream_t handle as an integer (0: the default stream)."""
        return self._handle

    def query(self) -> bool:
        """Whether all the work queued on the stream has finished."""
        return _C._cuda_stream_query(self._handle)

    def synchronize(self) -> None:
        """Waits for the work queued on the stream."""
        _C._cuda_stream_synchronize(self._handle)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and (self.device, self._handle) == (other.device, other._handle)

    def __hash__(self) -> int:
        return hash((self.device, self._handle))

    def __repr__(self) -> str:
        return f"<tcore.cuda.Stream device=cuda:{self.device} cuda_stream={self._handle:#x}>"

    def __del__(self) -> None:
        if getattr(self, "_owned", False) and self._handle:
            if _C._cuda_current_stream(self.device) == self._handle:  # never leave a dangling current stream
                _C._cuda_set_current_stream(0, self.device)
            _C._cuda_destroy_stream(self._handle)


def current_stream(device: int = -1) -> Stream:
    """The calling thread's current stream on `device` (the default stream unless changed)."""
    d = device if device >= 0 else current_device()
    return Stream(d, _handle=_C._cuda_current_stream(d))


def default_stream(device: int = -1) -> Stream:
    return Stream(device, _handle=0)


@contextlib.contextmanager
def stream(s: Stream | None) -> Iterator[Stream | None]:
    """Makes `s` the current stream of its device for the block (None: no change), as
    torch.cuda.stream; the previous stream is current again after it."""
    if s is None:
        yield None
        return
    previous = _C._cuda_current_stream(s.device)
    _C._cuda_set_current_stream(s.cuda_stream, s.device)
    try:
        yield s
    finally:
        _C._cuda_set_current_stream(previous, s.device)


def __getattr__(name: str):
    if name == "amp":  # torch.cuda.amp's deprecated spellings (tcore.amp)
        from .amp import _legacy
        return _legacy("cuda")
    raise AttributeError(f"module 'tcore.cuda' has no attribute '{name}'")
