"""Where a translated file goes (no heavy imports: `doit` reads it on every run)."""
from __future__ import annotations


def hip_path(rel: str) -> str:
    """csrc/native/cuda/Add_cuda.cu -> csrc/native/hip/Add_hip.hip"""
    parts = rel.split("/")
    out = [p.replace("cuda", "hip").replace("CUDA", "HIP") for p in parts]
    stem, dot, ext = out[-1].rpartition(".")
    if dot and ext == "cu":
        out[-1] = stem + ".hip"
    return "/".join(out)
