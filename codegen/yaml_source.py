"""Reading YAML lists of entries with source positions, one entry at a time.

A file such as native_functions.yaml is a top-level list whose items start with
"- " in column 0. The text is split at those lines so that each entry can be
hashed and parsed on its own: an unchanged entry is never parsed again (the
model layer caches by digest), and an edit to one entry costs one entry.

Positions inside an entry are kept *relative* to the entry's first line, so a
cached entry stays valid when lines are inserted above it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import yaml

from .errors import Location, SourceError

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Entry:
    """The source text of one top-level list item."""

    file: str
    line: int  # 1-based line of the item's "- "
    text: str

    @property
    def digest(self) -> str:
        return hashlib.sha1(self.text.encode()).hexdigest()


class YMap(dict):
    """A mapping that remembers where each key and value stood (relative line, col)."""

    key_pos: dict[Any, tuple[int, int]]
    value_pos: dict[Any, tuple[int, int]]


class YList(list):
    pos: list[tuple[int, int]]


def read_source(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise SourceError(f"no such file: {path}") from None
    except UnicodeDecodeError as e:
        raise SourceError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def split_entries(path: str, text: str) -> list[Entry]:
    """Split a YAML list at its top-level '- ' lines; checks nothing else."""
    lines = text.splitlines(keepends=True)
    entries: list[Entry] = []
    start: int | None = None
    for i, line in enumerate(lines):
        if line.startswith("- ") or line.rstrip("\r\n") == "-":
            if start is not None:
                entries.append(Entry(path, start + 1, "".join(lines[start:i])))
            start = i
        elif start is None and line.strip() and not line.lstrip().startswith("#"):
            loc = Location(path, i + 1, 1, line)
            raise SourceError("expected a YAML list of entries ('- ' in column 1)", loc)
    if start is not None:
        entries.append(Entry(path, start + 1, "".join(lines[start:])))
    return entries


def parse_entry(entry: Entry) -> YMap:
    """Parse one entry into a YMap with relative positions. Raises SourceError."""
    try:
        loader = _Loader(entry.text)
        try:
            node = loader.get_single_node()
            value = _convert(loader, node.value[0]) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as e:
        # the context (where an unclosed bracket or quote began) is where the mistake is
        mark = e.context_mark or e.problem_mark
        msg = f"YAML syntax error: {e.problem}" + (f" ({e.context})" if e.context else "")
        raise SourceError(msg, entry_location(entry, mark.line, mark.column + 1)) from None
    if not isinstance(value, YMap):
        raise SourceError("each entry must be a mapping", entry_location(entry, 0, 3))
    return value


def _convert(loader: Any, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        out = YMap()
        out.key_pos, out.value_pos = {}, {}
        for knode, vnode in node.value:
            key = _convert(loader, knode)
            if key in out:
                raise yaml.MarkedYAMLError(problem=f"duplicate key {key!r}", problem_mark=knode.start_mark)
            out[key] = _convert(loader, vnode)
            out.key_pos[key] = (knode.start_mark.line, knode.start_mark.column + 1)
            out.value_pos[key] = (vnode.start_mark.line, vnode.start_mark.column + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        seq = YList(_convert(loader, n) for n in node.value)
        seq.pos = [(n.start_mark.line, n.start_mark.column + 1) for n in node.value]
        return seq
    return loader.construct_object(node, deep=True)


def entry_location(entry: Entry, rel_line: int, col: int) -> Location:
    """Absolute location of a (0-based relative line, 1-based col) inside an entry."""
    lines = entry.text.splitlines()
    text = lines[rel_line] if 0 <= rel_line < len(lines) else ""
    return Location(entry.file, entry.line + rel_line, col, text)


def load_list(path: str) -> list[tuple[Entry, YMap]]:
    """Every entry of a YAML list file, parsed. For small files (tags.yaml, fixtures)."""
    text = read_source(path)
    return [(e, parse_entry(e)) for e in split_entries(path, text)]
