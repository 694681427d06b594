"""Translating a source tree out of place, incrementally and idempotently.

Every selected file of the project gets a counterpart under the output folder (CUDA
names mapped: .cu -> .hip, cuda/ -> hip/, *_cuda* -> *_hip*); the source tree is
never written. A manifest in the output folder remembers each source's size and
mtime, so a rerun reads only what changed, and a file is written only when its
translated text differs from what is there.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .mappings import Mappings, load
from .paths import hip_path, select
from .translate import translate

DEFAULT_INCLUDES = ("*.cu", "*.cuh", "*.hip", "*.h", "*.hpp", "*.cpp", "*.cc", "*.c")
MANIFEST = ".hipify-manifest.json"
_VERSION = 1


class HipifyError(Exception):
    pass


@dataclass
class Summary:
    translated: list[str] = field(default_factory=list)  # written, with CUDA names or its path replaced
    copied: list[str] = field(default_factory=list)  # written, no CUDA in it
    unchanged: list[str] = field(default_factory=list)  # output already up to date
    skipped: list[str] = field(default_factory=list)  # ignored, unreadable
    removed: list[str] = field(default_factory=list)  # outputs whose source is gone
    non_utf8: list[str] = field(default_factory=list)
    unsupported: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def report(self) -> str:
        lines = [f"hipify: {len(self.translated)} translated, {len(self.copied)} copied without change, "
                 f"{len(self.unchanged)} unchanged since the last run, {len(self.skipped)} skipped, "
                 f"{len(self.removed)} removed, in {self.seconds:.2f} s"]
        if self.non_utf8:
            lines.append(f"  {len(self.non_utf8)} file(s) hold non-UTF-8 bytes, kept as they are: "
                         f"{', '.join(self.non_utf8[:5])}")
        if self.unsupported:
            top = ", ".join(f"{n} ({c})" for n, c in self.unsupported.most_common(20))
            lines.append(f"  CUDA identifiers with no HIP mapping (left as they are): {top}")
        return "\n".join(lines)


def _include_resolver(root: str, rel: str, known: frozenset[str], extra_dirs: tuple[str, ...]):
    """Project headers are looked up beside the including file, at the project root (an
    absolute path) and in the extra include folders (absolute too; plain string paths:
    this runs for every #include)."""
    bases = [os.path.dirname(os.path.join(root, rel)), root, *extra_dirs]

    def resolve(path: str) -> str | None:
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, path))
            if candidate.startswith(root + os.sep) and candidate[len(root) + 1:].replace(os.sep, "/") in known:
                mapped = hip_path(path)
                return mapped if mapped != path else None
        return None

    return resolve


