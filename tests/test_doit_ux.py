"""doit answers at once: list/info/help on a fresh clone and while a build holds the lock,
task documentation, one summary line that counts the selected tasks, the progress
display on a terminal and plain lines elsewhere, ninja's steps and compiler colours."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from workspace import copy_repository, doit, env_for, holding_build_lock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tasks import cmake, lock, progress, reporter  # noqa: E402

TASKS = {"build", "codegen", "configure", "hipify", "test", "version"}
SUMMARY = re.compile(r"tcore: (up to date, )?(\d+) of (\d+) tasks? ran, \d+\.\d s")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    """What a fresh clone holds: the tracked files, no build/ and no generated/."""
    ws = copy_repository(tmp_path_factory.mktemp("fresh"))
    assert not (ws / "build").exists() and not (ws / "generated").exists()
    return ws


def test_list_info_help_on_a_fresh_clone(fresh):
    listed = doit(fresh, "list").stdout.splitlines()
    docs = {line.split()[0]: line.split(None, 1)[1] for line in listed}
    assert set(docs) == TASKS, listed
    assert all(len(doc) > 20 for doc in docs.values()), listed  # one line of documentation each
    everything = doit(fresh, "list", "--all").stdout
    assert "codegen:op:add" in everything and "hipify:native/cuda/" in everything
    info = doit(fresh, "info", "build", check=False)  # exit 1: doit's way of saying "it would run"
    assert info.returncode == 1 and "status     : run" in info.stdout and "Traceback" not in info.stderr
    assert docs["build"] in doit(fresh, "help", "build").stdout
    assert not (fresh / "build" / "doit.lock").exists()  # nothing took the lock


@pytest.mark.parametrize("args", [["list"], ["list", "--all"], ["info", "build"], ["help", "build"],
                                  ["-v", "2", "info", "build"], ["-n", "4", "list"], ["nosuchtask"]],
                         ids=" ".join)
def test_commands_that_run_nothing_never_wait_for_a_build(fresh, args):
    with holding_build_lock(fresh):  # as a running build does; a command that waited would time out
        r = subprocess.run([sys.executable, "-m", "doit", *args], cwd=fresh, capture_output=True, text=True,
                           env=env_for(fresh), timeout=120)
    assert "waiting" not in r.stderr
    assert "Traceback" not in r.stderr
    if args[0] in ("-v", "-n", "nosuchtask"):  # doit's own error for a task that does not exist, at once
        assert r.returncode == 3 and "invalid" in r.stderr.lower(), r.stderr
    else:
        assert r.returncode in (0, 1), r.stderr  # info: 1 when the task would run


def test_a_run_waits_for_the_build_holding_build_lock(fresh):
    with holding_build_lock(fresh):
        proc = subprocess.Popen([sys.executable, "-m", "doit", "version"], cwd=fresh, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env_for(fresh))
        line = proc.stderr.readline()  # written only once it found the lock taken
        assert "another doit run (pid of the test)" in line and "waiting" in line
        assert proc.poll() is None
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert SUMMARY.search(out)


def test_summary_counts_the_selected_tasks(fresh):
    n_codegen = sum(1 for line in doit(fresh, "list", "--all").stdout.splitlines() if line.startswith("codegen:"))
    first = doit(fresh, "codegen").stdout.splitlines()
    assert first[-1].startswith(f"tcore: {n_codegen} of {n_codegen} tasks ran"), first[-1]
    again = doit(fresh, "codegen").stdout.splitlines()
    assert len(again) == 1 and SUMMARY.fullmatch(again[0]), again  # a no-op is one line
    assert again[0].startswith(f"tcore: up to date, 0 of {n_codegen} tasks ran")
    one = doit(fresh, "codegen:op:add").stdout.splitlines()
    assert one[0].startswith("tcore: up to date, 0 of 1 task ran")
    forced = doit(fresh, "-a", "codegen:op:add").stdout.splitlines()
    assert forced[0] == ".  codegen:op:add  [1/1]" and forced[-1].startswith("tcore: 1 of 1 task ran")


def run_in_terminal(cmd: list[str], cwd: Path, env: dict, timeout: float = 300) -> str:
    """cmd's output as a terminal of 120 columns shows it."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                proc.kill()
                raise AssertionError(f"{cmd} printed nothing for {timeout} s")
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        proc.wait(timeout=timeout)
    assert proc.returncode == 0, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode(errors="replace")


