"""Python bindings (nanobind): module functions and Tensor methods from `variants:`,
with the schema's argument names, keyword-only markers and defaults."""
from __future__ import annotations

from .api import cpp, python
from .gen_headers import Layout
from .model import NativeFunction
from .templates import render


def _binding(f: NativeFunction, method: bool) -> dict:
    func = f.func
    bargs = python.binding_args(f, method)
    params = [f"{a.type} {cpp.cpp_ident(a.name)}" for a in bargs]
    if method:
        params.insert(0, "const tcore::Tensor& self")
    specs = []
    kw_done = False
    for a in bargs:
        if a.kwarg_only and not kw_done:
            specs.append("nb::kw_only()")
            kw_done = True
        spec = f'nb::arg("{a.name}")'
        if a.default is not None:
            spec += f" = {a.default}"
        elif a.type.startswith("std::optional<"):
            spec += ".none()"
        specs.append(spec)
    # the C++ public API takes out arguments first
    convert = {a.name: a.convert for a in bargs}
    if method:
        convert["self"] = "self"
    call_args = [convert[a.schema.name] for a in cpp.public_args(f)]
    return dict(
        schema=str(func),
        method=method,
        py_name=func.name.name,
        params=", ".join(params),
        ret=cpp.return_type(func),
        cpp_name=cpp.public_name(func),
        call_args=", ".join(call_args),
        arg_specs=specs,
    )


def bindable(f: NativeFunction) -> bool:
    return not f.manual_cpp_binding and not f.python_module and not any(
        t in cpp.OPAQUE_TYPES for t in cpp.uses_type(f.func)
    )


def render_bindings(shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]],
                    layout: Layout) -> str:
    bindings = []
    varargs: set[str] = set()
    roots = set()
    for root, fs in groups.items():
        for f in fs:
            if not bindable(f):
                continue
            roots.add(root)
            if "function" in f.variants:
                bindings.append(_binding(f, method=False))
                if python.accepts_varargs_size(f, method=False):
                    varargs.add(f.func.name.name)
            if "method" in f.variants and not f.func.is_out_fn:
                bindings.append(_binding(f, method=True))
                if python.accepts_varargs_size(f, method=True):
                    varargs.add("Tensor." + f.func.name.name)
    headers = sorted({layout.api_header(r) for r in roots})
    return render("python_functions.cpp.j2", shard=shard, num_shards=num_shards, headers=headers,
                  bindings=bindings, varargs=sorted(varargs))


def render_binding_index(num_shards: int) -> str:
    return render("python_bindings.h.j2", shards=range(num_shards))
