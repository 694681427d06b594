"""scripts/check_pytorch_codegen.py on a fixed sample: the first generated file of each kind for
PyTorch 2.13's whole YAML, in both header modes, compiles (-fsyntax-only) against tcore's headers.
(The autograd shards, PyTorch's formulas written against ATen's API, are counted by the script,
not compiled here.)"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_sample_of_pytorch_tree_compiles(pytorch_dir, tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    import check_pytorch_codegen

    out = tmp_path / "report.json"
    rc = check_pytorch_codegen.main(["--sample", "1", "--kinds", "dispatch,jit,python,functionalization,lazy",
                                     "--work", str(tmp_path / "w"), "--json", str(out)])
    assert rc == 0
    report = json.loads(out.read_text())
    for mode in ("per-operator", "monolithic"):
        kinds = report["modes"][mode]["kinds"]
        for kind in ("dispatch", "jit", "python", "functionalization", "lazy"):
            assert kinds[kind]["files"] == 1 and kinds[kind]["errors"] == 0, (mode, kind, kinds[kind]["top"])
    assert report["modes"]["per-operator"]["generated_files"] > 4000


def test_undeclared_helpers_header_declares_what_a_compile_lacks(tmp_path):
    """The script's second pass over the autograd shards: the names a compile reports undeclared
    (unqualified, in ATen's namespaces, results taken apart with std::get) get declarations, and
    the same file then compiles; tcore's own functions stay visible through at::."""
    import shutil
    import subprocess

    import pytest

    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("g++ is not installed")
    sys.path.insert(0, str(ROOT / "scripts"))
    import check_pytorch_codegen as check

    src = tmp_path / "shard.cpp"
    src.write_text("namespace tcore { int where(int c) { return c; } }\n"
                   "namespace tcore::autograd::generated {\n"
                   "int f(int x) {\n"
                   "  int a = handle_r_to_c(x, 2.0);\n"
                   "  int b = std::get<1>(grouped_backward(x, {x}, {true, false}));\n"
                   "  return a + b + at::where(x) + at::special_i1e(x);\n"
                   "}\n}\n")
    include = [f"-I{ROOT / 'csrc' / 'include'}", f"-I{ROOT / 'build'}"]  # the stand-in type is a tcore::Tensor
    first = check.compile_one(cxx, ["-std=c++17", "-fsyntax-only", *include, "-include", "tuple"], src)
    assert not first["ok"]
    names = set(first["undeclared"])
    assert {"handle_r_to_c", "grouped_backward"} <= names and "at" in names
    header = tmp_path / "undeclared_helpers.h"
    for _ in range(2):  # at::special_i1e is reported only once `at` exists
        header.write_text(check.helpers_header(names, operators={"where"}))
        again = check.compile_one(cxx, ["-std=c++17", "-fsyntax-only", *include, "-include", str(header)], src)
        names |= set(again["undeclared"])
    assert again["ok"], again["messages"]
    assert "at::special_i1e" in names
    text = header.read_text()
    assert "special_i1e(::check_only::Arg" in text and " where(" not in text