def test_progress_display_on_a_terminal_and_plain_lines_elsewhere(fresh):
    env = env_for(fresh, TERM="xterm-256color")
    env.pop("CI", None)
    raw = run_in_terminal([sys.executable, "-m", "doit", "-a", "codegen"], fresh, env)
    assert "━" in raw and "\x1b[" in raw  # rich's bar, in colour
    shown = cmake.ANSI_ESCAPE.sub("", raw)
    n = int(re.search(r"✓ codegen +(\d+) of (\d+) sub-tasks ran", shown).group(2))
    assert not re.search(r"^\.  codegen:op:", shown, re.M)  # the sub-tasks are the bar, not lines
    assert f"tcore: {n} of {n} tasks ran" in shown
    plain = doit(fresh, "-a", "codegen", env=env).stdout  # a pipe: plain lines, no escape codes
    assert "\x1b[" not in plain and "━" not in plain
    assert re.search(rf"^\.  codegen:op:add  \[\d+/{n}\]$", plain, re.M)
    assert plain.splitlines()[-1].startswith(f"tcore: {n} of {n} tasks ran")
    ci = doit(fresh, "-a", "codegen:op:add", env={**env, "CI": "true"}).stdout
    assert ci.splitlines()[0] == ".  codegen:op:add  [1/1]"


@pytest.mark.parametrize("argv,command", [
    (["doit"], "run"), (["doit", "list"], "list"), (["doit", "-n", "4", "list"], "run"),
    (["doit", "-f", "dodo.py", "list"], "list"), (["doit", "--file=dodo.py", "info", "x"], "info"),
    (["doit", "-k", "clean"], "clean"), (["doit", "build"], "run"), (["doit", "reset-dep"], "reset-dep"),
    (["doit", "-d", "list", "help"], "help"),
])
def test_command_is_read_as_doit_reads_it(argv, command):
    assert lock.command(argv) == command
    assert lock.locks_at_load(argv) == (command in {"clean", "forget", "ignore", "reset-dep", "strace"})


@pytest.mark.parametrize("argv,parallel", [
    (["doit"], False), (["doit", "-n", "4"], True), (["doit", "-n4"], True), (["doit", "--process=2"], True),
    (["doit", "-n", "4", "-P", "thread"], False), (["doit", "--parallel-type=thread", "-n", "2"], False),
    (["doit", "-n", "0"], False),
])
def test_process_parallel_runs_get_plain_lines(argv, parallel):
    assert reporter.process_parallel(argv) == parallel


class Recorder:
    def __init__(self):
        self.notes, self.seen = [], []

    def note(self, text):
        self.notes.append(text)

    def steps(self, kind, done, total, label):
        self.seen.append((kind, done, total, label))


@pytest.fixture
def tiny_project(tmp_path) -> tuple[Path, Path]:
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        pytest.skip("cmake and ninja are needed (pip install -r requirements.txt)")
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.24)\nproject(t CXX)\n"
                                        "add_library(t STATIC a.cpp b.cpp)\n")
    (src / "a.cpp").write_text("int a() { return 1; }\n")
    (src / "b.cpp").write_text("int b() { return 2; }\n")
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_COLOR_DIAGNOSTICS=ON",
                    "-DTCORE_USE_CCACHE=OFF"], check=True, capture_output=True)
    return src, build


