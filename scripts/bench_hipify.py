#!/usr/bin/env python3
"""hipify side by side with PyTorch's torch.utils.hipify in one run, on csrc/ plus a
generated corpus of CUDA files: a full translation and a rerun with nothing changed,
and how many output lines differ between the two tools (with the token pairs behind
the differences). PyTorch runs from a venv made from the torch wheel on local disk
(build/torch-venv). Prints a table and writes build/bench/hipify.json. Not a test."""
from __future__ import annotations

import collections
import difflib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "bench-hipify"
FILES = 400

TEMPLATE = """#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand_kernel.h>
#include "common_{i}.cuh"

// kernel {i}: cudaMalloc in a comment stays as it is
__global__ void scale_{i}(float* x, float a, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}}

void run_{i}(float* host, int n, cudaStream_t stream, cublasHandle_t handle) {{
  float* dev = nullptr;
  cudaError_t err = cudaMalloc(&dev, n * sizeof(float));
  if (err != cudaSuccess) throw err;
  cudaMemcpyAsync(dev, host, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  scale_{i}<<<(n + 255) / 256, 256, 0, stream>>>(dev, 2.0f, n);
  float alpha = 1.0f;
  cublasSscal(handle, n, &alpha, dev, 1);
  cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaFree(dev);
}}
"""
HEADER = """#pragma once
#include <cuda_runtime.h>
inline void check_{i}(cudaError_t e) {{ if (e != cudaSuccess) throw cudaGetErrorString(e); }}
"""


def make_corpus(corpus: Path) -> None:
    if corpus.exists():
        shutil.rmtree(corpus)
    shutil.copytree(ROOT / "csrc", corpus / "csrc")
    gen = corpus / "generated_cuda"
    gen.mkdir(parents=True)
    for i in range(FILES):
        (gen / f"kernel_{i}.cu").write_text(TEMPLATE.format(i=i))
        (gen / f"common_{i}.cuh").write_text(HEADER.format(i=i))


def torch_python() -> str | None:
    venv = ROOT / "build" / "torch-venv"
    py = venv / "bin" / "python"
    if not py.exists():
        wheels = sorted(Path("/opt/wheels").glob("torch-2.13.0*.whl")) if Path("/opt/wheels").exists() else []
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        r = subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheels[0]) if wheels else "torch==2.13.0"],
                           capture_output=True)
        if r.returncode != 0:
            return None
    return str(py)


TORCH_RUN = r"""
import sys, time
from torch.utils.hipify import hipify_python
start = time.perf_counter()
hipify_python.hipify(project_directory=sys.argv[1], output_directory=sys.argv[2],
                     includes=["*.cu", "*.cuh"], show_detailed=False, show_progress=False, is_pytorch_extension=True)
print(time.perf_counter() - start)
"""


def run_ours(corpus: Path, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hipify", "--project-directory", str(corpus), "--output-directory", str(out),
                    "--includes", "*.cu", "*.cuh", "--quiet"], cwd=ROOT, check=True)
    return time.perf_counter() - start


def run_torch(py: str, corpus: Path, out: Path) -> float:
    r = subprocess.run([py, "-c", TORCH_RUN, str(corpus), str(out)], check=True, capture_output=True, text=True)
    return float(r.stdout.strip().splitlines()[-1])  # timed inside, after `import torch`


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_/.]*")


def _kind(ours: str, theirs: str) -> str:
    """Why a line differs: the kinds of difference between the two tools."""
    if "<<<" in ours and "hipLaunchKernelGGL" in theirs:
        return "launch: torch rewrites <<<>>> to hipLaunchKernelGGL (hip-clang compiles <<<>>> as is)"
    if ours.lstrip().startswith("#include") and theirs.lstrip().startswith("#include"):
        return "include: torch spells a project header by its path from the including file"
    if ours.lstrip().startswith(("//", "/*", "*")):
        return "comment: torch rewrites CUDA names inside comments"
    if re.sub(r'"[^"]*"', '""', ours) == re.sub(r'"[^"]*"', '""', theirs):
        return "string literal: torch rewrites CUDA names inside strings"
    return "other"


def compare(ours: Path, theirs: Path) -> dict:
    """Line differences between the tools' outputs for the files both wrote at the same path."""
    differing, files = 0, 0
    reasons: collections.Counter = collections.Counter()
    examples: dict[str, tuple[str, str]] = {}
    for o in sorted(ours.rglob("*")):
        if not o.is_file() or o.name.startswith("."):
            continue
        t = theirs / o.relative_to(ours)
        if not t.exists():
            continue
        files += 1
        mine = o.read_text(errors="replace").splitlines()
        other = [line for line in t.read_text(errors="replace").splitlines() if "automatically generated by hipify" not in line]
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mine, other, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            differing += max(i2 - i1, j2 - j1)
            for a, b in zip(mine[i1:i2] or [""], other[j1:j2] or [""]):
                kind = _kind(a, b)
                reasons[kind] += 1
                examples.setdefault(kind, (a.strip(), b.strip()))
    return {"files_compared": files, "differing_lines": differing,
            "kinds (ours | torch)": [(k, n, examples[k]) for k, n in reasons.most_common(12)]}


