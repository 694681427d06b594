"""A random-call fuzzer of every operator tcore binds.

Each call is Python source built from the operator's schema (tcore.ops: names, types,
defaults), so any finding is its own reproducer. Arguments mix ordinary values with
hostile ones: sizes near 2**63, negative sizes and dims, 0-dim, empty, expanded,
transposed and overlapping tensors, NaN/inf and integer extremes, every dtype.

Calls run in batches in child processes (`python -X faulthandler`, a memory limit, a
time limit); the parent restarts after a crash or a hang, skipping the call that caused
it, and reports crashes (the child died of a signal), hangs (no progress within the time
limit) and the kinds of exceptions raised.

Used by tests/fuzz/test_fuzz.py (a short fixed-seed run) and scripts/fuzz.py (long runs).
"""
from __future__ import annotations

import collections
import dataclasses
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# ----------------------------------------------------------------------------- values

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float32", "float64"]
HOSTILE_INTS = [-2**63, -2**63 + 1, -2**62, -2**31 - 1, -2**31, -65, -3, -2, -1, 0,
                2**31 - 1, 2**31, 2**32, 2**40, 2**62, 2**63 - 1]
ORDINARY_INTS = [0, 1, 1, 2, 2, 3, -1, 4]
HOSTILE_FLOATS = ["float('nan')", "float('inf')", "-float('inf')", "1e308", "-1e308", "5e-324", "-0.0", "1e20"]
ORDINARY_FLOATS = ["0.5", "1.0", "-2.0", "0.0", "3.25"]
# tensors: (python source, is hostile)
ORDINARY_TENSORS = [
    "tcore.tensor([[0.5, -1.0, 2.0], [3.0, -0.25, 1.5]])",
    "tcore.tensor([1.0, 2.0, 3.0, 4.0])",
    "tcore.tensor(2.5)",
    "tcore.arange(12.0).view(3, 4)",
    "tcore.arange(24.0).view(2, 3, 4)",
    "tcore.tensor([[1, 2], [3, 4]])",
    "tcore.tensor([0, 1, 2])",
    "tcore.tensor([True, False, True])",
    "tcore.ones(2, 3, dtype=tcore.float64)",
    "tcore.tensor([1, 0, 2], dtype=tcore.int32)",
    "tcore.arange(6.0).view(2, 3).t()",
]
HOSTILE_TENSORS = [
    "tcore.tensor(7)",
    "tcore.tensor(0)",
    "tcore.tensor(-1)",
    "tcore.zeros(0)",
    "tcore.zeros(0, 3)",
    "tcore.zeros(3, 0, 2)",
    "tcore.ones(1).expand(5)",
    "tcore.ones(1, 3).expand(4, 3)",
    "tcore.ones(1).expand(2**20)",
    "tcore.arange(12.0).view(3, 4)[:, ::2]",
    "tcore.arange(24.0).view(2, 3, 4).permute(2, 0, 1)",
    "tcore.tensor([float('nan'), float('inf'), -float('inf'), 0.0])",
    "tcore.tensor([-2**63, 2**63 - 1, 0, -1])",
    "tcore.tensor([-2**31, 2**31 - 1], dtype=tcore.int32)",
    "tcore.tensor([-128, 127], dtype=tcore.int8)",
    "tcore.tensor([0, 255], dtype=tcore.uint8)",
    "tcore.tensor([1e38, -1e38, 1e-45], dtype=tcore.float32)",
    "tcore.tensor([65504.0, -0.0], dtype=tcore.float16)",
    "tcore.tensor([1.0, 2.0], dtype=tcore.bfloat16)",
    "tcore.tensor([[[[1.0]]]])",
    "tcore.ones([1] * 12)",
    "tcore.ones(2, 3, 4, 5)",
    "tcore.ones(4, requires_grad=True)",
    "tcore.ones(3, 3).as_strided([3, 3], [0, 1])",
    "tcore.arange(10.0).unfold(0, 4, 2)",
    "tcore.tensor([], dtype=tcore.int64)",
    "tcore.tensor([5, -7, 100])",
]
SHARED = "_shared"  # a name bound to a tensor the call receives twice (aliasing)
STRS = ["'mean'", "'sum'", "'none'", "'trunc'", "'floor'", "'tanh'", "''", "'abc\\x00'", "'\\u00e9'"]


@dataclasses.dataclass(frozen=True)
class Operator:
    name: str  # "add.Tensor"
    schema: str
    arguments: tuple  # (name, type, has_default, kwarg_only, default)
    function: bool  # tcore.<base> exists
    method: bool  # Tensor.<base> exists


def operators() -> list[Operator]:
    import tcore

    out = []
    for name, schema, arguments, _ in tcore._C._boxed_operators():
        base = name.split(".")[0]
        out.append(Operator(name, schema, tuple(tuple(a) for a in arguments), hasattr(tcore, base),
                            hasattr(tcore.Tensor, base)))
    return sorted(out, key=lambda o: o.name)


