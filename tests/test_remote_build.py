"""Builds that use the local test cluster (scripts/build_cluster.py): a shared compile
cache across folders, distcc over two daemons (one killed mid-build), every host down,
bad settings; and doit's parallel runners over the codegen/hipify chain.

Each full build takes one to two minutes on two cores."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from workspace import copy_repository, doit, env_for, executed_tasks, run_python

pytestmark = pytest.mark.pipeline

_missing = [t for t in ("cmake", "ninja") if shutil.which(t) is None]
if _missing:
    pytest.skip(f"{' and '.join(_missing)} needed (pip install -r requirements.txt)", allow_module_level=True)
needs_cluster = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("ccache", "redis-server", "distccd", "distcc")),
    reason="ccache, redis-server and distcc are needed (apt-get install ccache redis-server distcc; CI installs them)")

_USE = re.compile(r"tcore: ccache: (\d+) of (\d+) compilations served from the cache \((\d+) from remote storage\)")
SMOKE = "import tcore; x = tcore.ones(2, 3, requires_grad=True); (x * 2).sum().backward(); print(x.grad)"


CPU_ONLY = {"USE_CUDA": "0", "USE_ROCM": "0"}  # no GPU backend in these builds


def cache_use(output: str) -> tuple[int, int, int]:
    """(hits, compilations, remote hits) the build reported."""
    m = _USE.search(output)
    assert m, f"no cache report in:\n{output[-3000:]}"
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def smoke(ws: Path) -> None:
    assert run_python(ws, SMOKE).strip() == "tensor([[2., 2., 2.],\n        [2., 2., 2.]])"


def objects(ws: Path) -> dict[str, int]:
    """object file name -> mtime (ninja may compact .ninja_log, so its line count is no clock)."""
    return {o.name: o.stat().st_mtime_ns for o in (ws / "build").rglob("*.o")}


def recompiled(before: dict[str, int], after: dict[str, int]) -> set[str]:
    return {name for name, stamp in after.items() if before.get(name) != stamp}


def run_tests(ws: Path) -> None:
    """The operator and boxed-path suites against the workspace's build."""
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                            "tests/test_ops_numpy.py", "tests/test_boxed.py"], cwd=ws, capture_output=True,
                           text=True, env=env_for(ws))
    assert tests.returncode == 0, tests.stdout[-3000:]


def closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    import build_cluster

    c = build_cluster.start(tmp_path_factory.mktemp("cluster"), daemons=2, slots=2)
    yield c
    c.stop()


@dataclass
class DistccBuild:
    ws: Path
    output: str
    jobs: tuple[int, int]  # compile jobs each daemon finished
    killed_after: int  # jobs the second daemon had done when it was killed


