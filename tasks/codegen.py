"""doit codegen: one sub-task per unit of the generation plan (per operator, per
shard, aggregates). A unit reruns when its YAML entries, the options, its templates
or the generator's code change; its files are rewritten only if their text changes.
On a cold run the units whose files are all missing are rendered first by forked
workers, one per core (MAX_JOBS caps them), and their tasks report what was written.

A no-op run must be fast, so the plan's index (unit names, outputs and keys) is
cached under the state folder, keyed by the bytes of the inputs: when nothing
changed, the code generator is not even imported.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from doit.tools import config_changed

from . import progress
from .config import LIVE_OUTPUT, Paths, max_jobs

CODEGEN_DIR = Path(__file__).resolve().parent.parent / "codegen"
TEMPLATE_DIR = CODEGEN_DIR / "templates"
_INDEX_VERSION = 1


@dataclass(frozen=True)
class UnitIndex:
    name: str
    outputs: tuple[str, ...]
    key: str  # changes exactly when the unit's output may change


@dataclass(frozen=True)
class PlanIndex:
    units: tuple[UnitIndex, ...] = ()
    error: str | None = None  # the rendered SourceError of a bad input


def _sha1_file(path: Path, h) -> None:
    h.update(str(path).encode())
    try:
        h.update(path.read_bytes())
    except FileNotFoundError:
        h.update(b"<missing>")


def _kernel_dirs(p: Paths) -> list[Path]:
    return [] if p.custom_ops else [p.root / "csrc" / "native"]


def input_key(p: Paths) -> str:
    """Everything the plan depends on: YAML bytes, generator code, templates, kernel file names/mtimes."""
    h = hashlib.sha1(f"v{_INDEX_VERSION}".encode())
    h.update(f"autograd={not p.disable_autograd}".encode())
    deprecated = p.derivatives.with_name("deprecated.yaml") if p.derivatives else None
    for f in (p.native_functions, p.tags, p.selected_ops, p.derivatives, deprecated):
        if f is not None:
            _sha1_file(f, h)
    for f in sorted(CODEGEN_DIR.rglob("*.py")) + sorted(TEMPLATE_DIR.glob("*.j2")):
        _sha1_file(f, h)
    for d in _kernel_dirs(p):
        for dirpath, _, files in os.walk(d):
            for name in sorted(files):
                st = os.stat(os.path.join(dirpath, name))
                h.update(f"{dirpath}/{name}:{st.st_mtime_ns}:{st.st_size}".encode())
    return h.hexdigest()


_PLAN_LOCK = threading.Lock()  # `doit -n N -P thread`: one thread plans, the others wait for it


def full_plan(p: Paths):
    """Parse (cached per entry), validate and plan, once per process. Imports the generator."""
    with _PLAN_LOCK:
        return _full_plan(p)


@lru_cache(maxsize=None)
def _full_plan(p: Paths):
    from codegen.pipeline import plan_from_files
    from codegen.plan import Options

    return plan_from_files(
        str(p.native_functions), str(p.tags),
        Options(per_operator_headers=True, disable_autograd=p.disable_autograd, lazy=True),
        derivatives=str(p.derivatives) if p.derivatives is not None else None,
        selected_op_list=str(p.selected_ops) if p.selected_ops else None,
        kernel_dirs=tuple(str(d) for d in _kernel_dirs(p)),
        cache_dir=str(p.state_dir / "codegen-cache"),
        deprecated_bindings=not p.custom_ops)  # another operator set's old signatures get no bindings here


@lru_cache(maxsize=None)
def _template_hash(name: str) -> str:
    h = hashlib.sha1()
    _sha1_file(TEMPLATE_DIR / name, h)
    return h.hexdigest()


def _unit_key(unit, code_hash: str) -> str:
    h = hashlib.sha1(unit.digest.encode())
    h.update(code_hash.encode())
    for t in unit.templates:
        h.update(_template_hash(t).encode())
    return h.hexdigest()


def _code_hash() -> str:
    h = hashlib.sha1()
    for f in sorted(CODEGEN_DIR.rglob("*.py")):
        _sha1_file(f, h)
    return h.hexdigest()


@lru_cache(maxsize=None)
def plan_index(p: Paths) -> PlanIndex:
    key = input_key(p)
    cache = p.state_dir / "codegen-plan.pickle"
    try:
        with open(cache, "rb") as f:
            stored_key, index = pickle.load(f)
        if stored_key == key:
            return index
    except Exception:
        pass
    from codegen.errors import SourceError
    from codegen.file_writer import atomic_write

    try:
        code = _code_hash()
        index = PlanIndex(tuple(UnitIndex(u.name, u.outputs, _unit_key(u, code)) for u in full_plan(p)))
    except SourceError as e:
        index = PlanIndex(error=str(e))
    atomic_write(cache, pickle.dumps((key, index), protocol=pickle.HIGHEST_PROTOCOL))
    return index


def generated_files(p: Paths) -> list[str]:
    root = f"{p.gen_dir}{os.sep}"  # plain strings: thousands of Path objects cost a no-op run 0.1 s
    return [root + o for u in plan_index(p).units for o in u.outputs]


@lru_cache(maxsize=None)
def _units_by_name(p: Paths) -> dict:
    return {u.name: u for u in full_plan(p)}


def _render_and_write(p: Paths, name: str) -> list[str]:
    """One unit's files, written where their text changed: the paths written."""
    from codegen.file_writer import FileWriter

    writer = FileWriter(p.gen_dir)
    for rel, text in _units_by_name(p)[name].render().items():
        writer.write(rel, text)
    return writer.written


