"""scripts/bench_io.Workers and serve, which the benchmarks time libraries with side by side:
workers answer in turns, one that fails is reported and dropped while the others go on; serve
answers each request with every library's best time; and bench_linalg.py end to end at a small
size (its JSON, a figure for every operation in both libraries)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from bench_io import Workers, serve  # noqa: E402

ECHO = r'''
import json, sys
scale = float(sys.argv[1])
if scale < 0:
    sys.exit("no such worker")
print(json.dumps({"scale": scale}), flush=True)
for line in sys.stdin:
    print(json.dumps(scale * len(line.strip())), flush=True)
'''


def test_workers_answer_in_turns_and_a_failed_one_is_dropped(capsys):
    workers = Workers({"a": (sys.executable, ECHO, ["1"], None), "b": (sys.executable, ECHO, ["2.5"], None),
                       "broken": (sys.executable, ECHO, ["-1"], None)})
    assert workers.headers == {"a": {"scale": 1.0}, "b": {"scale": 2.5}, "broken": None}
    err = capsys.readouterr().err
    assert "broken failed (exit 1)" in err and "no such worker" in err
    assert workers.ask_each("four") == {"a": 4.0, "b": 10.0, "broken": None}
    assert workers.ask_each("xy") == {"a": 2.0, "b": 5.0, "broken": None}
    workers.close()
    assert workers.procs == {}


def test_serve_answers_every_library_and_null_where_one_lacks_the_call(capsys):
    calls = []
    serve({"a": {"f": lambda: calls.append("a")}, "b": {"f": lambda: calls.append("b"), "g": lambda: None}},
          stream=["f 3\n", "g 2\n"])
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert set(answers[0]) == {"a", "b"} and all(ms >= 0 for ms in answers[0].values())
    assert answers[1]["a"] is None and answers[1]["b"] >= 0
    assert calls == ["a", "b"] + ["a", "b"] * 3  # a first call each, then the libraries alternate


def test_bench_linalg_runs_end_to_end(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "linalg.json"
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_linalg.py"), "--n", "12", "--reps", "1",
                        "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert figures["n"] == 12 and len(figures["ms"]) == 20
    for op, by_lib in figures["ms"].items():
        assert set(by_lib) == {"tcore", "torch"} and all(ms > 0 for ms in by_lib.values()), op
