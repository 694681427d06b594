"""The generation plan: every output file, grouped into units that regenerate together.

A unit is what one doit sub-task runs: its outputs, a digest of exactly the
inputs it reads (the YAML entries of its operators and the options), and a pure
render function. The doit tasks and the generate_code CLI share this plan.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

from . import gen_dispatch, gen_headers, gen_python
from .load import OperatorSet
from .model import NativeFunction

SUBSETS = ("libtorch", "pybindings", "python")
DEFAULT_SHARDS = 5


@dataclass(frozen=True)
class Options:
    per_operator_headers: bool = True
    subsets: frozenset[str] = frozenset(SUBSETS)
    disable_autograd: bool = False
    num_shards: int = DEFAULT_SHARDS

    def key(self) -> str:
        return f"{self.per_operator_headers}:{sorted(self.subsets)}:{self.disable_autograd}:{self.num_shards}"


@dataclass(frozen=True)
class Unit:
    name: str
    outputs: tuple[str, ...]
    digest: str
    templates: tuple[str, ...]
    render: Callable[[], dict[str, str]] = field(compare=False, repr=False)


def shard_of(root: str, num_shards: int) -> int:
    """Stable across runs and machines (sha1, never Python's hash())."""
    return int.from_bytes(hashlib.sha1(root.encode()).digest()[:4], "big") % num_shards


def _digest(options: Options, functions: tuple[NativeFunction, ...], extra: str = "") -> str:
    h = hashlib.sha1(options.key().encode())
    h.update(extra.encode())
    for f in functions:
        h.update(f.source.encode())
        h.update(b"\0")
    return h.hexdigest()


def dispatch_outputs(shard: int) -> tuple[str, ...]:
    return (f"dispatch/Operators_{shard}.cpp",) + tuple(
        f"dispatch/Register{key}_{shard}.cpp" for key in gen_dispatch.REGISTERED_KEYS
    )


def make_plan(opset: OperatorSet, options: Options) -> list[Unit]:
    groups = opset.by_root()
    layout = gen_headers.Layout(options.per_operator_headers)
    n = options.num_shards
    shards: list[dict[str, tuple[NativeFunction, ...]]] = [{} for _ in range(n)]
    for root, fs in groups.items():
        shards[shard_of(root, n)][root] = fs
    units: list[Unit] = []
    roots = list(groups)
    libtorch = "libtorch" in options.subsets
    if libtorch and options.per_operator_headers:
        for root, fs in groups.items():
            outputs = (f"tcore/ops/{root}.h", f"tcore/ops/{root}_ops.h", f"tcore/ops/{root}_native.h")
            units.append(Unit(f"op:{root}", outputs, _digest(options, fs),
                              ("op.h.j2", "op_ops.h.j2", "op_native.h.j2"),
                              partial(gen_headers.render_operator, root, fs, layout)))
    if libtorch and not options.per_operator_headers:
        units.append(Unit("headers", ("tcore/Operators.h", "tcore/Functions.h", "tcore/NativeFunctions.h"),
                          _digest(options, opset.functions), ("op.h.j2", "op_ops.h.j2", "op_native.h.j2"),
                          partial(gen_headers.render_monolithic, groups)))
    if libtorch:
        for k in range(n):
            units.append(Unit(f"dispatch:{k}", dispatch_outputs(k),
                              _digest(options, _flat(shards[k])), ("Operators.cpp.j2", "Register.cpp.j2"),
                              partial(_render_dispatch, k, n, shards[k], layout)))
    if "pybindings" in options.subsets:
        for k in range(n):
            units.append(Unit(f"pybind:{k}", (f"python/python_functions_{k}.cpp",),
                              _digest(options, _flat(shards[k])), ("python_functions.cpp.j2",),
                              partial(_render_python, k, n, shards[k], layout)))
    aggregate = _aggregate_outputs(options)
    units.append(Unit("aggregate", tuple(aggregate), _digest(options, (), "\n".join(roots)),
                      ("Functions.h.j2", "OpaqueTypes.h.j2", "python_bindings.h.j2", "sources.cmake.j2"),
                      partial(_render_aggregate, roots, options)))
    return units


def _flat(groups: dict[str, tuple[NativeFunction, ...]]) -> tuple[NativeFunction, ...]:
    return tuple(f for fs in groups.values() for f in fs)


def _render_dispatch(k: int, n: int, groups, layout) -> dict[str, str]:
    files = {f"dispatch/Operators_{k}.cpp": gen_dispatch.render_operators(k, n, groups, layout)}
    for key in gen_dispatch.REGISTERED_KEYS:
        files[f"dispatch/Register{key}_{k}.cpp"] = gen_dispatch.render_registration(key, k, n, groups, layout)
    return files


def _render_python(k: int, n: int, groups, layout) -> dict[str, str]:
    return {f"python/python_functions_{k}.cpp": gen_python.render_bindings(k, n, groups, layout)}


def _aggregate_outputs(options: Options) -> list[str]:
    out = ["tcore/OpaqueTypes.h", "cmake/sources.cmake"]
    if "libtorch" in options.subsets and options.per_operator_headers:
        out.append("tcore/Functions.h")
    if "pybindings" in options.subsets:
        out.append("python/python_bindings.h")
    return out


def _render_aggregate(roots: list[str], options: Options) -> dict[str, str]:
    from .templates import render

    files = gen_headers.render_aggregates(roots, options.per_operator_headers)
    if "libtorch" not in options.subsets or not options.per_operator_headers:
        files.pop("tcore/Functions.h", None)
    n = options.num_shards
    core = [p for k in range(n) for p in dispatch_outputs(k) if "RegisterCUDA" not in p and "RegisterHIP" not in p]
    backends = [(key, [f"dispatch/Register{key}_{k}.cpp" for k in range(n)]) for key in ("CUDA", "HIP")]
    python = [f"python/python_functions_{k}.cpp" for k in range(n)]
    files["cmake/sources.cmake"] = render("sources.cmake.j2", core=core, backends=backends, python=python)
    if "pybindings" in options.subsets:
        files["python/python_bindings.h"] = gen_python.render_binding_index(n)
    return files
