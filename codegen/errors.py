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
        line = loc.text.rstrip("\n")
        caret = " " * (max(loc.col, 1) - 1) + "^"
        return f"{head}\n    {line}\n    {caret}"
