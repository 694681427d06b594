"""How a task reports progress of its own work (files rewritten, compile steps) to doit's
display, without knowing whether there is one.

The reporter attaches a sink while a live display runs (a terminal); without one, notes
are printed as plain lines and steps are not shown (the caller prints its own lines, such
as ninja's `[12/81] Building ...`), so logs stay greppable."""
from __future__ import annotations

import os
import sys
from typing import Protocol


class Sink(Protocol):
    def note(self, text: str) -> None: ...

    def steps(self, kind: str, done: int, total: int, label: str) -> None: ...


_sink: Sink | None = None


def attach(sink: Sink | None) -> None:
    global _sink
    _sink = sink


def active() -> bool:
    """A live display shows steps: the caller need not print them."""
    return _sink is not None


def note(text: str) -> None:
    """A line about what a task did ("rewrote tcore/ops/add.h"): printed without a display,
    the current label of the task's row with one."""
    if _sink is None:
        print(text, flush=True)
    else:
        _sink.note(text)


def steps(kind: str, done: int, total: int, label: str = "") -> None:
    """done of total steps of one kind of work inside a task (kind: "compile")."""
    if _sink is not None:
        _sink.steps(kind, done, total, label)


def terminal(stream=None) -> bool:
    """Output goes to a person's terminal (not CI, not a dumb terminal, not a pipe or file)."""
    stream = stream if stream is not None else sys.__stdout__
    return (stream is not None and hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("CI")
            and os.environ.get("TERM") != "dumb")
