"""tcore.jit: graphs in the text IR, run by the C++ interpreter through the boxed
operators. `tcore.jit.load(path)(*inputs)` runs a graph file; `tcore.jit.loads(text)`
parses a string."""
from __future__ import annotations

from . import _C

Graph = _C.Graph


def load(path: str) -> Graph:
    return _C.Graph.load(str(path))


def loads(text: str, filename: str = "<graph>") -> Graph:
    return _C.Graph.parse(text, filename)
