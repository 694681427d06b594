#!/usr/bin/env python3
"""hipify against PyTorch's torch.utils.hipify on real CUDA code (scripts/fetch_hipify_corpus.py):
per project, the whole translation of its C/C++/CUDA sources (a fresh process into a fresh folder,
interpreter start and imports included) by each tool, a rerun with nothing changed (in process and
through the CLI), and whether hipcc compiles each .cu/.cuh translation (HIP_PLATFORM=amd hipcc
-fsyntax-only --offload-arch=gfx90a) among the files whose original nvcc compiles (nvcc --cuda, the
front ends of both sides, no code written). Prints tables, writes build/bench/hipify.json. Not a test.

    python scripts/bench_hipify.py --corpus build/hipify-corpus [--jobs N] [--repeats N] [--timeout S]
        [--only time|compile|nvcc] [--no-nvcc] [--sample K] [--rocm-include DIR ...] [--cuda-include DIR ...]

Excluded, counted and named per reason: files whose include closure needs PyTorch's own headers (a
translated extension includes ATen/hip/..., which only a ROCm build of PyTorch ships) or a library
with no HIP port (CUTLASS, the cuDNN frontend), and files whose original nvcc does not compile.
--rocm-include / --cuda-include add folders of library headers (default: build/rocm-extra/usr/include
and build/cuda-extra/include when they exist, as `fetch_hipify_corpus.py --toolchain-headers` leaves
them). Every compile runs under `nice -n 10`, --jobs at a time (default 2: the machine is shared).
Results are cached in build/bench/hipify-compile-cache.json by the digest of the file's include
closure and of the command, so a rerun resumes and compiles only what changed.
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
ROCM_EXTRA = ROOT / "build" / "rocm-extra" / "usr" / "include"
CUDA_EXTRA = ROOT / "build" / "cuda-extra" / "include"
# include folders of each project (relative to its root), as its build passes them
INCLUDE_DIRS = {
    "llama-cpp-python": ["vendor/llama.cpp/ggml/include", "vendor/llama.cpp/ggml/src",
                         "vendor/llama.cpp/ggml/src/ggml-cuda"],
    "cupy": ["cupy/_core/include", "cupy/_core/include/cupy/_dlpack", "cupy/cuda"],
    "deepspeed": ["csrc/includes", "csrc/fp_quantizer/includes", "csrc/deepspeed4science/evoformer_attn",
                  "csrc/spatial/includes", "csrc/transformer/inference/includes",
                  "deepspeed/inference/v2/kernels/includes", "deepspeed/inference/v2/kernels/ragged_ops/includes",
                  "deepspeed/inference/v2/kernels/ragged_ops/ragged_helpers",
                  "deepspeed/inference/v2/kernels/ragged_ops/top_k_gating", "deepspeed/inference/v2/ragged/includes",
                  "deepspeed/inference/v2/kernels/core_ops/cuda_linear/include"],
    "gsplat": ["gsplat/cuda/include", "gsplat/cuda/csrc", "gsplat/cuda/csrc/third_party/glm"],
    "mamba-ssm": ["csrc/selective_scan"],
    "causal-conv1d": ["csrc"],
}
# options a user of this project passes (ggml-cuda/vendors/ holds cuda.h and its hand-written hip.h: renaming
# would map both to one file, which hipify refuses; cupy_backends/ holds cuda/ and hip/); both tools are
# given the project's include folders, so that includes of renamed headers are rewritten
OURS_OPTIONS = {"llama-cpp-python": ["--keep-names"], "cupy": ["--keep-names"]}
NEEDS = [  # (reason, include prefixes): the first one a file's include closure reaches
    ("PyTorch headers (torch/ATen/c10: only a ROCm build of PyTorch has their HIP side)",
     ("torch/", "ATen/", "c10/", "THC/", "Python.h", "pybind11/")),
    ("CUTLASS/CuTe (no HIP port)", ("cutlass/", "cute/")),
    ("cuDNN frontend / cuBLASLt (no HIP package here)", ("cudnn_frontend", "cublasLt.h")),
]
TORCH_RUN = r"""
import sys
from torch.utils.hipify import hipify_python
hipify_python.hipify(project_directory=sys.argv[1], output_directory=sys.argv[2], header_include_dirs=sys.argv[3:],
                     show_detailed=False, show_progress=False, is_pytorch_extension=True)
