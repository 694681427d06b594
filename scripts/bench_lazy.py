#!/usr/bin/env python3
"""The lazy tensor backend's cost, side by side with eager in one run (1 thread).

1. A training step (forward, backward, SGD with momentum; `tcore.lazy.sync()` per step on the
   lazy side) of two MLPs: a small one (batch 16, 64-64-10), where recording, hashing and the
   cache lookup dominate, and a larger one (batch 256, 784-256-256-10), where kernels do.
   Steps alternate between eager and lazy after a warm-up; medians are reported, with the
   per-step overhead (lazy - eager), nodes recorded per step and graphs compiled after warm-up.
2. Code generation of the lazy files at PyTorch scale: rendering the `lazy:` units of the plan
   for PyTorch 2.13's native_functions.yaml (from the torch wheel, as bench_codegen.py), next
   to rendering every other unit, and what they hold (nodes, eager fallbacks).
Prints a table and writes build/bench/lazy.json. Not a test."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

MLPS = {"small": (16, [64, 64, 10]), "large": (256, [784, 256, 256, 10])}


def _model(tcore, dims, device):
    rng = np.random.default_rng(0)
    ws = []
    for a, b in zip(dims, dims[1:]):
        w = tcore.tensor((rng.standard_normal((a, b)) * (1 / a) ** 0.5).astype(np.float32)).to(device)
        ws.append(w.detach().requires_grad_())
    return ws


def _step_fn(tcore, batch, dims, device):
    rng = np.random.default_rng(1)
    X = tcore.tensor(rng.standard_normal((batch, dims[0])).astype(np.float32)).to(device)
    Y = tcore.tensor(rng.standard_normal((batch, dims[-1])).astype(np.float32)).to(device)
    ws = _model(tcore, dims, device)
    opt = tcore.optim.SGD(ws, lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        h = X
        for i, w in enumerate(ws):
            h = h @ w
            if i < len(ws) - 1:
                h = h.relu()
        loss = ((h - Y) ** 2).mean()
        loss.backward()
        opt.step()
        if device == "lazy":
            tcore.lazy.sync()
        return loss

    return step


def bench_steps(tcore, steps: int) -> dict:
    out = {}
    for name, (batch, dims) in MLPS.items():
        fns = {d: _step_fn(tcore, batch, dims, d) for d in ("cpu", "lazy")}
        for fn in fns.values():  # warm-up: the lazy side compiles its graphs here
            for _ in range(3):
                fn()
        tcore.lazy.reset_metrics()
        times = {"cpu": [], "lazy": []}
        for _ in range(steps):
            for d, fn in fns.items():
                t = time.perf_counter()
                fn()
                times[d].append(time.perf_counter() - t)
        m = tcore.lazy.metrics()
        med = {d: 1000 * sorted(v)[len(v) // 2] for d, v in times.items()}
        out[name] = {"batch": batch, "dims": dims, "eager_ms": med["cpu"], "lazy_ms": med["lazy"],
                     "ratio": med["lazy"] / med["cpu"], "overhead_ms": med["lazy"] - med["cpu"],
                     "nodes_per_step": m["nodes_recorded"] / steps, "graphs_compiled": m["graphs_compiled"],
                     "cache_hits": m["cache_hits"], "eager_fallbacks": m["eager_fallbacks"]}
    return out


def bench_codegen() -> dict | None:
    from pytorch_yaml import pytorch_yaml_dir

    yaml_dir = pytorch_yaml_dir()
    if yaml_dir is None:
        return None
    from codegen import gen_lazy
    from codegen.load import load_operator_set
    from codegen.plan import Options, make_plan

    opset = load_operator_set(str(yaml_dir / "native_functions.yaml"), str(yaml_dir / "tags.yaml"))
    units = make_plan(opset, Options(lazy=True))
    times = {"lazy": 0.0, "other": 0.0}
    files = {"lazy": 0, "other": 0}
    for u in units:
        t = time.perf_counter()
        rendered = u.render()
        kind = "lazy" if u.name.startswith("lazy:") else "other"
        times[kind] += time.perf_counter() - t
        files[kind] += len(rendered)
    kinds = [k["kind"] for f in opset.functions if (k := gen_lazy.kernel(f)) is not None]
    return {"lazy_s": times["lazy"], "other_s": times["other"], "lazy_files": files["lazy"],
            "other_files": files["other"], "nodes": sum(k != "fallback" for k in kinds),
            "fallbacks": kinds.count("fallback"), "entries": len(opset.functions)}


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--skip-codegen", action="store_true")
    args = p.parse_args(argv)
    import tcore

    tcore.set_num_threads(1)
    steps = bench_steps(tcore, args.steps)
    codegen = None if args.skip_codegen else bench_codegen()
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"lazy vs eager, one training step (median of {args.steps}, 1 thread)")
    for col in ("MLP", "eager ms", "lazy ms", "lazy / eager", "overhead ms", "nodes/step", "compiled after warm-up"):
        table.add_column(col, justify="left" if col == "MLP" else "right")
    for name, r in steps.items():
        table.add_row(f"{name}: batch {r['batch']}, {'-'.join(map(str, r['dims']))}", f"{r['eager_ms']:.2f}",
                      f"{r['lazy_ms']:.2f}", f"{r['ratio']:.2f}", f"{r['overhead_ms']:.2f}",
                      f"{r['nodes_per_step']:.0f}", str(r["graphs_compiled"]))
    console = Console()
    console.print(table)
    if codegen is not None:
        t2 = Table(title=f"lazy codegen at PyTorch scale ({codegen['entries']} entries)")
        for col in ("units", "render s", "files", "note"):
            t2.add_column(col, justify="left" if col in ("units", "note") else "right")
        t2.add_row("lazy:*", f"{codegen['lazy_s']:.2f}", str(codegen["lazy_files"]),
                   f"{codegen['nodes']} IR nodes, {codegen['fallbacks']} eager fallbacks")
        t2.add_row("every other unit", f"{codegen['other_s']:.2f}", str(codegen["other_files"]),
                   f"lazy = {codegen['lazy_s'] / codegen['other_s']:.1%} of the rest")
        console.print(t2)
    out = ROOT / "build" / "bench" / "lazy.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"steps": steps, "codegen": codegen}, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
