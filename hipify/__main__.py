"""python -m hipify --project-directory DIR --output-directory DIR [--extra-include-dir D ...]
[--out-of-place-only] [--includes GLOB ...] [--ignores GLOB ...] [--hip-launch-kernel-ggl] [-j N]"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .tree import HipifyError, hipify_tree


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hipify", description="Translate CUDA sources to HIP, out of place.")
    p.add_argument("--project-directory", required=True)
    p.add_argument("--output-directory", required=True)
    p.add_argument("--extra-include-dir", action="append", default=[])
    p.add_argument("--out-of-place-only", action="store_true",
                   help="never modify the project tree (always the case: kept for PyTorch's command line)")
    p.add_argument("--includes", nargs="*", default=None, help="file globs to translate (default: C/C++/CUDA sources)")
    p.add_argument("--ignores", nargs="*", default=[], help="file globs to leave out")
    p.add_argument("--hip-launch-kernel-ggl", action="store_true", help="rewrite <<<>>> launches as hipLaunchKernelGGL")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="worker processes (default: one per CPU when many files need translating)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    project, output = Path(args.project_directory), Path(args.output_directory)
    try:
        summary = hipify_tree(project, output, args.includes, args.ignores,
                              [Path(d) for d in args.extra_include_dir], args.hip_launch_kernel_ggl, jobs=args.jobs)
    except HipifyError as e:
        print(f"hipify: error: {e}", file=sys.stderr)
        return 1
    if not (summary.translated or summary.copied or summary.unchanged or summary.skipped):
        print(f"hipify: no source files under {project}")
        return 0
    if not args.quiet:
        print(summary.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
