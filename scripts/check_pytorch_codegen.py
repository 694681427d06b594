#!/usr/bin/env python3
"""Does the code tcore generates for PyTorch's whole operator set compile? Generates everything for
PyTorch 2.13's native_functions.yaml, tags.yaml, derivatives.yaml and deprecated.yaml (from the
torch wheel: scripts/pytorch_yaml.py) through the generator doit runs (codegen.generate_code), in
both header modes, and compiles every generated C++ file with `-fsyntax-only` against tcore's
headers, in parallel. Prints files and errors per kind of file and writes JSON. Not a test
(tests/test_pytorch_codegen.py runs it on a fixed sample).

    python scripts/check_pytorch_codegen.py [--modes per-operator,monolithic] [--kinds dispatch,jit,python,autograd]
        [--sample K] [--jobs N] [--json build/bench/pytorch_codegen.json]

The autograd shards hold PyTorch's own formulas, written against ATen's C++ API (Tensor methods
such as `self.sgn()`, arithmetic operators on tensors, ~300 `at::`/FunctionsManual helpers); tcore's
C++ API is free functions, so those errors are counted per message, not expected to be zero.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
MODES = {"per-operator": ["--per-operator-headers"], "monolithic": []}
KINDS = ("dispatch", "jit", "python", "autograd")


def generate(yaml_dir: Path, out: Path, mode: str) -> float:
    from codegen import generate_code

    start = time.perf_counter()
    rc = generate_code.main(["--native-functions-path", str(yaml_dir / "native_functions.yaml"),
                             "--tags-path", str(yaml_dir / "tags.yaml"),
                             "--derivatives-path", str(yaml_dir / "derivatives.yaml"),
                             "--install-dir", str(out), *MODES[mode]])
    if rc != 0:
        raise SystemExit(f"generate_code failed ({mode})")
    return time.perf_counter() - start


def flags(out: Path) -> list[str]:
    include = [out, ROOT / "csrc" / "include", ROOT / "csrc", ROOT / "build"]
    try:
        import nanobind

        include.append(Path(nanobind.include_dir()))
    except ImportError:
        pass
    include.append(Path(sysconfig.get_paths()["include"]))
    return ["-std=c++17", "-fsyntax-only", "-fmax-errors=0", "-DTCORE_WITH_AUTOGRAD=1", *(f"-I{d}" for d in include)]


def _message(line: str) -> str:
    """An error without its place and the names in it (so that one kind of error groups)."""
    msg = re.sub(r"^.*?error:\s*", "", line).strip()
    return re.sub(r"‘[^’]*’|'[^']*'", "X", msg)[:120]


def compile_one(cxx: str, args: list[str], path: Path) -> dict:
    r = subprocess.run([cxx, *args, str(path)], capture_output=True, text=True)
    errors = [line for line in r.stderr.splitlines() if re.search(r"\berror:", line)]
    return dict(file=str(path), ok=r.returncode == 0, errors=len(errors), messages=[_message(e) for e in errors])


def check(yaml_dir: Path, work: Path, modes: list[str], kinds: list[str], sample: int | None, jobs: int) -> dict:
    cxx = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if cxx is None:
        raise SystemExit("no C++ compiler")
    if not (ROOT / "build" / "tcore_build_config.h").exists():
        raise SystemExit("build/tcore_build_config.h is missing: run doit first")
    report: dict = {"modes": {}}
    for mode in modes:
        out = work / mode
        shutil.rmtree(out, ignore_errors=True)
        seconds = generate(yaml_dir, out, mode)
        files = []
        for kind in kinds:
            found = sorted((out / kind).glob("*.cpp"))
            files += found[:sample] if sample else found
        args = flags(out)
        start = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            results = list(pool.map(lambda p: compile_one(cxx, args, p), files))
        per_kind = {}
        for kind in kinds:
            rs = [r for r in results if Path(r["file"]).parent.name == kind]
            counts = collections.Counter(m for r in rs for m in r["messages"])
            per_kind[kind] = dict(files=len(rs), ok=sum(r["ok"] for r in rs), errors=sum(r["errors"] for r in rs),
                                  top=counts.most_common(8))
        report["modes"][mode] = dict(generate_s=round(seconds, 2), compile_s=round(time.perf_counter() - start, 1),
                                     generated_files=sum(1 for p in out.rglob("*") if p.is_file()), kinds=per_kind)
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modes", default="per-operator,monolithic")
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--sample", type=int, default=None, help="compile the first K files of each kind")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--work", default=str(ROOT / "build" / "pytorch-codegen"))
    p.add_argument("--json", default=str(ROOT / "build" / "bench" / "pytorch_codegen.json"))
    args = p.parse_args(argv)
    from pytorch_yaml import pytorch_yaml_dir

    yaml_dir = pytorch_yaml_dir()
    if yaml_dir is None:
        print("PyTorch's YAML is not available (no torch wheel)", file=sys.stderr)
        return 2
    modes = [m for m in args.modes.split(",") if m]
    kinds = [k for k in args.kinds.split(",") if k]
    bad = [m for m in modes if m not in MODES] + [k for k in kinds if k not in KINDS]
    if bad:
        print(f"unknown mode or kind: {', '.join(bad)}", file=sys.stderr)
        return 2
    report = check(yaml_dir, Path(args.work), modes, kinds, args.sample, args.jobs)
    from rich.console import Console
    from rich.table import Table

    table = Table(title="PyTorch 2.13's operators through tcore's generator, -fsyntax-only")
    for col in ("mode", "kind", "files", "compile", "errors", "most frequent error"):
        table.add_column(col, justify="right" if col in ("files", "compile", "errors") else "left")
    for mode, m in report["modes"].items():
        for kind, k in m["kinds"].items():
            top = f"{k['top'][0][1]}x {k['top'][0][0]}" if k["top"] else "-"
            table.add_row(mode, kind, str(k["files"]), f"{k['ok']}/{k['files']}", str(k["errors"]), top)
    Console(width=160).print(table)
    for mode, m in report["modes"].items():
        print(f"{mode}: {m['generated_files']} files generated in {m['generate_s']} s, compiled in {m['compile_s']} s")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
