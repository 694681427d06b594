"""Which files are translated and where each goes (no heavy imports: `doit` reads it on
every run)."""
from __future__ import annotations

import fnmatch
import os


def hip_path(rel: str) -> str:
    """csrc/native/cuda/Add_cuda.cu -> csrc/native/hip/Add_hip.hip"""
    parts = rel.split("/")
    out = [p.replace("cuda", "hip").replace("CUDA", "HIP") for p in parts]
    stem, dot, ext = out[-1].rpartition(".")
    if dot and ext == "cu":
        out[-1] = stem + ".hip"
    return "/".join(out)


def select(project: str | os.PathLike, output: str | os.PathLike, includes: list[str], ignores: list[str]) -> list[str]:
    """The files of project (relative POSIX paths, sorted) that an include glob matches, by
    name or by path, and no ignore glob does; an output folder inside project is skipped."""
    files = []
    out_abs = os.path.realpath(output)
    for dirpath, dirnames, filenames in os.walk(project):
        here = os.path.realpath(dirpath)
        if here == out_abs or here.startswith(out_abs + os.sep):
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        prefix = os.path.relpath(dirpath, project).replace(os.sep, "/")
        prefix = "" if prefix == "." else prefix + "/"
        for name in sorted(filenames):
            rel = prefix + name
            if not any(fnmatch.fnmatch(name, g) or fnmatch.fnmatch(rel, g) for g in includes):
                continue
            if any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g) for g in ignores):
                continue
            files.append(rel)
    return files
