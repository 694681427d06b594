#!/usr/bin/env python3
"""Functionalization per call, tcore and PyTorch side by side in one run (1 thread): a view-heavy
program (in-place writes through row and column views of a 64x64 tensor, 64 writes) and an
SGD-with-momentum step over 8 parameters of 256x256, each eager, functionalized
(tcore.func.functionalize / torch.func.functionalize) and, for tcore, as the traced pure graph.
The ratios functionalized/eager are the cost of the wrappers, the replays and the write-backs.
Re-runs itself in build/torch-venv when torch is not importable here. Prints a table and writes
build/bench/functionalize.json. Not a test."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
REPEAT = 7


def best(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        times.append((time.perf_counter() - t0) / reps)
    return min(times) * 1e3


def programs(T):
    def views(x):
        b = x.clone()
        for k in range(0, 64, 2):
            b[k].mul_(2)
            b[:, k + 1].add_(1)
        return b.sum()

    def sgd(*tensors):
        n = len(tensors) // 3
        for p, g, buf in zip(tensors[:n], tensors[n:2 * n], tensors[2 * n:]):
            buf.mul_(0.9).add_(g)
            p.add_(buf, alpha=-0.01)
        return tensors[0].sum()

    gen = T.Generator().manual_seed(0) if hasattr(T, "Generator") else None
    rand = (lambda *s: T.randn(*s, generator=gen))
    return {
        "views": (views, [rand(64, 64)], 20),
        "sgd": (sgd, [rand(256, 256) for _ in range(24)], 20),
    }


def measure(T, functionalize, trace=None) -> dict:
    out = {}
    for name, (fn, inputs, reps) in programs(T).items():
        eager = best(lambda: fn(*inputs), reps)
        fun = functionalize(fn)
        functionalized = best(lambda: fun(*inputs), reps)
        row = {"eager_ms": eager, "functionalized_ms": functionalized}
        if trace is not None:
            graph = trace(fun, inputs)
            row["graph_ms"] = best(lambda: graph(*inputs), reps)
            row["graph_ops"] = len(graph.operators())
        out[name] = row
    return out


def main() -> int:
    try:
        import torch
    except ImportError:
        venv = ROOT / "build" / "torch-venv" / "bin" / "python"
        if venv.exists() and os.environ.get("TCORE_BENCH_REEXEC") != "1":
            os.environ["TCORE_BENCH_REEXEC"] = "1"
            os.execv(str(venv), [str(venv), __file__, *sys.argv[1:]])
        torch = None
    import tcore

    tcore.set_num_threads(1) if hasattr(tcore, "set_num_threads") else None
    results = {"tcore": measure(tcore, tcore.func.functionalize, tcore.jit.trace)}
    if torch is not None:
        torch.set_num_threads(1)
        results["torch"] = measure(torch, torch.func.functionalize)
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        Console = None
    rows = []
    for name, t in results["tcore"].items():
        p = results.get("torch", {}).get(name)
        rows.append([name, f"{t['eager_ms']:.3f}", f"{t['functionalized_ms']:.3f}",
                     f"{t['functionalized_ms'] / t['eager_ms']:.2f}", f"{t['graph_ms']:.3f}",
                     f"{p['eager_ms']:.3f}" if p else "-", f"{p['functionalized_ms']:.3f}" if p else "-",
                     f"{p['functionalized_ms'] / p['eager_ms']:.2f}" if p else "-",
                     f"{t['functionalized_ms'] / p['functionalized_ms']:.2f}" if p else "-"])
    head = ["program", "tcore ms", "func.", "ratio", "graph", "torch ms", "func.", "ratio", "tcore/torch func."]
    if Console is not None:
        table = Table(title="functionalization per call in ms, 1 thread, best of 7 (views: 64 writes through views "
                            "of 64x64; sgd: momentum step, 8 x 256x256)")
        for h in head:
            table.add_column(h, justify="right" if h != "program" else "left")
        for r in rows:
            table.add_row(*r)
        Console().print(table)
    else:
        print("\t".join(head))
        for r in rows:
            print("\t".join(r))
    out = ROOT / "build" / "bench" / "functionalize.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
