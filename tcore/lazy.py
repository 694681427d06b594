"""tcore.lazy: the lazy tensor backend (device "lazy"; tcore/lazy/Lazy.h).

Operators on lazy tensors record an IR graph instead of computing; reading values
(`.to("cpu")`, `.item()`, `.numpy()`, `sync()`) runs the pending graph. A graph is compiled
once per structural hash (operators, attributes, shapes; never data), so the second iteration
of a training loop compiles nothing: call `sync()` once per step, as PyTorch's `mark_step()`.
"""
from __future__ import annotations

from typing import Iterable

from . import _C

__all__ = ["sync", "metrics", "reset_metrics", "ir", "clear_compiled"]


def sync(tensors: Iterable[_C.Tensor] | None = None) -> None:
    """Runs the pending graphs of `tensors` (of every live lazy tensor when None)."""
    _C._lazy_sync(list(tensors) if tensors is not None else [])


def metrics() -> dict:
    """graphs_compiled, cache_hits, syncs, nodes_recorded, nodes_executed, buffers_reused (writes
    that reused their operand's buffer) and eager_fallbacks ({operator: calls}) since the last
    reset_metrics()."""
    return _C._lazy_metrics()


def reset_metrics() -> None:
    _C._lazy_reset_metrics()


def clear_compiled() -> None:
    """Forgets every compiled program (the next sync of each graph compiles it again)."""
    _C._lazy_clear_compiled()


def ir(*tensors: _C.Tensor) -> str:
    """The pending graph of these tensors, one line a node: `%3 = mul.Tensor(%1, %2) : Float[4, 4]`."""
    return _C._lazy_ir(list(tensors))
