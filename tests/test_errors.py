"""Errors like PyTorch's: shape/dtype/value errors are RuntimeError subclasses (and still
ValueError/TypeError), an index out of range is an IndexError, a wrong argument type is one
line naming the argument, what was given and what is accepted, and nothing is printed to
stderr (no conversion noise, no leak report at exit)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("call, kind", [
    (lambda t: t.ones(2, 3) @ t.ones(2, 3), "value"),
    (lambda t: t.ones(2, 3).view(4), "value"),
    (lambda t: t.ones(2) + t.ones(3), "value"),
    (lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)]), "value"),
    (lambda t: t.mm(t.ones(2, 2), t.ones(2, 2, dtype=t.float64)), "type"),
    (lambda t: t.ones(2, dtype=t.int64).uniform_(), "type"),
    (lambda t: t.where(t.ones(2), t.ones(2), t.ones(2)), "type"),
])
def test_runtime_error_subclasses(tcore, call, kind):
    with pytest.raises(RuntimeError) as info:
        call(tcore)
    expected = tcore.errors.ArgumentValueError if kind == "value" else tcore.errors.ArgumentTypeError
    assert type(info.value) is expected
    assert isinstance(info.value, ValueError if kind == "value" else TypeError)


def test_index_errors_stay_index_errors(tcore):
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        tcore.ones(3)[tcore.tensor([3])]
    with pytest.raises(IndexError, match="Dimension out of range"):
        tcore.ones(3).sum(2)


@pytest.mark.parametrize("call, message", [
    (lambda t: t.add(t.ones(2), "a"), "add(): argument 'other' (position 2) must be Tensor or number, not str"),
    (lambda t: t.ones(2).view("a"), "view(): argument 'size' (position 1) must be int or tuple of ints or tcore.dtype, "
                                        "not str"),
    (lambda t: t.ones("a"), "ones(): argument 'size' (position 1) must be int or tuple of ints, not str"),
    (lambda t: t.mm(t.ones(2, 2), 3), "mm(): argument 'mat2' (position 2) must be Tensor, not int"),
    (lambda t: t.mm(t.ones(2, 2)), "mm() missing required argument 'mat2'"),
    (lambda t: t.mm(t.ones(1), t.ones(1), t.ones(1)), "mm() takes 2 positional arguments but 3 were given"),
    (lambda t: t.ones(2).sum(dimension=0), "sum() got an unexpected keyword argument 'dimension'"),
    (lambda t: t.zeros(2, dtype="float32"), "zeros(): argument 'dtype' must be tcore.dtype or None, not str"),
    (lambda t: t.cat([t.ones(1), 1]), "cat(): argument 'tensors' (position 1) must be sequence of Tensors, "
                                       "not list of [Tensor, int]"),
])
def test_wrong_argument_types_are_one_line(tcore, call, message):
    with pytest.raises(TypeError) as info:
        call(tcore)
    text = str(info.value)
    assert text == message and "\n" not in text
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_nothing_on_stderr_and_no_leak_report(tmp_path):
    script = tmp_path / "user.py"
    script.write_text(
        "import tcore\n"
        "import tcore.nn as nn\n"
        "model = nn.Linear(3, 2)\n"
        "handle = model.register_forward_hook(lambda m, a, out: out * 2)\n"
        "x = tcore.ones(4, 3, requires_grad=True)\n"
        "kept = [x, model(x)]\n"
        "try:\n"
        "    tcore.add(x, 'a')\n"
        "except TypeError as e:\n"
        "    print(e)\n"
        "CYCLE = {'t': x}\n"
        "CYCLE['self'] = CYCLE\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "add(): argument 'other' (position 2) must be Tensor or number, not str"
    assert r.stderr == ""
