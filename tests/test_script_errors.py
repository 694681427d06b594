"""Bad settings and bad files given to the build's scripts: one clear message and exit 1 or 2,
never a traceback, nothing half-written (MAX_JOBS and friends, gen_op_list.py,
build_trace_summary.py; download_mnist.py's are in test_download_mnist.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from workspace import env_for

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tasks import config  # noqa: E402

MLP = ROOT / "tests/graphs/mlp.ir"


def script(name: str, *args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def one_message(r: subprocess.CompletedProcess, code: int, text: str) -> None:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert text in r.stderr, r.stderr
    assert "Traceback" not in r.stderr + r.stdout


@pytest.mark.parametrize("value", ["²", "١٢", "0", "-3", "2.5", "two", "4x", "99999999999999999999x"])
def test_bad_max_jobs(value):
    with pytest.raises(config.SettingError, match="is not a positive whole number"):
        config.parse_max_jobs(value)


@pytest.mark.parametrize("value,jobs", [(None, None), ("", None), (" 4 ", 4), ("16", 16)])
def test_good_max_jobs(value, jobs):
    assert config.parse_max_jobs(value) == jobs


@pytest.mark.parametrize("setting", ["MAX_JOBS=²", "MAX_JOBS=0", "USE_CUDA=maybe", "USE_ROCM=2",
                                     "TCORE_DISABLE_AUTOGRAD=perhaps"])
@pytest.mark.parametrize("command", [[], ["list"]], ids=["run", "list"])
def test_doit_with_a_bad_setting_is_one_line(setting, command, tmp_path):
    name, value = setting.split("=", 1)
    r = subprocess.run([sys.executable, "-m", "doit", *command], cwd=ROOT, capture_output=True, text=True,
                       env=env_for(ROOT, **{name: value}), timeout=120)
    one_message(r, 2, f"tcore: error: {name}={value!r} is not")
    assert r.stderr.count("\n") == 1 and r.stdout == ""


def test_build_libtcore_with_a_bad_max_jobs(tmp_path):
    r = script("build_libtcore.py", "--cmake-only", cwd=tmp_path, env=env_for(tmp_path, MAX_JOBS="²"))
    one_message(r, 1, "build_libtcore: error: MAX_JOBS='²' is not a positive whole number")
    assert not (tmp_path / "build").exists()


@pytest.fixture
def afile(tmp_path) -> Path:
    f = tmp_path / "afile"
    f.write_text("a file, not a folder")
    return f


@pytest.mark.parametrize("args,message", [
    (["{tmp}/missing.ir"], "gen_op_list: error: {tmp}/missing.ir: No such file or directory"),
    (["{tmp}"], "gen_op_list: error: {tmp}: Is a directory"),
    (["{tmp}/binary.ir"], "gen_op_list: error: {tmp}/binary.ir: not a text IR file"),
    (["{mlp}", "--out", "{tmp}"], "gen_op_list: error: --out {tmp}: Is a directory"),
    (["{mlp}", "--out", "{afile}/ops.yaml"], "--out {afile}/ops.yaml: {afile} is a file, not a folder"),
    (["{mlp}", "--native-functions-path", "{tmp}/none.yaml"], "gen_op_list: error: no such file: {tmp}/none.yaml"),
    (["{tmp}/unknown.ir"], "{tmp}/unknown.ir:2:15: error: unknown operator tcore::frobnicate\n"
                           "      %y = tcore::frobnicate(%x)\n                  ^"),
])
def test_gen_op_list_bad_files(tmp_path, afile, args, message):
    (tmp_path / "binary.ir").write_bytes(b"\xff\xfe graph")
    (tmp_path / "unknown.ir").write_text("graph(%x):\n  %y = tcore::frobnicate(%x)\n  return (%y)\n")
    fill = {"tmp": str(tmp_path), "mlp": str(MLP), "afile": str(afile)}
    r = script("gen_op_list.py", *(a.format(**fill) for a in args), cwd=tmp_path)
    one_message(r, 1, message.format(**fill))
    assert afile.read_text() == "a file, not a folder"


def test_gen_op_list_writes_only_on_change(tmp_path):
    out = tmp_path / "ops.yaml"
    assert script("gen_op_list.py", str(MLP), "--out", str(out), cwd=tmp_path).returncode == 0
    stamp = out.stat().st_mtime_ns
    assert script("gen_op_list.py", str(MLP), "--out", str(out), cwd=tmp_path).returncode == 0
    assert out.stat().st_mtime_ns == stamp and out.read_text().startswith("- ")
    assert [p.name for p in tmp_path.iterdir()] == ["ops.yaml"]  # no temporary left behind


@pytest.mark.parametrize("log,args,code,message", [
    (None, [], 1, "build_trace_summary: error: no {build}/.ninja_log; build first (doit)"),
    ("dir", [], 1, "build_trace_summary: error: {build}/.ninja_log: Is a directory"),
    (b"garbage\n", [], 1, "{build}/.ninja_log:1: not a ninja log"),
    (b"# ninja log vX\n", [], 1, "{build}/.ninja_log:1: not a ninja log"),
    (b"# ninja log v4\n", [], 1, "ninja log v4 is too old"),
    (b"\xff\xfe\x00", [], 1, "{build}/.ninja_log is not a ninja log (not text)"),
    (b"# ninja log v5\n1\tx\t3\tout\th\n", [], 1, "{build}/.ninja_log:2: not a ninja log line"),
    (b"# ninja log v5\n", ["--top", "0"], 2, "argument --top: '0' is not a positive whole number"),
    (b"# ninja log v5\n", ["--top", "-1"], 2, "argument --top: '-1' is not a positive whole number"),
    (b"# ninja log v5\n", ["--json", "{afile}/t.json"], 1, "--json {afile}/t.json: {afile} is a file, not a folder"),
    (b"# ninja log v5\n", ["--json", "{tmp}"], 1, "--json {tmp}: Is a directory"),
])
def test_build_trace_summary_bad_files(tmp_path, afile, log, args, code, message):
    build = tmp_path / "build"
    build.mkdir()
    if log == "dir":
        (build / ".ninja_log").mkdir()
    elif log is not None:
        (build / ".ninja_log").write_bytes(log)
    fill = {"build": str(build), "afile": str(afile), "tmp": str(tmp_path)}
    json_args = [] if "--json" in args else ["--json", str(tmp_path / "t.json")]
    r = script("build_trace_summary.py", "--build-dir", str(build), *json_args, *(a.format(**fill) for a in args),
               cwd=tmp_path)
    one_message(r, code, message.format(**fill))


def test_build_trace_summary_counts_an_edge_once(tmp_path):
    """An edge with two outputs (a relative and an absolute name) is one step."""
    build = tmp_path / "build"
    build.mkdir()
    (build / ".ninja_log").write_text("# ninja log v5\n"
                                      "0\t7000\t1\trocm/native/hip/A.hip.o\th1\n"
                                      f"0\t7000\t1\t{build}/rocm/native/hip/A.hip.o\th1\n"
                                      "0\t1000\t1\tCMakeFiles/tcore.dir/csrc/core/Tensor.cpp.o\th2\n")
    r = script("build_trace_summary.py", "--build-dir", str(build), "--json", str(tmp_path / "t.json"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    import json

    summary = json.loads((tmp_path / "t.json").read_text())
    assert summary["steps"] == 2 and summary["total_s"] == 8.0
    assert summary["slowest"][0] == {"step": "rocm/native/hip/A.hip.o", "seconds": 7.0}
