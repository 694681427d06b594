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
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import Location, SourceError
from .model import NativeFunction, Tag
from .yaml_source import load_list, parse_entry, read_source, split_entries

_CACHE_VERSION = "1"


@dataclass(frozen=True)
class OperatorSet:
    functions: tuple[NativeFunction, ...]
    tags: tuple[Tag, ...]

    def by_root(self) -> dict[str, tuple[NativeFunction, ...]]:
        """Functions grouped by root name (add, add_, add.out -> 'add'), sorted by name."""
        groups: dict[str, list[NativeFunction]] = {}
        for f in self.functions:
            groups.setdefault(f.root_name, []).append(f)
        return {k: tuple(groups[k]) for k in sorted(groups)}

    def lookup(self) -> dict[str, NativeFunction]:
        return {str(f.func.name): f for f in self.functions}

    def autogen_names(self) -> frozenset[str]:
        return frozenset(str(a) for a in self.autogen_names_parsed())

    def autogen_names_parsed(self):
        return [a for f in self.functions for a in f.autogen]


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


def _code_fingerprint() -> str:
    """The cache is only valid for the model code that wrote it."""
    here = Path(__file__).parent
    h = hashlib.sha1()
    for name in ("model.py", "schema.py", "yaml_source.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()


def load_native_functions(path: str, cache_dir: str | None = None) -> tuple[NativeFunction, ...]:
    text = read_source(path)
    entries = split_entries(path, text)
    cache_file = _cache_path(cache_dir, path)
    fingerprint = _code_fingerprint()
    cache: dict[str, NativeFunction] = {}
    if cache_file is not None and cache_file.exists():
        try:
            with open(cache_file, "rb") as f:
                stored_fp, cache = pickle.load(f)
            if stored_fp != fingerprint:
                cache = {}
        except Exception:  # a torn or foreign cache is just a cold cache
            cache = {}
    functions = []
    fresh: dict[str, NativeFunction] = {}
    missed = False
    for entry in entries:
        digest = entry.digest
        nf = cache.get(digest)
        if nf is None:
            missed = True
            nf = NativeFunction.from_entry(entry, parse_entry(entry))
        fresh[digest] = nf
        functions.append(replace(nf, file=entry.file, line=entry.line) if nf.line != entry.line or nf.file != entry.file else nf)
    if cache_file is not None and (missed or len(fresh) != len(cache)):
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".tmp{os.getpid()}")
        with open(tmp, "wb") as f:
            pickle.dump((fingerprint, fresh), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache_file)
    return tuple(functions)


def validate(functions: tuple[NativeFunction, ...], tags: tuple[Tag, ...]) -> None:
    tag_names = {t.name for t in tags}
    seen: dict[str, NativeFunction] = {}
    for f in functions:
        name = str(f.func.name)
        if name in seen:
            first = seen[name]
            raise f.error(f"duplicate overload {name!r} (first defined at {first.file}:{first.line})")
        seen[name] = f
        for tag in f.tags:
            if tag not in tag_names:
                raise f.error(f"unknown tag {tag!r} (not in tags.yaml)", f"tags:{tag}")
    for f in functions:
        d = f.structured_delegate
        if d is not None and str(d) not in seen:
            raise f.error(f"structured_delegate names unknown operator {str(d)!r}", "structured_delegate")


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def kernel_names_in(source_dirs: list[str]) -> set[str]:
    """Every identifier in the kernel sources: a dispatch entry must name one of them."""
    names: set[str] = set()
    for d in source_dirs:
        for root, _, files in os.walk(d):
            for fn in files:
                if fn.endswith((".cpp", ".cu", ".h", ".cuh", ".hip")):
                    names.update(_IDENT.findall(Path(root, fn).read_text(errors="replace")))
    return names


def check_kernels_exist(functions: tuple[NativeFunction, ...], source_dirs: list[str], backends: set[str]) -> None:
    known = kernel_names_in(source_dirs)
    for f in functions:
        for key, kernel in f.dispatch:
            if key in backends and kernel.split("::")[-1] not in known:
                raise f.error(f"dispatch {key} names kernel {kernel!r}, which no file under "
                              f"{', '.join(source_dirs)} defines", f"dispatch:{key}")


def load_operator_set(native_path: str, tags_path: str, cache_dir: str | None = None) -> OperatorSet:
    tags = load_tags(tags_path)
    functions = load_native_functions(native_path, cache_dir)
    validate(functions, tags)
    return OperatorSet(functions, tags)
