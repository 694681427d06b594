#!/usr/bin/env python3
"""Size of libtcore, and each operator's share estimated from the kernel objects
before linking (symbol sizes from `nm`, attributed through the dispatch sections of
native_functions.yaml). Compare a full and a selective build with --compare.

    python scripts/size_report.py [--root DIR] [--compare OTHER_ROOT] [--top 15]

ROOT is a checkout (or a copy of one) that `doit` built: its tcore/lib/libtcore.so and
build/ tree are read.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_NATIVE = re.compile(r"tcore::native::(?:\(anonymous namespace\)::)?([A-Za-z_][A-Za-z0-9_]*)")


def library(root: Path) -> Path:
    return root / "tcore" / "lib" / "libtcore.so"


def kernel_sizes(root: Path) -> dict[str, int]:
    """kernel name -> bytes of the symbols that carry its name, over the kernel objects."""
    sizes: dict[str, int] = defaultdict(int)
    objects = sorted((root / "build" / "CMakeFiles" / "tcore.dir" / "csrc" / "native").rglob("*.o"))
    for obj in objects:
        out = subprocess.run(["nm", "-S", "-C", "--size-sort", str(obj)], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split(maxsplit=3)
            if len(parts) < 4 or parts[2].lower() not in ("t", "w"):
                continue
            m = _NATIVE.search(parts[3])
            if m:
                sizes[m.group(1)] += int(parts[1], 16)
    return dict(sizes)


def operator_sizes(root: Path) -> dict[str, int]:
    sys.path.insert(0, str(REPO))
    from codegen.load import load_native_functions

    kernels = kernel_sizes(root)
    per_op: dict[str, int] = defaultdict(int)
    for f in load_native_functions(str(root / "csrc" / "native" / "native_functions.yaml")):
        for _, kernel in f.dispatch:
            per_op[f.root_name] += kernels.pop(kernel, 0)  # a kernel shared by overloads counts once
    return dict(sorted(per_op.items(), key=lambda kv: -kv[1]))


def report(root: Path) -> dict:
    lib = library(root)
    if not lib.exists():
        raise SystemExit(f"size_report: {lib} does not exist; run doit in {root} first")
    return {"root": str(root), "library_bytes": lib.stat().st_size, "operators": operator_sizes(root)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=str(REPO))
    p.add_argument("--compare", default=None, help="another built tree (e.g. a selective build)")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--json", default=str(REPO / "build" / "bench" / "size.json"))
    args = p.parse_args(argv)
    reports = [report(Path(args.root))] + ([report(Path(args.compare))] if args.compare else [])
    from rich.console import Console
    from rich.table import Table

    console = Console()
    t = Table(title="libtcore.so")
    t.add_column("tree")
    t.add_column("bytes", justify="right")
    t.add_column("vs first", justify="right")
    for r in reports:
        t.add_row(r["root"], f"{r['library_bytes']:,}", f"{r['library_bytes'] / reports[0]['library_bytes']:.3f}")
    console.print(t)
    t = Table(title=f"estimated kernel bytes per operator (top {args.top}, from the objects)")
    t.add_column("operator")
    t.add_column("bytes", justify="right")
    for op, size in list(reports[0]["operators"].items())[: args.top]:
        t.add_row(op, f"{size:,}")
    console.print(t)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(reports, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
