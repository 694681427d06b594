"""The real doit pipeline on a private copy of the repository: full build, no-op,
one-operator schema edit, one-kernel edit, interrupted and concurrent runs, bad input.

These build the project once (about a minute on two cores) and then rebuild
small parts; they check exact sets of rewritten files and recompiled objects."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from workspace import (NinjaLog, copy_repository, doit, env_for, executed_tasks, holding_build_lock, ninja_deps,
                       run_python, snapshot)

pytestmark = pytest.mark.pipeline

if shutil.which("cmake") is None or shutil.which("ninja") is None:
    pytest.skip("cmake and ninja are needed (pip install -r requirements.txt)", allow_module_level=True)


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    workspace = copy_repository(tmp_path_factory.mktemp("tcore-ws"))
    doit(workspace)
    return workspace


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def objects_depending_on(build: Path, files: set[str]) -> set[str]:
    real = {os.path.realpath(f) for f in files}
    return {obj for obj, deps in ninja_deps(build).items() if deps & real}


def test_full_build_imports(ws):
    out = run_python(ws, "import tcore; print(tcore.ones(2,3) + 1)")
    assert out.strip() == "tensor([[2., 2., 2.],\n        [2., 2., 2.]])"


def test_second_run_executes_nothing(ws):
    r = doit(ws)
    assert executed_tasks(r.stdout) == [], r.stdout
    lines = r.stdout.splitlines()  # one line, counting the tasks `doit` selected (build and what it needs)
    assert len(lines) == 1 and re.fullmatch(r"tcore: up to date, 0 of \d+ tasks ran, \d+\.\d s", lines[0]), r.stdout


def test_list_shows_subtasks(ws):
    r = doit(ws, "list", "--all")
    names = {line.split()[0] for line in r.stdout.splitlines() if line.strip()}
    assert {"codegen", "hipify", "configure", "build", "test", "codegen:op:add", "codegen:dispatch:0"} <= names


def test_schema_edit_rebuilds_exactly_what_changed(ws):
    native = ws / "csrc/native/native_functions.yaml"
    original = native.read_text()
    gen, build = ws / "generated", ws / "build"
    before = snapshot(gen)
    log = NinjaLog(build)
    mark = log.mark()
    edit(native, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)",
         "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=2)")
    try:
        r = doit(ws)
        after = snapshot(gen)
        changed = {f for f in after if after[f][1] != before.get(f, (0, b""))[1]}
        touched = {f for f in after if after[f][0] != before.get(f, (0, b""))[0]}
        assert changed == touched, "files must be rewritten exactly when their content changes"
        # a default lives in the public header, the schema string, the binding and the
        # unboxing code; the operator's C++ signature (add_ops.h), its kernels'
        # registrations, its autograd and trace code are untouched
        assert "tcore/ops/add.h" in changed and "tcore/ops/add_ops.h" not in changed
        assert all(f.startswith(("tcore/ops/add", "dispatch/Operators_", "python/python_functions_",
                                 "jit/Unboxing_", "python/tcore/_stubs_")) for f in changed), changed
        assert len(changed) == 5, changed  # the four above and the type stub's shard
        # ninja recompiled exactly the objects that include a rewritten file
        rebuilt = {o for o in log.outputs_since(mark) if o.endswith(".o")}
        expected = objects_depending_on(build, {str(gen / f) for f in changed})
        assert rebuilt == expected, (rebuilt, expected)
        # the dispatcher, binding and unboxing shards, and what includes add.h (the Scalar
        # overloads, composites and autograd code that call add): a small part of the objects
        objects = list(build.rglob("*.o"))
        assert 0 < len(rebuilt) <= len(objects) // 5, (len(rebuilt), len(objects), rebuilt)
        assert "codegen:op:add" in executed_tasks(r.stdout)
        # the new default reached C++ and Python
        assert run_python(ws, "import tcore; print(tcore.add(tcore.ones(1), tcore.ones(1)).item())").strip() == "3.0"
    finally:
        native.write_text(original)
        doit(ws)  # later tests start from the original build even if this one failed
    restored = snapshot(gen)
    assert {f: c for f, (_, c) in restored.items()} == {f: c for f, (_, c) in before.items()}


def test_kernel_edit_recompiles_one_object(ws):
    kernel = ws / "csrc/native/cpu/UnaryOps.cpp"
    original = kernel.read_text()
    log = NinjaLog(ws / "build")
    mark = log.mark()
    gen_before = snapshot(ws / "generated")
    kernel.write_text(original + "\n// an edit\n")
    try:
        doit(ws)
        rebuilt = log.outputs_since(mark)
        objects = {o for o in rebuilt if o.endswith(".o")}
        # one object per CPU capability compiled (env_for: the baseline's only; the main build's
        # three are checked by tests/test_cpu_capability.py)
        capabilities = 1 + sum(1 for d in (ws / "build").glob("cpu_*") if d.is_dir())
        assert len(objects) == capabilities and all(o.endswith("UnaryOps.cpp.o") for o in objects), rebuilt
        assert all(o.endswith((".o", ".so", "verify_globs")) for o in rebuilt), rebuilt
        assert snapshot(ws / "generated") == gen_before
    finally:
        kernel.write_text(original)
        doit(ws)


def _start_doit(ws: Path, env: dict | None = None, stderr=subprocess.STDOUT) -> subprocess.Popen:
    env = {**(env or env_for(ws)), "PYTHONUNBUFFERED": "1"}  # each line as it happens
    return subprocess.Popen([sys.executable, "-m", "doit"], cwd=ws, stdout=subprocess.PIPE, stderr=stderr,
                            text=True, env=env, start_new_session=True)


# the line of doit's output at which the run is killed: a codegen sub-task starting, a compile step done
KILL_AT = {"during-codegen": re.compile(r"^\.  codegen:"),
           "during-compile": re.compile(r"^\[(\d+)/(\d+)\] Building CXX")}


@pytest.mark.parametrize("moment", list(KILL_AT))
def test_kill_and_rerun(ws, moment):
    header = ws / "csrc/native/TensorUtils.h"
    original = header.read_text()
    native = ws / "csrc/native/native_functions.yaml"
    native_original = native.read_text()
    header.write_text(original + "\n// forces the kernels to rebuild\n")
    edit(native, "- func: neg(Tensor self) -> Tensor\n", "- func: neg(Tensor self) -> Tensor\n  # edited\n")
    try:
        proc = _start_doit(ws)
        seen = []
        for line in proc.stdout:
            seen.append(line)
            m = KILL_AT[moment].match(line)
            if m and (moment == "during-codegen" or int(m.group(1)) < int(m.group(2))):
                break
        else:
            raise AssertionError(f"the run ended before the moment to kill it ({moment}):\n{''.join(seen)}")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        doit(ws)
        assert executed_tasks(doit(ws).stdout) == []
        assert run_python(ws, "import tcore; print((tcore.ones(2) * 3).sum().item())").strip() == "6.0"
    finally:
        header.write_text(original)
        native.write_text(native_original)
        doit(ws)


def test_concurrent_runs_wait_for_each_other(ws):
    kernel = ws / "csrc/native/cpu/ReduceOps.cpp"
    original = kernel.read_text()
    kernel.write_text(original + "\n// concurrent\n")
    try:
        with holding_build_lock(ws):  # both runs find the lock taken: each waits, whatever the machine's speed
            runs = [_start_doit(ws, stderr=subprocess.PIPE) for _ in range(2)]
            for run in runs:
                assert "waiting for it to finish" in run.stderr.readline()
        outputs = [run.communicate(timeout=600) for run in runs]
        assert all(run.returncode == 0 for run in runs), outputs
        # one rebuilt; the other found everything up to date, as it checks only once it holds the lock
        executed = sorted((executed_tasks(out) for out, _ in outputs), key=len)
        assert executed[0] == [] and "build" in executed[1], outputs
        assert executed_tasks(doit(ws).stdout) == []
        assert run_python(ws, "import tcore; print(tcore.ones(2, 2).sum().item())").strip() == "4.0"
    finally:
        kernel.write_text(original)
        doit(ws)


def _outputs(ws: Path) -> dict:
    files = list((ws / "tcore").glob("_C*.so")) + [ws / "tcore/lib/libtcore.so"]
    return {**snapshot(ws / "generated"), **{f.name: (f.stat().st_mtime_ns, b"") for f in files}}


@pytest.mark.parametrize("mutation,message", [
    (("  structured_delegate: mm.out\n  tags: core", "  structured_delegate: mm.out\n  tags: [core"), "YAML syntax error"),
    (("mm(Tensor self, Tensor mat2) -> Tensor\n", "mm(Tensor self, Tensr mat2) -> Tensor\n"), "unknown type 'Tensr'"),
    (("    CPU: mm_out\n", "    CPU: mm_out_missing\n"), "mm_out_missing"),
    (("- func: mm.out(Tensor self", "- func: mm(Tensor self"), "duplicate overload"),
])
def test_bad_input_keeps_previous_build(ws, mutation, message):
    native = ws / "csrc/native/native_functions.yaml"
    original = native.read_text()
    before = _outputs(ws)
    edit(native, *mutation)
    try:
        r = doit(ws, check=False)
        assert r.returncode != 0
        text = r.stdout + r.stderr
        assert message in text and "native_functions.yaml:" in text and "^" in text, text
        assert "Traceback" not in text
        assert _outputs(ws) == before
    finally:
        native.write_text(original)
    assert executed_tasks(doit(ws).stdout) == []


def test_missing_tools_are_reported(ws, tmp_path):
    cmakelists = ws / "CMakeLists.txt"
    original = cmakelists.read_text()
    cmakelists.write_text(original + "\n# reconfigure\n")
    before = _outputs(ws)
    try:
        empty = tmp_path / "empty-bin"
        empty.mkdir()
        r = doit(ws, env=env_for(ws, PATH=str(empty)), check=False)
        assert r.returncode != 0 and "cmake was not found" in r.stdout + r.stderr
        r = doit(ws, env=env_for(ws, CXX="/nonexistent/c++"), check=False)
        assert r.returncode != 0 and "no C++ compiler found" in r.stdout + r.stderr
        assert _outputs(ws) == before
    finally:
        cmakelists.write_text(original)
    doit(ws)


def test_formula_edit_recompiles_its_shard_only(ws):
    derivatives = ws / "csrc/autograd/derivatives.yaml"
    original = derivatives.read_text()
    before = snapshot(ws / "generated")
    log = NinjaLog(ws / "build")
    mark = log.mark()
    edit(derivatives, "  self: mul(grad, other)\n  other: mul(grad, self)",
         "  self: mul(other, grad)\n  other: mul(grad, self)")
    try:
        doit(ws)
        after = snapshot(ws / "generated")
        rewritten = {f for f in after if after[f][0] != before[f][0]}
        assert len(rewritten) == 1 and next(iter(rewritten)).startswith("autograd/Functions_"), rewritten
        objects = {o for o in log.outputs_since(mark) if o.endswith(".o")}
        assert len(objects) == 1 and next(iter(objects)).endswith(next(iter(rewritten)).split("/")[1] + ".o")
    finally:
        derivatives.write_text(original)
        doit(ws)


def test_formula_that_does_not_compile_points_at_the_yaml(ws):
    derivatives = ws / "csrc/autograd/derivatives.yaml"
    original = derivatives.read_text()
    edit(derivatives, "  self: div(grad, self)\n", "  self: div(grad, self, self)\n")
    try:
        r = doit(ws, check=False)
        assert r.returncode != 0
        text = r.stdout + r.stderr
        line = original[: original.index("  self: div(grad, self)\n")].count("\n") + 1
        assert f"derivatives.yaml:{line}:9: error: the formula for 'self' of log does not compile" in text, text[-3000:]
        assert "^" in text
    finally:
        derivatives.write_text(original)
    doit(ws)


def test_build_without_autograd(ws):
    """TCORE_DISABLE_AUTOGRAD=1: no autograd code generated or compiled; forward still works."""
    env = env_for(ws, TCORE_DISABLE_AUTOGRAD="1")
    try:
        doit(ws, env=env)
        assert not (ws / "generated/cmake/sources.cmake").read_text().split("TCORE_GENERATED_AUTOGRAD_SOURCES")[1].strip(" \n)")
        r = subprocess.run([sys.executable, "-c", "import tcore; print(tcore._C._has_autograd, "
                            "(tcore.ones(2, 2) @ tcore.ones(2, 2)).sum().item(), hasattr(tcore.Tensor, 'backward'))"],
                           cwd=ws, capture_output=True, text=True, env=env, check=True)
        assert r.stdout.split() == ["False", "8.0", "False"]
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                            str(ws / "tests/test_ops_numpy.py"), "-k", "binary and add or unary or sum_mean"],
                           cwd=ws, capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stdout[-2000:]
    finally:
        doit(ws)


def test_selective_build_runs_its_graph_and_is_smaller(ws, tmp_path_factory):
    """Build only what tests/graphs/mlp.ir needs (scripts/gen_op_list.py), run the graph,
    and check that other operators are refused and that their kernels are gone from the library.
    CPU only: a selective build compiles every object again (-ffunction-sections), and the GPU
    kernels are dropped by the same link step as the CPU ones."""
    sel = copy_repository(tmp_path_factory.mktemp("tcore-selective"))
    ops = sel / "ops.yaml"
    subprocess.run([sys.executable, str(sel / "scripts/gen_op_list.py"), str(sel / "tests/graphs/mlp.ir"),
                    "--out", str(ops)], check=True, cwd=sel)
    env = env_for(sel, TCORE_SELECTED_OP_LIST_PATH=str(ops), USE_CUDA="0", USE_ROCM="0")
    doit(sel, env=env)
    code = (
        "import tcore, numpy as np\n"
        "x, w1, w2 = (tcore.tensor(np.ones(s, np.float32)) for s in ((2, 3), (3, 4), (4, 2)))\n"
        "s, o = tcore.jit.load('tests/graphs/mlp.ir')(x, w1, w2)\n"
        "print(s.numpy().ravel().tolist())\n"
        "for attempt in (lambda: tcore.div, lambda: tcore.ops.div,\n"
        "                lambda: tcore.jit.loads('graph(%a):\\n  %b = tcore::div.Tensor(%a, %a)\\n  return (%b)\\n')):\n"
        "    try:\n"
        "        attempt()\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=sel, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[24.0, 24.0]"
    assert all("not built in this selective build" in line for line in lines[1:4]), lines
    full, selective = ws / "tcore/lib/libtcore.so", sel / "tcore/lib/libtcore.so"
    print(f"libtcore.so: full {full.stat().st_size} bytes, selective (CPU only) {selective.stat().st_size} bytes")
    assert selective.stat().st_size < 0.9 * full.stat().st_size

    def kernels(lib: Path, op: str) -> int:  # the CPU kernel code of op (its loops' symbols)
        symbols = subprocess.run(["nm", "-C", str(lib)], capture_output=True, text=True, check=True).stdout
        return sum(1 for line in symbols.splitlines() if f"::{op}_fn(" in line and " t " in line)

    assert kernels(full, "atan2") > 0 and kernels(selective, "atan2") == 0  # not in the graph: dropped
    assert kernels(full, "relu") > 0 and kernels(selective, "relu") > 0
