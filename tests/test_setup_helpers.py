"""The setup helpers: version header, linker script, module loader, build trace summary."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from module_loader import ModuleLoadError, import_module  # noqa: E402

version = import_module("tcore_gen_version_header", ROOT / "scripts" / "gen_version_header.py")
linker = import_module("tcore_gen_linker_script", ROOT / "scripts" / "gen_linker_script.py")
trace = import_module("tcore_build_trace_summary", ROOT / "scripts" / "build_trace_summary.py")


def test_version_header_is_deterministic(tmp_path):
    text = version.version_header("1.2.3", "0123456789abcdef")
    assert '#define TCORE_VERSION "1.2.3+git0123456"' in text
    assert "#define TCORE_VERSION_MINOR 2" in text
    assert text == version.version_header("1.2.3", "0123456789abcdef")  # no timestamp
    assert 'TCORE_GIT_REVISION "unknown"' in version.version_header("1.2.3", None)
    with pytest.raises(ValueError):
        version.version_header("one", None)


def test_git_revision_reads_refs(tmp_path):
    git = tmp_path / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    assert version.git_revision(tmp_path) is None  # no commit yet
    (git / "packed-refs").write_text("# pack-refs\nabc123 refs/heads/main\n")
    assert version.git_revision(tmp_path) == "abc123"
    (git / "refs" / "heads" / "main").write_text("def456\n")
    assert version.git_revision(tmp_path) == "def456"


def test_linker_script_orders_functions():
    script = "SECTIONS\n{\n  .text           :\n  {\n    *(.text .text.*)\n  }\n}\n"
    out = linker.with_function_order(script, ["_Z3foov", "_Z3barv"])
    body = out.split(".text           :", 1)[1]
    assert body.index("*(.text._Z3foov)") < body.index("*(.text._Z3barv)") < body.index("*(.text .text.*)")
    with pytest.raises(ValueError):
        linker.with_function_order("SECTIONS { }", ["x"])


@pytest.mark.skipif(shutil.which("ld") is None, reason="no ld")
def test_linker_script_from_the_toolchain(tmp_path):
    syms = tmp_path / "order.txt"
    syms.write_text("# hot functions\n_ZN5tcore6native3addEv\n")
    out = tmp_path / "tcore.ld"
    r = subprocess.run([sys.executable, str(ROOT / "scripts/gen_linker_script.py"), "--symbols", str(syms),
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "*(.text._ZN5tcore6native3addEv)" in out.read_text()


def test_module_loader_errors(tmp_path):
    with pytest.raises(ModuleLoadError, match="no such file"):
        import_module("missing_mod", tmp_path / "missing.py")
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    with pytest.raises(ModuleLoadError, match=r"bad.py:1:\d+"):
        import_module("bad_mod", bad)
    assert "bad_mod" not in sys.modules
    good = tmp_path / "good.py"
    good.write_text("VALUE = 42\n")
    assert import_module("good_mod", good).VALUE == 42


def test_scripts_run_from_any_folder(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "scripts/gen_version_header.py"), "--out", str(tmp_path / "v.h")],
                       cwd=tmp_path, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    assert "TCORE_VERSION" in (tmp_path / "v.h").read_text()


def test_build_trace_summary(tmp_path):
    log = tmp_path / ".ninja_log"
    log.write_text("# ninja log v7\n"
                   "0\t1500\t1\tCMakeFiles/tcore.dir/csrc/native/cpu/Copy.cpp.o\tabc\n"
                   "0\t500\t1\tCMakeFiles/tcore.dir/generated/dispatch/Operators_0.cpp.o\tdef\n"
                   "100\t300\t1\tCMakeFiles/tcore.dir/csrc/native/cpu/Copy.cpp.o\tabc\n"
                   "600\t900\t1\tlibtcore.so\tghi\n")
    steps = trace.read_ninja_log(log)
    summary = trace.summarize(steps, top=2)
    assert summary["slowest"][0] == {"step": "generated/dispatch/Operators_0.cpp", "seconds": 0.5}
    assert summary["by_kind"] == {"hand-written": 0.2, "generated": 0.5, "link": 0.3}
    assert summary["per_folder"]["csrc/native"] == 0.2
    assert trace.main(["--build-dir", str(tmp_path), "--json", str(tmp_path / "t.json")]) == 0
    (tmp_path / ".ninja_log").write_text("garbage\n")
    assert trace.main(["--build-dir", str(tmp_path), "--json", str(tmp_path / "t.json")]) == 1