"""
# flags a project's own build passes: DeepSpeed's op_builder defines the wavefront size its HIP branch reads;
# ggml's CMake gives nvcc --extended-lambda (its flash-attention kernels use __device__ lambdas)
HIP_DEFINES = {"deepspeed": ["-DROCM_WAVEFRONT_SIZE=64"]}
NVCC_FLAGS = {"llama-cpp-python": ["--extended-lambda"]}
NVCC = ["nvcc", "-x", "cu", "-std=c++17", "-arch=compute_80", "-code=compute_80", "--cuda", "-w", "-o", os.devnull]
HIPCC = ["hipcc", "-std=c++17", "-fsyntax-only", "--offload-arch=gfx90a", "-x", "hip", "-w"]
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)


def cuda_files(project: Path) -> list[str]:
    return sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.suffix in (".cu", ".cuh")
                  and p.is_file())


class Closure:
    """The project files that a file includes, directly or not (looked up beside the including file,
    then in the project's include folders), and their contents' digest."""

    def __init__(self, root: Path, dirs: list[str]):
        self.root, self.dirs = root, dirs
        self.includes: dict[str, list[str]] = {}
        self.digests: dict[str, bytes] = {}

    def _read(self, rel: str) -> None:
        try:
            data = (self.root / rel).read_bytes()
        except OSError:
            data = b""
        self.includes[rel] = _INCLUDE.findall(data.decode("utf-8", "replace"))
        self.digests[rel] = hashlib.sha1(data).digest()

    def walk(self, rel: str) -> tuple[list[str], list[str]]:
        """(the files of the closure, every include path written in them)"""
        seen, todo, written = {}, [rel], []
        while todo:
            cur = todo.pop()
            if cur in seen:
                continue
            seen[cur] = None
            if cur not in self.includes:
                self._read(cur)
            for inc in self.includes[cur]:
                written.append(inc)
                for base in [os.path.dirname(cur), *self.dirs]:
                    cand = os.path.normpath(os.path.join(base, inc))
                    if not cand.startswith("..") and (self.root / cand).is_file():
                        todo.append(cand)
                        break
        return list(seen), written

    def need(self, rel: str) -> str | None:
        """The first reason of NEEDS that the closure reaches, or None."""
        for inc in self.walk(rel)[1]:
            for reason, prefixes in NEEDS:
                if inc.startswith(prefixes) or any(f"/{p}" in inc for p in prefixes if p.endswith("/")):
                    return reason
        return None

    def digest(self, rel: str) -> str:
        files = self.walk(rel)[0]
        h = hashlib.sha1()
        for f in sorted(files):
            h.update(f.encode() + b"\0" + self.digests[f])
        return h.hexdigest()


def torch_name(rel: str) -> str:
    """Where torch.utils.hipify (is_pytorch_extension=True) writes rel."""
    from torch.utils.hipify.hipify_python import get_hip_file_path

    return get_hip_file_path(rel, is_pytorch_extension=True)


def ours_options(src: Path, name: str) -> list[str]:
    dirs = [a for d in INCLUDE_DIRS.get(name, []) for a in ("--extra-include-dir", str(src / d))]
    return [*OURS_OPTIONS.get(name, []), *dirs]


def run_ours(src: Path, out: Path, name: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hipify", "--project-directory", str(src), "--output-directory", str(out),
                    "--quiet", *ours_options(src, name)], cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def run_torch(src: Path, out: Path, name: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", TORCH_RUN, str(src), str(out), *INCLUDE_DIRS.get(name, [])], check=True,
                   capture_output=True, cwd="/")
    return time.perf_counter() - start


def first_error(stderr: str) -> str:
    """The first error of a compiler's output, without its place (the same error in a shared header
    groups across files) and without clang's guess (`; did you mean ...?`)."""
    for line in stderr.splitlines():
        if re.search(r"\b(?:fatal )?error\b", line) and "warning:" not in line.split("error")[0]:
            msg = re.sub(r"^.*?(?:fatal )?error:\s*", "", line).strip()
            return re.sub(r"; did you mean .*$", "", msg)[:160]
    return (stderr.strip().splitlines() or ["(no message)"])[-1][:160]


