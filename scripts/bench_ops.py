#!/usr/bin/env python3
"""Operator benchmark: tcore side by side with PyTorch (CPU wheel) and numpy, in one run, at
each thread count asked for (default 1 and 2), and tcore once per CPU capability
(TCORE_CPU_CAPABILITY=default/avx2/avx512, each in its own process), each compared with torch
at the same capability (ATEN_CPU_CAPABILITY, and MKL_ENABLE_INSTRUCTIONS / ONEDNN_MAX_CPU_ISA for
the libraries under it, which choose for themselves otherwise).

The operators: elementwise (add, mul, strided and broadcast add, int64 add, exp, log, tanh,
sigmoid, gelu), reductions and scans (sum, sum over a non-last dim, argmax, cumsum), softmax and
layer_norm, matmul (256, 1024, 4096 square, (4096x64)@(64x4096), batched (64, 128, 128)), and
float16/bfloat16 elementwise operators, sums, softmax and layer_norm. Operands are 4M elements
(16 MB of float32). torch's fresh outputs are new pages from glibc on every call (measured: a
page fault for each 4 KB of a 4 MB or 16 MB output; at 64 MB its time is mostly faults), tcore's
come from its caching allocator: the default run compares what a caller of either gets; one row
(add_fresh64) keeps 64 MB to show the allocators' difference. --preallocated writes the
elementwise operators (relu excepted) and cumsum into an out= made once, in every library: the
kernels alone. A STREAM-style copy of the same 16 MB measured in the same process gives the
machine's bandwidth; each memory-bound operator's bytes moved / time is printed as a fraction of
it. Every library's process (tcore and torch at each capability, numpy) is started at once and
kept alive; they take turns operator by operator (`bench_io.Workers`), so that the machine's
drift (2x between runs minutes apart on the shared machines measured) moves every figure of a row
alike. Each turn is a warm-up call and then the best of several calls in a row: turns call by
call were tried and measure the machine instead (at 2 threads a worker's OpenMP and OpenBLAS
threads spin on after its call and slow the next worker; with a pause between turns the
virtual CPUs go idle and the first call after costs up to 5x). --paired puts tcore and torch in
one process per capability instead, their calls alternating one by one: the steadiest ratios
(tcore's and torch's calls milliseconds apart), with both libraries' memory and thread pools in
the one process. Prints one table per thread count and writes build/bench/ops.json. A
benchmark, never part of the tests."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))
from bench_io import Workers, write_results  # noqa: E402

# name: (label, bytes moved by a memory-bound operator, or None)
OPS = {
    "add": ("add 4M f32", 3 * 16 << 20), "mul": ("mul 4M f32", 3 * 16 << 20),
    "add_fresh64": ("add 16M f32 (64 MB outputs)", 3 * 64 << 20),
    "add_strided": ("add (2048,2048)+(2048,2048).t()", 3 * 16 << 20),
    "add_broadcast": ("add (2048,2048)+(2048,1)", 2 * 16 << 20), "add_i64": ("add 2M int64", 3 * 16 << 20),
    "exp": ("exp 4M f32", 2 * 16 << 20), "log": ("log 4M f32", 2 * 16 << 20), "tanh": ("tanh 4M f32", 2 * 16 << 20),
    "sigmoid": ("sigmoid 4M f32", 2 * 16 << 20), "gelu": ("gelu 4M f32", 2 * 16 << 20),
    "sum": ("sum 4M f32", 16 << 20), "sum_dim0": ("sum (2048,2048) dim 0", 16 << 20),
    "argmax": ("argmax (2048,2048) dim 1", 16 << 20), "cumsum": ("cumsum (2048,2048) dim 1", 2 * 16 << 20),
    "softmax": ("softmax (4096,1024) dim 1", 2 * 16 << 20), "layer_norm": ("layer_norm (4096,1024)", 2 * 16 << 20),
    "mm256": ("matmul 256 f32", None), "mm1024": ("matmul 1024 f32", None), "mm4096": ("matmul 4096 f32", None),
    "mm_skinny": ("(4096x64)@(64x4096) f32", None), "mm_f64": ("matmul 1024 f64", None),
    "bmm": ("bmm (64,128,128) f32", None), "mv": ("mv (2048,2048)@(2048,) f32", None),
    "linear": ("linear (4096,1024)@(1024,1024)+bias f32", None),
    "linear_bf16": ("linear (2048,2048)@(2048,2048)+bias bf16", None),
    "add_f16": ("add 4M f16", 3 * 8 << 20), "mul_scalar_bf16": ("mul 4M bf16 by a number", 2 * 8 << 20),
    "relu_f16": ("relu 4M f16", 2 * 8 << 20), "exp_bf16": ("exp 4M bf16", 2 * 8 << 20),
    "gelu_bf16": ("gelu 4M bf16", 2 * 8 << 20), "gelu_f16": ("gelu 4M f16", 2 * 8 << 20),
    "add_broadcast_f16": ("add (2048,2048)+(2048,) f16", 2 * 8 << 20),
    "relu_transposed_bf16": ("relu (2048,2048).t() bf16", 2 * 8 << 20),
    "sum_f16": ("sum 4M f16", 8 << 20), "sum_dim0_bf16": ("sum (2048,2048) dim 0 bf16", 8 << 20),
    "softmax_bf16": ("softmax (2048,2048) dim 1 bf16", 2 * 8 << 20),
    "layer_norm_bf16": ("layer_norm (2048,2048) bf16", 2 * 8 << 20),
}
FLOPS = {"mm256": 2 * 256**3, "mm1024": 2 * 1024**3, "mm4096": 2 * 4096**3, "mm_skinny": 2 * 4096 * 64 * 4096,
         "mm_f64": 2 * 1024**3, "bmm": 2 * 64 * 128**3, "mv": 2 * 2048**2, "linear": 2 * 4096 * 1024 * 1024, "linear_bf16": 2 * 2048**3}

WORKLOAD = r'''
import json, sys
lib, root, threads, preallocated = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
outs = {}
def w_shared(name, f, *args):
    """f(*args); with --preallocated, into the out= made by the first call (no allocation timed)."""
    if not preallocated:
        return lambda: f(*args)
    def call():
        if name not in outs:
            outs[name] = f(*args)
        return f(*args, out=outs[name])
    return call
sys.path.insert(0, root)
import numpy as np
rng = np.random.default_rng(0)
N = 4 << 20  # 16 MB float32 operands
d = dict(a=rng.standard_normal(N, dtype=np.float32), b=rng.standard_normal(N, dtype=np.float32),
         pos=rng.random(N, dtype=np.float32) + 0.5, i=rng.integers(-1000, 1000, N // 2),
         big=rng.standard_normal(4 * N, dtype=np.float32),
         sq=rng.standard_normal((4096, 4096), dtype=np.float32), sq2=rng.standard_normal((4096, 4096), dtype=np.float32),
         q=rng.standard_normal((2048, 2048), dtype=np.float32), q2=rng.standard_normal((2048, 2048), dtype=np.float32),
         col=rng.standard_normal((2048, 1), dtype=np.float32), s=rng.standard_normal((4096, 1024), dtype=np.float32),
         w=rng.standard_normal(1024, dtype=np.float32), m256=rng.standard_normal((256, 256), dtype=np.float32),
         m1024=rng.standard_normal((1024, 1024), dtype=np.float32), tall=rng.standard_normal((4096, 64), dtype=np.float32),
         wide=rng.standard_normal((64, 4096), dtype=np.float32), b3=rng.standard_normal((64, 128, 128), dtype=np.float32))
d["m1024d"] = d["m1024"].astype(np.float64)
dst = np.empty_like(d["a"])  # STREAM copy: 2 x 16 MB moved per call, into a preallocated target
def ops_for(lib):
    """(capability, {operator: call}) of one library"""
    def w(name, f, *args):
        return w_shared(lib + "/" + name, f, *args)
    if lib in ("tcore", "torch"):
        if lib == "tcore":
            import tcore as T
            cap = T.backends.cpu.get_cpu_capability()
        else:
            import torch as T
            cap = T.backends.cpu.get_cpu_capability()
        T.set_num_threads(threads)
        F = T.nn.functional
        t = {k: T.from_numpy(v) for k, v in d.items()}
        ops = {"add": w("add", T.add, t["a"], t["b"]), "mul": w("mul", T.mul, t["a"], t["b"]),
               "add_fresh64": w("add_fresh64", T.add, t["big"], t["big"]),
               "add_strided": w("add_strided", T.add, t["q"], t["q2"].t()),
               "add_broadcast": w("add_broadcast", T.add, t["q"], t["col"]), "add_i64": w("add_i64", T.add, t["i"], t["i"]),
               "exp": w("exp", T.exp, t["a"]), "log": w("log", T.log, t["pos"]), "tanh": w("tanh", T.tanh, t["a"]),
               "sigmoid": w("sigmoid", T.sigmoid, t["a"]), "gelu": w("gelu", T._C._nn.gelu, t["a"]),
               "sum": lambda: t["a"].sum(), "sum_dim0": lambda: t["q"].sum(0), "argmax": lambda: t["q"].argmax(1),
               "cumsum": w("cumsum", T.cumsum, t["q"], 1), "softmax": lambda: T.softmax(t["s"], 1),
               "layer_norm": lambda: F.layer_norm(t["s"], [1024], t["w"], t["w"]),
               "mm256": lambda: T.mm(t["m256"], t["m256"]), "mm1024": lambda: T.mm(t["m1024"], t["m1024"]),
               "mm4096": lambda: T.mm(t["sq"], t["sq2"]), "mm_skinny": lambda: T.mm(t["tall"], t["wide"]),
               "mm_f64": lambda: T.mm(t["m1024d"], t["m1024d"]), "bmm": lambda: T.bmm(t["b3"], t["b3"]),
               "mv": lambda: T.mv(t["q"], t["col"][:, 0]),
               "linear": lambda: F.linear(t["s"], t["m1024"], t["w"])}
        # float16/bfloat16 (computed in float32 by both; numpy has no bfloat16)
        h = {dt: {"a": t["a"][:4 << 20].to(dt), "b": t["b"][:4 << 20].to(dt), "m": t["sq"][:2048, :2048].to(dt),
                  "w": t["w"].repeat(2).to(dt)} for dt in (T.float16, T.bfloat16)}
        f16, bf16 = h[T.float16], h[T.bfloat16]
        ops.update({"add_f16": w("add_f16", T.add, f16["a"], f16["b"]), "mul_scalar_bf16": w("mul_scalar_bf16", T.mul, bf16["a"], 1.5),
                    "relu_f16": lambda: T.relu(f16["a"]), "exp_bf16": w("exp_bf16", T.exp, bf16["a"]),
                    "gelu_bf16": w("gelu_bf16", T._C._nn.gelu, bf16["a"]), "gelu_f16": w("gelu_f16", T._C._nn.gelu, f16["a"]),
                    "add_broadcast_f16": w("add_broadcast_f16", T.add, f16["m"], f16["w"]), "relu_transposed_bf16": lambda: T.relu(bf16["m"].t()),
                    "sum_f16": lambda: f16["a"].sum(), "sum_dim0_bf16": lambda: bf16["m"].sum(0),
                    "softmax_bf16": lambda: T.softmax(bf16["m"], 1),
                    "layer_norm_bf16": lambda: F.layer_norm(bf16["m"], [2048], bf16["w"], bf16["w"]),
                    "linear_bf16": lambda: F.linear(bf16["m"], bf16["m"], bf16["w"])})
    else:
        cap = "-"
        def softmax(x):
            e = np.exp(x - x.max(1, keepdims=True))
            return e / e.sum(1, keepdims=True)
        def layer_norm(x, w):
            m = x.mean(1, keepdims=True)
            return (x - m) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * w + w
        ops = {"add": w("add", np.add, d["a"], d["b"]), "mul": w("mul", np.multiply, d["a"], d["b"]),
               "add_fresh64": w("add_fresh64", np.add, d["big"], d["big"]),
               "add_strided": w("add_strided", np.add, d["q"], d["q2"].T),
               "add_broadcast": w("add_broadcast", np.add, d["q"], d["col"]), "add_i64": w("add_i64", np.add, d["i"], d["i"]),
               "exp": w("exp", np.exp, d["a"]), "log": w("log", np.log, d["pos"]), "tanh": w("tanh", np.tanh, d["a"]),
               "sigmoid": lambda: 1 / (1 + np.exp(-d["a"])),
               "sum": lambda: d["a"].sum(), "sum_dim0": lambda: d["q"].sum(0), "argmax": lambda: d["q"].argmax(1),
               "cumsum": w("cumsum", np.cumsum, d["q"], 1), "softmax": lambda: softmax(d["s"]), "layer_norm": lambda: layer_norm(d["s"], d["w"]),
               "mm256": lambda: d["m256"] @ d["m256"], "mm1024": lambda: d["m1024"] @ d["m1024"],
               "mm4096": lambda: d["sq"] @ d["sq2"], "mm_skinny": lambda: d["tall"] @ d["wide"],
               "mm_f64": lambda: d["m1024d"] @ d["m1024d"], "bmm": lambda: d["b3"] @ d["b3"],
               "mv": lambda: d["q"] @ d["col"][:, 0],
               "linear": lambda: d["s"] @ d["m1024"].T + d["w"]}
    return cap, ops


libs = ["tcore", "torch"] if lib == "paired" else [lib]  # paired: both in this process, call by call
made = {name: ops_for(name) for name in libs}
for _, ops in made.values():
    ops["copy"] = lambda: np.copyto(dst, d["a"])
print(json.dumps({"capabilities": {name: made[name][0] for name in libs}}), flush=True)
sys.path.insert(0, root + "/scripts")
from bench_io import serve
serve({name: ops for name, (_, ops) in made.items()})  # paired: the two libraries' calls alternate
'''


# ATEN_CPU_CAPABILITY chooses torch's own kernels only: MKL (VML's exp, log, tanh...) and oneDNN
# (gelu) pick AVX-512 by themselves unless told (measured: tanh 4M float32 2.55 ms under
# ATEN_CPU_CAPABILITY=avx2 alone, 14.2 with MKL and oneDNN held to AVX2 too)
TORCH_LIBRARY_ISA = {
    "default": {"MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41"},
    "avx2": {"MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
    "avx512": {},
}


def spec(python: str, lib: str, threads: int, capability: str | None, preallocated: bool) -> tuple:
    """A worker's command line and environment: `lib` at `threads` threads and `capability`."""
    n = str(threads)
    env = {**os.environ, "OMP_NUM_THREADS": n, "OPENBLAS_NUM_THREADS": n, "MKL_NUM_THREADS": n}
    env.pop("TCORE_CPU_CAPABILITY", None)
    env.pop("ATEN_CPU_CAPABILITY", None)
    if capability:  # tcore's and torch's names for the three capabilities are the same
        if lib in ("tcore", "paired"):
            env["TCORE_CPU_CAPABILITY"] = capability
        if lib in ("torch", "paired"):  # MKL's (exp, tanh, log through VML) and oneDNN's (gelu) own choices too
            env["ATEN_CPU_CAPABILITY"] = capability
            env.update(TORCH_LIBRARY_ISA[capability])
    return python, WORKLOAD, [lib, str(ROOT), n, "1" if preallocated else "0"], env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated (every library gets the same)")
    parser.add_argument("--capabilities", default="default,avx2,avx512",
                        help="tcore's CPU capabilities to run (TCORE_CPU_CAPABILITY), comma-separated")
    parser.add_argument("--only", default="", help="operators to run, comma-separated (default: all)")
    parser.add_argument("--preallocated", action="store_true",
                        help="elementwise operators (relu excepted) and cumsum write into an out= made once (every library): "
                             "the kernels' speed without the allocators'")
    parser.add_argument("--paired", action="store_true",
                        help="tcore and torch in one process per capability, their calls alternating one by one: the "
                             "steadiest ratios on a machine whose speed drifts (torch must be importable here)")
    parser.add_argument("--json", default=str(ROOT / "build" / "bench" / "ops.json"))
    args = parser.parse_args()
    unknown = [o for o in args.only.split(",") if o and o not in OPS]
    if unknown:
        parser.error(f"--only: no operator {', '.join(unknown)} (the operators: {', '.join(OPS)})")
    from bench_autograd import torch_python
    from rich.console import Console
    from rich.table import Table

    import tcore

    compiled = {c["name"] for c in tcore.backends.cpu.capabilities() if c["compiled"] and c["supported"]}
    caps = [c for c in args.capabilities.split(",") if c in compiled] or ["default"]
    torch_py = torch_python()
    if args.paired and torch_py != sys.executable:
        parser.error("--paired: torch must be importable by this interpreter")
    console = Console(width=max(160, Console().width))
    results: dict = {"capabilities": caps, "preallocated": args.preallocated, "runs": {}}
    for threads in [int(t) for t in args.threads.split(",")]:
        if args.paired:  # one process per capability holding both libraries
            specs = {c: spec(sys.executable, "paired", threads, c, args.preallocated) for c in caps}
        else:
            specs = {f"tcore/{c}": spec(sys.executable, "tcore", threads, c, args.preallocated) for c in caps}
            if torch_py:  # torch at the same capability (ATEN_CPU_CAPABILITY, MKL's and oneDNN's): like with like
                specs.update({f"torch/{c}": spec(torch_py, "torch", threads, c, args.preallocated) for c in caps})
        specs["numpy"] = spec(sys.executable, "numpy", threads, None, args.preallocated)
        workers = Workers(specs)
        only = [o for o in args.only.split(",") if o] or list(OPS)
        best = {op: workers.ask_each(f"{op} {2 if op == 'mm4096' else args.reps}") for op in only}
        copy_ms = [ms for answer in workers.ask_each(f"copy {max(args.reps, 5)}").values() if answer
                   for ms in answer.values() if ms]
        workers.close()
        copy = 2 * (16 << 20) / (min(copy_ms) / 1000) / 1e9 if copy_ms else float("nan")
        row: dict = {}
        for key, head in workers.headers.items():  # a worker's libraries as the table's keys: tcore/avx2, numpy...
            for lib, cap in (head or {}).get("capabilities", {}).items():
                name = "numpy" if lib == "numpy" else f"{lib}/{key.split('/')[-1]}"
                ms = {op: best[op][key][lib] for op in only if best[op][key] and best[op][key][lib]}
                row[name] = {"capability": cap, "copy_gbs": copy, "ms": ms}
        row.update({name: None for name in [f"tcore/{c}" for c in caps] + [f"torch/{c}" for c in caps] + ["numpy"]
                    if name not in row})
        row["torch"] = row[f"torch/{caps[-1]}"]
        results["runs"][threads] = row
        table = Table(title=f"operators, {threads} thread(s), best of {args.reps} (ms){', preallocated outs' if args.preallocated else ''}; copy bandwidth {copy:.1f} GB/s;"
                            f" torch: {row['torch']['capability'] if row['torch'] else 'not installed'}")
        table.add_column("operation")
        for c in caps:
            table.add_column(f"tcore {c}", justify="right")
            table.add_column(f"/ torch {c}", justify="right")
        table.add_column(f"torch {caps[-1]}", justify="right")
        table.add_column("numpy", justify="right")
        table.add_column(f"tcore {caps[-1]}: of copy bw / GFLOP/s", justify="right")
        for op in only:
            label, moved = OPS[op]
            torch_ms = row["torch"]["ms"].get(op) if row["torch"] else None
            cells = [label]
            for c in caps:
                t = row[f"tcore/{c}"]["ms"].get(op) if row[f"tcore/{c}"] else None
                base = row[f"torch/{c}"]["ms"].get(op) if row[f"torch/{c}"] else None
                cells += [f"{t:.2f}" if t else "-", f"{t / base:.2f}" if t and base else "-"]
            numpy_ms = row["numpy"]["ms"].get(op) if row["numpy"] else None
            cells += [f"{torch_ms:.2f}" if torch_ms else "-", f"{numpy_ms:.2f}" if numpy_ms else "-"]
            best = row[f"tcore/{caps[-1]}"]["ms"].get(op) if row[f"tcore/{caps[-1]}"] else None
            if best and moved:
                cells.append(f"{moved / (best / 1000) / 1e9 / copy:.0%}")
            elif best and op in FLOPS:
                cells.append(f"{FLOPS[op] / (best / 1000) / 1e9:.1f} GFLOP/s")
            else:
                cells.append("-")
            table.add_row(*cells)
        console.print(table)
    write_results(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
