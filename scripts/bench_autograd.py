#!/usr/bin/env python3
"""Forward + backward of a 3-layer MLP (batch 256, widths 784-256-256-10, ReLU,
softmax cross-entropy written with exp/sum/log) per step: tcore and PyTorch side by
side in one run, same thread count (1). PyTorch runs from a venv made from the torch
wheel on local disk (build/torch-venv) when it is not importable here. Prints a table
and writes build/bench/autograd.json. Not a test."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEPS = 20

WORKLOAD = r'''
import json, sys, time
import numpy as np
lib = sys.argv[1]
if lib == "torch":
    import torch as T
    T.set_num_threads(1)
    tensor = lambda a, rg=False: T.tensor(a, requires_grad=rg)
else:
    sys.path.insert(0, sys.argv[2])
    import tcore as T
    tensor = lambda a, rg=False: T.tensor(a, requires_grad=rg)
rng = np.random.default_rng(0)
B, dims = 256, [784, 256, 256, 10]
X = tensor(rng.standard_normal((B, dims[0])).astype(np.float32))
Y = tensor(np.eye(10, dtype=np.float32)[rng.integers(0, 10, B)])
Ws = [tensor((rng.standard_normal((a, b)) * (1 / a) ** 0.5).astype(np.float32), True) for a, b in zip(dims, dims[1:])]
def step():
    h = X
    for i, W in enumerate(Ws):
        h = h @ W
        if i < len(Ws) - 1:
            h = h.relu()
    log_z = h.exp().sum(1, keepdim=True).log()
    loss = -((h - log_z) * Y).sum() / B
    for W in Ws:
        W.grad = None
    loss.backward()
    return loss
step(); step()
times = []
for _ in range(int(sys.argv[3])):
    t = time.perf_counter(); step(); times.append(time.perf_counter() - t)
print(json.dumps({"median_ms": 1000 * sorted(times)[len(times) // 2], "min_ms": 1000 * min(times)}))
'''


def torch_python() -> str | None:
    try:
        import torch  # noqa: F401 - importable here: use this interpreter

        return sys.executable
    except ImportError:
        pass
    venv = ROOT / "build" / "torch-venv"
    py = venv / "bin" / "python"
    if not py.exists():
        wheels = sorted(Path("/opt/wheels").glob("torch-2.13.0*.whl")) if Path("/opt/wheels").exists() else []
        target = str(wheels[0]) if wheels else "torch==2.13.0"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        r = subprocess.run([str(py), "-m", "pip", "install", "-q", target, "numpy"], capture_output=True, text=True)
        if r.returncode != 0:
            return None
    return str(py)


def run(python: str, lib: str) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    r = subprocess.run([python, "-c", WORKLOAD, lib, str(ROOT), str(STEPS)], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"{lib} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> int:
    results = {"tcore": run(sys.executable, "tcore")}
    tp = torch_python()
    if tp is not None:
        results["torch"] = run(tp, "torch")
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"MLP 784-256-256-10, batch 256: forward + backward per step (median of {STEPS}, 1 thread)")
    for col in ("library", "median ms", "min ms", "vs torch"):
        table.add_column(col, justify="left" if col == "library" else "right")
    base = results.get("torch", {}).get("median_ms")
    for lib, r in results.items():
        table.add_row(lib, f"{r['median_ms']:.2f}", f"{r['min_ms']:.2f}", f"{r['median_ms'] / base:.2f}x" if base else "-")
    Console().print(table)
    out = ROOT / "build" / "bench" / "autograd.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
