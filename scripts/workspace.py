"""A private copy of the repository and what a build did in it: doit runs, snapshots
of generated files, what ninja rebuilt. Used by the pipeline tests and bench_build.py."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository


def copy_repository(dest: Path) -> Path:
    """The tracked and untracked-but-not-ignored files of this checkout, copied to dest."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if not src.is_file():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
    return dest


def env_for(workspace: Path, **extra: str) -> dict:
    """The environment of a build in a private copy: no TCORE_ setting of this one, and the CPU
    kernels compiled for the baseline capability only (what these builds test is the pipeline;
    tests/test_cpu_capability.py checks every capability on the main build). An extra
    TCORE_CPU_CAPABILITIES="" compiles them all."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TCORE_")}
    env.update(PYTHONDONTWRITEBYTECODE="1", TCORE_CPU_CAPABILITIES="default")
    env.update(extra)
    return env


def doit(workspace: Path, *args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "doit", *args], cwd=workspace, capture_output=True, text=True,
                       env=env or env_for(workspace))
    if check and r.returncode != 0:
        raise AssertionError(f"doit {' '.join(args)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


@contextmanager
def holding_build_lock(workspace: Path, holder: str = "pid of the test"):
    """Hold the lock a doit run takes (tasks/lock.py), as a running build does: a run started
    meanwhile waits, deterministically, until the block ends."""
    state = workspace / "build"
    state.mkdir(exist_ok=True)
    with open(state / "doit.lock", "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        f.truncate()
        f.write(holder)
        f.flush()
        yield


def executed_tasks(output: str) -> list[str]:
    """doit prints '. name' for a task it runs and '-- name' for one it skips."""
    return [line[2:].split()[0] for line in output.splitlines() if line.startswith(". ")]


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


@dataclass
class NinjaLog:
    build_dir: Path

    def lines(self) -> list[str]:
        path = self.build_dir / ".ninja_log"
        return path.read_text().splitlines() if path.exists() else []

    def mark(self) -> dict[str, str]:
        """output -> the mtime ninja recorded for it. Ninja compacts its log now and then,
        so a line count is no clock; a changed (or new) entry is a rebuilt output."""
        out = {}
        for line in self.lines():
            if line and not line.startswith("#"):
                fields = line.split("\t")
                out[fields[3]] = fields[2]
        return out

    def outputs_since(self, mark: dict[str, str]) -> set[str]:
        return {o for o, stamp in self.mark().items() if mark.get(o) != stamp}


def ninja_deps(build_dir: Path) -> dict[str, set[str]]:
    """object -> the files it was compiled from (ninja -t deps)."""
    out = subprocess.run(["ninja", "-C", str(build_dir), "-t", "deps"], capture_output=True, text=True,
                         check=True).stdout
    deps: dict[str, set[str]] = {}
    current = None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            current = line.split(":")[0]
            deps[current] = set()
        elif line.strip() and current is not None:
            deps[current].add(os.path.realpath(os.path.join(build_dir, line.strip())))
    return deps


def run_python(workspace: Path, code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], cwd=workspace, capture_output=True, text=True, check=True,
                       env=env_for(workspace))
    return r.stdout
