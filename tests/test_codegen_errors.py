"""Bad input to the code generator: one clear message with FILE:LINE:COL, the
line and a caret under the column; exit 1; previous outputs left as they were."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NATIVE = ROOT / "csrc/native/native_functions.yaml"
TAGS = ROOT / "csrc/native/tags.yaml"


def generate(native: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codegen.generate_code", "--native-functions-path", str(native),
           "--tags-path", str(TAGS), "--install-dir", str(out), "--per-operator-headers",
           "--kernel-source-dir", str(ROOT / "csrc/native"), *extra]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen")
    r = generate(NATIVE, out)
    assert r.returncode == 0, r.stderr
    return out


def mutate(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    text = NATIVE.read_text()
    assert old in text, old
    bad = tmp_path / "native_functions.yaml"
    bad.write_text(text.replace(old, new, 1))
    line = text[: text.index(old)].count("\n") + 1
    return bad, line


CASES = {
    "yaml syntax": ("    CPU: mm\n  tags: core", "    CPU: mm\n  tags: [core", "YAML syntax error", None),
    "unknown type": ("mm(Tensor self, Tensor mat2) -> Tensor\n", "mm(Tensor self, Tensr mat2) -> Tensor\n",
                     "unknown type 'Tensr'", "Tensr"),
    "missing kernel": ("    CPU: mm_out\n", "    CPU: mm_out_kernel_missing\n", "mm_out_kernel_missing",
                       "mm_out_kernel_missing"),
    "duplicate overload": ("- func: mm.out(Tensor self", "- func: mm(Tensor self", "duplicate overload 'mm'",
                           "mm(Tensor self"),
    "unknown field": ("  variants: function, method\n  dispatch:\n    CUDA: mm_cuda\n",
                      "  variants: function, method\n  dispatchh:\n    CUDA: mm_cuda\n", "unknown field 'dispatchh'",
                      "dispatchh"),
    "unknown tag": ("    CPU: mm\n  tags: core", "    CPU: mm\n  tags: cor", "unknown tag 'cor'", "cor"),
    "unknown dispatch key": ("    CPU: mm\n", "    CPUU: mm\n", "unknown dispatch key 'CPUU'", "CPUU"),
    "bad default": ("bool keepdim=False, *, ScalarType? dtype=None) -> Tensor\n  variants: function, method\n  dispatch:\n    CUDA: sum_dim_cuda",
                    "bool keepdim=, *, ScalarType? dtype=None) -> Tensor\n  variants: function, method\n  dispatch:\n    CUDA: sum_dim_cuda",
                    "expected a default value", ", *"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input(case, baseline, tmp_path):
    old, new, message, marker = CASES[case]
    bad, _ = mutate(tmp_path, old, new)
    before = snapshot(baseline)
    r = generate(bad, baseline)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    head = lines[0]
    assert head.startswith(f"{bad}:"), r.stderr
    assert message in head, r.stderr
    _, line_no, col, _ = head.split(":", 3)
    source_line = bad.read_text().splitlines()[int(line_no) - 1]
    assert lines[1].strip() == source_line.strip()
    caret_col = lines[2].index("^") - 4 + 1
    assert caret_col == int(col)
    if marker is not None:
        assert source_line[int(col) - 1:].startswith(marker), (source_line, col)
    assert snapshot(baseline) == before, "bad input must leave previous outputs untouched"


def test_rerun_writes_nothing(baseline):
    before = snapshot(baseline)
    r = generate(NATIVE, baseline)
    assert r.returncode == 0
    assert " 0 files written" in r.stdout
    assert snapshot(baseline) == before


def test_missing_yaml(tmp_path):
    r = generate(tmp_path / "nope.yaml", tmp_path / "out")
    assert r.returncode == 1
    assert "no such file" in r.stderr and "Traceback" not in r.stderr


def test_subsets(tmp_path):
    r = generate(NATIVE, tmp_path / "lib", "--subset", "libtorch")
    assert r.returncode == 0
    files = {p.relative_to(tmp_path / "lib").as_posix() for p in (tmp_path / "lib").rglob("*") if p.is_file()}
    assert "tcore/ops/add.h" in files and not any(f.startswith("python/") for f in files)
    r = generate(NATIVE, tmp_path / "py", "--subset", "pybindings")
    files = {p.relative_to(tmp_path / "py").as_posix() for p in (tmp_path / "py").rglob("*") if p.is_file()}
    assert "python/python_functions_0.cpp" in files and not any(f.startswith("tcore/ops/") for f in files)
    r = subprocess.run([sys.executable, "-m", "codegen.generate_code", "--native-functions-path", str(NATIVE),
                        "--tags-path", str(TAGS), "--install-dir", str(tmp_path / "mono")], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0
    assert (tmp_path / "mono/tcore/Functions.h").exists() and not (tmp_path / "mono/tcore/ops").exists()


def test_selected_ops(tmp_path):
    ops = tmp_path / "ops.yaml"
    ops.write_text("- add.Tensor\n- mm\n")
    r = generate(NATIVE, tmp_path / "sel", "--selected-op-list-path", str(ops))
    assert r.returncode == 0, r.stderr
    sel = tmp_path / "sel"
    # every operator keeps its headers (kernel sources compile); only the selected ones
    # get registrations, bindings and unboxing
    assert (sel / "tcore/ops/sub_ops.h").exists()
    registered = "".join(p.read_text() for p in sel.glob("dispatch/Register*.cpp"))
    assert "ops::add_Tensor>" in registered and "ops::mm>" in registered
    assert "ops::sub_Tensor>" not in registered and "ops::add_Scalar>" not in registered
    bindings = "".join(p.read_text() for p in sel.glob("python/python_functions_*.cpp"))
    assert '"add"' in bindings and '"sub"' not in bindings
    left_out = (sel / "dispatch/Selection.cpp").read_text()
    assert '"sub.Tensor",' in left_out and '"add.Tensor",' not in left_out
    ops.write_text("- not_an_op\n")
    r = generate(NATIVE, tmp_path / "sel2", "--selected-op-list-path", str(ops))
    assert r.returncode == 1 and "not_an_op" in r.stderr


def test_unknown_subset_is_rejected(tmp_path):
    r = generate(NATIVE, tmp_path / "out", "--subset", "everything")
    assert r.returncode != 0 and "invalid choice: 'everything'" in r.stderr
    assert not (tmp_path / "out").exists()
