#!/usr/bin/env python3
"""Does the code tcore generates for PyTorch's whole operator set compile? Generates everything for
PyTorch 2.13's native_functions.yaml, tags.yaml, derivatives.yaml and deprecated.yaml (from the
torch wheel: scripts/pytorch_yaml.py) through the generator doit runs (codegen.generate_code), in
both header modes, and compiles every generated C++ file with `-fsyntax-only` against tcore's
headers, in parallel. Prints files and errors per kind of file and writes JSON. Not a test
(tests/test_pytorch_codegen.py runs it on a fixed sample).

    python scripts/check_pytorch_codegen.py [--modes per-operator,monolithic] [--kinds dispatch,jit,python,autograd,functionalization,lazy]
        [--sample K] [--jobs N] [--json build/bench/pytorch_codegen.json]

The autograd shards hold PyTorch's own formulas, written against ATen's C++ API (Tensor methods
such as `self.sgn()`, arithmetic operators on tensors, ~300 `at::`/FunctionsManual helpers); tcore's
C++ API is free functions, so those errors are counted per message, not expected to be zero.
The autograd shards are compiled twice: as generated, and then with a generated declarations header
(`<mode>/autograd/undeclared_helpers.h`, forced in with -include) that declares every function the
first pass found undeclared (`'X' was not declared in this scope`, `'X' is not a member of 'at'`)
as a variadic template returning a value convertible to any type: what is left after it is what
tcore's C++ API lacks besides those helpers (Tensor methods, operators on tensors, types).
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
KINDS = ("dispatch", "jit", "python", "autograd", "functionalization", "lazy")


def generate(yaml_dir: Path, out: Path, mode: str) -> float:
    from codegen import generate_code

    start = time.perf_counter()
    rc = generate_code.main(["--native-functions-path", str(yaml_dir / "native_functions.yaml"),
                             "--tags-path", str(yaml_dir / "tags.yaml"),
                             "--derivatives-path", str(yaml_dir / "derivatives.yaml"),
                             "--install-dir", str(out), "--gen-lazy-ts-backend", *MODES[mode]])
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
    return dict(file=str(path), ok=r.returncode == 0, errors=len(errors), messages=[_message(e) for e in errors],
                undeclared=sorted(set(undeclared_names(errors))))


_QUOTE = r"[‘'](?:::)?((?:\w+::)*\w+)[’']"
_UNDECLARED = (re.compile(rf"error: {_QUOTE} was not declared in this scope"),
               re.compile(rf"error: there are no arguments to {_QUOTE} that depend on a template parameter"),
               re.compile(rf"error: {_QUOTE} is not a member of {_QUOTE}"),
               re.compile(rf"error: {_QUOTE} has not been declared"))


def undeclared_names(errors: list[str]):
    """Qualified names (`at::foo`, `foo`) that a compile found undeclared."""
    for line in errors:
        for pattern in _UNDECLARED:
            m = pattern.search(line)
            if m:
                name = m.group(1)
                if m.re.groups == 2 and "::" not in name:
                    name = f"{m.group(2)}::{name}"
                yield name
                break


ALIASED = ("at", "c10")  # ATen's namespaces: tcore's functions are found there through a using-directive


_ARGS = 24  # the most arguments a declared helper takes


def helpers_header(names: set[str], operators: set[str], variables: set[str] = frozenset()) -> str:
    """Declarations of undeclared functions for the compile check only: each a variadic template
    whose result converts to any type. `at::`/`c10::` see tcore's own functions (ALIASED); a name
    there that is no operator of the generated tree is declared in that namespace, an unqualified
    one in the generated code's namespace."""
    by_ns: dict[str, list[str]] = collections.defaultdict(list)
    for name in sorted(names):
        ns, _, base = name.rpartition("::")
        if base[:1].isupper() or base in _KEYWORDS or name in ALIASED:  # a type, keyword or namespace
            continue
        if ns in ALIASED and base in operators:  # tcore::base exists: the using-directive finds it
            continue
        by_ns[ns or "tcore::autograd::generated"].append(base)
    lines = ["// Generated by scripts/check_pytorch_codegen.py for the compile check only (never built):",
             f"// {sum(map(len, by_ns.values()))} functions that PyTorch's formulas call and tcore does not declare.",
             "#pragma once", "#include <initializer_list>", "#include <utility>",
             "#include <cstddef>",
             "#include \"tcore/core/Tensor.h\"",
             "namespace check_only {",
             "// a helper's result: a Tensor (as most are: overloads taking a Tensor or a Scalar pick the",
             "// Tensor, its members exist) that also converts to anything else",
             "struct Any : ::tcore::Tensor { template <class T> operator T() const; };",
             "bool operator==(const Any&, const Any&); bool operator!=(const Any&, const Any&);",
             "// a helper's argument: any value, or a braced list ({dim}, {grad_input_mask[0], ...})",
             "struct Arg { Arg() = default; template <class T> Arg(T&&) {} template <class T> Arg(std::initializer_list<T>) {}"
             " Arg(std::initializer_list<long>) {} };",
             *(f"template <class T> Any operator{o}(const Any&, const T&); "
               f"template <class T> Any operator{o}(const T&, const Any&); Any operator{o}(const Any&, const Any&);"
               for o in "+-*/"),
             "Any operator-(const Any&);", "}  // namespace check_only",
             "namespace std { template <std::size_t I> ::check_only::Any get(const ::check_only::Any&); }"
             "  // grouped formulas' helpers return tuples",
             "namespace tcore {}", *(f"namespace {ns} {{ using namespace ::tcore; }}" for ns in ALIASED)]
    for ns in sorted(by_ns):
        lines.append(f"namespace {ns} {{")
        params = ", ".join(["::check_only::Arg = {}"] * _ARGS)
        lines += [f"inline ::check_only::Any {b};  // a value, never called" if f"{ns}::{b}".lstrip(":") in variables
                  or (not ns and b in variables) else f"::check_only::Any {b}({params});" for b in by_ns[ns]]
        lines.append(f"}}  // namespace {ns}")
    return "\n".join(lines) + "\n"


