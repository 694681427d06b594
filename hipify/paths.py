"""Which files are translated and where each goes (no heavy imports: `doit` reads it on
every run)."""
from __future__ import annotations

import fnmatch
import os
import re


def hip_path(rel: str, keep_names: bool = False) -> str:
    """csrc/native/cuda/Add_cuda.cu -> csrc/native/hip/Add_hip.hip (keep_names: rel itself)"""
    if keep_names:
        return rel
    parts = rel.split("/")
    out = [p.replace("cuda", "hip").replace("CUDA", "HIP") for p in parts]
    stem, dot, ext = out[-1].rpartition(".")
    if dot and ext == "cu":
        out[-1] = stem + ".hip"
    return "/".join(out)


def inside(path: str, folder: str) -> bool:
    """path is folder or below it (both real, absolute paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def select(project: str | os.PathLike, output: str | os.PathLike, includes: list[str], ignores: list[str],
           skipped: list[str] | None = None) -> list[str]:
    """The regular files of project (relative POSIX paths, sorted) that an include glob matches,
    by name or by path, and no ignore glob does; an output folder inside project, hidden
    folders and symbolic links to folders are not entered. skipped collects the matching
    entries that are not regular files (FIFOs, sockets, devices, broken links): they are
    never opened."""
    files = []
    include, ignore = _globs(includes), _globs(ignores)
    try:
        out_st = os.stat(output)
        out_id = (out_st.st_dev, out_st.st_ino)
    except OSError:
        out_id = None
    stack = [(os.fspath(project), "")]
    while stack:
        folder, prefix = stack.pop()
        if out_id is not None:
            try:
                st = os.stat(folder)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == out_id:
                continue
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file()
            except OSError:
                is_dir = is_file = False
            if is_dir:
                if not entry.name.startswith("."):
                    subdirs.append((entry.path, rel + "/"))
                continue
            name = entry.name
            if not (include(name) or include(rel)) or ignore(rel) or ignore(name):
                continue
            if is_file:
                files.append(rel)
            elif skipped is not None:
                skipped.append(rel)
        stack.extend(reversed(subdirs))
    return sorted(files)


def _globs(globs: list[str]):
    """One compiled matcher for a list of fnmatch globs (case-sensitive, as on POSIX)."""
    if not globs:
        return lambda name: False
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)).match
