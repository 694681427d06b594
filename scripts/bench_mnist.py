#!/usr/bin/env python3
"""Time per epoch of the C++ MNIST example (examples/mnist, linked against the
installed library) and of the same network through tcore's Python API, side by side,
on a generated dataset of MNIST's size (60,000 training examples; real MNIST when
TCORE_MNIST_DIR names its folder). Prints a table, writes build/bench/mnist.json."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "bench-mnist"
HIDDEN, BATCH, LR = 128, 64, 0.1


def sh(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r.stdout


def python_epoch(data: Path) -> float:
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import tcore

    images = tcore._C._read_idx(str(data / "train-images-idx3-ubyte")).numpy().reshape(-1, 784).astype(np.float32) / 255
    labels = tcore._C._read_idx(str(data / "train-labels-idx1-ubyte")).numpy().astype(np.int64)
    rng = np.random.default_rng(0)
    w1 = tcore.tensor(rng.normal(0, (2 / 784) ** 0.5, (784, HIDDEN)).astype(np.float32), requires_grad=True)
    b1 = tcore.zeros(HIDDEN, requires_grad=True)
    w2 = tcore.tensor(rng.normal(0, (1 / HIDDEN) ** 0.5, (HIDDEN, 10)).astype(np.float32), requires_grad=True)
    b2 = tcore.zeros(10, requires_grad=True)
    order = rng.permutation(len(labels))
    start = time.perf_counter()
    for i in range(0, len(order), BATCH):
        idx = order[i:i + BATCH]
        x = tcore.tensor(images[idx])
        y = tcore.tensor(np.eye(10, dtype=np.float32)[labels[idx]])
        logits = ((x @ w1 + b1).relu() @ w2) + b2
        log_z = logits.exp().sum(1, keepdim=True).log()
        loss = -((logits - log_z) * y).sum() / len(idx)
        loss.backward()
        with tcore.no_grad():
            for p in (w1, b1, w2, b2):
                p.sub_(p.grad * LR)
                p.grad = None
    return time.perf_counter() - start


def main() -> int:
    WORK.mkdir(parents=True, exist_ok=True)
    sh([sys.executable, str(ROOT / "scripts" / "build_libtcore.py")], cwd=WORK)
    build = WORK / "example"
    sh(["cmake", "-S", str(ROOT / "examples" / "mnist"), "-B", str(build), f"-DCMAKE_PREFIX_PATH={WORK / 'tcore'}"])
    sh(["cmake", "--build", str(build)])
    data = Path(os.environ["TCORE_MNIST_DIR"]) if os.environ.get("TCORE_MNIST_DIR") else WORK / "data"
    if not os.environ.get("TCORE_MNIST_DIR"):
        sh([sys.executable, str(ROOT / "examples" / "mnist" / "make_dataset.py"), str(data), "--train", "60000",
            "--test", "10000"])
    out = sh([str(build / "train_mnist"), str(data), "--epochs", "1", "--batch", str(BATCH), "--lr", str(LR),
              "--hidden", str(HIDDEN)])
    cpp = float(re.search(r"epoch 1: .*, ([0-9.]+) s", out).group(1))
    py = python_epoch(data)
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"one epoch, MLP 784-{HIDDEN}-10, batch {BATCH}, 60,000 examples")
    table.add_column("program")
    table.add_column("seconds", justify="right")
    table.add_column("vs C++", justify="right")
    table.add_row("C++ example (examples/mnist)", f"{cpp:.2f}", "1.00")
    table.add_row("tcore Python API", f"{py:.2f}", f"{py / cpp:.2f}")
    Console().print(table)
    result = {"cpp_epoch_s": cpp, "python_epoch_s": round(py, 3), "real_mnist": bool(os.environ.get("TCORE_MNIST_DIR"))}
    (ROOT / "build" / "bench").mkdir(parents=True, exist_ok=True)
    (ROOT / "build" / "bench" / "mnist.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
