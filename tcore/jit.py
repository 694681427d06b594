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
    """A traced function: `.code` is its IR, calling it runs the interpreter. A traced
    tcore.func.functionalize(fn) returns the new values of the inputs fn mutates as extra
    graph outputs (`mutated_inputs` are their positions); calling it copies them back."""

    def __init__(self, code: str, num_outputs: int | None = None, mutated_inputs: tuple[int, ...] = (),
                 single: bool = False):
        self.code = code
        self.graph = loads(code, "<traced>")
        self.num_outputs = num_outputs
        self.mutated_inputs = tuple(mutated_inputs)
        self._single = single

    def __call__(self, *inputs):
        if not self.mutated_inputs:
            return self.graph(*inputs)
        results = self.graph(*inputs)
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        outputs, new_values = results[:self.num_outputs], results[self.num_outputs:]
        for index, value in zip(self.mutated_inputs, new_values):
            inputs[index].copy_(value)
        return outputs[0] if self._single else tuple(outputs)

    def operators(self) -> list[str]:
        return self.graph.operators()

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.code)


def _outputs_of(out) -> list:
    outputs = list(out) if isinstance(out, (list, tuple)) else [out]
    bad = next((o for o in outputs if not isinstance(o, _C.Tensor)), None)
    if bad is not None:
        raise TypeError(f"tcore.jit.trace: the traced function must return Tensors (or a tuple or list of "
                        f"them), not {type(bad).__name__}")
    return outputs


def trace(fn, example_inputs) -> TracedGraph:
    """Runs fn(*example_inputs) once, recording every operator it calls into the IR.
    Tensors fn uses must be inputs (or computed from them): constants are not captured."""
    from .func import Functionalized

    inputs = list(example_inputs) if isinstance(example_inputs, (list, tuple)) else [example_inputs]
    _C._trace_start(inputs)
    try:
        if isinstance(fn, Functionalized):
            out, mutated = fn.run(tuple(inputs), {})
            outputs = _outputs_of(out)
            positions = []
            for original, _ in mutated:
                positions.append(next(i for i, t in enumerate(inputs) if t is original))
            code = _C._trace_stop(outputs + [value for _, value in mutated])
        else:
            outputs = _outputs_of(fn(*inputs))
            code = _C._trace_stop(outputs)
    finally:
        _C._trace_abandon()  # tracing is off whatever happened (a no-op after _trace_stop)
    if isinstance(fn, Functionalized):
        for original, value in mutated:
            original.copy_(value)  # fn ran once, as eager: its input mutations happen
        return TracedGraph(code, len(outputs), tuple(positions), single=not isinstance(out, (list, tuple)))
    return TracedGraph(code)
