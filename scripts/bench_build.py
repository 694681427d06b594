#!/usr/bin/env python3
"""Build benchmark: full build, no-op doit, a one-operator schema edit and a
one-kernel edit, in a private copy of the repository; then clean builds of the whole
chain on the local test cluster (scripts/build_cluster.py): local only, from a warm shared
cache filled by a build in another folder, and with distcc over two local daemons.
Prints tables and writes build/bench/build.json. A benchmark, never part of the tests' pass/fail.

The no-op figure is shown beside the floor: doit with a one-task dodo.py on the
same machine (interpreter start-up and doit's own plugin scan)."""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workspace import ROOT, NinjaLog, copy_repository, doit, env_for, executed_tasks, snapshot  # noqa: E402


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def noop_time(ws: Path, runs: int) -> float:
    return statistics.median(timed(lambda: doit(ws))[0] for _ in range(runs))


def floor_time(runs: int) -> float:
    with tempfile.TemporaryDirectory() as d:
        Path(d, "dodo.py").write_text("def task_x():\n    return {'actions': ['true'], 'uptodate': [True]}\n")
        return statistics.median(
            timed(lambda: subprocess.run([sys.executable, "-m", "doit"], cwd=d, capture_output=True, check=True))[0]
            for _ in range(runs))


def edit_and_rebuild(ws: Path, path: Path, old: str, new: str) -> dict:
    gen = ws / "generated"
    before = snapshot(gen)
    log = NinjaLog(ws / "build")
    mark = log.mark()
    original = path.read_text()
    path.write_text(original.replace(old, new, 1))
    try:
        seconds, r = timed(lambda: doit(ws))
        after = snapshot(gen)
        rewritten = sorted(f for f in after if after[f][0] != before.get(f, (0, b""))[0])
        rebuilt = sorted(o for o in log.outputs_since(mark) if o.endswith((".o", ".so")))
        return {"seconds": round(seconds, 3), "files_rewritten": rewritten,
                "objects_recompiled": [o for o in rebuilt if o.endswith(".o")],
                "linked": [Path(o).name for o in rebuilt if o.endswith(".so")],
                "tasks_run": len(executed_tasks(r.stdout))}
    finally:
        path.write_text(original)
        doit(ws)


def ccache_rebuild(runs_dir: Path) -> dict | None:
    """Clean build of the C++ library (build_libtcore.py) with a cold compiler cache, then
    again from an empty build tree with the cache warm: times, ratio, hit rate, peak memory."""
    import resource
    import shutil as _shutil

    if _shutil.which("ccache") is None:
        return None
    env = {**os.environ, "CCACHE_DIR": str(runs_dir / "ccache")}
    script = [sys.executable, str(ROOT / "scripts" / "build_libtcore.py")]
    work = runs_dir / "lib"
    work.mkdir()
    cold, _ = timed(lambda: subprocess.run(script, cwd=work, env=env, capture_output=True, check=True))
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    _shutil.rmtree(work / "build")
    subprocess.run(["ccache", "--zero-stats"], env=env, capture_output=True, check=True)
    warm, _ = timed(lambda: subprocess.run(script, cwd=work, env=env, capture_output=True, check=True))
    stats = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True).stdout
    values = dict(line.split("\t", 1) for line in stats.splitlines() if "\t" in line)
    hits = int(values.get("direct_cache_hit", 0)) + int(values.get("preprocessed_cache_hit", 0))
    misses = int(values.get("cache_miss", 0))
    return {"cold_s": round(cold, 2), "warm_s": round(warm, 2), "ratio": round(warm / cold, 3),
            "hit_rate": round(hits / max(1, hits + misses), 3), "hits": hits, "misses": misses,
            "peak_child_rss_mb": round(peak_kb / 1024, 1)}


_USE = re.compile(r"tcore: ccache: (\d+) of (\d+) compilations served from the cache \((\d+) from remote")


