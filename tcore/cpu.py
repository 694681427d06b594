"""tcore.cpu: the CPU allocator's cache (freed blocks kept by size class and reused, large
blocks on transparent huge pages; TCORE_CPU_CACHE_MB bounds it, default 1024)."""
from __future__ import annotations

from . import _C

__all__ = ["empty_cache", "memory_stats"]


def empty_cache() -> None:
    """Gives every cached (freed) block back to the system."""
    _C._cpu_empty_cache()


def memory_stats() -> dict:
    """allocated_bytes, cached_bytes, cache_hits, cache_misses, cache_limit_bytes."""
    return dict(_C._cpu_allocator_stats())


def __getattr__(name: str):
    if name == "amp":  # torch.cpu.amp's deprecated spellings (tcore.amp)
        from .amp import _legacy
        return _legacy("cpu")
    raise AttributeError(f"module 'tcore.cpu' has no attribute '{name}'")
