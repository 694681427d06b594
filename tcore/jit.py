"""tcore.jit: graphs in the text IR, run by the C++ interpreter through the boxed
operators. `tcore.jit.load(path)(*inputs)` runs a graph file; `tcore.jit.loads(text)`
parses a string; `tcore.jit.trace(fn, example_inputs)` records what fn does."""
from __future__ import annotations

from pathlib import Path

from . import _C

Graph = _C.Graph


def load(path: str | Path) -> Graph:
    return _C.Graph.load(str(path))


def loads(text: str, filename: str = "<graph>") -> Graph:
    return _C.Graph.parse(text, filename)


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
    except BaseException:
        _C._trace_abandon()
        raise
    outputs = list(out) if isinstance(out, (list, tuple)) else [out]
    return TracedGraph(_C._trace_stop(outputs))