_KEYWORDS = {"auto", "const", "int", "double", "float", "bool", "long", "int64_t", "size_t", "void"}


def _summary(rs: list[dict]) -> dict:
    counts = collections.Counter(m for r in rs for m in r["messages"])
    return dict(files=len(rs), ok=sum(r["ok"] for r in rs), errors=sum(r["errors"] for r in rs),
                top=counts.most_common(12))


def _with_helpers(cxx: str, args: list[str], out: Path, operators: set[str], jobs: int, rs: list[dict]) -> dict:
    """Recompile the autograd shards with undeclared_helpers.h until no new undeclared name shows
    (`at::` names show only once `at` exists: at most three passes)."""
    header = out / "autograd" / "undeclared_helpers.h"
    names: set[str] = set()
    text = ""
    for _ in range(3):
        new = {n for r in rs for n in r["undeclared"]} - names
        if not new and names:
            break
        names |= new
        sources = "\n".join(Path(r["file"]).read_text() for r in rs)
        variables = {n for n in names if not re.search(rf"(?<![\w:]){re.escape(n)}\s*\(", sources)}
        text = helpers_header(names, operators, variables)
        header.write_text(text)
        with_header = [*args, "-include", str(header)]
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            rs = list(pool.map(lambda r: compile_one(cxx, with_header, Path(r["file"])), rs))
    declared = sum(1 for line in text.splitlines() if line.startswith(("::check_only::Any ", "inline ::check_only::Any ")))
    return dict(_summary(rs), helpers_declared=declared, helpers=sorted(names))


def check(yaml_dir: Path, work: Path, modes: list[str], kinds: list[str], sample: int | None, jobs: int) -> dict:
    cxx = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if cxx is None:
        raise SystemExit("no C++ compiler")
    if not (ROOT / "build" / "tcore_build_config.h").exists():
        raise SystemExit("build/tcore_build_config.h is missing: run doit first")
    report: dict = {"modes": {}}
    operators: set[str] = set()
    if "autograd" in kinds:  # PyTorch's operator roots: at::/c10:: find these through tcore
        from codegen.load import load_operator_set

        operators = set(load_operator_set(str(yaml_dir / "native_functions.yaml"),
                                          str(yaml_dir / "tags.yaml")).by_root())
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
            per_kind[kind] = _summary(rs)
        if "autograd" in kinds:
            shards = [r for r in results if Path(r["file"]).parent.name == "autograd"]
            per_kind["autograd+helpers"] = _with_helpers(cxx, args, out, operators, jobs, shards)
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
        helped = m["kinds"].get("autograd+helpers")
        if helped:
            print(f"{mode}: {helped['helpers_declared']} undeclared formula helpers declared "
                  f"(undeclared_helpers.h); the autograd shards then: {helped['errors']} errors")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