def compile_one(cmd: list[str], timeout: float) -> list:
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    try:
        r = subprocess.run(["nice", "-n", "10", *cmd], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return [False, f"timeout after {timeout:.0f} s"]
    return [True, ""] if r.returncode == 0 else [False, first_error(r.stderr + r.stdout)]


def _save(cache: dict) -> None:
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    tmp = CACHE.with_name(CACHE.name + ".tmp")
    tmp.write_text(json.dumps(cache, sort_keys=True))
    os.replace(tmp, CACHE)


def _load_cache() -> dict:
    try:
        data = json.loads(CACHE.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _tool_version(tool: str) -> str:
    try:
        r = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60)
        return hashlib.sha1((r.stdout + r.stderr).encode()).hexdigest()[:12]
    except (OSError, subprocess.TimeoutExpired):
        return "absent"


def time_translations(corpus: Path, projects: list[str], res: dict, repeats: int, have_torch: bool) -> None:
    """Fresh output, fresh process, tools interleaved; then reruns with nothing changed."""
    from hipify.mappings import NEWEST, Target, installed_hip_version
    from hipify.tree import Options, hipify_tree

    target = Target(installed_hip_version() or NEWEST)
    for name in projects:
        src = corpus / name
        ours_t, torch_t = [], []
        for i in range(repeats):
            shutil.rmtree(WORK / f"ours-{i}" / name, ignore_errors=True)
            ours_t.append(run_ours(src, WORK / f"ours-{i}" / name, name))
            if have_torch:
                shutil.rmtree(WORK / f"torch-{i}" / name, ignore_errors=True)
                torch_t.append(run_torch(src, WORK / f"torch-{i}" / name, name))
        rerun_cli = [run_ours(src, WORK / "ours-0" / name, name) for _ in range(repeats)]
        rerun_in = []
        options = Options(keep_names="--keep-names" in OURS_OPTIONS.get(name, []), target=target,
                          extra_include_dirs=tuple(str(src / d) for d in INCLUDE_DIRS.get(name, [])))
        for _ in range(repeats):
            t = time.perf_counter()
            summary = hipify_tree(src, WORK / "ours-0" / name, options=options)
            rerun_in.append(time.perf_counter() - t)
            assert not (summary.translated or summary.copied), f"{name}: a rerun translated again"
        size = sum(p.stat().st_size for p in src.rglob("*") if p.is_file())
        res["projects"].setdefault(name, {}).update(
            sources=sum(1 for p in src.rglob("*") if p.is_file()), megabytes=size / 1e6,
            ours_s=statistics.median(ours_t), torch_s=statistics.median(torch_t) if torch_t else None,
            ours_rerun_cli_s=statistics.median(rerun_cli), ours_rerun_in_process_s=statistics.median(rerun_in))
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    res["python_start_s"] = time.perf_counter() - t


def ensure_translations(corpus: Path, projects: list[str], have_torch: bool) -> None:
    """The compile stage reads ours-0/ and torch-0/: made here when the timing stage did not run (a
    rerun into an existing folder translates only what changed)."""
    for name in projects:
        run_ours(corpus / name, WORK / "ours-0" / name, name)
        if have_torch and not (WORK / "torch-0" / name).is_dir():
            run_torch(corpus / name, WORK / "torch-0" / name, name)


def plan_compiles(corpus: Path, projects: list[str], args, have_torch: bool) -> tuple[list, dict]:
    """(plan rows (project, rel, exclusion reason or None), {cache key: command})"""
    rocm = [os.path.abspath(d) for d in args.rocm_include]
    cuda = [os.path.abspath(d) for d in args.cuda_include]
    tools = _tool_version("hipcc") + _tool_version("nvcc")

    def key(tool: str, name: str, rel: str, digest: str, cmd: list[str]) -> str:
        """what decides a compile's result: the file's include closure, the command, the compilers"""
        return f"{tool}|{name}|{rel}|{digest}|{hashlib.sha1((tools + repr(cmd)).encode()).hexdigest()[:16]}"

    nvcc = shutil.which("nvcc") is not None and not args.no_nvcc
    plan, jobs = [], {}
    for name in projects:
        src, dirs = corpus / name, INCLUDE_DIRS.get(name, [])
        keep = "--keep-names" in OURS_OPTIONS.get(name, [])
        ours_root, torch_root = WORK / "ours-0" / name, WORK / "torch-0" / name
        orig = Closure(src, dirs)
        ours = Closure(ours_root, [hip_path(d, keep) for d in dirs])
        theirs = Closure(torch_root, [d.replace("cuda", "hip") for d in dirs])
        files = cuda_files(src)
        if args.sample > 1:
            files = files[::args.sample]
        for rel in files:
            why = orig.need(rel)
            plan.append((name, rel, why))
            if why:
                continue
            if nvcc and args.only != "ours":
                cmd = [*NVCC, *NVCC_FLAGS.get(name, []), *[a for d in cuda for a in ("-isystem", d)],
                       *[f"-I{src / d}" for d in dirs], str(src / rel)]
                jobs[key("nvcc", name, rel, orig.digest(rel), cmd)] = cmd
            if args.only == "nvcc":
                continue
            hip = [*HIPCC, *HIP_DEFINES.get(name, []), *[a for d in rocm for a in ("-isystem", d)]]
            out = hip_path(rel, keep)
            cmd = [*hip, *[f"-I{ours_root / d}" for d in ours.dirs], str(ours_root / out)]
            jobs[key("ours", name, rel, ours.digest(out), cmd)] = cmd
            if have_torch and args.only != "ours":
                out = torch_name(rel)
                cmd = [*hip, *[f"-I{torch_root / d}" for d in theirs.dirs], str(torch_root / out)]
                jobs[key("torch", name, rel, theirs.digest(out), cmd)] = cmd
    return plan, jobs


def compile_all(corpus: Path, projects: list[str], res: dict, args, have_torch: bool) -> None:
    if args.only != "nvcc":
        ensure_translations(corpus, projects, have_torch and args.only != "ours")
    plan, jobs = plan_compiles(corpus, projects, args, have_torch)
    cache = _load_cache()
    todo = [k for k in jobs if k not in cache]
    todo.sort(key=lambda k: k.split("|")[0] != "nvcc")  # the originals first: they decide what counts
    print(f"compiling {len(todo)} of {len(jobs)} (the rest cached), {args.jobs} at a time under nice -n 10",
          flush=True)
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(compile_one, jobs[k], args.timeout): k for k in todo}
        for done, f in enumerate(concurrent.futures.as_completed(futures), 1):
            cache[futures[f]] = f.result()
            if done % 10 == 0 or done == len(todo):
                _save(cache)
                print(f"  {done}/{len(todo)} in {time.perf_counter() - started:.0f} s", flush=True)
    result = {tuple(k.split("|")[:3]): cache[k] for k in jobs if k in cache}
    summarize(plan, result, res, have_torch, args.only == "nvcc")


