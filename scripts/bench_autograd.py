#!/usr/bin/env python3
"""Autograd per step, tcore and PyTorch side by side in one run, same thread count (1):
the forward + backward of a 3-layer MLP (batch 256, widths 784-256-256-10, ReLU, softmax
cross-entropy written with exp/sum/log), a view-heavy loop (in-place writes through
views, backward through CopySlices), and a forward-mode jvp of the MLP's loss.
`--baseline DIR` adds the MLP step of another tcore checkout (the cost of view tracking). PyTorch runs from a venv made from the torch
wheel on local disk (build/torch-venv) when it is not importable here. Prints a table
and writes build/bench/autograd.json. Not a test."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from bench_io import run_workload, write_results  # noqa: E402
STEPS = 20

WORKLOAD = r'''
import json, sys, time
import numpy as np
lib, root, steps, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if lib == "torch":
    import torch as T
    T.set_num_threads(1)
    def jvp(f, x, v):
        return T.func.jvp(f, (x,), (v,))
else:
    sys.path.insert(0, root)
    import tcore as T
    def jvp(f, x, v):
        return T.autograd.functional.jvp(f, x, v)
tensor = lambda a, rg=False: T.tensor(a, requires_grad=rg)
rng = np.random.default_rng(0)
B, dims = 256, [784, 256, 256, 10]
X = tensor(rng.standard_normal((B, dims[0])).astype(np.float32))
Y = tensor(np.eye(10, dtype=np.float32)[rng.integers(0, 10, B)])
Ws = [tensor((rng.standard_normal((a, b)) * (1 / a) ** 0.5).astype(np.float32), True) for a, b in zip(dims, dims[1:])]

def loss_of(W0):
    h = X
    for i, W in enumerate([W0] + Ws[1:]):
        h = h @ W
        if i < len(Ws) - 1:
            h = h.relu()
    log_z = h.exp().sum(1, keepdim=True).log()
    return -((h - log_z) * Y).sum() / B

def mlp():
    loss = loss_of(Ws[0])
    for W in Ws:
        W.grad = None
    loss.backward()

V = tensor(rng.standard_normal((64, 64)).astype(np.float32), True)
R = tensor(rng.standard_normal((64, 64)).astype(np.float32))
def views():  # slicing and in-place updates of views, then backward through all of it
    b = V * 1
    for k in range(0, 64, 2):
        b[k].mul_(R[k])
        b[:, k:k + 2].add_(b[k + 1, k:k + 2])
    t = b.t()
    t[0:8].tanh_()
    V.grad = None
    b.sum().backward()

D = tensor(rng.standard_normal((dims[0], dims[1])).astype(np.float32))
W0 = Ws[0].detach()
def forward_jvp():
    jvp(loss_of, W0, D)

work = {"mlp": mlp, "views": views, "jvp": forward_jvp}[kind]
work(); work()
times = []
for _ in range(steps):
    t = time.perf_counter(); work(); times.append(time.perf_counter() - t)
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


def run(python: str, lib: str, kind: str, root: Path = ROOT) -> dict:
    out = run_workload(python, WORKLOAD, [lib, str(root), str(STEPS), kind], f"{lib} ({kind})",
                       {**os.environ, "OMP_NUM_THREADS": "1"})
    if out is None:  # its error is printed: no table without every figure
        sys.exit(1)
    return out


WORKLOADS = {
    "mlp": "MLP 784-256-256-10, batch 256: forward + backward",
    "views": "64x64: 32 in-place writes through select/slice views + a transposed slice, backward",
    "jvp": "MLP loss: forward-mode jvp w.r.t. the first weight (torch.func.jvp)",
}


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--baseline", type=Path, default=None,
                   help="another built tcore checkout (e.g. one before view tracking): its MLP step too")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    args = p.parse_args(argv)
    if args.baseline is not None and not (args.baseline / "tcore").is_dir():
        p.error(f"--baseline {args.baseline}: no tcore package there")
    tp = torch_python()
    samples: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):  # interleaved, so that machine noise hits every row alike
        for kind in WORKLOADS:
            samples.setdefault(("tcore", kind), []).append(run(sys.executable, "tcore", kind)["median_ms"])
            if tp is not None:
                samples.setdefault(("torch", kind), []).append(run(tp, "torch", kind)["median_ms"])
        if args.baseline is not None:
            samples.setdefault(("tcore baseline", "mlp"), []).append(
                run(sys.executable, "tcore", "mlp", args.baseline)["median_ms"])
    med = {k: sorted(v)[len(v) // 2] for k, v in samples.items()}
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"autograd per step (median of {args.rounds} rounds x {STEPS} steps, 1 thread)")
    for col in ("workload", "tcore ms", "torch ms", "tcore / torch"):
        table.add_column(col, justify="left" if col == "workload" else "right")
    results = {}
    for kind, title in WORKLOADS.items():
        ours, theirs = med[("tcore", kind)], med.get(("torch", kind))
        results[kind] = {"tcore_ms": ours, "torch_ms": theirs, "ratio": ours / theirs if theirs else None}
        table.add_row(title, f"{ours:.2f}", f"{theirs:.2f}" if theirs else "-", f"{ours / theirs:.2f}" if theirs else "-")
    if ("tcore baseline", "mlp") in med:
        base = med[("tcore baseline", "mlp")]
        results["mlp_baseline"] = {"baseline_ms": base, "overhead": med[("tcore", "mlp")] / base - 1}
        table.add_row(f"MLP step, baseline {args.baseline}", f"{base:.2f}", "-",
                      f"now/baseline {med[('tcore', 'mlp')] / base:.3f}")
    Console().print(table)
    write_results(results, ROOT / "build" / "bench" / "autograd.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
