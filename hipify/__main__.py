"""python -m hipify --project-directory DIR --output-directory DIR [--extra-include-dir D ...]
[--header-include-dir D ...] [--out-of-place-only] [--includes GLOB ...] [--ignores GLOB ...]
[--hip-version X.Y] [--roc] [--miopen] [--hip-launch-kernel-ggl] [--keep-names] [-j N] [--quiet]"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .mappings import NEWEST, MappingsError, Target, installed_hip_version, parse_hip_version
from .tree import DEFAULT_INCLUDES, HipifyError, Options, hipify_tree


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hipify", description="Translate CUDA sources to HIP, out of place.")
    p.add_argument("--project-directory", required=True)
    p.add_argument("--output-directory", required=True)
    p.add_argument("--extra-include-dir", action="append", default=[],
                   help="a folder searched for included headers (like -I); repeatable")
    p.add_argument("--header-include-dir", action="append", default=[],
                   help="a folder of the project searched for included headers, whose headers are translated too "
                        "(the include is rewritten to the translated header's name); repeatable")
    p.add_argument("--out-of-place-only", action="store_true",
                   help="never modify the project tree (always the case: kept for PyTorch's command line)")
    p.add_argument("--includes", nargs="*", default=None, help="file globs to translate (default: C/C++/CUDA sources)")
    p.add_argument("--ignores", nargs="*", default=[], help="file globs to leave out")
    p.add_argument("--hip-version", default=None,
                   help="the HIP version to translate for (default: the installed hipcc's, else the newest): "
                        "a name with no equivalent in it stays and is reported")
    p.add_argument("--roc", action="store_true", help="target rocBLAS/rocSPARSE/rocRAND/rocSOLVER, not the hip* wrappers")
    p.add_argument("--miopen", action="store_true", help="translate cuDNN to MIOpen (default: hipDNN names)")
    p.add_argument("--hip-launch-kernel-ggl", action="store_true", help="rewrite <<<>>> launches as hipLaunchKernelGGL")
    p.add_argument("--keep-names", action="store_true", help="keep every file and folder name (no cuda -> hip, .cu stays)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="worker processes (default: one per CPU when many files need translating)")
    p.add_argument("--quiet", action="store_true", help="print errors only")
    args = p.parse_args(argv)
    if args.jobs is not None and not 1 <= args.jobs <= 1024:
        p.error(f"--jobs {args.jobs}: expected 1 to 1024")
    try:
        version = parse_hip_version(args.hip_version) if args.hip_version else installed_hip_version() or NEWEST
    except ValueError as e:
        p.error(str(e))
    options = Options(tuple(args.includes or DEFAULT_INCLUDES), tuple(args.ignores), tuple(args.extra_include_dir),
                      tuple(args.header_include_dir), args.hip_launch_kernel_ggl, args.keep_names,
                      Target(version, args.roc, args.miopen))
    project, output = Path(args.project_directory), Path(args.output_directory)
    try:
        summary = hipify_tree(project, output, jobs=args.jobs, options=options)
    except (HipifyError, MappingsError) as e:
        print(f"hipify: error: {e}", file=sys.stderr)
        return 1
    for error in summary.errors:
        print(f"hipify: error: {error}", file=sys.stderr)
    if not (summary.translated or summary.copied or summary.unchanged or summary.skipped or summary.errors):
        print(f"hipify: no source files under {project}")
        return 0
    if not args.quiet:
        print(summary.report())
    return 1 if summary.errors else 0


if __name__ == "__main__":
    sys.exit(main())
