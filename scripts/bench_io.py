"""What the benchmark scripts share: running a workload in its own process (one library per
process, so that tcore and torch never share one) and reading the JSON it prints last; workloads
kept alive side by side and timed in turns (`Workers`), so that a machine whose speed drifts
moves every library's figure alike; and writing a run's figures under build/bench/."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path


def run_workload(python: str, code: str, args: list[str], label: str, env: dict | None = None) -> dict | None:
    """`python -c code *args`, its last line of output as JSON; None (and stderr's tail printed,
    under `label`) when it fails."""
    r = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(f"{label} failed (exit {r.returncode}):\n{r.stderr[-3000:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


class Workers:
    """Workload processes started together and kept alive; each prints one JSON header line, then
    answers every request line read from stdin with one JSON line (`serve`). `ask_each` asks each
    worker in turn, so that two libraries' figures for one operator are seconds apart rather than
    minutes: on a shared machine whose speed drifts 2x between runs, the ratios stay comparable.
    A worker that fails is reported and dropped."""

    def __init__(self, specs: dict[str, tuple[str, str, list[str], dict]]):
        self.procs: dict[str, subprocess.Popen] = {}
        self.headers: dict[str, dict | None] = {}
        for key, (python, code, args, env) in specs.items():
            proc = subprocess.Popen([python, "-c", code, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=env)
            self.procs[key] = proc
        for key in list(self.procs):  # (a worker that failed leaves self.procs)
            self.headers[key] = self._answer(key)

    def _answer(self, key: str):
        proc = self.procs.get(key)
        line = proc.stdout.readline() if proc else ""
        if not line:
            if proc:
                proc.wait()
                print(f"{key} failed (exit {proc.returncode}):\n{proc.stderr.read()[-3000:]}", file=sys.stderr)
                del self.procs[key]
            return None
        return json.loads(line)

    def ask(self, key: str, request: str):
        proc = self.procs.get(key)
        if proc is None:
            return None
        proc.stdin.write(request + "\n")
        proc.stdin.flush()
        return self._answer(key)

    def ask_each(self, request: str) -> dict[str, object]:
        """Every worker's answer to `request`, the workers taking turns."""
        return {key: self.ask(key, request) for key in self.headers}

    def close(self) -> None:
        for proc in self.procs.values():
            proc.stdin.close()
            proc.wait()
        self.procs.clear()


def serve(calls: dict[str, dict], stream=None) -> None:
    """A worker's loop: each request line "name reps" from stdin answered with one JSON line
    {library: ms}, for the libraries of `calls` ({library: {name: call}}): a first call each, then
    the fastest of `reps` calls, the libraries' calls alternating (null where a library has no
    such call)."""
    for line in stream or sys.stdin:
        name, reps = line.split()
        fns = {lib: ops.get(name) for lib, ops in calls.items()}
        times: dict[str, list[float]] = {lib: [] for lib in calls}
        for fn in fns.values():
            if fn is not None:
                fn()
        for _ in range(int(reps)):
            for lib, fn in fns.items():
                if fn is not None:
                    t0 = time.perf_counter()
                    fn()
                    times[lib].append(1000 * (time.perf_counter() - t0))
        print(json.dumps({lib: min(t) if t else None for lib, t in times.items()}), flush=True)


def write_results(results: dict, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")
    return out