def cluster_builds(runs_dir: Path) -> dict | None:
    """Clean builds of the whole chain (doit) in fresh copies, each with an empty local ccache:
    local only; with the shared cache cold (it fills Redis); in another folder from the warm
    shared cache; with distcc over two local daemons (2 slots each)."""
    import shutil as _shutil

    import build_cluster

    if any(_shutil.which(t) is None for t in ("ccache", "redis-server", "distccd", "distcc")):
        return None
    cluster = build_cluster.start(runs_dir / "cluster", daemons=2, slots=2)
    try:
        env_remote = {"TCORE_REMOTE_CACHE": cluster.env()["TCORE_REMOTE_CACHE"]}
        env_distcc = {"TCORE_DISTCC_HOSTS": cluster.env()["TCORE_DISTCC_HOSTS"]}
        out = {}
        for name, extra in (("local", {}), ("shared_cache_cold", env_remote), ("shared_cache_warm", env_remote),
                            ("distcc", env_distcc)):
            ws = copy_repository(runs_dir / name / "tcore")
            env = env_for(ws, CCACHE_DIR=str(runs_dir / name / "ccache"), **extra)
            seconds, r = timed(lambda: doit(ws, env=env))
            m = _USE.search(r.stdout)
            hits, total, remote = (int(g) for g in m.groups()) if m else (0, 0, 0)
            out[name] = {"seconds": round(seconds, 2), "compilations": total, "hits": hits, "remote_hits": remote,
                         "hit_rate": round(hits / total, 3) if total else None}
            if name == "distcc":
                out[name]["daemon_jobs"] = [cluster.jobs_done(d) for d in cluster.daemons]
            _shutil.rmtree(ws / "build")
        return out
    finally:
        cluster.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="repetitions of the no-op measurement")
    parser.add_argument("--json", default=str(ROOT / "build" / "bench" / "build.json"))
    parser.add_argument("--cluster-only", action="store_true", help="only the clean builds on the local cluster")
    args = parser.parse_args()
    if args.cluster_only:
        return report_cluster(Path(args.json).with_name("build_cluster.json"))
    from rich.console import Console
    from rich.table import Table

    with tempfile.TemporaryDirectory(prefix="tcore-bench-") as tmp:
        ws = copy_repository(Path(tmp))
        full, _ = timed(lambda: doit(ws))
        noop = noop_time(ws, args.runs)
        floor = floor_time(args.runs)
        schema = edit_and_rebuild(ws, ws / "csrc/native/native_functions.yaml",
                                  "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)",
                                  "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=2)")
        kernel = edit_and_rebuild(ws, ws / "csrc/native/cpu/UnaryOps.cpp", "namespace tcore::native {",
                                  "namespace tcore::native {\n// edited")
        formula = edit_and_rebuild(ws, ws / "csrc/autograd/derivatives.yaml", "  self: mul(grad, other)\n",
                                   "  self: mul(other, grad)\n")
        cache = ccache_rebuild(Path(tmp))
    figures = {
        "full_build_s": round(full, 2),
        "noop_doit_s": round(noop, 3),
        "doit_floor_s": round(floor, 3),
        "schema_edit": schema,
        "kernel_edit": kernel,
        "formula_edit": formula,
        "ccache": cache,
        "schema_edit_ratio": round(schema["seconds"] / full, 3),
        "kernel_edit_ratio": round(kernel["seconds"] / full, 3),
    }
    table = Table(title="tcore build (private copy of the repository)")
    for col in ("run", "seconds", "vs full", "files rewritten", "objects recompiled"):
        table.add_column(col, justify="right" if col != "run" else "left")
    table.add_row("full build", f"{full:.2f}", "1.000", "-", "all")
    table.add_row("no-op doit", f"{noop:.3f}", f"{noop / full:.3f}", "0", "0")
    table.add_row("  (doit floor: one-task dodo.py)", f"{floor:.3f}", "", "", "")
    for name, r in (("one-operator schema edit", schema), ("one-kernel edit", kernel), ("one-formula edit", formula)):
        table.add_row(name, f"{r['seconds']:.2f}", f"{r['seconds'] / full:.3f}", str(len(r["files_rewritten"])),
                      str(len(r["objects_recompiled"])))
    Console().print(table)
    if cache:
        print(f"compiler cache (ccache), C++ library from an empty build tree: cold {cache['cold_s']} s, "
              f"warm {cache['warm_s']} s (ratio {cache['ratio']}), hit rate {cache['hit_rate']:.0%}; "
              f"peak memory of a compiler process {cache['peak_child_rss_mb']} MB")
    for name, r in (("schema edit", schema), ("kernel edit", kernel)):
        print(f"{name}: rewrote {r['files_rewritten']}; recompiled {[Path(o).name for o in r['objects_recompiled']]}")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2))
    print(f"wrote {out}")
    return report_cluster(out.with_name("build_cluster.json"))


def report_cluster(out: Path) -> int:
    from rich.console import Console
    from rich.table import Table

    with tempfile.TemporaryDirectory(prefix="tcore-bench-cluster-") as tmp:
        builds = cluster_builds(Path(tmp))
    if builds is None:
        print("cluster builds skipped: ccache, redis-server and distcc are needed")
        return 0
    local = builds["local"]["seconds"]
    table = Table(title="clean build of the whole chain, empty local ccache each time (2 cores)")
    for col in ("build", "seconds", "vs local", "cache hits", "remote hits"):
        table.add_column(col, justify="right" if col != "build" else "left")
    for name, label in (("local", "local only"), ("shared_cache_cold", "shared cache, cold (fills Redis)"),
                        ("shared_cache_warm", "shared cache, warm, another folder"),
                        ("distcc", "distcc, 2 local daemons x 2 slots")):
        b = builds[name]
        table.add_row(label, f"{b['seconds']:.2f}", f"{b['seconds'] / local:.3f}",
                      f"{b['hits']}/{b['compilations']}", str(b["remote_hits"]))
    Console().print(table)
    print(f"distcc: compile jobs per daemon {builds['distcc']['daemon_jobs']}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(builds, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
