#!/usr/bin/env python3
"""What packaging and doit's own start-up cost: a no-op `doit` in this checkout (against doit
with a one-task dodo.py, the floor) and its output, and a cold `pip wheel .` in a private copy
(ccache off): time, CPU time, wheel size, unpacked size, and what auditwheel makes of it.

    python scripts/bench_packaging.py [--runs 10] [--no-wheel]

Prints a table and writes build/bench/packaging.json. Run `doit` first (the no-op needs a build)."""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from workspace import copy_repository, env_for  # noqa: E402

FLOOR_DODO = 'def task_x():\n    return {"actions": ["true"], "uptodate": [True]}\n'


def timed(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall and CPU seconds (user + sys of the children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"bench_packaging: {' '.join(cmd)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), r


def noop(runs: int) -> dict:
    doit = [sys.executable, "-m", "doit"]
    with tempfile.TemporaryDirectory() as floor_dir:
        Path(floor_dir, "dodo.py").write_text(FLOOR_DODO)
        ours, floor, output = [], [], ""
        timed(doit, REPO)  # warm the caches
        for _ in range(runs):  # interleaved, so load from elsewhere hits both alike
            wall, _, r = timed(doit, REPO)
            ours.append(wall)
            output = r.stdout + r.stderr
            floor.append(timed(doit, Path(floor_dir))[0])
    return {"runs": runs, "tcore_min_s": min(ours), "tcore_median_s": statistics.median(ours),
            "floor_min_s": min(floor), "floor_median_s": statistics.median(floor), "output": output}


def wheel() -> dict:
    with tempfile.TemporaryDirectory() as top:
        src = copy_repository(Path(top) / "tcore")
        env = env_for(src, CCACHE_DISABLE="1")
        env.pop("TCORE_NATIVE_ARCH", None)
        wall, cpu, _ = timed([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(Path(top) / "dist"), "."],
                             src, env)
        built = next((Path(top) / "dist").glob("*.whl"))
        z = zipfile.ZipFile(built)
        out = {"wheel": built.name, "build_wall_s": round(wall, 1), "build_cpu_s": round(cpu, 1),
               "cores": os.cpu_count(), "load_average": os.getloadavg()[0], "size_bytes": built.stat().st_size,
               "unpacked_bytes": sum(i.file_size for i in z.infolist()), "files": len(z.infolist())}
        show = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(built)], capture_output=True, text=True)
        out["auditwheel"] = " ".join(show.stdout.split()) if show.returncode == 0 else "auditwheel not available"
        return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=10, help="no-op runs (each interleaved with a floor run)")
    p.add_argument("--no-wheel", action="store_true", help="skip the cold wheel build (minutes)")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be at least 1")
    results = {"noop": noop(args.runs)}
    if not args.no_wheel:
        results["wheel"] = wheel()
    from rich.console import Console
    from rich.table import Table

    t = Table(title="packaging and doit's own cost")
    t.add_column("what")
    t.add_column("figure", justify="right")
    n = results["noop"]
    t.add_row("no-op doit, min / median", f"{n['tcore_min_s']:.2f} / {n['tcore_median_s']:.2f} s")
    t.add_row("doit with a one-task dodo.py, min / median", f"{n['floor_min_s']:.2f} / {n['floor_median_s']:.2f} s")
    t.add_row("no-op output", n["output"].strip())
    if "wheel" in results:
        w = results["wheel"]
        t.add_row("wheel", w["wheel"])
        t.add_row("cold pip wheel . (ccache off), wall / CPU", f"{w['build_wall_s']} / {w['build_cpu_s']} s")
        t.add_row("load average when it ended", f"{w['load_average']:.1f} on {w['cores']} cores")
        t.add_row("wheel size / unpacked", f"{w['size_bytes']:,} / {w['unpacked_bytes']:,} bytes")
    Console().print(t)
    out = REPO / "build" / "bench" / "packaging.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
