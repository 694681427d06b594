"""Translating a source tree out of place, incrementally and idempotently (all of hipify's
file I/O is here).

Every selected file of the project gets a counterpart under the output folder (CUDA
names mapped: .cu -> .hip, cuda/ -> hip/, *_cuda* -> *_hip*, unless keep_names); the
source tree is never written. A manifest in the output folder remembers each source's
size and mtime and each output's, so a rerun reads only what changed, and a file is
written only when its translated text differs from what is there. The manifest is
checked before it is trusted: a damaged one is a cold start, and only a file that this
tool wrote there, unchanged since, is ever deleted.
"""
from __future__ import annotations

import errno
import json
import os
import stat
import threading
import time
from collections import Counter, namedtuple
from pathlib import Path

from .mappings import Mappings, Target, data_digest
from .paths import hip_path, inside, select

DEFAULT_INCLUDES = ("*.cu", "*.cuh", "*.hip", "*.h", "*.hpp", "*.cpp", "*.cc", "*.c")
HEADER_SUFFIXES = (".cuh", ".h", ".hpp", ".hh", ".inl")
MANIFEST = ".hipify-manifest.json"
_VERSION = 3


class HipifyError(Exception):
    pass


class Options(namedtuple("Options", "includes ignores extra_include_dirs header_include_dirs launch_ggl keep_names "
                                   "target", defaults=(DEFAULT_INCLUDES, (), (), (), False, False, Target()))):
    """How a tree is translated (immutable; a named tuple, as mappings.Target says why).
    extra_include_dirs: searched for included headers (anywhere); header_include_dirs: in the project,
    searched, and their headers translated."""
    __slots__ = ()


class Summary:
    """What a run did (filled in as it goes)."""

    def __init__(self, skipped: list[str] | None = None):
        self.translated: list[str] = []  # written, with CUDA names or its path replaced
        self.copied: list[str] = []  # written, no CUDA in it
        self.unchanged: list[str] = []  # output already up to date
        self.skipped: list[str] = skipped or []  # unreadable, or not a regular file
        self.removed: list[str] = []  # outputs whose source is gone
        self.kept: list[str] = []  # outputs of gone sources, changed by someone: not deleted
        self.non_utf8: list[str] = []
        self.errors: list[str] = []  # files that could not be written, with why
        self.warnings: list[str] = []  # file:line:col: warning: ... (translated this run)
        self.old_warnings = 0  # warnings of files unchanged since the last run (not repeated)
        self.unsupported: Counter = Counter()
        self.seconds = 0.0

    def report(self) -> str:
        lines = [*self.warnings]
        lines.append(f"hipify: {len(self.translated)} translated, {len(self.copied)} copied without change, "
                     f"{len(self.unchanged)} unchanged since the last run, {len(self.skipped)} skipped, "
                     f"{len(self.removed)} removed, in {self.seconds:.2f} s")
        if self.skipped:
            lines.append(f"  skipped (unreadable or not a regular file): {', '.join(self.skipped[:5])}")
        if self.kept:
            lines.append(f"  kept, changed since hipify wrote them (their sources are gone): {', '.join(self.kept[:5])}")
        if self.old_warnings:
            lines.append(f"  {self.old_warnings} warning(s) in files unchanged since the last run (not repeated)")
        if self.non_utf8:
            lines.append(f"  {len(self.non_utf8)} file(s) hold non-UTF-8 bytes, kept as they are: "
                         f"{', '.join(self.non_utf8[:5])}")
        if self.unsupported:
            top = ", ".join(f"{n} ({c})" for n, c in self.unsupported.most_common(20))
            lines.append(f"  CUDA-looking identifiers the tables do not know (left as they are): {top}")
        return "\n".join(lines)


def _include_resolver(root: str, rel: str, known: frozenset[str], dirs: tuple[str, ...], keep_names: bool):
    """Project headers are looked up beside the including file, at the project root and in the
    include folders (absolute); the include is rewritten to the translated name of the header
    it finds, relative to the same folder (plain string paths: this runs for every #include)."""
    bases = [os.path.dirname(os.path.join(root, rel)), root, *dirs]

    def resolve(path: str) -> str | None:
        if keep_names:
            return None
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, path))
            if candidate.startswith(root + os.sep) and candidate[len(root) + 1:].replace(os.sep, "/") in known:
                mapped = hip_path(path)
                return mapped if mapped != path else None
        return None

    return resolve


