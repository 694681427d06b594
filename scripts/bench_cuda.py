#!/usr/bin/env python3
"""CUDA operator benchmark: tcore's CUDA kernels side by side with PyTorch's on the same GPU, in
one run (each library in its own process, one after the other).

The operators are those tcore has CUDA kernels for: a device-to-device copy (the bandwidth
ceiling every memory-bound operator is measured against), elementwise (add, mul, broadcast and
transposed adds, int64 add, exp, tanh, sigmoid, relu), fills and random fills, reductions (sum
of everything, over the last dim, over the first dim, mean), mm (float32 1024 and 4096, float64
1024, skinny), and host<->device copies. Each figure is the best of several samples, a sample
being the mean of a few back-to-back calls between two device synchronizations, after a
warm-up. Prints a table (ms, the ratio tcore/torch, GB/s as a fraction of the copy, GFLOP/s)
and writes build/bench/cuda.json. A benchmark, never part of the tests; needs a GPU."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from bench_io import run_workload, write_results  # noqa: E402

M = 1 << 20
# name: (label, bytes moved by a memory-bound operator, or None)
OPS = {
    "copy": ("copy d2d 64M f32 (clone)", 2 * 256 * M),
    "fill": ("zeros 64M f32", 256 * M),
    "add": ("add 64M f32", 3 * 256 * M), "mul": ("mul 64M f32", 3 * 256 * M),
    "add_broadcast": ("add (8192,8192)+(8192,1)", 2 * 256 * M),
    "add_strided": ("add (8192,8192)+(8192,8192).t()", 3 * 256 * M),
    "add_i64": ("add 32M int64", 3 * 256 * M), "add_scalar": ("add 64M f32 + 1.5", 2 * 256 * M),
    "exp": ("exp 64M f32", 2 * 256 * M), "tanh": ("tanh 64M f32", 2 * 256 * M),
    "sigmoid": ("sigmoid 64M f32", 2 * 256 * M), "relu": ("relu 64M f32", 2 * 256 * M),
    "rand": ("rand 64M f32", 256 * M),
    "sum": ("sum 64M f32", 256 * M), "sum_dim1": ("sum (8192,8192) dim 1", 256 * M),
    "sum_dim0": ("sum (8192,8192) dim 0", 256 * M), "mean_dim1": ("mean (65536,1024) dim 1", 256 * M),
    "mm1024": ("mm 1024 f32", None), "mm4096": ("mm 4096 f32", None), "mm_f64": ("mm 1024 f64", None),
    "mm_skinny": ("(8192x64)@(64x8192) f32", None), "bmm": ("bmm (256,128,128) f32", None),
    "softmax": ("softmax (65536,1024) dim 1", 2 * 256 * M), "log_softmax": ("log_softmax (65536,1024) dim 1", 2 * 256 * M),
    "amax_dim1": ("amax (8192,8192) dim 1", 256 * M), "argmax_dim1": ("argmax (8192,8192) dim 1", 256 * M),
    "where": ("where 64M f32", 4.25 * 256 * M), "gather": ("gather (8192,8192) dim 1, 64 each", None),
    "index_select": ("index_select (8192,8192) 4096 rows", 2 * 128 * M), "cat": ("cat 2x(8192,4096) dim 1", 4 * 128 * M),
    "mlp_step": ("MLP step (784-512-10, batch 256, SGD)", None),
    "h2d": ("host->device 64M f32", 256 * M), "d2h": ("device->host 64M f32", 256 * M),
}
FLOPS = {"mm1024": 2 * 1024**3, "mm4096": 2 * 4096**3, "mm_f64": 2 * 1024**3, "mm_skinny": 2 * 8192 * 64 * 8192,
         "bmm": 2 * 256 * 128**3}

WORKLOAD = r'''
import json, sys, time
lib, root, reps, only = sys.argv[1], sys.argv[2], int(sys.argv[3]), [o for o in sys.argv[4].split(",") if o]
sys.path.insert(0, root)
import numpy as np
if lib == "tcore":
    import tcore as T
    runtime = "tcore"
else:
    import torch as T
    T.backends.cuda.matmul.allow_tf32 = False  # tcore computes float32 in float32
    runtime = "CUDA " + str(T.version.cuda)
sync = T.cuda.synchronize
rng = np.random.default_rng(0)
N = 64 << 20
host = {"a": rng.standard_normal(N, dtype=np.float32), "b": rng.standard_normal(N, dtype=np.float32)}
dev = {k: T.from_numpy(v).to("cuda") for k, v in host.items()}
sq, sq2 = dev["a"].view(8192, 8192), dev["b"].view(8192, 8192)
col = T.from_numpy(rng.standard_normal((8192, 1), dtype=np.float32)).to("cuda")
i64 = T.from_numpy(rng.integers(-1000, 1000, N // 2)).to("cuda")
m1024 = T.from_numpy(rng.standard_normal((1024, 1024), dtype=np.float32)).to("cuda")
m1024d = m1024.to(T.float64)
m4096 = dev["a"][: 4096 * 4096].view(4096, 4096)
tall = T.from_numpy(rng.standard_normal((8192, 64), dtype=np.float32)).to("cuda")
b3 = T.from_numpy(rng.standard_normal((256, 128, 128), dtype=np.float32)).to("cuda")
wide = T.from_numpy(rng.standard_normal((64, 8192), dtype=np.float32)).to("cuda")
host_t = T.from_numpy(host["a"])
rows = dev["a"].view(65536, 1024)
cond = dev["a"] > 0
gidx = T.from_numpy(rng.integers(0, 8192, (8192, 64))).to("cuda")
ridx = T.from_numpy(rng.integers(0, 8192, 4096)).to("cuda")
halves = (sq[:, :4096], sq2[:, 4096:])
mlp = T.nn.Sequential(T.nn.Linear(784, 512), T.nn.ReLU(), T.nn.Linear(512, 10)).to("cuda")
opt = T.optim.SGD(mlp.parameters(), lr=0.01)
mx = T.from_numpy(rng.standard_normal((256, 784), dtype=np.float32)).to("cuda")
my = T.from_numpy(rng.integers(0, 10, 256)).to("cuda")


def mlp_step():
    opt.zero_grad()
    loss = T.nn.functional.cross_entropy(mlp(mx), my)
    loss.backward()
    opt.step()
    return loss

ops = {
    "copy": lambda: dev["a"].clone(), "fill": lambda: T.zeros(N, device="cuda"),
    "add": lambda: T.add(dev["a"], dev["b"]), "mul": lambda: T.mul(dev["a"], dev["b"]),
    "add_broadcast": lambda: T.add(sq, col), "add_strided": lambda: T.add(sq, sq2.t()),
    "add_i64": lambda: T.add(i64, i64), "add_scalar": lambda: dev["a"] + 1.5,
    "exp": lambda: T.exp(dev["a"]), "tanh": lambda: T.tanh(dev["a"]), "sigmoid": lambda: T.sigmoid(dev["a"]),
    "relu": lambda: T.relu(dev["a"]), "rand": lambda: T.rand(N, device="cuda"),
    "sum": lambda: dev["a"].sum(), "sum_dim1": lambda: sq.sum(1), "sum_dim0": lambda: sq.sum(0),
    "mean_dim1": lambda: dev["a"].view(65536, 1024).mean(1),
    "mm1024": lambda: T.mm(m1024, m1024), "mm4096": lambda: T.mm(m4096, m4096), "mm_f64": lambda: T.mm(m1024d, m1024d),
    "mm_skinny": lambda: T.mm(tall, wide), "bmm": lambda: T.bmm(b3, b3),
    "softmax": lambda: rows.softmax(1), "log_softmax": lambda: rows.log_softmax(1),
    "amax_dim1": lambda: sq.amax(1), "argmax_dim1": lambda: sq.argmax(1),
    "where": lambda: T.where(cond, dev["a"], dev["b"]), "gather": lambda: sq.gather(1, gidx),
    "index_select": lambda: sq.index_select(0, ridx), "cat": lambda: T.cat(halves, 1),
    "mlp_step": mlp_step,
    "h2d": lambda: host_t.to("cuda"), "d2h": lambda: dev["a"].to("cpu"),
}
out = {"runtime": runtime, "ms": {}, "errors": {}}
for name, fn in ops.items():
    if only and name not in only:
        continue
    try:
        fn(); sync()
        inner = 3
        best = float("inf")
        for _ in range(reps):
            sync(); t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            sync(); best = min(best, (time.perf_counter() - t0) / inner)
        out["ms"][name] = 1000 * best
    except Exception as e:  # an operator without a CUDA kernel: reported, the others still run
        out["errors"][name] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
print(json.dumps(out))
'''


def run(python: str, lib: str, reps: int, only: str) -> dict | None:
    return run_workload(python, WORKLOAD, [lib, str(ROOT), str(reps), only], lib)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--only", default="", help="operators to run, comma-separated (default: all)")
    parser.add_argument("--torch-python", default="", help="a Python with a CUDA build of torch (default: this one, else bench_autograd's search)")
    parser.add_argument("--json", default=str(ROOT / "build" / "bench" / "cuda.json"))
    args = parser.parse_args()
    from rich.console import Console
    from rich.table import Table

    sys.path.insert(0, str(ROOT))
    import tcore

    if not tcore.cuda.is_available():
        print(f"no usable CUDA device: {tcore.cuda.unavailable_reason() or 'tcore built without CUDA'}", file=sys.stderr)
        return 2
    torch_py = args.torch_python or sys.executable
    results = {"tcore": run(sys.executable, "tcore", args.reps, args.only),
               "torch": run(torch_py, "torch", args.reps, args.only)}
    tc, th = results["tcore"], results["torch"]
    copy_ms = (th or tc or {"ms": {}})["ms"].get("copy") or (tc or {"ms": {}})["ms"].get("copy")
    copy_gbs = OPS["copy"][1] / (copy_ms / 1000) / 1e9 if copy_ms else None
    results["copy_gbs"] = copy_gbs
    table = Table(title=f"CUDA operators, best of {args.reps} samples (ms); tcore {tc and tc['runtime']}, torch {th and th['runtime']};"
                        f" copy bandwidth (torch's clone) {copy_gbs or 0:.0f} GB/s")
    for column in ("operation", "tcore", "torch", "tcore / torch", "tcore: of copy bw / GFLOP/s", "torch: of copy bw / GFLOP/s"):
        table.add_column(column, justify="left" if column == "operation" else "right")
    only = [o for o in args.only.split(",") if o] or list(OPS)

    def rate(op: str, ms: float | None) -> str:
        if not ms:
            return "-"
        if OPS[op][1] and copy_gbs:
            return f"{OPS[op][1] / (ms / 1000) / 1e9 / copy_gbs:.0%}"
        if op in FLOPS:
            return f"{FLOPS[op] / (ms / 1000) / 1e9:,.0f} GFLOP/s"
        return "-"

    for op in only:
        a = tc["ms"].get(op) if tc else None
        b = th["ms"].get(op) if th else None
        err = tc["errors"].get(op) if tc else None
        table.add_row(OPS[op][0], f"{a:.3f}" if a else (err or "-")[:40], f"{b:.3f}" if b else "-",
                      f"{a / b:.2f}" if a and b else "-", rate(op, a), rate(op, b))
    Console(width=max(150, Console().width)).print(table)
    write_results(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
