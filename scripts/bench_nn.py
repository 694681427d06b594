#!/usr/bin/env python3
"""nn benchmark: tcore's nn operators side by side with PyTorch (CPU wheel), forward alone and
forward + backward, at each thread count asked for (default 1 and 2), each library in its own
process. The operators: conv2d (grouped and depthwise too), max_pool2d, avg_pool2d, batch_norm
(training, evaluation, the 2-D BatchNorm1d form), layer_norm, the activations (gelu, silu, ...), mse_loss and
cross_entropy, at the sizes of a small CNN's and MLP's layers; the spatial functions (interpolate's
modes, reflect padding, unfold, causal attention, conv3d) on an image batch; 2-layer LSTM and GRU. Figures are the best of several
repetitions after a warm-up; prints one table per thread count and writes build/bench/nn.json.
A benchmark, never part of the tests.

    python scripts/bench_nn.py [--threads 1,2] [--reps 10] [--only conv2d,bn_train]"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from bench_io import run_workload, write_results  # noqa: E402

OPS = {
    "conv2d": "conv2d (16,32,64,64)*(32,32,3,3) pad 1", "conv2d_fb": "  forward + backward",
    "max_pool": "max_pool2d 2x2 (16,32,64,64)", "avg_pool": "avg_pool2d 2x2 (16,32,64,64)",
    "bn_train": "batch_norm train (16,32,64,64)", "bn_eval": "batch_norm eval (16,32,64,64)",
    "bn_fb": "  train forward + backward", "bn1d_fb": "batch_norm (256,1024) forward + backward",
    "ln_fb": "layer_norm (4096,1024) forward + backward",
    "gelu_fb": "gelu 4M f32 forward + backward", "gelu_tanh_fb": "gelu tanh 4M forward + backward",
    "silu_fb": "silu 4M forward + backward", "leaky_fb": "leaky_relu 4M forward + backward",
    "mse": "mse_loss 4M mean", "mse_fb": "  forward + backward",
    "ce_fb": "cross_entropy (4096,1000) forward + backward",
    "conv2d_cl_fb": "conv2d channels_last forward + backward", "max_pool_cl_fb": "max_pool2d channels_last fwd + bwd",
    "avg_pool_cl_fb": "avg_pool2d channels_last fwd + bwd", "bn_cl_fb": "batch_norm channels_last fwd + bwd",
    "bn1d_big": "batch_norm (8192,256) train",
    "dw_fb": "depthwise conv2d (8,64,56,56) 3x3 fwd + bwd", "group4_fb": "conv2d groups=4 (8,64,56,56) fwd + bwd",
    "bilinear": "interpolate (4,3,256,256) x1.7 bilinear", "bilinear_fb": "  forward + backward",
    "bicubic": "interpolate x1.7 bicubic", "nearest": "interpolate x1.7 nearest",
    "pad_reflect": "pad reflect 3 (4,3,256,256)", "unfold": "unfold 3x3 (4,3,256,256)",
    "sdpa_causal": "scaled_dot_product_attention (8,8,256,64) causal",
    "conv3d": "conv3d (4,8,16,32,32)*(16,8,3,3,3) pad 1", "conv3d_fb": "  forward + backward",
    "lstm": "LSTM 2 layers, 200 steps x 8 x 64", "lstm_fb": "  forward + backward",
    "gru": "GRU 2 layers, 200 steps x 8 x 64", "gru_fb": "  forward + backward",
}

WORKLOAD = r'''
import json, sys, time
lib, root, reps, threads, only = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, root)
import numpy as np
if lib == "tcore":
    import tcore as T
else:
    import torch as T
T.set_num_threads(threads)
F = T.nn.functional
rng = np.random.default_rng(0)
def t(shape, grad=False, scale=1.0):
    x = T.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))
    return x.requires_grad_() if grad else x
img, w3 = t((16, 32, 64, 64)), t((32, 32, 3, 3), scale=0.05)
img_g, w3_g = t((16, 32, 64, 64), True), t((32, 32, 3, 3), True, 0.05)
ch = [T.ones(32, requires_grad=True), T.zeros(32, requires_grad=True), T.zeros(32), T.ones(32)]
ch1 = [T.ones(1024, requires_grad=True), T.zeros(1024, requires_grad=True), T.zeros(1024), T.ones(1024)]
m2, m2_g = t((256, 1024)), t((256, 1024), True)
s_g, lw = t((4096, 1024), True), [T.ones(1024, requires_grad=True), T.zeros(1024, requires_grad=True)]
v, v_g, v2 = t(4 << 20), t(4 << 20, True), t(4 << 20)
cl = lambda x: x.detach().contiguous(memory_format=T.channels_last).requires_grad_(x.requires_grad)
img_cl_g = cl(img_g)
m8 = t((8192, 256))
dw_img_g, dw_w_g, g4_w_g = t((8, 64, 56, 56), True), t((64, 1, 3, 3), True, 0.3), t((64, 16, 3, 3), True, 0.1)
logits_g, labels = t((4096, 1000), True), T.from_numpy(rng.integers(0, 1000, 4096))
pic, pic_g = t((4, 3, 256, 256)), t((4, 3, 256, 256), True)
q, k_, v_ = t((8, 8, 256, 64)), t((8, 8, 256, 64)), t((8, 8, 256, 64))
vol, vol_g, w5, w5_g = t((4, 8, 16, 32, 32)), t((4, 8, 16, 32, 32), True), t((16, 8, 3, 3, 3), scale=0.1), t((16, 8, 3, 3, 3), True, 0.1)
seq, seq_g = t((200, 8, 64)), t((200, 8, 64), True)
T.manual_seed(0)
lstm, gru = T.nn.LSTM(64, 64, 2), T.nn.GRU(64, 64, 2)
def fb(f, *xs):
    def run():
        f().sum().backward()
        for x in xs:
            x.grad = None
    return run
w_, b_, rm, rv = ch
w1, b1, rm1, rv1 = ch1
ops = {
    "conv2d": lambda: F.conv2d(img, w3, padding=1),
    "conv2d_fb": fb(lambda: F.conv2d(img_g, w3_g, padding=1), img_g, w3_g),
    "max_pool": lambda: F.max_pool2d(img, 2), "avg_pool": lambda: F.avg_pool2d(img, 2),
    "bn_train": lambda: F.batch_norm(img, rm, rv, w_, b_, True),
    "bn_eval": lambda: F.batch_norm(img, rm, rv, w_, b_, False),
    "bn_fb": fb(lambda: F.batch_norm(img_g, rm, rv, w_, b_, True), img_g, w_, b_),
    "bn1d_fb": fb(lambda: F.batch_norm(m2_g, rm1, rv1, w1, b1, True), m2_g, w1, b1),
    "ln_fb": fb(lambda: F.layer_norm(s_g, [1024], *lw), s_g, *lw),
    "gelu_fb": fb(lambda: F.gelu(v_g), v_g), "gelu_tanh_fb": fb(lambda: F.gelu(v_g, approximate="tanh"), v_g),
    "silu_fb": fb(lambda: F.silu(v_g), v_g), "leaky_fb": fb(lambda: F.leaky_relu(v_g, 0.1), v_g),
    "mse": lambda: F.mse_loss(v, v2), "mse_fb": fb(lambda: F.mse_loss(v_g, v2), v_g),
    "ce_fb": fb(lambda: F.cross_entropy(logits_g, labels), logits_g),
    "conv2d_cl_fb": fb(lambda: F.conv2d(img_cl_g, w3_g, padding=1), img_cl_g, w3_g),
    "max_pool_cl_fb": fb(lambda: F.max_pool2d(img_cl_g, 2), img_cl_g),
    "avg_pool_cl_fb": fb(lambda: F.avg_pool2d(img_cl_g, 2), img_cl_g),
    "bn_cl_fb": fb(lambda: F.batch_norm(img_cl_g, rm, rv, w_, b_, True), img_cl_g, w_, b_),
    "bn1d_big": lambda: F.batch_norm(m8, None, None, None, None, True),
    "dw_fb": fb(lambda: F.conv2d(dw_img_g, dw_w_g, padding=1, groups=64), dw_img_g, dw_w_g),
    "group4_fb": fb(lambda: F.conv2d(dw_img_g, g4_w_g, padding=1, groups=4), dw_img_g, g4_w_g),
    "bilinear": lambda: F.interpolate(pic, scale_factor=1.7, mode="bilinear"),
    "bilinear_fb": fb(lambda: F.interpolate(pic_g, scale_factor=1.7, mode="bilinear"), pic_g),
    "bicubic": lambda: F.interpolate(pic, scale_factor=1.7, mode="bicubic"),
    "nearest": lambda: F.interpolate(pic, scale_factor=1.7, mode="nearest"),
    "pad_reflect": lambda: F.pad(pic, (3, 3, 3, 3), mode="reflect"),
    "unfold": lambda: F.unfold(pic, 3),
    "sdpa_causal": lambda: F.scaled_dot_product_attention(q, k_, v_, is_causal=True),
    "conv3d": lambda: F.conv3d(vol, w5, padding=1),
    "conv3d_fb": fb(lambda: F.conv3d(vol_g, w5_g, padding=1), vol_g, w5_g),
    "lstm": lambda: lstm(seq), "lstm_fb": fb(lambda: lstm(seq_g)[0], seq_g, *lstm.parameters()),
    "gru": lambda: gru(seq), "gru_fb": fb(lambda: gru(seq_g)[0], seq_g, *gru.parameters()),
}
out = {"ms": {}}
for name, fn in ops.items():
    if only and name not in only.split(","):
        continue
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter(); fn(); times.append(time.perf_counter() - t0)
    out["ms"][name] = 1000 * min(times)
print(json.dumps(out))
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated (both libraries get the same)")
    parser.add_argument("--only", default="", help="operators to run, comma-separated (default: all)")
    parser.add_argument("--json", default=str(ROOT / "build" / "bench" / "nn.json"))
    args = parser.parse_args()
    from bench_autograd import torch_python
    from rich.console import Console
    from rich.table import Table

    torch_py = torch_python()
    console = Console(width=max(120, Console().width))
    results: dict = {"runs": {}}
    for threads in [int(t) for t in args.threads.split(",")]:
        n = str(threads)
        env = {**os.environ, "OMP_NUM_THREADS": n, "OPENBLAS_NUM_THREADS": n, "MKL_NUM_THREADS": n}
        row = {lib: run_workload(py, WORKLOAD, [lib, str(ROOT), str(args.reps), n, args.only], lib, env)
               for lib, py in (("tcore", sys.executable), ("torch", torch_py)) if py}
        results["runs"][threads] = row
        table = Table(title=f"nn operators, {threads} thread(s), best of {args.reps} (ms)")
        for col in ("operation", "tcore", "torch", "tcore / torch"):
            table.add_column(col, justify="left" if col == "operation" else "right")
        for op, label in OPS.items():
            got = (row.get("tcore") or {}).get("ms", {}).get(op)
            base = (row.get("torch") or {}).get("ms", {}).get(op)
            if got is None and base is None:
                continue
            table.add_row(label, f"{got:.2f}" if got else "-", f"{base:.2f}" if base else "-",
                          f"{got / base:.2f}" if got and base else "-")
        console.print(table)
    write_results(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