def _read(path: str) -> bytes:
    """A regular file's bytes through the os calls alone (this runs once per source). Opened
    without blocking and checked after opening, so a FIFO put in its place is never waited on."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _write_if_changed(target: str | os.PathLike, data: bytes, made: set[str] | None = None) -> bool:
    """Writes data to target atomically (a temporary file renamed over it) unless the file
    holds exactly data already; the temporary file is removed whatever fails (a full disk,
    an interrupt). made: folders known to exist (saves a mkdir per file)."""
    target = os.fspath(target)
    try:
        if os.stat(target).st_size == len(data) and _read(target) == data:
            return False
    except FileNotFoundError:
        pass
    except OSError as e:
        if e.errno == errno.EISDIR or os.path.isdir(target):
            raise OSError(errno.EISDIR, "a folder is in the way", target) from None
    folder = os.path.dirname(target)
    if made is None or folder not in made:
        try:
            os.makedirs(folder, exist_ok=True)
        except FileExistsError:
            raise OSError(errno.ENOTDIR, "a file is in the way of a folder", folder) from None
        if made is not None:
            made.add(folder)
    tmp = os.path.join(folder, f".{os.path.basename(target)}.tmp{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        if os.path.isdir(target):
            raise OSError(errno.EISDIR, "a folder is in the way", target)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


class TranslateJob(namedtuple("TranslateJob", "project output known extra launch_ggl mappings keep_names shown_project",
                              defaults=(False, ""))):
    """What translating one file of a tree needs (inherited by forked workers): project (absolute),
    output, known (the project's files), extra (absolute include folders), launch_ggl, mappings,
    keep_names, shown_project (the project folder as the user named it, for warnings)."""
    __slots__ = ()


_made_dirs: set[str] = set()  # output folders this process created (reset per tree)


def runtime_header_rule(rel: str) -> str:
    """nvcc includes the CUDA runtime in every .cu; hipcc does not (translate.py)."""
    if rel.endswith((".cu", ".hip")):
        return "always"
    return "kernels" if rel.endswith(".cuh") else "never"


def translate_file(job: TranslateJob, rel: str, out_rel: str) -> tuple[str, list | None]:
    """Translates project/rel into output/out_rel, writing only a changed text. Returns the
    status (translated, copied, unchanged; +non_utf8 when the bytes are not UTF-8; error:why)
    and [unsupported names with counts, warnings], or ("skipped", None) for an unreadable file."""
    from .translate import translate  # here: a rerun with nothing to translate never needs it

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
    result = translate(text, job.mappings, _include_resolver(job.project, rel, job.known, job.extra, job.keep_names),
                       job.launch_ggl, runtime_header_rule(rel))
    data = result.text.encode("utf-8", errors="surrogateescape")
    shown = os.path.join(job.shown_project or job.project, rel)
    report = [sorted(result.unsupported.items()), [w.format(shown) for w in result.warnings]]
    try:
        written = _write_if_changed(os.path.join(job.output, out_rel), data, _made_dirs)
    except OSError as e:
        return f"error:cannot write {os.path.join(job.output, out_rel)}: {e.strerror or e}", report
    status = "unchanged" if not written else "translated" if result.changed or out_rel != rel else "copied"
    return status + status_extra, report


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


def _safe_rel(rel: object) -> bool:
    """A manifest path: relative, normalized, inside the folder (no '..', no absolute, no NUL)."""
    if type(rel) is not str or not rel or "\0" in rel or "\\" in rel:
        return False
    wrapped = f"/{rel}/"  # every part between slashes: none empty, '.' or '..'
    return "//" not in wrapped and "/./" not in wrapped and "/../" not in wrapped


def _int_pair(x: object) -> bool:
    return type(x) is list and len(x) == 2 and type(x[0]) is int and type(x[1]) is int


def read_manifest(path: Path) -> tuple[dict[str, dict], str]:
    """(entries, key) of the manifest when it is whole, of this format and every entry well
    formed; anything else is a cold start ({}, "")."""
    try:
        data = json.loads(_read(os.fspath(path)))
    except (OSError, ValueError):
        return {}, ""
    if not isinstance(data, dict) or not isinstance(data.get("key"), str) or not isinstance(data.get("files"), dict) \
            or not data["key"].startswith(f"{_VERSION}:"):
        return {}, ""
    files = data["files"]
    for rel, e in files.items():
        if not (_safe_rel(rel) and isinstance(e, dict) and _int_pair(e.get("src")) and _safe_rel(e.get("out"))
                and e["out"] != MANIFEST and (e.get("stamp") is None or _int_pair(e.get("stamp")))
                and isinstance(e.get("report", []), list)):
            return {}, ""
    return files, data["key"]


def _check_folders(project: Path, output: Path, options: Options) -> tuple[str, str]:
    if not project.is_dir():
        raise HipifyError(f"project directory {project} does not exist")
    proj, out = os.path.realpath(project), os.path.realpath(output)
    if out == proj:
        raise HipifyError(f"the output directory {output} is the project directory: the translations would "
                          f"overwrite the sources (choose a folder of its own)")
    if inside(proj, out):
        raise HipifyError(f"the output directory {output} holds the project directory {project}: translations "
                          f"could land on the sources (choose a folder outside the project)")
    if inside(out, proj) and os.path.isdir(out):
        ours = {e["out"] for e in read_manifest(output / MANIFEST)[0].values()}
        foreign = [f for f in select(output, Path(os.devnull), list(options.includes), list(options.ignores))
                   if f not in ours]
        if foreign:
            raise HipifyError(f"the output directory {output} is inside the project and holds sources that hipify "
                              f"did not write ({', '.join(foreign[:3])}): choose a separate folder")
    return proj, out


def _plan(files: list[str], options: Options) -> dict[str, str]:
    """source -> output path; two sources that map to one output (or to a file and a folder of
    one name) are refused, naming both."""
    out_of: dict[str, str] = {}
    seen: dict[str, str] = {}
    for rel in files:
        out_rel = hip_path(rel, options.keep_names)
        if out_rel == MANIFEST:
            raise HipifyError(f"{rel} would be written over hipify's manifest {MANIFEST}: rename it or --ignores it")
        if out_rel in seen:
            raise HipifyError(f"{seen[out_rel]} and {rel} would both be written to {out_rel}: rename one of them, "
                              f"--ignores one, or use --keep-names")
        seen[out_rel] = rel
        out_of[rel] = out_rel
    folders: dict[str, str] = {}
    for out_rel, rel in seen.items():
        folder = out_rel.rpartition("/")[0]
        while folder and folder not in folders:  # each folder once, with the first file below it
            folders[folder] = rel
            folder = folder.rpartition("/")[0]
    for out_rel, rel in seen.items():
        if out_rel in folders:
            raise HipifyError(f"{rel} would be written to {out_rel}, which {folders[out_rel]} needs as a folder")
    return out_of


def hipify_tree(project: Path, output: Path, includes: list[str] | None = None, ignores: list[str] | None = None,
                extra_include_dirs: list[Path] | None = None, launch_ggl: bool = False,
                mappings: Mappings | None = None, jobs: int | None = None, options: Options | None = None
                ) -> Summary:
    """Translates the selected files of project into output. jobs: worker processes for the
    stale files (None: one per CPU when there are many; 1: this process only). options: every
    setting at once (includes, ignores, extra_include_dirs and launch_ggl are the short way)."""
    start = time.perf_counter()
    if options is None:
        options = Options(tuple(includes or DEFAULT_INCLUDES), tuple(ignores or ()),
                          tuple(str(d) for d in extra_include_dirs or ()), (), launch_ggl)
    if mappings is not None:
        options = options._replace(target=mappings.target)
    project, output = Path(project), Path(output)
    proj_abs, _ = _check_folders(project, output, options)
    try:
        output.mkdir(parents=True, exist_ok=True)
        probe = output / f".hipify-write-test{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise HipifyError(f"cannot write to the output directory {output}: {e.strerror or e}") from None
    not_regular: list[str] = []
    files = select(project, output, list(options.includes), list(options.ignores), not_regular)
    header_dirs = []
    for d in options.header_include_dirs:
        full = os.path.realpath(os.path.join(proj_abs, d))
        if not inside(full, proj_abs) or not os.path.isdir(full):
            raise HipifyError(f"--header-include-dir {d}: not a folder of the project {project}")
        header_dirs.append(full)
        sub = os.path.relpath(full, proj_abs).replace(os.sep, "/")
        prefix = "" if sub == "." else sub + "/"
        files += [prefix + f for f in select(full, output, [f"*{s}" for s in HEADER_SUFFIXES], list(options.ignores),
                                             not_regular)]
    files = sorted(set(files))
    out_of = _plan(files, options)
    extra = tuple(header_dirs) + tuple(os.path.abspath(d) for d in options.extra_include_dirs)
    key = (f"{_VERSION}:{data_digest()}:{options.target}:{options.launch_ggl}:{options.keep_names}:"
           f"{sorted(extra)}" if mappings is None else f"{_VERSION}:{mappings.digest}:{options.launch_ggl}:"
           f"{options.keep_names}:{sorted(extra)}")
    manifest_path = output / MANIFEST
    written, old_key = read_manifest(manifest_path)  # what this tool wrote (under any options)
    old = written if old_key == key else {}  # what is up to date
    known = frozenset(files)
    summary = Summary(skipped=sorted(not_regular))
    fresh: dict[str, dict] = {}
    out_abs = os.path.abspath(output)
    results: list[tuple[str, str, dict | None]] = []
    stale: list[tuple[str, dict]] = []
    for rel in files:  # the manifest's sizes and mtimes say what is unchanged: no read
        out_rel = out_of[rel]
        try:
            st = os.stat(f"{proj_abs}/{rel}")
            if not stat.S_ISREG(st.st_mode):
                results.append(("skipped", rel, None))
                continue
        except OSError:
            results.append(("skipped", rel, None))
            continue
        entry = {"src": [st.st_size, st.st_mtime_ns], "out": out_rel}
        prev = old.get(rel)
        if prev is not None and prev["src"] == entry["src"] and prev["out"] == out_rel and prev.get("stamp") \
                and _stamp(f"{out_abs}/{out_rel}") == prev["stamp"]:
            results.append(("unchanged", rel, prev))
        else:
            stale.append((rel, entry))
    if stale:
        from .mappings import load

        job = TranslateJob(proj_abs, out_abs, known, extra, options.launch_ggl,
                           mappings or load(options.target), options.keep_names, os.fspath(project))
        _made_dirs.clear()
        workers = _workers(jobs, len(stale))
        items = [(rel, entry["out"]) for rel, entry in stale]
        if workers > 1:  # the translation holds the GIL (threads were measured slower): processes
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(workers, _init_worker, (job,)) as pool:
                outcomes = pool.map(_translate_in_worker, items, chunksize=max(1, len(stale) // (workers * 4)))
        else:
            outcomes = [translate_file(job, *item) for item in items]
        for (rel, entry), (status, report) in zip(stale, outcomes):
            if status.startswith("error:"):
                summary.errors.append(status[len("error:"):])
                results.append(("error", rel, None))
                continue
            if report is not None:
                entry["report"] = report
                entry["stamp"] = _stamp(os.path.join(out_abs, entry["out"]))
                summary.warnings += report[1]
            results.append((status, rel, None if report is None else entry))
    for status, rel, entry in sorted(results, key=lambda r: r[1]):
        base, _, flag = status.partition("+")
        if base != "error":
            getattr(summary, base).append(rel)
        if flag:
            summary.non_utf8.append(rel)
        if entry is not None:
            fresh[rel] = entry
            if base == "unchanged":
                summary.old_warnings += len(entry.get("report", [[], []])[1])
    _remove_gone(written, set(out_of.values()), out_abs, summary)
    for entry in fresh.values():
        report = entry.get("report")
        if report:
            summary.unsupported.update(dict(report[0]))
    try:
        if key != old_key or fresh != written:  # a rerun with nothing changed writes nothing
            _write_if_changed(manifest_path, json.dumps({"key": key, "files": fresh}, sort_keys=True).encode())
    except OSError as e:
        summary.errors.append(f"cannot write {manifest_path}: {e.strerror or e}")
    summary.seconds = time.perf_counter() - start
    return summary


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _remove_gone(old: dict, outputs: set[str], out_abs: str, summary: Summary) -> None:
    """Outputs of an earlier run that no source of this run writes (the source is gone, or the
    options renamed its output) are deleted when hipify wrote them (the manifest's stamp matches
    the file) and they lie inside the output folder."""
    real_out = os.path.realpath(out_abs)
    for rel, entry in old.items():
        out_rel = entry["out"]
        if out_rel in outputs:
            continue
        path = os.path.join(out_abs, out_rel)
        if not inside(os.path.realpath(os.path.dirname(path)), real_out):
            continue
        try:
            st = os.lstat(path)
        except OSError:
            summary.removed.append(rel)
            continue
        if not stat.S_ISREG(st.st_mode) or [st.st_size, st.st_mtime_ns] != entry.get("stamp"):
            summary.kept.append(out_rel)
            continue
        try:
            os.unlink(path)
        except OSError:
            summary.kept.append(out_rel)
            continue
        summary.removed.append(rel)
