"""The README's "Add an operator" walkthrough, executed step by step in a private copy of the
repository (a git repository of its own): the blocks marked `<!-- walkthrough: ... -->` are
run, appended or created in the README's order, so the README cannot drift from what works."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from workspace import copy_repository, env_for

pytestmark = pytest.mark.pipeline

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!-- walkthrough: (run|append|create)(?: (\S+))? -->\n```[a-z]*\n(.*?)```", re.S)


@dataclass(frozen=True)
class Step:
    kind: str  # run, append, create
    path: str | None
    text: str


def steps(readme: str) -> list[Step]:
    return [Step(kind, path, text) for kind, path, text in MARKER.findall(readme)]


def test_readme_walkthrough_parses():
    found = steps((ROOT / "README.md").read_text())
    assert [s.kind for s in found] == ["run", "append", "create", "append", "run", "create", "run"]
    assert {s.path for s in found if s.path} == {"csrc/native/native_functions.yaml", "csrc/native/cpu/Rad2Deg.cpp",
                                                "csrc/autograd/derivatives.yaml", "tests/test_rad2deg.py"}


def _run(ws: Path, script: str, env: dict) -> str:
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ws, env=env, capture_output=True, text=True)
    assert r.returncode == 0, f"walkthrough step failed ({r.returncode}):\n{script}\n{r.stdout}\n{r.stderr}"
    return r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed")
def test_walkthrough_adds_an_operator(tmp_path):
    native = (ROOT / "csrc/native/native_functions.yaml").read_text()
    assert "func: rad2deg(" not in native, "rad2deg exists now: pick another operator for the README's walkthrough"
    ws = copy_repository(tmp_path / "tcore")
    # the interpreter running the tests provides doit and python; the walkthrough is about the CPU
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    env = env_for(ws, USE_CUDA="0", USE_ROCM="0", PATH=path, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                  GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    _run(ws, "git init -q && git add -A && git commit -qm clone", env)
    outputs = []
    for step in steps((ROOT / "README.md").read_text()):
        if step.kind == "run":
            outputs.append(_run(ws, step.text, env))
        elif step.kind == "append":
            with open(ws / step.path, "a") as f:
                f.write(step.text)
        else:
            assert not (ws / step.path).exists(), step.path
            (ws / step.path).write_text(step.text)
    first, build, test = outputs
    assert "staged generated/tcore/" in first
    # the generator's effect, as the README describes it
    assert re.search(r"generated/dispatch/RegisterCPU_\d+\.cpp", build), build
    assert re.search(r"generated/python/python_functions_\d+\.cpp", build), build
    assert re.search(r"generated/autograd/Functions_\d+\.cpp", build), build
    for header in ("rad2deg.h", "rad2deg_ops.h", "rad2deg_native.h"):
        assert f"!! generated/tcore/ops/{header}" in build, build
    assert "1 passed" in test, test
    # and the new operator is a method, differentiable, and listed by the boxed registry
    code = ("import tcore; x = tcore.tensor([3.0], requires_grad=True); x.rad2deg().backward(); "
            "print(round(x.grad.item(), 4), any(s.startswith('rad2deg(') for s in tcore.ops.schemas()))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ws, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["57.2958", "True"]
