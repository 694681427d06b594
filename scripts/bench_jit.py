#!/usr/bin/env python3
"""The boxed path's cost: add.Tensor on 1-element tensors called typed and through
the boxed registry, timed in C++; and the MLP graph (tests/graphs/mlp.ir) run by the
interpreter against the same operators called eagerly from Python. Prints a table,
writes build/bench/jit.json. Not a test."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def best(fn, repeat: int = 7, number: int = 200) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def main() -> int:
    import numpy as np
    import tcore

    typed_ns, boxed_ns = tcore._C._bench_call_overhead(200_000)
    rng = np.random.default_rng(0)
    x, w1, w2 = (tcore.tensor(rng.standard_normal(s).astype(np.float32)) for s in ((64, 128), (128, 64), (64, 10)))
    graph = tcore.jit.load(ROOT / "tests" / "graphs" / "mlp.ir")

    def eager():
        o = (x @ w1).relu() @ w2
        return o.sum(1, keepdim=True), o

    interp = best(lambda: graph(x, w1, w2))
    python = best(eager)
    from rich.console import Console
    from rich.table import Table

    t = Table(title="boxed path")
    for c in ("measure", "typed", "boxed / interpreter", "ratio"):
        t.add_column(c, justify="left" if c == "measure" else "right")
    t.add_row("add.Tensor call, 1 element (C++)", f"{typed_ns:.0f} ns", f"{boxed_ns:.0f} ns", f"{boxed_ns / typed_ns:.2f}x")
    t.add_row("MLP graph 64x128x64x10 (eager Python vs interpreter)", f"{python * 1e6:.1f} us", f"{interp * 1e6:.1f} us",
              f"{interp / python:.2f}x")
    Console().print(t)
    out = ROOT / "build" / "bench" / "jit.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"typed_ns": typed_ns, "boxed_ns": boxed_ns, "eager_mlp_us": python * 1e6,
                               "interpreter_mlp_us": interp * 1e6}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