def timed_ours(corpus: Path, out: Path, jobs: int | None = None) -> float:
    """In this process (the interpreter's start-up is not the tool's time; torch's is measured the same way).
    jobs=None: worker processes as the CLI picks them (one per CPU for a full run)."""
    sys.path.insert(0, str(ROOT))
    from hipify.tree import hipify_tree

    start = time.perf_counter()
    hipify_tree(corpus, out, includes=["*.cu", "*.cuh"], jobs=jobs)
    return time.perf_counter() - start


REPEATS = 5  # full runs per tool, alternating; the medians are compared (the disk here is noisy)


def fmt(xs: list[float]) -> str:
    return " ".join(f"{x:.3f}" for x in xs)


def main() -> int:
    WORK.mkdir(parents=True, exist_ok=True)
    corpus = WORK / "corpus"
    make_corpus(corpus)
    for d in WORK.iterdir():  # outputs of an earlier run; removed before timing anything
        if d.name != "corpus":
            shutil.rmtree(d)
    subprocess.run(["sync"])
    time.sleep(1.0)
    results = {"files": sum(1 for _ in corpus.rglob("*.cu*")), "repeats": REPEATS, "cpus": len(os.sched_getaffinity(0))}
    py = torch_python()
    ours_runs, serial_runs, torch_runs = [], [], []
    for i in range(REPEATS):  # each into a fresh folder: nothing is deleted while timing
        ours_runs.append(timed_ours(corpus, WORK / f"ours-{i}"))
        serial_runs.append(timed_ours(corpus, WORK / f"ours-serial-{i}", jobs=1))
        if py is not None:
            torch_runs.append(run_torch(py, corpus, WORK / f"torch-{i}"))
    ours_out, torch_out = WORK / "ours-0", WORK / "torch-0"
    results["ours_full_runs_s"] = ours_runs
    results["ours_full_s"] = statistics.median(ours_runs)
    results["ours_full_one_process_runs_s"] = serial_runs
    results["ours_full_one_process_s"] = statistics.median(serial_runs)
    results["ours_rerun_s"] = statistics.median([timed_ours(corpus, ours_out) for _ in range(REPEATS)])
    results["ours_rerun_cli_s"] = run_ours(corpus, ours_out)  # python -m hipify, start-up included
    if py is not None:
        results["torch_full_runs_s"] = torch_runs
        results["torch_full_s"] = statistics.median(torch_runs)
        results["torch_rerun_s"] = statistics.median([run_torch(py, corpus, torch_out) for _ in range(REPEATS)])
        results["compare"] = compare(ours_out, torch_out)
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"hipify on {results['files']} CUDA files (csrc/ + generated corpus)")
    for c in ("run", "tcore hipify s", "torch.utils.hipify s", "speed-up"):
        t.add_column(c, justify="left" if c == "run" else "right")
    for run, label in (("full", f"full ({results['cpus']} worker processes)"),
                       ("full_one_process", "full (one process)"), ("rerun", "rerun, nothing changed")):
        ours = results[f"ours_{run}_s"]
        theirs = results.get("torch_full_s" if run.startswith("full") else f"torch_{run}_s")
        t.add_row(label, f"{ours:.3f}", f"{theirs:.3f}" if theirs else "-", f"{theirs / ours:.1f}x" if theirs else "-")
    Console().print(t)
    print(f"medians of {REPEATS} runs each, interleaved; full runs (s): ours {fmt(results['ours_full_runs_s'])}; "
          f"one process {fmt(serial_runs)}; torch {fmt(results.get('torch_full_runs_s', []))}")
    print(f"rerun through the CLI (python -m hipify, interpreter start-up included): {results['ours_rerun_cli_s']:.3f} s")
    if "compare" in results:
        c = results["compare"]
        print(f"{c['differing_lines']} differing output lines over {c['files_compared']} files; most common token pairs:")
        for pair, n, (a, b) in c["kinds (ours | torch)"]:
            print(f"  {n:6d}  {pair}\n          ours:  {a}\n          torch: {b}")
    (ROOT / "build" / "bench").mkdir(parents=True, exist_ok=True)
    (ROOT / "build" / "bench" / "hipify.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
