"""What the benchmark scripts share: running a workload in its own process (one library per
process, so that tcore and torch never share one) and reading the JSON it prints last, and
writing a run's figures under build/bench/."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run_workload(python: str, code: str, args: list[str], label: str, env: dict | None = None) -> dict | None:
    """`python -c code *args`, its last line of output as JSON; None (and stderr's tail printed,
    under `label`) when it fails."""
    r = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(f"{label} failed (exit {r.returncode}):\n{r.stderr[-3000:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def write_results(results: dict, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")
    return out
