"""The generated type stubs (tcore/__init__.pyi, `generate_code --subset python`): mypy
accepts a program that uses the API and rejects one with type errors, at the lines
marked `# error`; the stub covers every bound function and method."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TYPING = Path(__file__).resolve().parent / "typing"
STUB = ROOT / "tcore" / "__init__.pyi"

pytest.importorskip("mypy", reason="mypy is needed (pip install -r requirements.txt)")


def mypy(program: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    if not STUB.exists():
        pytest.fail(f"{STUB} is missing: run `doit` (the build installs the generated stubs)")
    return subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary",
                           "--cache-dir", str(tmp_path / "mypy-cache"), "--python-version", "3.10", str(program)],
                          cwd=ROOT, capture_output=True, text=True)


def test_mypy_accepts_a_program_using_the_api(tmp_path):
    r = mypy(TYPING / "good.py", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_rejects_type_errors_where_they_are(tmp_path):
    r = mypy(TYPING / "bad.py", tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    expected = {i for i, line in enumerate((TYPING / "bad.py").read_text().splitlines(), 1) if "# error" in line}
    reported = {int(m.group(1)) for m in re.finditer(r"bad\.py:(\d+): error", r.stdout)}
    assert reported == expected, r.stdout


def test_the_stub_covers_every_binding(tcore):
    text = "\n".join(p.read_text() for p in sorted(STUB.parent.glob("*.pyi")))
    functions = set(re.findall(r"^def (\w+)\(", text, re.M))
    methods = set(re.findall(r"^    def (\w+)\(self", text, re.M))
    mixins = set(re.findall(r"^class (_TensorMethods\d+):", text, re.M))
    assert mixins and all(m in text.split("class Tensor(", 1)[1].split(")", 1)[0] for m in mixins)
    bound = {n for n in dir(tcore._C) if not n.startswith("_") and callable(getattr(tcore._C, n))}
    classes = {"Tensor", "Graph", "Node", "dtype", "device", "layout", "memory_format", "Generator", "RemovableHandle"}
    assert bound - classes - {"is_grad_enabled"} <= functions
    tensor_methods = {n for n in dir(tcore.Tensor) if not n.startswith("_")}
    attributes = {"shape", "dtype", "device", "ndim", "T", "is_leaf", "grad_fn", "grad", "requires_grad", "is_cuda",
                  "retains_grad"}
    assert tensor_methods - attributes <= methods
    assert "@overload\ndef add(self: Tensor, other: Tensor, *, alpha: _Number = 1) -> Tensor: ..." in text
