"""Command line: python -m codegen.generate_code (see CONTRACTS.md).

Exit 0 on success; on bad input exit 1 with FILE:LINE:COL, the line and a caret,
and nothing written.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .errors import SourceError
from .file_writer import FileWriter
from .pipeline import plan_from_files
from .plan import DEFAULT_SHARDS, SUBSETS, Options


MAX_SHARDS = 1024


def _num_shards(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 1 <= n <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(f"{n} is out of range (1 to {MAX_SHARDS})")
    return n


def check_paths(args: argparse.Namespace) -> None:
    """Folders given on the command line, checked before anything is read or written."""
    out = Path(args.install_dir)
    for parent in (out, *out.parents):
        if parent.exists():
            if not parent.is_dir():
                raise SourceError(f"--install-dir {args.install_dir}: {parent} is a file, not a folder")
            break
    for d in args.kernel_source_dir:
        if not Path(d).is_dir():
            raise SourceError(f"--kernel-source-dir {d}: no such folder")
    if args.cache_dir is not None and Path(args.cache_dir).exists() and not Path(args.cache_dir).is_dir():
        raise SourceError(f"--cache-dir {args.cache_dir}: it is a file, not a folder")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m codegen.generate_code", description=__doc__)
    p.add_argument("--native-functions-path", required=True)
    p.add_argument("--tags-path", required=True)
    p.add_argument("--derivatives-path", default=None)
    p.add_argument("--install-dir", required=True, help="root folder of the generated output")
    p.add_argument("--subset", choices=SUBSETS, default=None, help="generate one part only (default: all)")
    p.add_argument("--disable-autograd", action="store_true")
    p.add_argument("--per-operator-headers", action="store_true")
    p.add_argument("--gen-lazy-ts-backend", action="store_true",
                   help="the lazy tensor backend: an IR node class and a Lazy kernel per operator (lazy/)")
    p.add_argument("--selected-op-list-path", default=None, help="YAML list of operator names to build")
    p.add_argument("--operators-yaml-path", default=None, help="model operators YAML (selective build)")
    p.add_argument("--kernel-source-dir", action="append", default=[],
                   help="check that every CPU/CUDA/composite kernel named in dispatch: exists here")
    p.add_argument("--num-shards", type=_num_shards, default=DEFAULT_SHARDS,
                   help=f"files per sharded kind (1 to {MAX_SHARDS}; default {DEFAULT_SHARDS})")
    p.add_argument("--cache-dir", default=None, help="per-entry parse cache (speeds up reruns)")
    return p.parse_args(argv)


def run(args: argparse.Namespace) -> FileWriter:
    check_paths(args)
    options = Options(
        per_operator_headers=args.per_operator_headers,
        subsets=frozenset([args.subset] if args.subset else SUBSETS),
        disable_autograd=args.disable_autograd,
        num_shards=args.num_shards,
        lazy=args.gen_lazy_ts_backend,
    )
    units = plan_from_files(args.native_functions_path, args.tags_path, options, derivatives=args.derivatives_path or None,
                            selected_op_list=args.selected_op_list_path, operators_yaml=args.operators_yaml_path,
                            kernel_dirs=tuple(args.kernel_source_dir), cache_dir=args.cache_dir)
    rendered = [(u, u.render()) for u in units]  # render everything before writing anything
    writer = FileWriter(args.install_dir)
    rel = ""
    try:
        for _, files in rendered:
            for rel, text in files.items():
                writer.write(rel, text)
    except OSError as e:  # a full disk, a read-only folder: every file is still whole, old or new
        raise SourceError(f"cannot write {writer.path(rel)}: {e.strerror or e} ({len(writer.written)} files were "
                          "replaced before it; each file holds either its previous or its new version)") from None
    return writer


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    start = time.perf_counter()
    try:
        writer = run(args)
    except SourceError as e:
        print(e, file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - start
    print(f"generate_code: {len(writer.written)} files written, {len(writer.unchanged)} unchanged "
          f"in {elapsed:.2f}s -> {args.install_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
