#!/usr/bin/env python3
"""Translate this repository's CUDA sources to HIP with the defaults filled in (as
PyTorch's tools/amd_build/build_amd.py does): csrc/ -> generated/hip/, the GPU backend's files only
(tasks/hipify.py CSRC_INCLUDES: the .cu/.cuh kernels and the runtime in csrc/cuda/).

    python scripts/build_amd.py [--output-directory DIR] [extra python -m hipify options]
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hipify.__main__ import main as hipify_main  # noqa: E402
from tasks.hipify import CSRC_IGNORES, CSRC_INCLUDES  # noqa: E402


def main(argv: list[str]) -> int:
    args = list(argv)
    if "--output-directory" not in args:
        args += ["--output-directory", str(REPO / "generated" / "hip")]
    if "--project-directory" not in args:
        args += ["--project-directory", str(REPO / "csrc")]
    if "--includes" not in args:
        args += ["--includes", *CSRC_INCLUDES]
    if "--ignores" not in args:
        args += ["--ignores", *CSRC_IGNORES]
    return hipify_main(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