class Generator:
    """Python source for the arguments of one call."""

    def __init__(self, rng: random.Random, hostile: bool):
        self.rng, self.hostile = rng, hostile

    def pick(self, ordinary, hostile):
        if self.hostile or self.rng.random() < 0.25:
            return self.rng.choice(hostile if self.hostile or self.rng.random() < 0.7 else ordinary)
        return self.rng.choice(ordinary)

    def int_(self) -> str:
        return str(self.pick(ORDINARY_INTS, HOSTILE_INTS))

    def float_(self) -> str:
        return self.pick(ORDINARY_FLOATS, HOSTILE_FLOATS)

    def int_list(self, fixed: int | None) -> str:
        n = fixed if fixed is not None and self.rng.random() < 0.8 else self.rng.choice([0, 1, 2, 3, 4])
        return "[" + ", ".join(self.int_() for _ in range(n)) + "]"

    def tensor(self) -> str:
        src = self.pick(ORDINARY_TENSORS, HOSTILE_TENSORS)
        if self.rng.random() < 0.15:
            src = f"({src}).to(tcore.{self.rng.choice(DTYPES)})"
        return src

    def scalar(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            return self.int_()
        if r < 0.85:
            return self.float_()
        return self.rng.choice(["True", "False"])

    def value(self, typ: str) -> str:
        """Source of a value of schema type `typ` (wrong types too, now and then)."""
        optional = typ.endswith("?")
        base = typ.rstrip("?")
        if optional and self.rng.random() < 0.25:
            return "None"
        if self.rng.random() < 0.03:  # a value of the wrong type
            return self.rng.choice(["None", "'x'", "[1, 'a']", "object()", "1.5", "[]", "tcore.float32"])
        m = re.fullmatch(r"(\w+)(?:\((\w)!?\))?(\[(\d*)\])?", base)
        if not m:
            return "None"
        elem, listing, size = m.group(1), m.group(3), m.group(4)
        if listing:
            if elem in ("int", "SymInt"):
                return self.int_list(int(size) if size else None)
            if elem == "Tensor":
                n = self.rng.choice([0, 1, 2, 3])
                return "[" + ", ".join(self.tensor() for _ in range(n)) + "]"
            if elem == "float":
                return "[" + ", ".join(self.float_() for _ in range(self.rng.choice([0, 1, 2]))) + "]"
            if elem == "bool":
                return "[" + ", ".join(self.rng.choice(["True", "False"]) for _ in range(int(size or 2))) + "]"
            return "[]"
        if elem == "Tensor":
            return SHARED if self.rng.random() < 0.15 else self.tensor()
        if elem in ("int", "SymInt"):
            return self.int_()
        if elem == "float":
            return self.float_()
        if elem == "bool":
            return self.rng.choice(["True", "False"])
        if elem == "Scalar":
            return self.scalar()
        if elem == "ScalarType":
            return f"tcore.{self.rng.choice(DTYPES)}"
        if elem == "Layout":
            return "tcore.strided"
        if elem == "MemoryFormat":
            return self.rng.choice(["tcore.contiguous_format", "tcore.preserve_format", "tcore.channels_last"])
        if elem == "Device":
            return self.rng.choice(["tcore.device('cpu')", "'cpu'", "'cuda'", "'cuda:7'", "'meta'"])
        if elem == "Generator":
            return self.rng.choice(["None", "tcore.Generator()"])
        if elem == "str":
            return self.rng.choice(STRS)
        return "None"


def call_source(op: Operator, rng: random.Random, hostile: bool) -> str:
    """Python source of one call of `op` (assumes `import tcore` and nothing else)."""
    gen = Generator(rng, hostile)
    positional, keywords = [], []
    skipped = False  # once a default is left out, later arguments go by name
    for name, typ, has_default, kwarg_only, _ in op.arguments:
        if has_default and rng.random() < 0.5:
            skipped = True
            continue
        v = gen.value(typ)
        if kwarg_only or skipped:
            keywords.append(f"{name}={v}")
        else:
            positional.append(v)
    base, _, overload = op.name.partition(".")
    tensor_self = bool(positional) and (positional[0].startswith(("tcore.", "(tcore.")) or positional[0] == SHARED)
    ways = ["boxed"] + (["function"] if op.function else []) + (["method"] if op.method and tensor_self else [])
    way = rng.choice(ways)
    if way == "boxed":
        callee = f"getattr(tcore.ops.{base}, {overload or 'default'!r})"
        args = positional + keywords
    elif way == "function":
        callee, args = f"tcore.{base}", positional + keywords
    else:
        callee, args = f"({positional[0]}).{base}", positional[1:] + keywords
    lines = []
    if any(SHARED in a for a in args) or SHARED in callee:
        lines.append(f"{SHARED} = {gen.tensor()}")
    lines.append(f"{callee}({', '.join(args)})")
    return "\n".join(lines)


def call_at(ops: list[Operator], seed: int, index: int, hostile_fraction: float) -> str:
    """The call number `index` of the run with `seed`: the same source every time."""
    rng = random.Random(f"{seed}:{index}")
    op = ops[rng.randrange(len(ops))]
    return call_source(op, rng, rng.random() < hostile_fraction)


# ----------------------------------------------------------------------------- the child


def child_main(argv: list[str]) -> int:
    """python tcore_fuzz.py --child SEED START COUNT FRACTION PROGRESS_FILE RESULTS_FILE"""
    seed, start, count, fraction = int(argv[0]), int(argv[1]), int(argv[2]), float(argv[3])
    progress_path, results_path = argv[4], argv[5]
    import warnings

    warnings.simplefilter("ignore")
    import tcore

    ops = operators()
    kinds: collections.Counter = collections.Counter()
    internal: list[tuple[int, str]] = []
    fd = os.open(progress_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    env = {"tcore": tcore}
    for i in range(start, start + count):
        src = call_at(ops, seed, i, fraction)
        os.pwrite(fd, f"{i:>20}\n".encode(), 0)
        try:
            exec(compile(src, f"<call {i}>", "exec"), dict(env))
            kinds["ok"] += 1
        except Exception as e:  # noqa: BLE001 - every exception is a finding to count
            kind = type(e).__name__
            kinds[kind] += 1
            msg = str(e)
            if kind in ("SystemError", "AssertionError") or re.search(r"std::|bad_cast|basic_string|stoll|stod|"
                                                                      r"unknown exception|nanobind", msg):
                internal.append((i, f"{kind}: {msg[:200]}"))
    os.close(fd)
    with open(results_path, "w") as f:
        json.dump({"kinds": kinds, "internal": internal}, f)
    return 0


# ----------------------------------------------------------------------------- the parent


@dataclasses.dataclass
class Finding:
    index: int
    kind: str  # "crash" (signal name), "hang", or an internal-error exception
    source: str


@dataclasses.dataclass
class Report:
    calls: int = 0
    kinds: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    crashes: list = dataclasses.field(default_factory=list)
    hangs: list = dataclasses.field(default_factory=list)
    internal: list = dataclasses.field(default_factory=list)

    def as_json(self) -> dict:
        return {"calls": self.calls, "kinds": dict(self.kinds),
                "crashes": [dataclasses.asdict(f) for f in self.crashes],
                "hangs": [dataclasses.asdict(f) for f in self.hangs],
                "internal_errors": [dataclasses.asdict(f) for f in self.internal]}


def _limit_memory(limit_bytes: int):
    def apply():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


def run(calls: int, seed: int = 0, hostile_fraction: float = 0.5, batch: int = 500, timeout: float = 60.0,
        memory_limit: int = 3 << 30, on_progress=None) -> Report:
    """Runs calls [0, calls) of the run `seed` in child processes and collects what happened."""
    import tcore  # the parent regenerates sources for the findings

    ops = operators()
    del tcore
    report = Report()
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory(prefix="tcore-fuzz-") as tmp:
        progress, results = os.path.join(tmp, "progress"), os.path.join(tmp, "results.json")
        start = 0
        while start < calls:
            count = min(batch, calls - start)
            for p in (progress, results):
                if os.path.exists(p):
                    os.unlink(p)
            cmd = [sys.executable, "-X", "faulthandler", __file__, "--child", str(seed), str(start), str(count),
                   str(hostile_fraction), progress, results]
            try:
                proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
                                      preexec_fn=_limit_memory(memory_limit))
                rc, hung = proc.returncode, False
            except subprocess.TimeoutExpired:
                rc, hung = None, True
            if rc == 0 and os.path.exists(results):
                with open(results) as f:
                    data = json.load(f)
                report.kinds.update(data["kinds"])
                report.internal += [Finding(i, what, call_at(ops, seed, i, hostile_fraction))
                                    for i, what in data["internal"]]
                report.calls += count
                start += count
            else:
                last = _last_index(progress, start)
                done = last - start  # the calls before `last` finished
                report.calls += done + 1
                report.kinds["ok+exception (in a batch cut short)"] += done
                finding = Finding(last, "hang" if hung else _signal_name(rc, proc.stderr if not hung else ""),
                                  call_at(ops, seed, last, hostile_fraction))
                (report.hangs if hung else report.crashes).append(finding)
                start = last + 1
            if on_progress:
                on_progress(report)
    return report


def _last_index(progress: str, start: int) -> int:
    try:
        with open(progress) as f:
            return int(f.read().strip() or start)
    except (OSError, ValueError):
        return start


def _signal_name(rc: int | None, stderr: str) -> str:
    if rc is not None and rc < 0:
        try:
            return f"crash ({signal.Signals(-rc).name})"
        except ValueError:
            return f"crash (signal {-rc})"
    tail = stderr.strip().splitlines()[-1:] if stderr else []
    return f"crash (exit {rc}{': ' + tail[0][:120] if tail else ''})"


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "--child":
    sys.path.insert(0, str(ROOT))
    sys.exit(child_main(sys.argv[2:]))
