"""The one error type of the code generator: a message with a source position.

Every input error (YAML syntax, schema grammar, unknown field, unknown kernel...)
is raised as `SourceError` and rendered as

    FILE:LINE:COL: message
        the offending line
              ^
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """1-based line and column in a named file; `text` is that source line."""

    file: str
    line: int
    col: int = 1
    text: str = ""

    def shifted(self, col_offset: int) -> "Location":
        return Location(self.file, self.line, self.col + col_offset, self.text)


class SourceError(Exception):
    """An input error with the place it came from."""

    def __init__(self, message: str, location: Location | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def with_location(self, location: Location) -> "SourceError":
        """Attach a location to an error raised without one (keeps an existing one)."""
        if self.location is None:
            self.location = location
        return self

    def __str__(self) -> str:
        loc = self.location
        if loc is None:
            return self.message
        head = f"{loc.file}:{loc.line}:{loc.col}: error: {self.message}"
        line, at = _window(loc.text.rstrip("\r\n"), max(loc.col, 1) - 1)
        return f"{head}\n    {line}\n    {' ' * at}^"


def _window(line: str, at: int, width: int = 100) -> tuple[str, int]:
    """The part of a long line around column `at` (and the caret's new column), with tabs
    and control characters shown as one column each so that the caret stays under its place."""
    start = max(0, at - width)
    shown = line[start : start + 2 * width]
    shown = "".join(" " if c == "\t" else "?" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in shown)
    prefix = "..." if start > 0 else ""
    suffix = "..." if start + 2 * width < len(line) else ""
    return prefix + shown + suffix, len(prefix) + at - start
