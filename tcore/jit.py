"""tcore.jit: graphs in the text IR, run by the C++ interpreter through the boxed
operators. `tcore.jit.load(path)(*inputs)` runs a graph file; `tcore.jit.loads(text)`
parses a string; `tcore.jit.trace(fn, example_inputs)` records what fn does."""
from __future__ import annotations

import os
from pathlib import Path

from . import _C

Graph = _C.Graph


def load(path: str | Path) -> Graph:
    """Parses a graph file; errors as for loads, or a ValueError naming the path."""
    name = os.fspath(path)
    if not isinstance(name, str) or not _encodable(name):
        raise ValueError(f"{name!r}: cannot open the graph file (its name is not UTF-8)")
    return _C.Graph.load(name)


def loads(text: str, filename: str = "<graph>") -> Graph:
    """Parses graph text; a ValueError names FILE:LINE:COL with the line and a caret."""
    if not isinstance(text, str):
        raise TypeError(f"tcore.jit.loads takes the graph text as str, not {type(text).__name__}")
    if not _encodable(filename):
        filename = filename.encode("utf-8", "backslashreplace").decode("utf-8")
    if not _encodable(text):
        raise _not_ascii(text, filename)
    return _C.Graph.parse(text, filename)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _not_ascii(text: str, filename: str) -> ValueError:
    """The error the C++ lexer gives for the first non-ASCII character, for text that cannot
    cross into C++ at all (a lone surrogate is not UTF-8). The lines before it are ASCII,
    so its column in characters is its column in bytes."""
    at = next(i for i, c in enumerate(text) if c >= "\x80")
    line = text.count("\n", 0, at) + 1
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    shown = "".join(c if " " <= c < "\x7f" else "?" for c in text[start:len(text) if end < 0 else end])
    col = at - start + 1
    return ValueError(f"{filename}:{line}:{col}: non-ASCII character U+{ord(text[at]):04X}: the IR is ASCII "
                      f"(write \\xHH escapes inside strings)\n    {shown}\n    {' ' * (col - 1)}^")


class TracedGraph:
    """A traced function: `.code` is its IR, calling it runs the interpreter."""

    def __init__(self, code: str):
        self.code = code
        self.graph = loads(code, "<traced>")

    def __call__(self, *inputs):
        return self.graph(*inputs)

    def operators(self) -> list[str]:
        return self.graph.operators()

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.code)


def trace(fn, example_inputs) -> TracedGraph:
    """Runs fn(*example_inputs) once, recording every operator it calls into the IR.
    Tensors fn uses must be inputs (or computed from them): constants are not captured."""
    inputs = list(example_inputs) if isinstance(example_inputs, (list, tuple)) else [example_inputs]
    _C._trace_start(inputs)
    try:
        out = fn(*inputs)
        outputs = list(out) if isinstance(out, (list, tuple)) else [out]
        bad = next((o for o in outputs if not isinstance(o, _C.Tensor)), None)
        if bad is not None:
            raise TypeError(f"tcore.jit.trace: the traced function must return Tensors (or a tuple or list of "
                            f"them), not {type(bad).__name__}")
        code = _C._trace_stop(outputs)
    finally:
        _C._trace_abandon()  # tracing is off whatever happened (a no-op after _trace_stop)
    return TracedGraph(code)
