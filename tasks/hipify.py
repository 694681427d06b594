"""doit hipify: the CUDA sources of csrc/ translated to HIP under generated/hip/, one
sub-task per file. Editing one .cu re-translates that file alone; a file whose
translation does not change is not rewritten."""
from __future__ import annotations

import os
from pathlib import Path

from . import progress
from .config import LIVE_OUTPUT, Paths

HIPIFY_DIR = Path(__file__).resolve().parent.parent / "hipify"


# The files of csrc/ that make the GPU backend: the kernels (.cu, .cuh) and the runtime in
# csrc/cuda/ (the CUDA runtime API from C++). A ROCm build compiles their translations.
CSRC_INCLUDES = ("*.cu", "*.cuh", "cuda/*.cpp")
CSRC_IGNORES = ("cuda/NoCUDA.cpp",)  # the runtime of a build without a GPU backend


def cuda_sources(p: Paths) -> list[Path]:
    from hipify.paths import select

    project = p.root / "csrc"
    return [project / rel for rel in select(project, p.gen_dir / "hip", list(CSRC_INCLUDES), list(CSRC_IGNORES))]


def translated_files(p: Paths) -> list[str]:
    """What doit hipify writes: generated/hip/<hip_path of each CUDA source>."""
    from hipify.paths import hip_path

    project = p.root / "csrc"
    return [str(p.gen_dir / "hip" / hip_path(s.relative_to(project).as_posix())) for s in cuda_sources(p)]


def _translate(p: Paths, rel: str, known: frozenset[str]) -> None:
    """One sub-task: the translator of python -m hipify on one file (known: the CUDA sources,
    whose includes get their translated names)."""
    from hipify.mappings import NEWEST, Target, installed_hip_version, load
    from hipify.paths import hip_path
    from hipify.tree import TranslateJob, translate_file

    target = Target(installed_hip_version() or NEWEST)  # as python -m hipify: the installed hipcc's HIP
    job = TranslateJob(os.path.abspath(p.root / "csrc"), str(p.gen_dir / "hip"), known, (), False, load(target))
    out_rel = hip_path(rel)
    status, report = translate_file(job, rel, out_rel)
    if status.startswith("error:"):
        raise RuntimeError(status[len("error:"):])
    if status.startswith(("translated", "copied")):
        progress.note(f"  wrote hip/{out_rel}")
    if report:
        for warning in report[1]:
            print(f"  {warning}")
        if report[0]:
            print(f"  CUDA-looking names the tables do not know: {', '.join(name for name, _ in report[0])}")


def task_hipify(p: Paths):
    """Translate the CUDA sources of csrc/ to HIP (out of place, under generated/hip/)."""
    from hipify.paths import hip_path

    tool = sorted(str(f) for f in HIPIFY_DIR.glob("*.py")) + [str(HIPIFY_DIR / "mappings.yaml")]
    project = p.root / "csrc"
    sources = cuda_sources(p)
    if not sources:
        yield {"name": None, "doc": "no CUDA sources under csrc/", "actions": None}
        return
    known = frozenset(s.relative_to(project).as_posix() for s in sources)
    for src in sources:
        rel = src.relative_to(project).as_posix()
        yield {
            "name": rel,
            "actions": [(_translate, [p, rel, known])],
            "file_dep": [str(src), *tool],
            "targets": [str(p.gen_dir / "hip" / hip_path(rel))],
            **LIVE_OUTPUT,
            "clean": True,
        }