def _read(path: str) -> bytes:
    """A file's bytes through the os calls alone (this runs once per source)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _write_if_changed(target: str | os.PathLike, data: bytes, made: set[str] | None = None) -> bool:
    """Writes data to target atomically (a temporary file renamed over it) unless the file
    holds exactly data already. made: folders known to exist (saves a mkdir per file)."""
    target = os.fspath(target)
    try:
        if os.stat(target).st_size == len(data) and _read(target) == data:
            return False
    except FileNotFoundError:
        pass
    folder = os.path.dirname(target)
    if made is None or folder not in made:
        os.makedirs(folder, exist_ok=True)
        if made is not None:
            made.add(folder)
    tmp = os.path.join(folder, f".{os.path.basename(target)}.tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.replace(tmp, target)
    return True


@dataclass(frozen=True)
class TranslateJob:
    """What translating one file of a tree needs (inherited by forked workers)."""
    project: str  # absolute
    output: str
    known: frozenset[str]
    extra: tuple[str, ...]  # absolute
    launch_ggl: bool
    mappings: Mappings


_made_dirs: set[str] = set()  # output folders this process created (reset per tree)


def translate_file(job: TranslateJob, rel: str, out_rel: str) -> tuple[str, list | None]:
    """Translates project/rel into output/out_rel, writing only a changed text. Returns the
    status (translated, copied, unchanged; +non_utf8 when the bytes are not UTF-8) and the
    unsupported CUDA names with their counts, or ("skipped", None) for an unreadable file."""
    try:
        data = _read(os.path.join(job.project, rel))
    except OSError:
        return "skipped", None
    status_extra = ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # kept byte for byte: surrogateescape round-trips them
        text = data.decode("utf-8", errors="surrogateescape")
        status_extra = "+non_utf8"
    result = translate(text, job.mappings, _include_resolver(job.project, rel, job.known, job.extra), job.launch_ggl)
    data = result.text.encode("utf-8", errors="surrogateescape")
    written = _write_if_changed(os.path.join(job.output, out_rel), data, _made_dirs)
    status = "unchanged" if not written else "translated" if result.changed or out_rel != rel else "copied"
    return status + status_extra, sorted(result.unsupported.items())


_worker_job: TranslateJob | None = None


def _init_worker(job: TranslateJob) -> None:
    global _worker_job
    _worker_job = job


def _translate_in_worker(item: tuple[str, str]) -> tuple[str, list | None]:
    return translate_file(_worker_job, *item)


# Below this many stale files a pool costs more than it saves (a fork is a few ms).
PARALLEL_MIN_FILES = 64


def _workers(jobs: int | None, stale: int) -> int:
    if jobs is None:
        if stale < PARALLEL_MIN_FILES or threading.active_count() > 1:  # fork only a single-threaded process
            return 1
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(jobs, stale // 16 or 1))


def hipify_tree(project: Path, output: Path, includes: list[str] | None = None, ignores: list[str] | None = None,
                extra_include_dirs: list[Path] | None = None, launch_ggl: bool = False,
                mappings: Mappings | None = None, jobs: int | None = None) -> Summary:
    """Translates the selected files of project into output. jobs: worker processes for the
    stale files (None: one per CPU when there are many; 1: this process only)."""
    start = time.perf_counter()
    mappings = mappings or load()
    if not project.is_dir():
        raise HipifyError(f"project directory {project} does not exist")
    try:
        output.mkdir(parents=True, exist_ok=True)
        probe = output / f".hipify-write-test{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise HipifyError(f"cannot write to the output directory {output}: {e.strerror or e}") from None
    files = select(project, output, list(includes or DEFAULT_INCLUDES), list(ignores or []))
    key = f"{_VERSION}:{mappings.digest}:{launch_ggl}:{sorted(str(d) for d in extra_include_dirs or [])}"
    manifest_path = output / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("key") != key:
            manifest = {"files": {}}
    except (OSError, ValueError):
        manifest = {"files": {}}
    old = manifest.get("files", {})
    known = frozenset(files)
    summary = Summary()
    fresh: dict[str, list] = {}
    job = TranslateJob(os.path.abspath(project), os.fspath(output), known,
               tuple(os.path.abspath(d) for d in extra_include_dirs or []), launch_ggl, mappings)
    _made_dirs.clear()
    results: list[tuple[str, str, list | None]] = []
    stale: list[tuple[str, list]] = []
    for rel in files:  # the manifest's size and mtime say what is unchanged: no read
        out_rel = hip_path(rel)
        try:
            st = os.stat(os.path.join(job.project, rel))
        except OSError:
            results.append(("skipped", rel, None))
            continue
        stamp = [st.st_size, st.st_mtime_ns, out_rel]
        if old.get(rel, [None])[:3] == stamp and os.path.exists(os.path.join(job.output, out_rel)):
            results.append(("unchanged", rel, old[rel]))
        else:
            stale.append((rel, stamp))
    workers = _workers(jobs, len(stale))
    items = [(rel, stamp[2]) for rel, stamp in stale]
    if workers > 1:  # the translation holds the GIL (threads were measured slower): processes
        with multiprocessing.get_context("fork").Pool(workers, _init_worker, (job,)) as pool:
            outcomes = pool.map(_translate_in_worker, items, chunksize=max(1, len(stale) // (workers * 4)))
    else:
        outcomes = [translate_file(job, *item) for item in items]
    for (rel, stamp), (status, unsupported) in zip(stale, outcomes):  # manifest entry: stamp + unsupported names
        results.append((status, rel, None if unsupported is None else stamp + [unsupported]))
    for status, rel, entry in sorted(results, key=lambda r: r[1]):
        base, _, flag = status.partition("+")
        getattr(summary, base).append(rel)
        if flag:
            summary.non_utf8.append(rel)
        if entry is not None:
            fresh[rel] = entry
    for rel, entry in old.items():  # sources that are gone: their outputs go too
        if rel not in fresh and rel not in known:
            (output / entry[2]).unlink(missing_ok=True)
            summary.removed.append(rel)
    for entry in fresh.values():
        if len(entry) > 3:
            summary.unsupported.update(dict(entry[3]))
    _write_if_changed(manifest_path, json.dumps({"key": key, "files": fresh}, sort_keys=True).encode())
    summary.seconds = time.perf_counter() - start
    return summary
