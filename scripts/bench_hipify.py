#!/usr/bin/env python3
"""hipify against PyTorch's torch.utils.hipify on real CUDA code (scripts/fetch_hipify_corpus.py):
per project, the whole translation of its C/C++/CUDA sources (a fresh process into a fresh folder, interpreter start and
imports included) by each tool, a rerun with nothing changed, and whether hipcc compiles each
translation (HIP_PLATFORM=amd hipcc -fsyntax-only --offload-arch=gfx90a), among the files whose
original nvcc compiles. Prints tables, writes build/bench/hipify.json. Not a test.

    python scripts/bench_hipify.py --corpus build/hipify-corpus [--jobs N] [--repeats N]
        [--no-compile] [--no-nvcc] [--rocm-include DIR ...] [--timeout S]

Files whose translation needs what no ROCm install here can give are excluded, counted and
named per reason: PyTorch's own headers (a translated extension includes ATen/hip/..., which
only a ROCm build of PyTorch ships) and libraries with no HIP port (CUTLASS, cuDNN frontend).
--rocm-include adds folders of ROCm library headers (hipBLAS, hipCUB, rocThrust, ... e.g.
unpacked from Debian's packages into build/rocm-extra/usr/include: see docs/hipify.md).
Compile results are cached in build/bench/hipify-compile-cache.json by the digest of the file
and of every file of its translated project.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
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
sys.path.insert(0, str(ROOT))
from hipify.paths import hip_path  # noqa: E402

WORK = ROOT / "build" / "bench-hipify"
CACHE = ROOT / "build" / "bench" / "hipify-compile-cache.json"
# include folders of each project (relative to its root), as its build passes them
INCLUDE_DIRS = {
    "llama-cpp-python": ["vendor/llama.cpp/ggml/include", "vendor/llama.cpp/ggml/src",
                         "vendor/llama.cpp/ggml/src/ggml-cuda"],
    "cupy": ["cupy/_core/include", "cupy/_core/include/cupy/_dlpack", "cupy/cuda"],
    "deepspeed": ["csrc/includes", "csrc/fp_quantizer/includes", "csrc/deepspeed4science/evoformer_attn",
                  "csrc/inference/includes"],
    "gsplat": ["gsplat/cuda/include", "gsplat/cuda/csrc"],
    "mamba-ssm": ["csrc/selective_scan"],
    "causal-conv1d": ["csrc"],
}
# options a user of this project passes (ggml-cuda/vendors/ holds cuda.h and its hand-written hip.h: renaming
# would map both to one file, which hipify refuses)
OURS_OPTIONS = {"llama-cpp-python": ["--keep-names"], "cupy": ["--keep-names"]}  # cupy_backends: cuda/ and hip/
NEEDS = [  # (reason, include prefix): the first one a file's include closure reaches
    ("PyTorch headers (torch/ATen/c10: only a ROCm build of PyTorch has their HIP side)",
     ("torch/", "ATen/", "c10/", "THC/", "Python.h", "pybind11/")),
    ("CUTLASS/CuTe (no HIP port)", ("cutlass/", "cute/")),
    ("cuDNN frontend / cuBLASLt (no HIP package here)", ("cudnn_frontend", "cublasLt.h")),
]
TORCH_RUN = r"""
import sys
from torch.utils.hipify import hipify_python
hipify_python.hipify(project_directory=sys.argv[1], output_directory=sys.argv[2],
                     show_detailed=False, show_progress=False, is_pytorch_extension=True)
