#!/usr/bin/env python3
"""torch.linalg side by side: tcore (OpenBLAS's LAPACK under its own solves) against PyTorch (MKL),
float64, forward alone and forward + backward, at one thread by default. The operations: lu_factor,
lu_solve and solve_triangular with one and many right-hand sides, solve, inv, det, slogdet and
cholesky. Both libraries' workers are alive at once and take turns operation by operation
(`bench_io.Workers`, `bench_io.serve`), each turn a warm-up call and the best of --reps calls. Prints a table and
writes build/bench/linalg.json. A benchmark, never part of the tests."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from bench_io import Workers, write_results  # noqa: E402

WORKLOAD = r'''
import json, sys
lib, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
import numpy as np
T = __import__(lib)
rng = np.random.default_rng(0)
a = rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)
spd = a @ a.T + n * np.eye(n)
tri = np.tril(a)
rhs = {k: rng.standard_normal((n, k)) for k in (1, 64, n)}
A, S, L = T.from_numpy(a), T.from_numpy(spd), T.from_numpy(tri)
D = T.from_numpy(a / n ** 0.5)  # a determinant in range
B = {k: T.from_numpy(v) for k, v in rhs.items()}
LU, piv = T.linalg.lu_factor(A)
def backward(f, *xs):
    """f's forward and backward (of sum(f(x)^2)), the xs leaves requiring grad"""
    leaves = [x.detach().clone().requires_grad_(True) for x in xs]
    def call():
        y = f(*leaves)
        y = y[0] if isinstance(y, tuple) else y
        (y * y).sum().backward()
    return call
ops = {
    "lu_factor": lambda: T.linalg.lu_factor(A), "lu_factor_bw": backward(lambda x: T.linalg.lu_factor(x)[0], A),
    "lu_solve_1": lambda: T.linalg.lu_solve(LU, piv, B[1]), "lu_solve_64": lambda: T.linalg.lu_solve(LU, piv, B[64]),
    "lu_solve_n": lambda: T.linalg.lu_solve(LU, piv, B[n]),
    "lu_solve_64_adjoint": lambda: T.linalg.lu_solve(LU, piv, B[64], adjoint=True),
    "lu_solve_64_bw": backward(lambda lu, b: T.linalg.lu_solve(lu, piv, b), LU, B[64]),
    "solve_triangular_1": lambda: T.linalg.solve_triangular(L, B[1], upper=False),
    "solve_triangular_64": lambda: T.linalg.solve_triangular(L, B[64], upper=False),
    "solve_triangular_64_bw": backward(lambda l, b: T.linalg.solve_triangular(l, b, upper=False), L, B[64]),
    "solve_1": lambda: T.linalg.solve(A, B[1]), "solve_64": lambda: T.linalg.solve(A, B[64]),
    "solve_64_bw": backward(lambda x, b: T.linalg.solve(x, b), A, B[64]),
    "inv": lambda: T.linalg.inv(A), "inv_bw": backward(T.linalg.inv, A),
    "det": lambda: T.linalg.det(D), "det_bw": backward(T.linalg.det, D),
    "slogdet_bw": backward(lambda x: T.linalg.slogdet(x)[1], A),
    "cholesky": lambda: T.linalg.cholesky(S), "cholesky_bw": backward(T.linalg.cholesky, S),
}
T.set_num_threads(int(sys.argv[4]))
print(json.dumps({"lib": lib}), flush=True)
sys.path.insert(0, root + "/scripts")
from bench_io import serve
serve({lib: ops})
'''

OPS = ["lu_factor", "lu_factor_bw", "lu_solve_1", "lu_solve_64", "lu_solve_n", "lu_solve_64_adjoint", "lu_solve_64_bw",
       "solve_triangular_1", "solve_triangular_64", "solve_triangular_64_bw", "solve_1", "solve_64", "solve_64_bw",
       "inv", "inv_bw", "det", "det_bw", "slogdet_bw", "cholesky", "cholesky_bw"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=512, help="the matrices' size")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", default=str(ROOT / "build" / "bench" / "linalg.json"))
    args = parser.parse_args()
    from bench_autograd import torch_python
    from rich.console import Console
    from rich.table import Table

    torch_py = torch_python()
    n = str(args.threads)
    env = {**os.environ, "OMP_NUM_THREADS": n, "OPENBLAS_NUM_THREADS": n, "MKL_NUM_THREADS": n}
    specs = {"tcore": (sys.executable, WORKLOAD, ["tcore", str(ROOT), str(args.n), n], env)}
    if torch_py:
        specs["torch"] = (torch_py, WORKLOAD, ["torch", str(ROOT), str(args.n), n], env)
    workers = Workers(specs)
    results = {op: {key: (answer or {}).get(key) for key, answer in workers.ask_each(f"{op} {args.reps}").items()}
               for op in OPS}
    workers.close()
    table = Table(title=f"torch.linalg, float64 {args.n} x {args.n}, {args.threads} thread(s), best of {args.reps} (ms); "
                        "_bw: forward + backward; k: right-hand sides")
    for col in ("operation", "tcore", "torch", "tcore / torch"):
        table.add_column(col, justify="left" if col == "operation" else "right")
    for op in OPS:
        ours, theirs = results[op].get("tcore"), results[op].get("torch")
        label = op.replace("_bw", ", fwd+bw").replace("_adjoint", " adjoint").replace("_1", " k=1")
        table.add_row(label.replace("_64", " k=64").replace("_n", f" k={args.n}"),
                      f"{ours:.2f}" if ours else "-", f"{theirs:.2f}" if theirs else "-",
                      f"{ours / theirs:.2f}" if ours and theirs else "-")
    Console(width=120).print(table)
    write_results({"n": args.n, "threads": args.threads, "ms": results}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
