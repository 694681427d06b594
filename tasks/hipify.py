"""doit hipify: CUDA sources of csrc/ translated to HIP, one sub-task per file."""
from __future__ import annotations

from .config import Paths


def cuda_sources(p: Paths) -> list:
    return sorted(x for ext in ("*.cu", "*.cuh") for x in (p.root / "csrc").rglob(ext))


def task_hipify(p: Paths):
    """Translate the CUDA sources of csrc/ to HIP (out of place)."""
    sources = cuda_sources(p)
    if not sources:
        yield {"name": None, "actions": [lambda: print("hipify: no CUDA sources under csrc/") or True],
               "uptodate": [True], "verbosity": 2}
        return
    yield {"name": None, "actions": None}  # the translator comes with the CUDA backend
