"""The doit pipeline pointed at PyTorch's operator set (TCORE_* variables): codegen runs
there without touching the main build, and a one-entry edit rewrites only the files
whose content depends on that entry."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from workspace import executed_tasks, snapshot

ROOT = Path(__file__).resolve().parent.parent
EDIT = ("- func: _cast_Byte(Tensor self, bool non_blocking=False) -> Tensor",
        "- func: _cast_Byte(Tensor self, bool non_blocking=True) -> Tensor")


def doit_codegen(env: dict) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "doit", "codegen"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def generated(gen: Path) -> dict:
    return {k: v for k, v in snapshot(gen).items() if k.startswith(("tcore/", "dispatch/", "python/", "cmake/"))}


def test_one_entry_edit_at_pytorch_scale(pytorch_dir, tmp_path):
    native = tmp_path / "native_functions.yaml"
    native.write_text((pytorch_dir / "native_functions.yaml").read_text())
    gen = tmp_path / "gen"
    env = {**os.environ, "TCORE_NATIVE_FUNCTIONS_PATH": str(native), "TCORE_TAGS_PATH": str(pytorch_dir / "tags.yaml"),
           "TCORE_GEN_DIR": str(gen)}
    main_build = snapshot(ROOT / "generated") if (ROOT / "generated").exists() else {}
    doit_codegen(env)
    before = generated(gen)
    assert sum(1 for f in before if f.startswith("tcore/ops/") and f.endswith("_ops.h")) > 1300
    assert executed_tasks(doit_codegen(env).stdout) == []
    native.write_text(native.read_text().replace(*EDIT))
    r = doit_codegen(env)
    after = generated(gen)
    rewritten = {f for f in after if after[f][0] != before[f][0]}
    changed = {f for f in after if after[f][1] != before[f][1]}
    assert rewritten == changed
    assert "tcore/ops/_cast_Byte.h" in rewritten
    assert all(f.startswith(("tcore/ops/_cast_Byte", "dispatch/Operators_", "python/python_functions_",
                             "jit/Unboxing_", "functionalization/Functionalize_", "lazy/Lazy_", "python/tcore/_stubs_"))
               for f in rewritten)
    # its bucket of operators, and the shards that hold it: dispatch, jit, functionalization, lazy, binding, stubs
    ran = executed_tasks(r.stdout)
    assert len(ran) <= 7 and {t.split(":")[1] for t in ran} <= {"ops", "dispatch", "jit", "functionalize", "lazy", "pybind",
                                                                "pyi"}, ran
    if main_build:
        assert snapshot(ROOT / "generated") == main_build, "the main build's generated files must not change"


@pytest.mark.parametrize("operators", ["tcore", "pytorch"])
def test_a_cold_run_on_every_core_writes_what_one_core_writes(operators, request, tmp_path):
    """A cold `doit codegen` renders the cold units in forked workers first (tasks/codegen.py);
    with MAX_JOBS=1 it renders them one by one in doit's order. Same files, same bytes, the same
    tasks reporting the same files written; a second run of either is a no-op. tcore's operators
    and PyTorch's (its native_functions, tags and derivatives)."""
    yaml = {}
    if operators == "pytorch":
        d = request.getfixturevalue("pytorch_dir")
        yaml = {"TCORE_NATIVE_FUNCTIONS_PATH": str(d / "native_functions.yaml"), "TCORE_TAGS_PATH": str(d / "tags.yaml"),
                "TCORE_DERIVATIVES_PATH": str(d / "derivatives.yaml")}
    runs = {}
    for name, extra in (("workers", {}), ("one", {"MAX_JOBS": "1"})):
        gen = tmp_path / name
        env = {**os.environ, **yaml, "TCORE_GEN_DIR": str(gen)}
        env.pop("MAX_JOBS", None)
        env.update(extra)
        out = doit_codegen(env).stdout
        rewrote = sorted(line.strip() for line in out.splitlines() if line.strip().startswith("rewrote "))
        runs[name] = (generated(gen), rewrote, sorted(executed_tasks(out)))
        assert executed_tasks(doit_codegen(env).stdout) == []
    (files_w, rewrote_w, ran_w), (files_1, rewrote_1, ran_1) = runs["workers"], runs["one"]
    assert len(ran_w) > 64 and ran_w == ran_1
    assert {f: v[1] for f, v in files_w.items()} == {f: v[1] for f, v in files_1.items()}
    assert rewrote_w == rewrote_1 and len(rewrote_w) == len(ran_w)
