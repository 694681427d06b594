#!/usr/bin/env python3
"""Operator benchmark: tcore side by side with numpy and PyTorch (CPU wheel), one thread
each (tcore's kernels are single-threaded; OMP/BLAS threads are pinned to 1 for the
others), in one run: add and mul on 16M float32, sum over 16M, exp on 16M, softmax over
(4096, 1024), matmul 1024x1024 float32. Each library runs in its own process; the
figure is the best of several repetitions after a warm-up. Prints a table with the
ratios to torch and writes build/bench/ops.json. A benchmark, never part of the tests."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

WORKLOAD = r'''
import json, sys, time
lib, root, reps, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, root)
import numpy as np
rng = np.random.default_rng(0)
N = 16 * 1024 * 1024
a_np, b_np = rng.standard_normal(N, dtype=np.float32), rng.standard_normal(N, dtype=np.float32)
s_np = rng.standard_normal((4096, 1024), dtype=np.float32)
m1_np, m2_np = rng.standard_normal((1024, 1024), dtype=np.float32), rng.standard_normal((1024, 1024), dtype=np.float32)
if lib == "tcore":
    import tcore as T
    T.set_num_threads(threads)
    a, b, s, m1, m2 = (T.from_numpy(x) for x in (a_np, b_np, s_np, m1_np, m2_np))
    ops = {"add": lambda: T.add(a, b), "mul": lambda: T.mul(a, b), "sum": lambda: a.sum(), "exp": lambda: T.exp(a),
           "softmax": lambda: T.softmax(s, 1), "matmul": lambda: T.mm(m1, m2)}
elif lib == "torch":
    import torch as T
    T.set_num_threads(threads)
    a, b, s, m1, m2 = (T.from_numpy(x) for x in (a_np, b_np, s_np, m1_np, m2_np))
    ops = {"add": lambda: T.add(a, b), "mul": lambda: T.mul(a, b), "sum": lambda: a.sum(), "exp": lambda: T.exp(a),
           "softmax": lambda: T.softmax(s, 1), "matmul": lambda: T.mm(m1, m2)}
else:
    def softmax(x):
        e = np.exp(x - x.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
    a, b, s, m1, m2 = a_np, b_np, s_np, m1_np, m2_np
    ops = {"add": lambda: np.add(a, b), "mul": lambda: np.multiply(a, b), "sum": lambda: a.sum(),
           "exp": lambda: np.exp(a), "softmax": lambda: softmax(s), "matmul": lambda: m1 @ m2}
out = {}
for name, fn in ops.items():
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); times.append(time.perf_counter() - t)
    out[name] = 1000 * min(times)
print(json.dumps(out))
'''

OPS = ("add", "mul", "sum", "exp", "softmax", "matmul")
LABELS = {"add": "add 16M f32", "mul": "mul 16M f32", "sum": "sum 16M f32", "exp": "exp 16M f32",
          "softmax": "softmax (4096, 1024)", "matmul": "matmul 1024x1024 f32"}


def run(python: str, lib: str, reps: int, threads: int) -> dict | None:
    n = str(threads)
    env = {**os.environ, "OMP_NUM_THREADS": n, "OPENBLAS_NUM_THREADS": n, "MKL_NUM_THREADS": n}
    r = subprocess.run([python, "-c", WORKLOAD, lib, str(ROOT), str(reps), n], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(f"{lib} failed:\n{r.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1, help="threads for every library (tcore.set_num_threads, "
                        "torch.set_num_threads, OMP_NUM_THREADS for numpy's BLAS)")
    parser.add_argument("--json", default=str(ROOT / "build" / "bench" / "ops.json"))
    args = parser.parse_args()
    from bench_autograd import torch_python
    from rich.console import Console
    from rich.table import Table

    results = {"tcore": run(sys.executable, "tcore", args.reps, args.threads),
               "numpy": run(sys.executable, "numpy", args.reps, args.threads)}
    torch_py = torch_python()
    results["torch"] = run(torch_py, "torch", args.reps, args.threads) if torch_py else None
    results["threads"] = args.threads
    table = Table(title="operators, %d thread(s), best of %d (ms)" % (args.threads, args.reps))
    for col in ("operation", "tcore", "numpy", "torch", "tcore / torch", "target"):
        table.add_column(col, justify="left" if col == "operation" else "right")
    for op in OPS:
        t, n, p = (results[k][op] if results[k] else None for k in ("tcore", "numpy", "torch"))
        ratio = f"{t / p:.2f}" if t and p else "-"
        table.add_row(LABELS[op], f"{t:.2f}" if t else "-", f"{n:.2f}" if n else "-", f"{p:.2f}" if p else "-", ratio,
                      "<= 3" if op == "matmul" else "<= 1.5")
    Console().print(table)
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