def summarize(plan: list, result: dict, res: dict, have_torch: bool, nvcc_only: bool) -> None:
    for name in {p[0] for p in plan}:
        proj = res["projects"].setdefault(name, {})
        proj.update(files=0, excluded={}, nvcc_ok=0, ours_ok=0, torch_ok=0, ours_errors={}, torch_errors={},
                    failures={"ours": [], "torch": []})
        errors = {"ours": collections.Counter(), "torch": collections.Counter()}
        for pname, rel, why in plan:
            if pname != name:
                continue
            proj["files"] += 1
            nv = result.get(("nvcc", name, rel), [True, ""])
            if why is None and not nv[0]:
                why = (f"nvcc did not finish ({nv[1]}): not counted" if nv[1].startswith("timeout") else
                       f"nvcc does not compile the original: {nv[1][:100]}")
            if why:
                proj["excluded"].setdefault(why, []).append(rel)
                continue
            proj["nvcc_ok"] += 1
            for tool in ("ours", "torch") if have_torch and not nvcc_only else ("ours",) if not nvcc_only else ():
                if (tool, name, rel) not in result and tool == "torch":
                    continue
                ok, msg = result.get((tool, name, rel), [False, "not compiled"])
                if ok:
                    proj[f"{tool}_ok"] += 1
                else:
                    errors[tool][msg] += 1
                    proj["failures"][tool].append(f"{rel}: {msg}")
        for tool in ("ours", "torch"):
            proj[f"{tool}_errors"] = dict(errors[tool].most_common(6))