@pytest.fixture(scope="module")
def distcc_build(cluster, tmp_path_factory) -> DistccBuild:
    top = tmp_path_factory.mktemp("distcc")
    ws = copy_repository(top / "tcore")
    # CPU only: these builds test the cache and distcc plumbing with empty local caches; the GPU
    # objects (nvcc or hipcc, which distcc does not distribute) would only add minutes. The shared
    # cache (empty) is on too: test_shared_cache_serves_a_build_in_another_folder reuses what it stores
    env = env_for(ws, CCACHE_DIR=str(top / "ccache"), TCORE_DISTCC_HOSTS=cluster.env()["TCORE_DISTCC_HOSTS"],
                  TCORE_REMOTE_CACHE=cluster.env()["TCORE_REMOTE_CACHE"], **CPU_ONLY)
    first, victim = cluster.daemons
    # the whole chain with doit's thread runner
    proc = subprocess.Popen([sys.executable, "-m", "doit", "-n", "2", "-P", "thread"], cwd=ws, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    chunks: list[str] = []
    reader = threading.Thread(target=lambda: chunks.extend(proc.stdout), daemon=True)
    reader.start()
    killed_after = -1
    while proc.poll() is None:
        if killed_after < 0 and cluster.jobs_done(first) >= 2 and cluster.jobs_done(victim) >= 2:
            killed_after = cluster.jobs_done(victim)
            cluster.kill(victim)  # dies mid-build: its jobs fall back to the other host or to this machine
        time.sleep(0.1)
    reader.join()
    output = "".join(chunks)
    assert proc.returncode == 0, output[-4000:]
    return DistccBuild(ws, output, (cluster.jobs_done(first), cluster.jobs_done(victim)), killed_after)


@needs_cluster
def test_shared_cache_serves_a_build_in_another_folder(distcc_build, cluster, tmp_path_factory):
    # the distcc build (below) filled the shared cache from empty local and remote caches: one cold
    # CPU build serves both checks (each would otherwise take minutes)
    hits, total, remote_hits = cache_use(distcc_build.output)
    assert total > 50 and hits == 0 and remote_hits == 0, distcc_build.output[-2000:]
    second = copy_repository(tmp_path_factory.mktemp("shared-cache") / "another" / "place" / "tcore")
    # another folder at another depth, with its own, empty local cache, like another machine; the whole
    # chain with doit's process runner
    r2 = doit(second, "-n", "2", env=env_for(second, CCACHE_DIR=str(second.parent / "ccache"),
                                              TCORE_REMOTE_CACHE=cluster.env()["TCORE_REMOTE_CACHE"], **CPU_ONLY))
    hits, total, remote_hits = cache_use(r2.stdout)
    assert remote_hits / total >= 0.9, r2.stdout[-2000:]
    print(f"second folder: {hits}/{total} cache hits, {remote_hits} remote")
    smoke(second)
    run_tests(second)


@needs_cluster
def test_distcc_compiles_on_the_daemons(distcc_build):
    b = distcc_build
    assert "tcore: distcc: 2 host(s) answer" in b.output
    assert b.jobs[0] >= 2 and b.jobs[1] >= 2, b.jobs  # both daemons' logs show compile jobs
    assert b.killed_after >= 2, "the build finished before the second daemon could be killed"
    assert b.jobs[1] <= b.killed_after + 2  # at most the jobs in flight when it died
    smoke(b.ws)
    run_tests(b.ws)
    print(f"distcc build: daemon jobs {b.jobs}, second daemon killed after {b.killed_after}")


@needs_cluster
def test_every_host_down_compiles_locally_with_warnings(distcc_build):
    ws = distcc_build.ws
    kernels = [ws / "csrc/native/cpu/UnaryOpsKernel.cpp", ws / "csrc/native/cpu/ReduceOpsKernel.cpp"]
    kernels = [k for k in kernels if k.exists()] or sorted((ws / "csrc/native/cpu").glob("*.cpp"))[:2]
    for k in kernels:
        k.write_text(k.read_text() + "\n// compiled with every distcc host down\n")
    before = objects(ws)
    down = f"127.0.0.1:{closed_port()}/4 127.0.0.1:{closed_port()}/4"
    r = doit(ws, env=env_for(ws, CCACHE_DIR=str(ws.parent / "ccache"), CCACHE_RECACHE="1",
                             TCORE_DISTCC_HOSTS=down, TCORE_REMOTE_CACHE=f"redis://127.0.0.1:{closed_port()}"))
    out = r.stdout + r.stderr
    assert "tcore: warning: no distcc host answers" in out and "compiling locally" in out
    assert "does not answer" in out and "building with the local cache only" in out
    rebuilt = recompiled(before, objects(ws))
    assert {k.name + ".o" for k in kernels} <= rebuilt, rebuilt
    smoke(ws)


@needs_cluster
@pytest.mark.parametrize("setting, value, where", [
    ("TCORE_DISTCC_HOSTS", "127.0.0.1:3632 build2:notaport", "TCORE_DISTCC_HOSTS:1:16: error:"),
    ("TCORE_REMOTE_CACHE", "redis://cache:port", "TCORE_REMOTE_CACHE:1:15: error:"),
])
def test_bad_setting_stops_before_compiling(distcc_build, setting, value, where):
    ws = distcc_build.ws
    kernel = sorted((ws / "csrc/native/cpu").glob("*.cpp"))[-1]
    kernel.write_text(kernel.read_text() + f"\n// {setting}\n")
    library = ws / "tcore/lib/libtcore.so"
    stamp = library.stat().st_mtime_ns
    before = objects(ws)
    r = doit(ws, env=env_for(ws, CCACHE_DIR=str(ws.parent / "ccache"), **{setting: value}), check=False)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and where in out, out[-2000:]
    assert objects(ws) == before and library.stat().st_mtime_ns == stamp  # nothing compiled, nothing half-built
    doit(ws, env=env_for(ws, CCACHE_DIR=str(ws.parent / "ccache")))  # fixed: the build goes on
    assert kernel.name + ".o" in recompiled(before, objects(ws))


def test_parallel_runners_generate_the_same_files(tmp_path):
    """codegen + hipify with doit's process and thread runners: the same bytes as a serial run,
    and doit's state intact (a second run executes nothing)."""
    trees = {}
    for runner in (["codegen", "hipify"], ["-n", "3", "codegen", "hipify"],
                   ["-n", "3", "-P", "thread", "codegen", "hipify"]):
        ws = copy_repository(tmp_path / str(len(trees)))
        doit(ws, *runner)
        trees[" ".join(runner)] = {p.relative_to(ws).as_posix(): p.read_bytes()
                                   for p in sorted((ws / "generated").rglob("*")) if p.is_file()}
        assert executed_tasks(doit(ws, *runner).stdout) == []
    serial, *parallel = trees.values()
    assert len(serial) > 40
    for tree in parallel:
        assert tree == serial
