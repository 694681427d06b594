#!/usr/bin/env python3
"""Where the build time went: reads ninja's .ninja_log (and clang -ftime-trace JSON
files when the build made them) and prints, with rich, the slowest steps, time per
folder, and generated vs hand-written sources. Writes build/bench/trace.json.

    python scripts/build_trace_summary.py [--build-dir build] [--top 15] [--json FILE]

A missing, unreadable or malformed log (FILE:LINE), or a --json that cannot be written, is
one message and exit 1; bad arguments exit 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Step:
    output: str
    seconds: float


def read_ninja_log(path: Path) -> list[Step]:
    """The last run of each output (ninja appends; a later line supersedes an earlier one).
    ValueError names the file (and line) of what cannot be read."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a ninja log (not text)") from None
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror or e}") from None
    if not lines or not lines[0].startswith("# ninja log v") or not lines[0][len("# ninja log v"):].isdigit():
        raise ValueError(f"{path}:1: not a ninja log (it starts with '# ninja log v<N>')")
    version = int(lines[0][len("# ninja log v"):])
    if version < 5:
        raise ValueError(f"{path}: ninja log v{version} is too old (v5 or newer)")
    latest: dict[str, tuple[int, int, str]] = {}  # output -> (start, end, command hash) of its last run
    for number, line in enumerate(lines[1:], 2):
        parts = line.split("\t")
        if len(parts) < 4 or not line.strip():
            continue
        try:
            start, end, output = int(parts[0]), int(parts[1]), parts[3]
        except ValueError:
            raise ValueError(f"{path}:{number}: not a ninja log line (start and end times in ms): {line[:80]!r}") \
                from None
        latest[output] = (start, end, parts[4] if len(parts) > 4 else "")
    # one step per edge: an edge with several outputs (a relative and an absolute name, a custom
    # command's byproducts) logs each with the same times and command hash
    edges: dict[tuple[int, int, str], str] = {}
    for output, run in sorted(latest.items(), key=lambda kv: (kv[0].startswith("/"), kv[0])):
        edges.setdefault(run, output)
    return [Step(output, (run[1] - run[0]) / 1000.0) for run, output in edges.items()]


def positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return int(text)


def source_of(output: str) -> str:
    """CMakeFiles/tcore.dir/generated/dispatch/Operators_0.cpp.o -> generated/dispatch/Operators_0.cpp"""
    if ".dir/" in output and output.endswith(".o"):
        return output.split(".dir/", 1)[1][: -len(".o")]
    return output


def folder_of(source: str) -> str:
    if source.endswith((".so", ".a")):
        return "(link)"
    if source.startswith("rocm/"):
        return "rocm (hipcc objects of generated/hip)"
    if not source.startswith(("csrc/", "generated/")):
        return "(outside the repository: nanobind, ...)"
    parts = source.split("/")
    return "/".join(parts[:2])


def summarize(steps: list[Step], top: int) -> dict:
    per_folder: dict[str, float] = defaultdict(float)
    kinds: dict[str, float] = defaultdict(float)
    for s in steps:
        src = source_of(s.output)
        per_folder[folder_of(src)] += s.seconds
        kind = "generated" if "generated/" in src else "link" if s.output.endswith((".so", ".a")) else "hand-written"
        kinds[kind] += s.seconds
    slowest = sorted(steps, key=lambda s: -s.seconds)[:top]
    return {
        "steps": len(steps),
        "total_s": round(sum(s.seconds for s in steps), 3),
        "slowest": [{"step": source_of(s.output), "seconds": s.seconds} for s in slowest],
        "per_folder": dict(sorted(per_folder.items(), key=lambda kv: -kv[1])),
        "by_kind": dict(kinds),
    }


def time_traces(build_dir: Path) -> dict[str, float]:
    """Front-end time per source from clang's -ftime-trace files, when present."""
    out = {}
    for trace in build_dir.rglob("*.json"):
        if trace.name == "compile_commands.json":
            continue
        try:
            events = json.loads(trace.read_text()).get("traceEvents", [])
        except (ValueError, OSError, AttributeError):
            continue
        total = sum(e.get("dur", 0) for e in events if e.get("name") == "ExecuteCompiler")
        if total:
            out[str(trace.relative_to(build_dir))] = total / 1e6
    return out


def _table(console, title: str, first: str, rows: list[tuple[str, float]]) -> None:
    from rich.table import Table

    t = Table(title=title)
    t.add_column(first)
    t.add_column("seconds", justify="right")
    for name, seconds in rows:
        t.add_row(name, f"{seconds:.2f}")
    console.print(t)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_trace_summary.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=str(REPO / "build"))
    parser.add_argument("--top", type=positive, default=15)
    parser.add_argument("--json", default=str(REPO / "build" / "bench" / "trace.json"))
    args = parser.parse_args(argv)
    log = Path(args.build_dir) / ".ninja_log"
    if not log.exists():
        print(f"build_trace_summary: error: no {log}; build first (doit)", file=sys.stderr)
        return 1
    try:
        summary = summarize(read_ninja_log(log), args.top)
    except ValueError as e:
        print(f"build_trace_summary: error: {e}", file=sys.stderr)
        return 1
    summary["time_traces"] = time_traces(Path(args.build_dir))
    from rich.console import Console

    console = Console()
    _table(console, f"slowest of {summary['steps']} build steps ({summary['total_s']:.1f} s of work)", "step",
           [(s["step"], s["seconds"]) for s in summary["slowest"]])
    _table(console, "time per folder", "folder", list(summary["per_folder"].items()))
    _table(console, "generated vs hand-written", "kind", list(summary["by_kind"].items()))
    out = Path(args.json)
    blocker = next((d for d in out.parents if d.exists() and not d.is_dir()), None)
    if blocker is not None:
        print(f"build_trace_summary: error: --json {out}: {blocker} is a file, not a folder", file=sys.stderr)
        return 1
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(summary, indent=2))
        os.replace(tmp, out)
    except OSError as e:
        print(f"build_trace_summary: error: --json {out}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