"""
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.MULTILINE)


def cuda_files(project: Path) -> list[str]:
    return sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.suffix in (".cu", ".cuh")
                  and p.is_file())


def needs(project: Path, rel: str, dirs: list[str], memo: dict) -> str | None:
    """The first reason of NEEDS that the include closure of project/rel reaches, or None."""
    seen, todo = set(), [rel]
    while todo:
        cur = todo.pop()
        if cur in seen:
            continue
        seen.add(cur)
        if cur not in memo:
            try:
                memo[cur] = _INCLUDE.findall((project / cur).read_text(errors="replace"))
            except OSError:
                memo[cur] = []
        for inc in memo[cur]:
            for reason, prefixes in NEEDS:
                if inc.startswith(prefixes) or any(f"/{p}" in inc for p in prefixes if p.endswith("/")):
                    return reason
            for base in [os.path.dirname(cur), *dirs]:
                cand = os.path.normpath(os.path.join(base, inc))
                if (project / cand).is_file():
                    todo.append(cand)
                    break
    return None


def torch_name(rel: str) -> str:
    """Where torch.utils.hipify (is_pytorch_extension=True) writes rel."""
    from torch.utils.hipify.hipify_python import get_hip_file_path

    return get_hip_file_path(rel, is_pytorch_extension=True)


def run_ours(src: Path, out: Path, extra: list[str] = ()) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hipify", "--project-directory", str(src), "--output-directory", str(out),
                    "--quiet", *extra], cwd=ROOT, check=True)
    return time.perf_counter() - start


def run_torch(src: Path, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", TORCH_RUN, str(src), str(out)], check=True, capture_output=True, cwd="/")
    return time.perf_counter() - start


def _target():
    from hipify.mappings import NEWEST, Target, installed_hip_version

    return Target(installed_hip_version() or NEWEST)


def tree_digest(folder: Path) -> str:
    h = hashlib.sha1()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.name.startswith("."):
            h.update(p.relative_to(folder).as_posix().encode() + b"\0" + hashlib.sha1(p.read_bytes()).digest())
    return h.hexdigest()


def compile_one(cmd: list[str], timeout: float) -> tuple[bool, str]:
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return False, f"timeout after {timeout:.0f} s"
    if r.returncode == 0:
        return True, ""
    return False, first_error(r.stderr)


def first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error" in line and "warning" not in line.split("error")[0]:
            msg = re.sub(r"^.*?(?:fatal )?error:\s*", "", line).strip()
            msg = re.sub(r"'[^']*'", "'X'", msg) if "file not found" not in msg else msg
            return msg[:160]
    return (stderr.strip().splitlines() or ["(no message)"])[-1][:160]


def hipcc_cmd(path: Path, root: Path, dirs: list[str], rocm: list[str]) -> list[str]:
    return ["hipcc", "-std=c++17", "-fsyntax-only", "--offload-arch=gfx90a", "-x", "hip", "-w",
            *[f"-I{root / d}" for d in dirs], *[f"-isystem{d}" for d in rocm], str(path)]


def nvcc_cmd(path: Path, root: Path, dirs: list[str]) -> list[str]:
    return ["nvcc", "-x", "cu", "-std=c++17", "-arch=compute_80", "-code=compute_80", "--cuda", "-w", "-o", os.devnull,
            *[f"-I{root / d}" for d in dirs], str(path)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--no-compile", action="store_true")
    p.add_argument("--no-nvcc", action="store_true")
    p.add_argument("--rocm-include", action="append", default=[])
    args = p.parse_args(argv)
    corpus = Path(args.corpus).resolve()
    projects = sorted(d.name for d in corpus.iterdir() if d.is_dir() and not d.name.startswith(".")) \
        if corpus.is_dir() else []
    if not projects:
        print(f"bench_hipify: error: no projects under {corpus} (run scripts/fetch_hipify_corpus.py)", file=sys.stderr)
        return 1
    try:
        import torch.utils.hipify  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    res: dict = {"projects": {}, "repeats": args.repeats, "cpus": len(os.sched_getaffinity(0))}
    for name in projects:  # translation times: tools interleaved, each run a fresh process and folder
        src = corpus / name
        ours_t, torch_t = [], []
        for i in range(args.repeats):
            ours_t.append(run_ours(src, WORK / f"ours-{i}" / name, OURS_OPTIONS.get(name, [])))
            if have_torch:
                torch_t.append(run_torch(src, WORK / f"torch-{i}" / name))
        rerun_cli = [run_ours(src, WORK / "ours-0" / name, OURS_OPTIONS.get(name, [])) for _ in range(args.repeats)]
        from hipify.tree import Options, hipify_tree

        rerun_in = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            keep = "--keep-names" in OURS_OPTIONS.get(name, [])
            hipify_tree(src, WORK / "ours-0" / name, options=Options(keep_names=keep, target=_target()))
            rerun_in.append(time.perf_counter() - t)
        res["projects"][name] = {"files": len(cuda_files(src)), "ours_s": statistics.median(ours_t),
                                 "torch_s": statistics.median(torch_t) if torch_t else None,
                                 "ours_rerun_cli_s": statistics.median(rerun_cli),
                                 "ours_rerun_in_process_s": statistics.median(rerun_in)}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    res["python_start_s"] = time.perf_counter() - t
    if not args.no_compile:
        compile_all(corpus, projects, res, args, have_torch)
    report(res)
    (ROOT / "build" / "bench").mkdir(parents=True, exist_ok=True)
    (ROOT / "build" / "bench" / "hipify.json").write_text(json.dumps(res, indent=2))
    return 0


def compile_all(corpus: Path, projects: list[str], res: dict, args, have_torch: bool) -> None:
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    rocm = [os.path.abspath(d) for d in args.rocm_include]
    nvcc = shutil.which("nvcc") is not None and not args.no_nvcc
    jobs: dict[str, list] = {}
    plan = []
    for name in projects:
        src, dirs = corpus / name, INCLUDE_DIRS.get(name, [])
        keep = "--keep-names" in OURS_OPTIONS.get(name, [])
        ours_root, torch_root = WORK / "ours-0" / name, WORK / "torch-0" / name
        digests = {"ours": tree_digest(ours_root), "torch": tree_digest(torch_root) if have_torch else ""}
        memo: dict = {}
        for rel in cuda_files(src):
            why = needs(src, rel, dirs, memo)
            plan.append((name, rel, why))
            if why:
                continue
            jobs[f"ours:{name}:{rel}:{digests['ours']}:{rocm}"] = hipcc_cmd(
                ours_root / hip_path(rel, keep), ours_root, [hip_path(d, keep) for d in dirs], rocm)
            if have_torch:
                jobs[f"torch:{name}:{rel}:{digests['torch']}:{rocm}"] = hipcc_cmd(
                    torch_root / torch_name(rel), torch_root, [d.replace("cuda", "hip") for d in dirs], rocm)
            if nvcc:
                jobs[f"nvcc:{name}:{rel}:original"] = nvcc_cmd(src / rel, src, dirs)
    todo = {k: v for k, v in jobs.items() if k not in cache}
    print(f"compiling {len(todo)} of {len(jobs)} (the rest cached) with {args.jobs} jobs", flush=True)
    done = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(compile_one, cmd, args.timeout): k for k, cmd in todo.items()}
        for f in concurrent.futures.as_completed(futures):
            cache[futures[f]] = f.result()
            done += 1
            if done % 25 == 0:
                print(f"  {done}/{len(todo)}", flush=True)
                CACHE.parent.mkdir(parents=True, exist_ok=True)
                CACHE.write_text(json.dumps(cache))
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    CACHE.write_text(json.dumps(cache))
    by_key = {k.split(":")[0] + ":" + ":".join(k.split(":")[1:3]): v for k, v in cache.items() if k in jobs}
    for name in projects:
        proj = res["projects"][name]
        proj.update(excluded={}, compiled=0, nvcc_ok=0, ours_ok=0, torch_ok=0, ours_errors={}, torch_errors={},
                    failures={"ours": [], "torch": []})
        ours_err, torch_err = collections.Counter(), collections.Counter()
        for pname, rel, why in plan:
            if pname != name:
                continue
            if why:
                proj["excluded"].setdefault(why, []).append(rel)
                continue
            nv = by_key.get(f"nvcc:{name}:{rel}", (True, ""))
            if not nv[0]:
                proj["excluded"].setdefault(f"nvcc does not compile the original ({nv[1][:60]})", []).append(rel)
                continue
            proj["compiled"] += 1
            proj["nvcc_ok"] += 1
            for tool, errs in (("ours", ours_err), ("torch", torch_err)):
                ok, msg = by_key.get(f"{tool}:{name}:{rel}", (False, "not run"))
                if ok:
                    proj[f"{tool}_ok"] += 1
                else:
                    errs[msg] += 1
                    proj["failures"][tool].append(f"{rel}: {msg}")
        proj["ours_errors"], proj["torch_errors"] = dict(ours_err.most_common(8)), dict(torch_err.most_common(8))


def report(res: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    c = Console()
    t = Table(title="hipify vs torch.utils.hipify on real CUDA projects")
    for col in ("project", ".cu/.cuh", "excluded", "compiled", "tcore hipcc ok", "torch hipcc ok", "tcore s",
                "torch s", "speed-up", "rerun s (in process / CLI)"):
        t.add_column(col, justify="left" if col == "project" else "right")
    tot = collections.Counter()
    for name, p in res["projects"].items():
        excl = sum(len(v) for v in p.get("excluded", {}).values())
        n = p.get("compiled", 0)
        tot.update(files=p["files"], excl=excl, n=n, ours=p.get("ours_ok", 0), torch=p.get("torch_ok", 0))
        tot["ours_s"] += p["ours_s"]
        tot["torch_s"] += p["torch_s"] or 0
        tot["rerun"] += p["ours_rerun_in_process_s"]
        tot["rerun_cli"] += p["ours_rerun_cli_s"]
        pct = lambda k: f"{p.get(k, 0)} ({100 * p.get(k, 0) / n:.0f}%)" if n else "-"  # noqa: E731
        t.add_row(name, str(p["files"]), str(excl), str(n), pct("ours_ok"), pct("torch_ok"), f"{p['ours_s']:.2f}",
                  f"{p['torch_s']:.2f}" if p["torch_s"] else "-",
                  f"{p['torch_s'] / p['ours_s']:.1f}x" if p["torch_s"] else "-",
                  f"{p['ours_rerun_in_process_s']:.3f} / {p['ours_rerun_cli_s']:.3f}")
    n = tot["n"]
    t.add_row("all", str(tot["files"]), str(tot["excl"]), str(n),
              f"{tot['ours']} ({100 * tot['ours'] / n:.1f}%)" if n else "-",
              f"{tot['torch']} ({100 * tot['torch'] / n:.1f}%)" if n else "-", f"{tot['ours_s']:.2f}",
              f"{tot['torch_s']:.2f}", f"{tot['torch_s'] / tot['ours_s']:.1f}x" if tot["torch_s"] else "-",
              f"{tot['rerun']:.3f} / {tot['rerun_cli']:.3f}")
    c.print(t)
    res["totals"] = dict(tot)
    print(f"python -c pass alone: {res['python_start_s']:.3f} s")
    for name, p in res["projects"].items():
        for why, files in p.get("excluded", {}).items():
            print(f"{name}: excluded {len(files)}: {why}: {', '.join(files[:4])}{' ...' if len(files) > 4 else ''}")
        for tool in ("ours", "torch"):
            for msg, k in p.get(f"{tool}_errors", {}).items():
                print(f"{name}: {'tcore' if tool == 'ours' else 'torch'} first error x{k}: {msg}")


if __name__ == "__main__":
    sys.exit(main())
