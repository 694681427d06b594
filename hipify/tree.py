"""Translating a source tree out of place, incrementally and idempotently.

Every selected file of the project gets a counterpart under the output folder (CUDA
names mapped: .cu -> .hip, cuda/ -> hip/, *_cuda* -> *_hip*); the source tree is
never written. A manifest in the output folder remembers each source's size and
mtime, so a rerun reads only what changed, and a file is written only when its
translated text differs from what is there.
"""
from __future__ import annotations

import json
import os
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
            lines.append(f"  {len(self.non_utf8)} file(s) hold non-UTF-8 bytes, kept as they are: {', '.join(self.non_utf8[:5])}")
        if self.unsupported:
            top = ", ".join(f"{n} ({c})" for n, c in self.unsupported.most_common(20))
            lines.append(f"  CUDA identifiers with no HIP mapping (left as they are): {top}")
        return "\n".join(lines)


def _include_resolver(project: Path, rel: str, known: set[str], extra_dirs: list[Path]):
    """Project headers are looked up beside the including file, at the project root and
    in the extra include folders (plain string paths: this runs for every #include)."""
    root = os.path.abspath(project)
    bases = [os.path.dirname(os.path.join(root, rel)), root, *(os.path.abspath(d) for d in extra_dirs)]

    def resolve(path: str) -> str | None:
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, path))
            if candidate.startswith(root + os.sep) and candidate[len(root) + 1:].replace(os.sep, "/") in known:
                mapped = hip_path(path)
                return mapped if mapped != path else None
        return None

    return resolve


def _write_if_changed(target: Path, data: bytes) -> bool:
    try:
        if target.stat().st_size == len(data) and target.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return True


def hipify_tree(project: Path, output: Path, includes: list[str] | None = None, ignores: list[str] | None = None,
                extra_include_dirs: list[Path] | None = None, launch_ggl: bool = False,
                mappings: Mappings | None = None) -> Summary:
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
    known = set(files)
    summary = Summary()
    fresh: dict[str, list] = {}
    extra = [Path(d).resolve() for d in extra_include_dirs or []]
    def one(rel: str) -> tuple[str, str, list | None]:
        """(status, rel, manifest entry) of one file; the entry carries its unsupported names."""
        src = project / rel
        out_rel = hip_path(rel)
        try:
            st = src.stat()
        except OSError:
            return "skipped", rel, None
        stamp = [st.st_size, st.st_mtime_ns, out_rel]
        if old.get(rel, [None])[:3] == stamp and (output / out_rel).exists():
            return "unchanged", rel, old[rel]
        try:
            data = src.read_bytes()
        except OSError:
            return "skipped", rel, None
        status_extra = ""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:  # kept byte for byte: surrogateescape round-trips them
            text = data.decode("utf-8", errors="surrogateescape")
            status_extra = "+non_utf8"
        result = translate(text, mappings, _include_resolver(project, rel, known, extra), launch_ggl)
        written = _write_if_changed(output / out_rel, result.text.encode("utf-8", errors="surrogateescape"))
        status = "unchanged" if not written else "translated" if result.changed or out_rel != rel else "copied"
        return status + status_extra, rel, stamp + [sorted(result.unsupported.items())]

    # (a thread pool was measured slower here: the translation holds the GIL)
    for status, rel, entry in map(one, files):
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
