"""Bad input to the code generator: one clear message with FILE:LINE:COL, the
line and a caret under the column; exit 1; previous outputs left as they were."""
from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import time
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
    "yaml syntax": ("  structured_delegate: mm.out\n  tags: core", "  structured_delegate: mm.out\n  tags: [core",
                    "YAML syntax error", None),
    "unknown type": ("mm(Tensor self, Tensor mat2) -> Tensor\n", "mm(Tensor self, Tensr mat2) -> Tensor\n",
                     "unknown type 'Tensr'", "Tensr"),
    "missing kernel": ("    CPU: mm_out\n", "    CPU: mm_out_kernel_missing\n", "mm_out_kernel_missing",
                       "mm_out_kernel_missing"),
    "duplicate overload": ("- func: mm.out(Tensor self", "- func: mm(Tensor self", "duplicate overload 'mm'",
                           "mm(Tensor self"),
    "unknown field": ("  variants: function, method\n  structured_delegate: mm.out\n",
                      "  variants: function, method\n  structured_delegatee: mm.out\n",
                      "unknown field 'structured_delegatee'", "structured_delegatee"),
    "unknown tag": ("  structured_delegate: mm.out\n  tags: core", "  structured_delegate: mm.out\n  tags: cor",
                    "unknown tag 'cor'", "cor"),
    "unknown dispatch key": ("    CPU: mm_out\n", "    CPUU: mm_out\n", "unknown dispatch key 'CPUU'", "CPUU"),
    # structured groups (codegen/structured.py)
    "delegate to an unknown entry": ("  structured_delegate: mm.out\n", "  structured_delegate: mm.outt\n",
                                     "structured_delegate names unknown operator 'mm.outt'", "structured_delegate"),
    "delegate to an entry not structured": ("- func: mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n",
                                            "- func: mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)\n",
                                            "which is not `structured: True`", "structured_delegate"),
    "delegate with other arguments": ("- func: mm(Tensor self, Tensor mat2) -> Tensor\n",
                                      "- func: mm(Tensor self, Tensor mat3) -> Tensor\n",
                                      "arguments differ from those of mm.out", "structured_delegate"),
    "delegate with its own kernel": ("  structured_delegate: mm.out\n  tags: core",
                                     "  structured_delegate: mm.out\n  dispatch:\n    CPU: mm_out\n  tags: core",
                                     "gets its CPU kernel from mm.out", "mm_out"),
    "structured entry that is not out=": ("- func: exp(Tensor self) -> Tensor\n  variants: function, method\n  structured_delegate: exp.out\n",
                                          "- func: exp(Tensor self) -> Tensor\n  variants: function, method\n  structured: True\n  dispatch:\n    CPU: exp_out\n",
                                          "must be an out= overload", "structured"),
    # autogen: out= overloads (codegen/autogen.py)
    "autogen of another operator": ("  autogen: logsumexp.out\n", "  autogen: log_softmax.int_out\n",
                                    "is not an overload of 'logsumexp'", "autogen"),
    "autogen without a Tensor return": ("    CompositeImplicitAutograd: equal\n",
                                        "    CompositeImplicitAutograd: equal\n  autogen: equal.out\n",
                                        "an out= overload needs a Tensor return", "autogen"),
    "autogen of an existing overload": ("  structured_delegate: mm.out\n  tags: core",
                                        "  structured_delegate: mm.out\n  autogen: mm.out\n  tags: core",
                                        "duplicate overload 'mm.out'", None),
    "bad default": ("bool keepdim=False, *, ScalarType? dtype=None) -> Tensor\n  variants: function, method\n  structured_delegate: sum.IntList_out",
                    "bool keepdim=, *, ScalarType? dtype=None) -> Tensor\n  variants: function, method\n  structured_delegate: sum.IntList_out",
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


# ---------------------------------------------------------------- hostile input (issue 20)
# In-process (generate_code.main) to stay fast; each case: one positioned message, exit 1,
# nothing written.

def run_main(capsys, native: Path, out: Path, *extra: str) -> tuple[int, str]:
    from codegen import generate_code

    code = generate_code.main(["--native-functions-path", str(native), "--tags-path", str(TAGS),
                               "--install-dir", str(out), "--per-operator-headers", *extra])
    captured = capsys.readouterr()
    return code, captured.err


def check_positioned(err: str, path: Path, message: str, marker: str | None) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 3, err
    head = lines[0]
    assert head.startswith(f"{path}:") and message in head, err
    _, line_no, col, _ = head.split(":", 3)
    source_line = path.read_bytes().decode("utf-8", "replace").splitlines()[int(line_no) - 1]
    assert lines[2].index("^") - 4 + 1 == int(col) or source_line.__len__() > 200, err
    if marker is not None:
        assert source_line[int(col) - 1:].startswith(marker), (source_line, col, marker)


_SUM = "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor\n  variants: function, method\n  structured_delegate: sum.IntList_out"
HOSTILE = {
    # defaults against their types (PyTorch's spellings)
    "bool typo": (_SUM, _SUM.replace("keepdim=False", "keepdim=Flase"), "did you mean False?", "Flase"),
    "int ident": ("Tensor(a) self, int dim=0,", "Tensor(a) self, int dim=abc,", "invalid default 'abc' for type int", "abc"),
    "float overflow": ("Tensor other, *, Scalar alpha=1) -> Tensor\n", "Tensor other, *, Scalar alpha=1e99999) -> Tensor\n",
                       "out of range for type Scalar", "1e99999"),
    "int overflow": ("Tensor(a) self, int dim=0,", "Tensor(a) self, int dim=99999999999999999999,", "out of range for type int",
                     "99999999999999999999"),
    "str unquoted": ("str approximate='none'", "str approximate=none", "must be a quoted string", "none"),
    "str bad escape": ("str approximate='none'", "str approximate='no\\qne'", "unknown escape", "\\q"),
    "dtype": ("ScalarType? dtype=long", "ScalarType? dtype=notatype", "invalid default 'notatype' for type ScalarType",
              "notatype"),
    "None for non-optional": ("Tensor(a) self, int dim=0,", "Tensor(a) self, int dim=None,", "None is not a default", "None"),
    # kernel names go into C++
    "kernel injection": ("    CPU: logsumexp\n", "    CPU: abs-out; system()\n", "not a C++ identifier", "-out; system()"),
    "kernel keyword": ("    CPU: logsumexp\n", "    CPU: delete\n", "'delete' is a C++ keyword", "delete"),
    "autogen name": ("  autogen: logsumexp.out\n", "  autogen: logsumexp.x-y\n", "not an operator name", "-y"),
    # bounded, well-formed YAML
    "alias": ("    CPU: logsumexp\n", "    CPU: &k mm\n", "anchors and aliases", "&k"),
    "deep nesting": ("    CPU: logsumexp\n", "    CPU: logsumexp\n  precomputed: " + "[" * 100000 + "]" * 100000 + "\n",
                     "nested deeper than 64 levels", "["),
    "nul byte": ("    CPU: logsumexp\n", "    CPU: m\0m\n", "U+0000 is not allowed", None),
    "complex key": ("    CPU: logsumexp\n", "    CPU: logsumexp\n  ? [a]\n  : b\n", "mapping key must be a plain scalar", "[a]"),
    "tag list item": ("    CPU: var\n  tags: core", "    CPU: var\n  tags: [[core]]", "a tag must be a name", "[core]"),
    "bad timestamp": ("    CPU: logsumexp\n", "    CPU: logsumexp\n  python_module: 2001-13-45\n", "month must be in 1..12", "2001"),
    "module path as python_module": ("    CPU: logsumexp\n", "    CPU: logsumexp\n  python_module: ../os\n",
                                     "python_module must be a module name", "../os"),
    "functional form misnamed": ("    CompositeExplicitAutograd: zero_\n  autogen: zero, zero.out\n",
                                 "    CompositeExplicitAutograd: zero_\n  autogen: zero_functional, zero.out\n",
                                 "the functional form of 'zero_' is 'zero'", "autogen"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_input(case, baseline, tmp_path, capsys):
    old, new, message, marker = HOSTILE[case]
    bad, _ = mutate(tmp_path, old, new)
    before = snapshot(baseline)
    code, err = run_main(capsys, bad, baseline)
    assert code == 1, err
    check_positioned(err, bad, message, marker)
    assert snapshot(baseline) == before
    code, _ = run_main(capsys, bad, tmp_path / "fresh")
    assert code == 1 and not (tmp_path / "fresh").exists(), "nothing is written on bad input"


def test_alias_bomb_is_refused_at_once(tmp_path, capsys):
    rows = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    rows += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    bad = tmp_path / "native_functions.yaml"
    bad.write_text(NATIVE.read_text() + "- func: bomb() -> ()\n  " + "\n  ".join(rows) + "\n")
    start = time.perf_counter()
    code, err = run_main(capsys, bad, tmp_path / "out")
    assert code == 1 and time.perf_counter() - start < 10, err  # was 86 s into a MemoryError
    check_positioned(err, bad, "anchors and aliases", "&a0")


def test_not_utf8(tmp_path, capsys):
    bad = tmp_path / "native_functions.yaml"
    bad.write_bytes(NATIVE.read_text().replace("keepdim=False", "keepdim=Fals\xe9", 1).encode("latin-1"))
    code, err = run_main(capsys, bad, tmp_path / "out")
    assert code == 1
    check_positioned(err, bad, "not UTF-8 text (byte 0xE9", "\ufffd")


def test_inputs_that_are_not_files(tmp_path, capsys):
    code, err = run_main(capsys, tmp_path, tmp_path / "out")
    assert code == 1 and "it is a folder" in err and "Traceback" not in err
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    code, err = run_main(capsys, fifo, tmp_path / "out")  # would block in open() before
    assert code == 1 and "not a regular file" in err
    assert not (tmp_path / "out").exists()


def test_install_dir_is_a_file(tmp_path, capsys):
    (tmp_path / "f").write_text("keep me")
    for out in (tmp_path / "f", tmp_path / "f" / "sub"):
        code, err = run_main(capsys, NATIVE, out)
        assert code == 1 and "is a file, not a folder" in err and "Traceback" not in err
    assert (tmp_path / "f").read_text() == "keep me"


@pytest.mark.parametrize("value", ["0", "-1", "100000", "1025", "two"])
def test_num_shards_is_range_checked(value, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:  # argparse: usage, one message, exit 2
        run_main(capsys, NATIVE, tmp_path / "out", "--num-shards", value)
    err = capsys.readouterr().err
    assert info.value.code == 2 and "argument --num-shards" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def _changed_native(tmp_path: Path) -> Path:
    changed = tmp_path / "changed.yaml"
    changed.write_text(NATIVE.read_text().replace("Scalar alpha=1", "Scalar alpha=2"))
    return changed


def _check_whole(out: Path, old: dict, new: dict) -> None:
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")], "a temporary file was left behind"
    for rel, (_, data) in snapshot(out).items():
        assert data in (old.get(rel, (0, None))[1], new[rel][1]), f"{rel} is torn"


def test_full_disk_keeps_every_file_whole(baseline, tmp_path, capsys, monkeypatch):
    """ENOSPC half-way (simulated: the 20th write fails): exit 1, one message, each file old or new, no temp file."""
    import codegen.file_writer as fw

    out = tmp_path / "out"
    shutil.copytree(baseline, out)
    old = snapshot(out)
    changed = _changed_native(tmp_path)
    assert run_main(capsys, changed, tmp_path / "expected")[0] == 0
    new = snapshot(tmp_path / "expected")
    calls = {"n": 0}
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            calls["n"] += 1
            if calls["n"] >= 20:
                self.f.write(data[: len(data) // 2])
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return self.f.write(data)

    monkeypatch.setattr(fw.os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    code, err = run_main(capsys, changed, out)
    assert code == 1 and "No space left on device" in err and "Traceback" not in err, err
    assert calls["n"] >= 20
    _check_whole(out, old, new)


def test_full_disk_on_a_real_tmpfs(baseline, tmp_path, capsys):
    """The same on a real tmpfs, the generated tree's pages and 4 MiB, filled up (needs root and mount;
    skipped otherwise)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    pages = sum(-(-f.stat().st_size // 4096) if f.is_file() else 1 for f in Path(baseline).rglob("*"))  # tmpfs's
    megabytes = pages * 4096 // 2**20 + 4
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(mnt)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        out = mnt / "out"
        shutil.copytree(baseline, out)
        old = snapshot(out)
        changed = _changed_native(tmp_path)
        assert run_main(capsys, changed, tmp_path / "expected")[0] == 0
        new = snapshot(tmp_path / "expected")
        with open(mnt / "filler", "wb", buffering=0) as f:  # fill the disk to the last byte
            try:
                while f.write(b"\0" * 512):
                    pass
            except OSError as e:
                assert e.errno == errno.ENOSPC
        code, err = run_main(capsys, changed, out)
        assert code == 1 and "No space left on device" in err and "Traceback" not in err, err
        _check_whole(out, old, new)
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_dispatch_holding_a_formula_is_an_error(tmp_path, capsys):
    """`dispatch:` is derivatives.yaml's key of per-dispatch-key sections: a formula there (an input
    named `dispatch`) is a file:line:col error, not a Python traceback."""
    from codegen import generate_code

    root = Path(__file__).resolve().parent.parent
    nf = tmp_path / "native_functions.yaml"
    nf.write_text((root / "csrc/native/native_functions.yaml").read_text() + """
- func: uses_dispatch(Tensor self, Tensor dispatch) -> Tensor
  dispatch:
    CompositeExplicitAutograd: uses_dispatch
""")
    dy = tmp_path / "derivatives.yaml"
    dy.write_text((root / "csrc/autograd/derivatives.yaml").read_text() + """
- name: uses_dispatch(Tensor self, Tensor dispatch) -> Tensor
  self: grad
  dispatch: mul(grad, self)
""")
    rc = generate_code.main(["--native-functions-path", str(nf), "--tags-path", str(root / "csrc/native/tags.yaml"),
                             "--derivatives-path", str(dy), "--install-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 1
    line = len(dy.read_text().splitlines())
    assert f"derivatives.yaml:{line}:13: error: 'dispatch' holds per-dispatch-key sections" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()
