#!/usr/bin/env python3
"""One epoch of MNIST training, tcore vs PyTorch (CPU wheel), in one run: the MLP and the
small CNN of examples/mnist_mlp.py, built by the same functions on both libraries
(nn.Sequential, Adam, cross_entropy, DataLoader over a TensorDataset, batch 64, shuffled
through a seeded Generator). Each library and model runs in its own process with the
same thread count (default 1: on a shared machine, waiting OpenMP threads distort the
figures); the figure is the wall time of the epoch's loop, after one warm-up batch.

    python scripts/bench_train.py [--data DIR] [--threads N] [--models mlp cnn] [--limit N] [--reps R]

Real MNIST when --data (default build/data/mnist) holds it, else random data of MNIST's
size. Prints a table with tcore/torch ratios (target: within 1.5x) and writes
build/bench/train.json. A benchmark, never part of the tests."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKLOAD = r'''
import json, os, sys, time
lib_name, root, kind, data, limit, batch = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
threads = int(sys.argv[7])
sys.path.insert(0, root)
sys.path.insert(0, os.path.join(root, "examples"))
import numpy as np
import mnist_mlp as ex
if lib_name == "tcore":
    import tcore as lib
    import tcore.nn, tcore.optim, tcore.utils.data
else:
    import torch as lib
    import torch.utils.data
lib.set_num_threads(threads)
folder = ex.Path(data)
try:
    train = ex.load_split(folder, "train", limit or None)
    real = True
except FileNotFoundError:
    rng = np.random.default_rng(0)
    n = limit or 60000
    train = (rng.standard_normal((n, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, n).astype(np.int64))
    real = False
test = (train[0][:10], train[1][:10])
lib.manual_seed(0)
model = ex.BUILDERS[kind](lib.nn)
opt = lib.optim.Adam(model.parameters(), lr=1e-3)
loader, _ = ex.loaders(lib, train, test, batch, 0)
x, y = next(iter(loader))  # warm-up: one step
lib.nn.functional.cross_entropy(model(x), y).backward()
opt.zero_grad()
start = time.perf_counter()
loss = ex.train_epoch(lib, model, loader, opt)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "loss": loss, "batches": len(loader), "real_mnist": real}))
'''


def measure(lib: str, kind: str, args) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
    r = subprocess.run([sys.executable, "-c", WORKLOAD, lib, str(ROOT), kind, str(args.data), str(args.limit or 0),
                        str(args.batch_size), str(args.threads)], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"bench_train: the {lib} {kind} run failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "build" / "data" / "mnist")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--models", nargs="+", choices=["mlp", "cnn"], default=["mlp", "cnn"])
    parser.add_argument("--limit", type=int, default=None, help="train on the first N examples only")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--reps", type=int, default=1, help="epochs per library and model (the best counts)")
    parser.add_argument("--json", type=Path, default=ROOT / "build" / "bench" / "train.json")
    args = parser.parse_args()
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("bench_train: torch is not installed (pip install torch --index-url https://download.pytorch.org/whl/cpu)")
    from rich.console import Console
    from rich.table import Table

    results = {}
    for kind in args.models:
        for _ in range(args.reps):  # interleaved, so a change in the machine's load hits both
            for lib in ("tcore", "torch"):
                r = measure(lib, kind, args)
                best = results.setdefault(kind, {}).get(lib)
                if best is None or r["seconds"] < best["seconds"]:
                    results[kind][lib] = r
    real = all(r["real_mnist"] for per in results.values() for r in per.values())
    table = Table(title=f"one epoch of MNIST ({'real data' if real else 'random data of MNIST size'}), "
                        f"batch {args.batch_size}, {args.threads} thread(s), best of {args.reps}")
    for col in ("model", "batches", "tcore (s)", "torch (s)", "tcore / torch", "within 1.5x"):
        table.add_column(col, justify="left" if col == "model" else "right")
    summary = {"threads": args.threads, "batch_size": args.batch_size, "real_mnist": real, "models": {}}
    for kind, per in results.items():
        ratio = per["tcore"]["seconds"] / per["torch"]["seconds"]
        table.add_row(kind, str(per["tcore"]["batches"]), f"{per['tcore']['seconds']:.2f}",
                      f"{per['torch']['seconds']:.2f}", f"{ratio:.2f}x", "yes" if ratio <= 1.5 else "no")
        summary["models"][kind] = {"tcore_seconds": per["tcore"]["seconds"], "torch_seconds": per["torch"]["seconds"],
                                   "ratio": ratio, "tcore_loss": per["tcore"]["loss"], "torch_loss": per["torch"]["loss"],
                                   "batches": per["tcore"]["batches"]}
    Console().print(table)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