# A cold run renders every unit whose files are all missing on all the cores at once, before doit
# reaches them one at a time (the units' own tasks then report what was written). Rendering is
# Python (one core), and creating thousands of files costs this VM's kernel as much again
# (docs/benchmarks.md). Worker processes are forked from this one, which holds the plan already:
# only from doit's main process and thread, and only when at least this many units are cold.
_COLD_UNITS = 64
_prerendered: dict[str, list[str]] = {}  # unit name -> files written by the workers
_prerender_tried = False


def _render_chunk(p: Paths, names: list[str]) -> list[tuple[str, list[str] | None]]:
    """In a worker: each unit rendered and written, None for one that failed (its own task
    renders it again and reports the error)."""
    done = []
    for name in names:
        try:
            done.append((name, _render_and_write(p, name)))
        except Exception:  # noqa: BLE001 (reported by the unit's own task)
            done.append((name, None))
    return done


def _prerender_cold_units(p: Paths) -> None:
    global _prerender_tried
    if _prerender_tried:
        return
    _prerender_tried = True
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    workers = min(len(os.sched_getaffinity(0)), max_jobs() or 64)
    if workers < 2 or threading.active_count() > 1 or multiprocessing.parent_process() is not None:
        return
    root = f"{p.gen_dir}{os.sep}"
    cold = [u.name for u in plan_index(p).units if not any(os.path.exists(root + o) for o in u.outputs)]
    if len(cold) < _COLD_UNITS:
        return
    _units_by_name(p)  # the plan, before the fork
    chunks = [cold[i::workers * 4] for i in range(workers * 4)]
    try:  # an executor, not a Pool: a worker that dies is an error here, not a hang
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_render_chunk, [p] * len(chunks), chunks))
    except Exception:  # noqa: BLE001 (a worker killed, no fork here...): the tasks render one by one
        return
    for done in results:
        _prerendered.update((name, written) for name, written in done if written is not None)


def write_unit(p: Paths, name: str):
    from codegen.errors import SourceError
    from codegen.templates import keep_compiled_templates

    keep_compiled_templates(str(p.state_dir / "template-cache"))
    _prerender_cold_units(p)
    written = _prerendered.pop(name, None)
    if written is None:
        try:  # rules checked while rendering (structured groups) are input errors too: no traceback
            written = _render_and_write(p, name)
        except SourceError as e:
            print(e)
            return False
    if written:
        progress.note(f"  rewrote {', '.join(written)}")


def _fail(message: str):
    def action():
        print(message)
        return False

    return action


def task_codegen(p: Paths):
    """Generate the per-operator headers, dispatch shards and Python bindings."""
    index = plan_index(p)
    if index.error is not None:
        yield {"name": "check", "actions": [_fail(index.error)], "uptodate": [False], **LIVE_OUTPUT,
               "doc": "the operator YAML has an error"}
        return
    root = f"{p.gen_dir}{os.sep}"
    for unit in index.units:
        yield {
            "name": unit.name,
            "actions": [(write_unit, [p, unit.name])],
            "targets": [root + o for o in unit.outputs],
            "uptodate": [config_changed(unit.key)],
            **LIVE_OUTPUT,
            "clean": True,
        }
