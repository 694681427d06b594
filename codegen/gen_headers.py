"""Per-operator headers: for each root name (add: add.Tensor, add_.Tensor, add.out, ...)
its public API (ops/add.h), its operator descriptors (ops/add_ops.h) and its native
kernel declarations (ops/add_native.h). Pure functions from the model to text."""
from __future__ import annotations

from dataclasses import dataclass

from . import autogen, structured
from .api import cpp
from .model import CPU_KERNEL_KEY, NativeFunction
from .templates import render


@dataclass(frozen=True)
class Layout:
    """Where each kind of header lives, with and without --per-operator-headers."""

    per_operator: bool

    def ops_header(self, root: str) -> str:
        return f"tcore/ops/{root}_ops.h" if self.per_operator else "tcore/Operators.h"

    def api_header(self, root: str) -> str:
        return f"tcore/ops/{root}.h" if self.per_operator else "tcore/Functions.h"

    def native_header(self, root: str) -> str:
        return f"tcore/ops/{root}_native.h" if self.per_operator else "tcore/NativeFunctions.h"


def _uses_opaque(functions: tuple[NativeFunction, ...]) -> bool:
    used = set().union(*(cpp.uses_type(f.func) for f in functions))
    return bool(used & set(cpp.OPAQUE_TYPES))


def _params(args: list[cpp.CppArg], with_default: bool) -> str:
    return ", ".join(a.decl(with_default) for a in args)


def api_functions(functions: tuple[NativeFunction, ...]) -> list[dict]:
    out = []
    for f in functions:
        args = cpp.public_args(f)
        dispatch_order = cpp.dispatcher_args(f.func)
        out.append(dict(
            schema=str(f.func),
            ret=cpp.return_type(f.func),
            name=cpp.public_name(f.func),
            params=_params(args, with_default=True),
            struct=cpp.struct_name(f.func),
            call_args=", ".join(a.name for a in dispatch_order),
        ))
    return out


def ops_functions(functions: tuple[NativeFunction, ...]) -> list[dict]:
    out = []
    for f in functions:
        args = cpp.dispatcher_args(f.func)
        out.append(dict(
            struct=cpp.struct_name(f.func),
            ret=cpp.return_type(f.func),
            param_types=", ".join(a.type for a in args),
            params=_params(args, with_default=False),
            op_name=f.func.name.name,
            overload=f.func.name.overload,
        ))
    return out


def native_kernels(functions: tuple[NativeFunction, ...], keys: frozenset[str] | None = None) -> list[dict]:
    """One declaration per distinct (kernel name, signature). `cpu`: a CPU kernel, declared in
    the CPU capability's namespace (tcore/core/CPUCapability.h), also when other keys share it."""
    found: dict[tuple[str, str], dict] = {}
    for f in functions:
        if autogen.is_generated(f):  # its kernel is generated into the registrations (codegen/autogen.py)
            continue
        params = _params(cpp.dispatcher_args(f.func), with_default=False)
        for key, kernel in f.dispatch:
            if keys is not None and key not in keys:
                continue
            if structured.is_structured_kernel(f, key):  # declared as a struct (structured.declarations)
                continue
            name = kernel.split("::")[-1]
            k = found.setdefault((name, params), dict(ret=cpp.return_type(f.func), name=name, params=params, cpu=False))
            k["cpu"] = k["cpu"] or key == CPU_KERNEL_KEY
    return list(found.values())


def render_operator(root: str, functions: tuple[NativeFunction, ...], layout: Layout) -> dict[str, str]:
    """The three per-operator headers of one root name."""
    opaque = _uses_opaque(functions)
    return {
        f"tcore/ops/{root}.h": render("op.h.j2", root=root, ops_header=layout.ops_header(root),
                                      functions=api_functions(functions)),
        f"tcore/ops/{root}_ops.h": render("op_ops.h.j2", root=root, opaque=opaque,
                                          functions=ops_functions(functions)),
        f"tcore/ops/{root}_native.h": render("op_native.h.j2", root=root, opaque=opaque,
                                             kernels=native_kernels(functions),
                                             structured=structured.declarations(functions)),
    }


def render_monolithic(groups: dict[str, tuple[NativeFunction, ...]]) -> dict[str, str]:
    """Without --per-operator-headers: one Functions.h, Operators.h, NativeFunctions.h."""
    every = tuple(f for fs in groups.values() for f in fs)
    opaque = _uses_opaque(every) if every else False
    layout = Layout(per_operator=False)
    return {
        "tcore/Operators.h": render("op_ops.h.j2", root="*", opaque=opaque, functions=ops_functions(every)),
        "tcore/Functions.h": render("op.h.j2", root="*", ops_header=layout.ops_header(""),
                                    functions=api_functions(every)),
        "tcore/NativeFunctions.h": render("op_native.h.j2", root="*", opaque=opaque,
                                          kernels=native_kernels(every),
                                          structured=[d for fs in groups.values() for d in structured.declarations(fs)]),
    }


def render_aggregates(roots: list[str], per_operator: bool) -> dict[str, str]:
    out = {"tcore/OpaqueTypes.h": render("OpaqueTypes.h.j2", types=cpp.OPAQUE_TYPES)}
    if per_operator:
        out["tcore/Functions.h"] = render("Functions.h.j2", headers=[f"tcore/ops/{r}.h" for r in roots])
    return out