def test_ninja_steps_feed_the_display(tiny_project, capsys, monkeypatch):
    src, build = tiny_project
    monkeypatch.delenv("TCORE_REMOTE_CACHE", raising=False)
    monkeypatch.delenv("TCORE_DISTCC_HOSTS", raising=False)
    sink = Recorder()
    progress.attach(sink)
    try:
        ok, _ = cmake.run_build(src, build, 1)
    finally:
        progress.attach(None)
    assert ok
    assert {(kind, label) for kind, _, _, label in sink.seen} >= {("compile", "a.cpp"), ("compile", "b.cpp")}
    assert sink.seen[-1][1] == sink.seen[-1][2]  # ends at total
    assert "tcore-ninja" not in capsys.readouterr().out  # the status lines became steps


def test_ninja_lines_without_a_display(tiny_project, capsys, monkeypatch):
    src, build = tiny_project
    ok, _ = cmake.run_build(src, build, 1)
    assert ok and re.search(r"^\[\d+/\d+\] Building CXX object .*a\.cpp\.o$", capsys.readouterr().out, re.M)


@pytest.mark.parametrize("on_terminal", [True, False])
def test_compiler_errors_keep_colours_only_on_a_terminal(tiny_project, capsys, monkeypatch, on_terminal):
    src, build = tiny_project
    (src / "b.cpp").write_text("int b() { return undeclared_name; }\n")
    monkeypatch.setattr(progress, "terminal", lambda stream=None: on_terminal)
    ok, lines = cmake.run_build(src, build, 1)
    out = capsys.readouterr().out
    assert not ok and "undeclared_name" in out
    assert ("\x1b[" in out) == on_terminal
    assert not any("\x1b[" in line for line in lines)  # what formula_errors() parses is plain


def test_live_display_steps_aside_for_a_task_that_writes_to_the_terminal():
    """pytest (doit test) writes to the terminal itself: the display stops while it runs."""
    import io

    from doit.task import Task

    from tasks.live import LiveView

    view = LiveView(io.StringIO())
    view.start(2)
    python_task, raw_task = Task("version", [(lambda: None, [])]), Task("test", ["true"])
    view.started(python_task, 1, 2, raw=False)
    assert view.running
    view.note("  rewrote tcore/version.h")
    view.steps("compile", 3, 10, "Cat.cpp")
    view.finished(python_task, True, 0.1)
    assert "compile" not in view.rows  # a task's steps end with it
    view.started(raw_task, 2, 2, raw=True)
    assert not view.running
    view.finished(raw_task, True, 1.0)
    assert view.running
    view.stop()
    assert not view.running


def test_a_source_edited_while_ninja_runs_is_built_again(tmp_path, monkeypatch, capsys):
    """doit records the sources' checksums after the build action: a file saved while ninja ran would
    count as built and stay stale. The action runs ninja again over it (and says why)."""
    from types import SimpleNamespace

    (tmp_path / "csrc").mkdir()
    src = tmp_path / "csrc" / "a.cpp"
    src.write_text("int a() { return 1; }\n")
    os.utime(src, (1, 1))  # saved long before the build
    seen = []

    def fake_run_build(root, build_dir, jobs, explain=()):
        seen.append(src.read_text())
        if len(seen) == 1:
            src.write_text("int a() { return 2; }\n")  # an editor saves while ninja runs
        return True, []

    monkeypatch.setattr(cmake, "run_build", fake_run_build)
    monkeypatch.setattr(cmake, "_require_tools", lambda: None)
    assert cmake.build(SimpleNamespace(root=tmp_path, build_dir=tmp_path / "build"))
    assert seen == ["int a() { return 1; }\n", "int a() { return 2; }\n"]
    assert "csrc/a.cpp changed during the build: building again" in capsys.readouterr().err
    assert cmake.edited_since([str(src)], 1e18) == []
    assert cmake.edited_since([str(tmp_path / "gone.cpp")], 0) == [str(tmp_path / "gone.cpp")]
