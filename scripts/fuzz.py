#!/usr/bin/env python3
"""Fuzz every operator tcore binds with random, often hostile, calls (tests/fuzz/tcore_fuzz.py).

    python scripts/fuzz.py --calls 100000 [--seed 0] [--hostile-fraction 0.5] [--batch 500]

Prints the crashes, hangs and internal errors found (each with its reproducer) and the
kinds of exceptions raised; writes the figures to build/bench/fuzz.json. Exit 0 only
when nothing was found.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))
sys.path.insert(0, str(ROOT))


def positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"{v} must be at least 1")
    return v


def fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"{v} is not within [0, 1]")
    return v


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=positive, default=10000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hostile-fraction", type=fraction, default=0.5, help="share of calls with only hostile arguments")
    p.add_argument("--batch", type=positive, default=500, help="calls per child process")
    p.add_argument("--timeout", type=positive, default=120, help="seconds a batch may take before it counts as a hang")
    p.add_argument("--json", default=str(ROOT / "build" / "bench" / "fuzz.json"))
    args = p.parse_args(argv)
    try:
        import tcore_fuzz
        import tcore  # noqa: F401
    except ImportError as e:
        print(f"fuzz.py: tcore is not importable ({e}); run doit first", file=sys.stderr)
        return 2
    from rich.console import Console
    from rich.table import Table

    console = Console()
    start = time.perf_counter()

    def progress(report):
        console.print(f"  {report.calls}/{args.calls} calls, {len(report.crashes)} crashes, "
                      f"{len(report.hangs)} hangs, {len(report.internal)} internal errors", highlight=False)

    report = tcore_fuzz.run(args.calls, args.seed, args.hostile_fraction, args.batch, args.timeout,
                            on_progress=progress)
    elapsed = time.perf_counter() - start
    for title, items in (("crash", report.crashes), ("hang", report.hangs), ("internal error", report.internal)):
        for f in items:
            console.print(f"[bold red]{title}[/] at call {f.index}: {f.kind}\n{f.source}\n", highlight=False)
    table = Table(title=f"tcore fuzz: {report.calls} calls, seed {args.seed}, "
                        f"hostile fraction {args.hostile_fraction}, {elapsed:.0f} s")
    table.add_column("outcome")
    table.add_column("count", justify="right")
    for kind, n in sorted(report.kinds.items(), key=lambda kv: -kv[1]):
        table.add_row(kind, str(n))
    for title, items in (("crashes", report.crashes), ("hangs", report.hangs), ("internal errors", report.internal)):
        table.add_row(f"[bold]{title}[/]", str(len(items)))
    console.print(table)
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(report.as_json(), seed=args.seed, hostile_fraction=args.hostile_fraction,
                                   seconds=round(elapsed, 1)), indent=1))
    return 0 if not (report.crashes or report.hangs or report.internal) else 1


if __name__ == "__main__":
    sys.exit(main())
