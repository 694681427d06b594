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
import os
import stat
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
    """The text of an input file. Anything but a readable regular file of UTF-8 text is a
    SourceError (a folder, a FIFO, which would block, a device; a bad byte at its line:col)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise SourceError(f"no such file: {path}") from None
    except OSError as e:
        raise SourceError(f"cannot read {path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise SourceError(f"cannot read {path}: it is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise SourceError(f"cannot read {path}: not a regular file")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SourceError(f"cannot read {path}: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(f"not UTF-8 text (byte 0x{data[e.start]:02X}: {e.reason})", _byte_location(path, data, e.start)) from None
    return text[1:] if text.startswith("\ufeff") else text  # a byte-order mark, as YAML allows


def _byte_location(path: str, data: bytes, offset: int) -> Location:
    """Line and column (in characters) of a byte offset, for a file that is not UTF-8."""
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    line = data[start : len(data) if end < 0 else end].decode("utf-8", "replace")
    col = len(data[start:offset].decode("utf-8", "replace")) + 1
    return Location(path, data.count(b"\n", 0, offset) + 1, col, line)


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


# Deeper YAML is refused (PyTorch's entries nest 4 levels; libyaml's composer recurses in C
# and overflows the stack on ~100,000 levels).
MAX_DEPTH = 64


# Deeper YAML is refused (PyTorch's entries nest 4 levels; libyaml's composer recurses in C
# and overflows the stack on ~100,000 levels).
MAX_DEPTH = 64


def parse_entry(entry: Entry) -> YMap:
    """Parse one entry into a YMap with relative positions. Raises SourceError.

    Bounded: aliases and anchors are refused (an alias bomb expands exponentially; no
    PyTorch file uses them), nesting stops at MAX_DEPTH, mapping keys must be scalars."""
    top = _parse(entry, aliases=False)
    value = top[0] if isinstance(top, YList) and top else None
    if not isinstance(value, YMap):
        raise SourceError("each entry must be a mapping", entry_location(entry, 0, 3))
    return value


def load_document(path: str) -> Any:
    """A whole small YAML file (a selected-operator list): YMap/YList/scalars, positions
    relative to line 1. Aliases are allowed but never copied: *a is the object &a named,
    so an alias bomb costs nothing; nesting stops at MAX_DEPTH."""
    return _parse(Entry(path, 1, read_source(path)), aliases=True)


def _parse(entry: Entry, aliases: bool) -> Any:
    try:
        loader = _Loader(entry.text)
        try:
            return _compose(loader, aliases)
        finally:
            loader.dispose()
    except _Refused as e:
        raise SourceError(e.problem, entry_location(entry, e.problem_mark.line, e.problem_mark.column + 1)) from None
    except yaml.MarkedYAMLError as e:
        # the context (where an unclosed bracket or quote began) is where the mistake is
        mark = e.context_mark or e.problem_mark
        msg = f"YAML syntax error: {e.problem}" + (f" ({e.context})" if e.context else "")
        raise SourceError(msg, entry_location(entry, mark.line, mark.column + 1)) from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow (NUL, controls)
        before = entry.text[: e.position]
        col = e.position - (before.rfind("\n") + 1) + 1
        raise SourceError(f"character U+{e.character:04X} is not allowed in YAML",
                          entry_location(entry, before.count("\n"), col)) from None
    except yaml.YAMLError as e:
        raise SourceError(f"YAML error: {e}", entry_location(entry, 0, 1)) from None


class _Refused(yaml.MarkedYAMLError):
    """Well-formed YAML that these files may not hold (aliases, deep nesting, bad values)."""


def _error(problem: str, mark: Any) -> yaml.MarkedYAMLError:
    return _Refused(problem=problem, problem_mark=mark)


_KEY = object()  # a mapping frame waits for a key
_STR = "tag:yaml.org,2002:str"


def _scalar(loader: Any, event: Any) -> Any:
    tag = event.tag
    if tag is None or tag == "!":
        tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
    if tag == _STR:  # most scalars: what SafeConstructor would return, without building a node
        return event.value
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        return loader.construct_object(node, deep=True)
    except yaml.constructor.ConstructorError as e:  # an unknown tag: !!python/object...
        raise _error(str(e.problem), event.start_mark) from None
    except (ValueError, TypeError, OverflowError) as e:  # 2001-13-45, an int of 5,000 digits
        raise _error(f"cannot read the value {event.value[:40]!r} ({e})", event.start_mark) from None


def _compose(loader: Any, aliases: bool) -> Any:
    """The document's root, built from the event stream without recursion: YMap/YList
    with (relative line, col) positions, scalars as SafeLoader constructs them."""
    loader.get_event()  # stream start
    if loader.check_event(yaml.StreamEndEvent):
        return None
    loader.get_event()  # document start
    root: list[Any] = []
    anchors: dict[str, Any] = {}
    # one frame per open collection: [container, the key waiting for its value (or _KEY), its position, anchor]
    stack: list[list[Any]] = [[root, None, None, None]]

    def add(value: Any, mark: Any) -> None:
        frame = stack[-1]
        container = frame[0]
        pos = (mark.line, mark.column + 1)
        if not isinstance(container, YMap):
            container.append(value)
            if isinstance(container, YList):
                container.pos.append(pos)
        elif frame[1] is _KEY:
            if isinstance(value, (YMap, YList)):
                raise _error("a mapping key must be a plain scalar", mark)
            if value in container.key_pos:
                raise _error(f"duplicate key {value!r}", mark)
            frame[1], frame[2] = value, pos
            container.key_pos[value] = pos
        else:
            key = frame[1]
            container[key] = value
            container.value_pos[key] = pos
            frame[1] = _KEY

    while True:
        event = loader.get_event()
        kind = type(event)
        anchor = getattr(event, "anchor", None)
        if (kind is yaml.AliasEvent or anchor is not None) and not aliases:
            raise _error("YAML anchors and aliases (&name, *name) are not allowed here", event.start_mark)
        if kind is yaml.AliasEvent:
            if anchor not in anchors:
                raise _error(f"undefined alias *{anchor} (or an alias inside its own anchor)", event.start_mark)
            add(anchors[anchor], event.start_mark)
        elif kind is yaml.ScalarEvent:
            value = _scalar(loader, event)
            add(value, event.start_mark)
            if anchor is not None:
                anchors[anchor] = value
        elif kind is yaml.SequenceStartEvent or kind is yaml.MappingStartEvent:
            if len(stack) > MAX_DEPTH:
                raise _error(f"YAML nested deeper than {MAX_DEPTH} levels", event.start_mark)
            if kind is yaml.SequenceStartEvent:
                container: Any = YList()
                container.pos = []
            else:
                container = YMap()
                container.key_pos, container.value_pos = {}, {}
            add(container, event.start_mark)
            stack.append([container, _KEY, None, anchor])
        elif kind is yaml.SequenceEndEvent or kind is yaml.MappingEndEvent:
            frame = stack.pop()
            if frame[3] is not None:  # an anchor names the collection once it is complete
                anchors[frame[3]] = frame[0]
        elif kind is yaml.DocumentEndEvent:
            break
    if not loader.check_event(yaml.StreamEndEvent):
        event = loader.get_event()
        raise yaml.MarkedYAMLError("expected a single document in the stream", None,
                                   "but found another document", event.start_mark)
    return root[0] if root else None


def entry_location(entry: Entry, rel_line: int, col: int) -> Location:
    """Absolute location of a (0-based relative line, 1-based col) inside an entry."""
    lines = entry.text.splitlines()
    text = lines[rel_line] if 0 <= rel_line < len(lines) else ""
    return Location(entry.file, entry.line + rel_line, col, text)


def load_list(path: str) -> list[tuple[Entry, YMap]]:
    """Every entry of a YAML list file, parsed. For small files (tags.yaml, fixtures)."""
    text = read_source(path)
    return [(e, parse_entry(e)) for e in split_entries(path, text)]
