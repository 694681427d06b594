"""Loading and validating an operator set: native_functions.yaml + tags.yaml.

Parsing is per entry and cached by the entry's sha1, so a second load of an
unchanged 2,584-entry file parses nothing, and an edit to one entry parses one.
Cross-entry checks (duplicate overloads, unknown tags, delegates, kernels that
do not exist) run on every load; they are cheap.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from .autogen import AUTOGEN_KERNEL, is_inplace_name, out_variants
from .errors import Location, SourceError
from .file_writer import atomic_write
from .model import NativeFunction, Tag
from .schema import OperatorName
from .yaml_source import load_list, parse_entry, read_source, split_entries

_CACHE_VERSION = "5"


class LazyFunction:
    """One entry of native_functions.yaml whose model is unpickled only when needed.

    The plan needs names, roots and digests of all 2,584 entries of PyTorch's file but
    the model of only the few it regenerates; `summary` is the cheap part."""

    __slots__ = ("digest", "file", "line", "name", "root", "tags", "delegate", "dispatch", "autogen", "schema",
                 "python_module", "_blob", "_nf")

    def __init__(self, digest, file, line, summary, blob=None, nf=None):
        self.digest, self.file, self.line = digest, file, line
        (self.name, self.root, self.tags, self.delegate, self.dispatch, self.autogen, self.schema,
         self.python_module) = summary
        self._blob, self._nf = blob, nf

    def get(self) -> NativeFunction:
        if self._nf is None:
            nf = pickle.loads(self._blob)
            if nf.line != self.line or nf.file != self.file:
                nf = replace(nf, file=self.file, line=self.line)
            self._nf = nf
        return self._nf


def summary_of(nf: NativeFunction) -> tuple:
    return (str(nf.func.name), nf.root_name, tuple(nf.tags), str(nf.structured_delegate) if nf.structured_delegate else None,
            nf.dispatch, tuple(str(a) for a in nf.autogen), str(nf.func), nf.python_module)


@dataclass(frozen=True)
class OperatorSet:
    functions: tuple[NativeFunction, ...]
    tags: tuple[Tag, ...]

    def by_root(self) -> dict[str, tuple[NativeFunction, ...]]:
        """Functions grouped by root name (add, add_, add.out -> 'add'), sorted by name."""
        return _group_by_root(self.functions, lambda f: f.root_name)

    def schemas(self) -> dict[str, str]:
        return {str(f.func.name): str(f.func) for f in self.functions}

    def lookup(self) -> dict[str, NativeFunction]:
        return {str(f.func.name): f for f in self.functions}

    def autogen_names(self) -> frozenset[str]:
        return frozenset(str(a) for f in self.functions for a in f.autogen)


def load_tags(path: str) -> tuple[Tag, ...]:
    tags = []
    for entry, data in load_list(path):
        name = data.get("tag")
        if not isinstance(name, str):
            raise SourceError("each tags.yaml entry needs 'tag: NAME'", Location(path, entry.line, 1, entry.text.splitlines()[0]))
        tags.append(Tag(name, str(data.get("desc", "")).strip()))
    return tuple(tags)


def _cache_path(cache_dir: str | None, path: str) -> Path | None:
    if not cache_dir:
        return None
    key = hashlib.sha1(f"{_CACHE_VERSION}:{os.path.abspath(path)}".encode()).hexdigest()[:16]
    return Path(cache_dir) / f"native_functions-{key}.pickle"


# A few new entries (an edit) go to a small delta file beside the cache, not into a rewrite of
# the whole cache (5.7 MB at PyTorch's scale, 20 ms of a 0.4 s edit); past this many the cache is
# rewritten with exactly the entries in use and the delta dropped (the entries an edit replaced
# stay in the cache until then: at most as many as the delta holds).
_DELTA_LIMIT = 64


def _delta_path(cache_file: Path | None) -> Path | None:
    return None if cache_file is None else cache_file.with_name(cache_file.stem + ".delta.pickle")


def _read_cache(path: Path | None, fingerprint: str) -> dict:
    if path is None or not path.exists():
        return {}
    try:
        with open(path, "rb") as f:
            stored_fp, entries = pickle.load(f)
        return entries if stored_fp == fingerprint else {}
    except Exception:  # a torn or foreign cache is just a cold cache
        return {}


def _write_cache(cache_file: Path, fingerprint: str, main: dict, delta: dict, fresh: dict) -> None:
    """fresh: the entries in use now. The main cache stays and the delta holds those it lacks,
    while they are few; else the main cache is rewritten with fresh alone."""
    wanted = {d: hit for d, hit in fresh.items() if d not in main}
    if main and wanted.keys() == delta.keys():
        return  # nothing new
    delta_file = _delta_path(cache_file)
    try:
        if main and len(wanted) <= _DELTA_LIMIT:
            atomic_write(delta_file, pickle.dumps((fingerprint, wanted), protocol=pickle.HIGHEST_PROTOCOL))
            return
        atomic_write(cache_file, pickle.dumps((fingerprint, fresh), protocol=pickle.HIGHEST_PROTOCOL))
        delta_file.unlink(missing_ok=True)
    except OSError as e:  # only a speed-up: the next load parses again
        print(f"warning: cannot write the parse cache {cache_file}: {e.strerror or e}", file=sys.stderr)


def _code_fingerprint() -> str:
    """The cache is only valid for the model code that wrote it."""
    here = Path(__file__).parent
    h = hashlib.sha1()
    for name in ("model.py", "schema.py", "defaults.py", "yaml_source.py", "autogen.py"):
        h.update((here / name).read_bytes())
    import yaml

    h.update(yaml.__version__.encode())
    return h.hexdigest()


def load_lazy(path: str, cache_dir: str | None = None) -> list[LazyFunction]:
    """Every entry, parsed only if its digest is not in the cache, unpickled only on use."""
    text = read_source(path)
    entries = split_entries(path, text)
    cache_file = _cache_path(cache_dir, path)
    fingerprint = _code_fingerprint()
    main = _read_cache(cache_file, fingerprint)
    delta = _read_cache(_delta_path(cache_file), fingerprint) if main else {}
    cache = {**main, **delta}
    out = []
    sources: dict[str, list[str]] = {}  # autogen'd name -> the entries that name it
    fresh: dict[str, tuple[tuple, bytes, tuple]] = {}
    for entry in entries:
        digest = entry.digest
        hit = cache.get(digest)
        if hit is None:
            nf = NativeFunction.from_entry(entry, parse_entry(entry))
            generated = out_variants(nf)  # its autogen: out= overloads
            hit = (summary_of(nf), pickle.dumps(nf, protocol=pickle.HIGHEST_PROTOCOL),
                   tuple((summary_of(g), pickle.dumps(g, protocol=pickle.HIGHEST_PROTOCOL)) for g in generated))
            out.append(LazyFunction(digest, entry.file, entry.line, hit[0], nf=nf))
            out.extend(LazyFunction(digest, entry.file, entry.line, summary_of(g), nf=g) for g in generated)
        else:
            out.append(LazyFunction(digest, entry.file, entry.line, hit[0], blob=hit[1]))
            out.extend(LazyFunction(digest, entry.file, entry.line, summary, blob=blob) for summary, blob in hit[2])
        fresh[digest] = hit
        for summary, _ in hit[2]:
            sources.setdefault(summary[0], []).append(hit[0][0])
    if cache_file is not None:
        _write_cache(cache_file, fingerprint, main, delta, fresh)
    return _one_autogen_source(out, sources)


def _one_autogen_source(functions: list[LazyFunction], sources: dict[str, list[str]]) -> list[LazyFunction]:
    """PyTorch names an out= overload in the autogen: of both a functional entry and its in-place
    twin (_foreach_lerp.List, _foreach_lerp_.List); it is generated once, from the functional one."""
    chosen = {name: next((s for s in names if not is_inplace_name(OperatorName(*s.split('.', 1)))), names[0])
              for name, names in sources.items() if len(names) > 1}
    if not chosen:
        return functions
    kept, entry_name = [], None
    for f in functions:
        if f.name not in sources:
            entry_name = f.name  # an entry of the file (generated ones follow theirs)
        elif f.name in chosen and chosen[f.name] != entry_name:
            continue
        kept.append(f)
    return kept


def load_native_functions(path: str, cache_dir: str | None = None) -> tuple[NativeFunction, ...]:
    return tuple(f.get() for f in load_lazy(path, cache_dir))


def validate(functions, tags: tuple[Tag, ...]) -> None:
    """Cross-entry checks on LazyFunctions (only an entry in error is unpickled)."""
    tag_names = {t.name for t in tags}
    seen: dict[str, LazyFunction] = {}
    for f in functions:
        if f.name in seen:
            first = seen[f.name]
            raise f.get().error(f"duplicate overload {f.name!r} (first defined at {first.file}:{first.line})")
        seen[f.name] = f
        for tag in f.tags:
            if tag not in tag_names:
                raise f.get().error(f"unknown tag {tag!r} (not in tags.yaml)", f"tags:{tag}")
    for f in functions:
        if f.delegate is not None and f.delegate not in seen:
            raise f.get().error(f"structured_delegate names unknown operator {f.delegate!r}", "structured_delegate")


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def kernel_names_in(source_dirs: list[str]) -> set[str]:
    """Every identifier in the kernel sources: a dispatch entry must name one of them."""
    names: set[str] = set()
    for d in source_dirs:
        for root, _, files in os.walk(d):
            for fn in files:
                path = Path(root, fn)
                if fn.endswith((".cpp", ".cu", ".h", ".cuh", ".hip")) and path.is_file():  # never a FIFO
                    try:
                        names.update(_IDENT.findall(path.read_text(errors="replace")))
                    except OSError as e:
                        raise SourceError(f"cannot read {path}: {e.strerror or e}") from None
    return names


def check_kernels_exist(functions, source_dirs: list[str], backends: set[str]) -> None:
    known = kernel_names_in(source_dirs)
    for f in functions:
        for key, kernel in f.dispatch:
            if kernel == AUTOGEN_KERNEL:  # generated (codegen/autogen.py)
                continue
            if key in backends and kernel.split("::")[-1] not in known:
                raise f.get().error(f"dispatch {key} names kernel {kernel!r}, which no file under "
                              f"{', '.join(source_dirs)} defines", f"dispatch:{key}")


def load_operator_set(native_path: str, tags_path: str, cache_dir: str | None = None) -> OperatorSet:
    """The whole operator set, materialized (the CLI and tests)."""
    lazy = load_lazy_set(native_path, tags_path, cache_dir)
    return OperatorSet(tuple(f.get() for f in lazy.functions), lazy.tags)


def load_lazy_set(native_path: str, tags_path: str, cache_dir: str | None = None) -> "LazySet":
    tags = load_tags(tags_path)
    functions = load_lazy(native_path, cache_dir)
    validate(functions, tags)
    return LazySet(tuple(functions), tags)


@dataclass(frozen=True)
class LazySet:
    """The operator set as the doit tasks see it: summaries now, models on demand."""

    functions: tuple[LazyFunction, ...]
    tags: tuple[Tag, ...]

    def schemas(self) -> dict[str, str]:
        return {f.name: f.schema for f in self.functions}

    def autogen_names(self) -> frozenset[str]:
        return frozenset(a for f in self.functions for a in f.autogen)

    def by_root(self) -> dict[str, tuple[LazyFunction, ...]]:
        return _group_by_root(self.functions, lambda f: f.root)


def _group_by_root(functions, root_of) -> dict:
    groups: dict[str, list] = {}
    for f in functions:
        groups.setdefault(root_of(f), []).append(f)
    return {k: tuple(groups[k]) for k in sorted(groups)}
