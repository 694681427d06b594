#!/usr/bin/env python3
"""A small learnable dataset in MNIST's IDX format: each class is a random 28x28
prototype, each example its class's prototype plus noise. Deterministic (seeded).

    python make_dataset.py OUT_DIR [--train 2000] [--test 500]
"""
import argparse
import struct
from pathlib import Path

import numpy as np


def write_idx(path: Path, array: np.ndarray) -> None:
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim) + b"".join(struct.pack(">I", d) for d in array.shape)
    path.write_bytes(header + array.astype(np.uint8).tobytes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out")
    parser.add_argument("--train", type=int, default=2000)
    parser.add_argument("--test", type=int, default=500)
    args = parser.parse_args()
    rng = np.random.default_rng(1234)
    prototypes = rng.integers(0, 256, size=(10, 28, 28))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for prefix, n in (("train", args.train), ("t10k", args.test)):
        labels = rng.integers(0, 10, size=n)
        noise = rng.normal(0, 60, size=(n, 28, 28))
        images = np.clip(prototypes[labels] + noise, 0, 255)
        write_idx(out / f"{prefix}-images-idx3-ubyte", images)
        write_idx(out / f"{prefix}-labels-idx1-ubyte", labels)


if __name__ == "__main__":
    main()