def report(res: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    c = Console(width=200)
    t = Table(title="tcore hipify vs torch.utils.hipify 2.13 on real CUDA projects (hipcc 5.2, gfx90a)")
    for col in ("project", "sources (MB)", ".cu/.cuh", "excluded", "nvcc ok", "tcore hipcc ok", "torch hipcc ok",
                "tcore s", "torch s", "speed-up", "rerun s (in process / CLI)"):
        t.add_column(col, justify="left" if col == "project" else "right")
    tot = collections.Counter()
    for name, p in sorted(res["projects"].items()):
        excl = sum(len(v) for v in p.get("excluded", {}).values())
        n = p.get("nvcc_ok", 0)
        for k in ("files", "nvcc_ok", "ours_ok", "torch_ok", "sources"):
            tot[k] += p.get(k, 0)
        tot["excl"] += excl
        for k in ("ours_s", "torch_s", "ours_rerun_in_process_s", "ours_rerun_cli_s", "megabytes"):
            tot[k] += p.get(k) or 0

        def pct(k: str, p=p, n=n) -> str:
            return f"{p.get(k, 0)} ({100 * p.get(k, 0) / n:.0f}%)" if n else "-"

        timed = "ours_s" in p
        t.add_row(name, f"{p.get('sources', 0)} ({p.get('megabytes', 0):.1f})", str(p.get("files", "-")),
                  str(excl), str(n), pct("ours_ok"), pct("torch_ok"),
                  f"{p['ours_s']:.2f}" if timed else "-", f"{p['torch_s']:.2f}" if timed and p["torch_s"] else "-",
                  f"{p['torch_s'] / p['ours_s']:.1f}x" if timed and p["torch_s"] else "-",
                  f"{p['ours_rerun_in_process_s']:.3f} / {p['ours_rerun_cli_s']:.3f}" if timed else "-")
    n = tot["nvcc_ok"]
    t.add_row("all", f"{tot['sources']} ({tot['megabytes']:.1f})", str(tot["files"]), str(tot["excl"]), str(n),
              f"{tot['ours_ok']} ({100 * tot['ours_ok'] / n:.1f}%)" if n else "-",
              f"{tot['torch_ok']} ({100 * tot['torch_ok'] / n:.1f}%)" if n else "-",
              f"{tot['ours_s']:.2f}", f"{tot['torch_s']:.2f}",
              f"{tot['torch_s'] / tot['ours_s']:.1f}x" if tot["ours_s"] and tot["torch_s"] else "-",
              f"{tot['ours_rerun_in_process_s']:.3f} / {tot['ours_rerun_cli_s']:.3f}")
    c.print(t)
    res["totals"] = dict(tot)
    if "python_start_s" in res:
        print(f"python -c pass alone: {res['python_start_s']:.3f} s")
    for name, p in sorted(res["projects"].items()):
        for why, files in p.get("excluded", {}).items():
            print(f"{name}: excluded {len(files)}: {why}: {', '.join(files[:3])}{' ...' if len(files) > 3 else ''}")
        for tool in ("ours", "torch"):
            for msg, k in p.get(f"{tool}_errors", {}).items():
                print(f"{name}: {'tcore' if tool == 'ours' else 'torch'} first error x{k}: {msg}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--jobs", type=int, default=2, help="compiles at a time (default 2: a shared machine)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per compile")
    p.add_argument("--only", choices=("time", "compile", "nvcc", "ours"), default=None,
                   help="one stage: the translation timings, the compiles, the originals' nvcc compiles, or "
                        "the hipcc compiles of tcore's translations alone")
    p.add_argument("--no-nvcc", action="store_true", help="count every original as compiling")
    p.add_argument("--sample", type=int, default=1, help="compile every K-th .cu/.cuh of each project")
    p.add_argument("--rocm-include", action="append", default=None)
    p.add_argument("--cuda-include", action="append", default=None)
    args = p.parse_args(argv)
    if not 1 <= args.jobs <= 64 or args.repeats < 1 or args.sample < 1:
        p.error("--jobs 1..64, --repeats and --sample at least 1")
    args.rocm_include = args.rocm_include if args.rocm_include is not None else \
        [str(ROCM_EXTRA)] if ROCM_EXTRA.is_dir() else []
    args.cuda_include = args.cuda_include if args.cuda_include is not None else \
        [str(CUDA_EXTRA)] if CUDA_EXTRA.is_dir() else []
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
    WORK.mkdir(parents=True, exist_ok=True)
    out = ROOT / "build" / "bench" / "hipify.json"
    try:
        res = json.loads(out.read_text())  # a stage run alone keeps the other stage's figures
        if not isinstance(res, dict) or not isinstance(res.get("projects"), dict):
            raise ValueError
    except (OSError, ValueError):
        res = {"projects": {}}
    res["projects"] = {k: v for k, v in res["projects"].items() if k in projects}
    res.update(repeats=args.repeats, cpus=len(os.sched_getaffinity(0)), load=os.getloadavg()[0])
    if args.only in (None, "time"):
        time_translations(corpus, projects, res, args.repeats, have_torch)
    if args.only in (None, "compile", "nvcc", "ours"):
        compile_all(corpus, projects, res, args, have_torch)
    report(res)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
