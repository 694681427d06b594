"""Python bindings (nanobind): module functions and Tensor methods from `variants:`,
with the schema's argument names, keyword-only markers and defaults."""
from __future__ import annotations

from .api import cpp, python
from .gen_headers import Layout
from .model import NativeFunction
from .templates import render


def _binding(f: NativeFunction, method: bool, twin: tuple[NativeFunction, list[str]] | None = None) -> dict:
    """f's Python signature; it calls f, or `twin` (_tensor_twin) with the named Scalars wrapped."""
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
    convert.update({a.name: f"std::get<{i}>(out)" for i, a in enumerate(python.out_tuple(f))})
    if method:
        convert["self"] = "self"
    target = f
    if twin:
        target, scalars = twin
        convert.update({name: f"tcore::wrapped_scalar_tensor({convert[name]})" for name in scalars})
    call_args = [convert[a.schema.name] for a in cpp.public_args(target)]
    returned = _returned_argument(f)
    return dict(
        schema=str(func),
        returns_arg=cpp.cpp_ident(returned) if returned else None,
        method=method,
        module=None if method else f.python_module,
        py_name=func.name.name,
        params=", ".join(params),
        ret=cpp.return_type(func),
        cpp_name=cpp.public_name(target.func),
        call_args=", ".join(call_args),
        arg_specs=specs,
        named_returns=tuple(r.name for r in func.returns) if len(func.returns) > 1 and all(
            r.name for r in func.returns) else (),
    )


def _returned_argument(f: NativeFunction) -> str | None:
    """The argument an in-place or out= operator returns (`Tensor(a!)` returned as `Tensor(a!)`):
    its binding hands back that argument's Python object, so `x.add_(1) is x` as in torch."""
    func = f.func
    if len(func.returns) != 1 or not func.returns[0].is_write:
        return None
    alias = func.returns[0].annotation.alias_set
    for a in func.arguments:
        if a.is_write and a.annotation.alias_set == alias and str(a.type) == "Tensor":
            return a.name
    return None


def bindable(f: NativeFunction) -> bool:
    return not f.manual_cpp_binding and not any(
        t in cpp.OPAQUE_TYPES for t in cpp.uses_type(f.func)
    )


def _deprecated_binding(d, known: dict[str, NativeFunction]) -> dict | None:
    """An old signature (deprecated.yaml) as one more overload that warns and calls the
    current operator with the arguments `aten:` names, as PyTorch does."""
    import re

    m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\((.*)\)\s*", d.call)
    target, call_args = m.group(1), [a.strip() for a in m.group(2).split(",") if a.strip()]
    params, specs, convert = [], [], {}
    kw_done = False
    for a in d.schema.arguments:
        params.append(f"{python.binding_type(a.type)} {cpp.cpp_ident(a.name)}")
        if a in d.schema.kwarg_only and not kw_done:
            specs.append("nb::kw_only()")
            kw_done = True
        specs.append(f'nb::arg("{a.name}")' + (f" = {python.python_default(a)}" if a.default is not None else ""))
        convert[a.name] = python.to_cpp(a.type, cpp.cpp_ident(a.name))
    args = [convert.get(x, x) for x in call_args]
    return dict(py_name=d.schema.name.name, params=", ".join(params), specs=specs, cpp_name=target,
                call_args=", ".join(args), schema=str(d.schema), ret=cpp.return_type(d.schema))


def _tensor_twin(f: NativeFunction, fs: tuple[NativeFunction, ...]) -> tuple[NativeFunction, list[str]] | None:
    """For a generated out= overload taking a Scalar (add.Scalar_out, pow.Tensor_Scalar_out), the
    out= overload of the same operator taking a Tensor there, and the names of those arguments:
    PyTorch's Python API has no Scalar out= overloads, it wraps the number into a tensor and calls
    the Tensor one, whose result (a resized out's layout included) is the structured kernel's."""
    if f.autogen_from is None or not f.func.is_out_fn:
        return None
    mine = f.func.arguments
    for g in fs:
        theirs = g.func.arguments
        if g is f or not g.func.is_out_fn or not bindable(g) or "function" not in g.variants or len(theirs) != len(mine):
            continue
        same = all(a.name == b.name and (str(a.type) == str(b.type) or (str(a.type), str(b.type)) == ("Scalar", "Tensor"))
                   for a, b in zip(mine, theirs))
        scalars = [a.name for a, b in zip(mine, theirs) if str(a.type) != str(b.type)]
        if same and scalars:
            return g, scalars
    return None


def render_bindings(shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]],
                    layout: Layout, deprecated: tuple = ()) -> str:
    bindings = []
    varargs: set[str] = set()
    factories: set[str] = set()
    roots = set()
    for root, fs in groups.items():
        for f in fs:
            if not bindable(f):
                continue
            roots.add(root)
            if "function" in f.variants:
                bindings.append(_binding(f, method=False, twin=_tensor_twin(f, fs)))
                if python.accepts_varargs_size(f, method=False):
                    varargs.add(python.qualified_name(f))
                if python.is_factory(f):
                    factories.add(python.qualified_name(f))
            if "method" in f.variants and not f.func.is_out_fn:
                bindings.append(_binding(f, method=True))
                if python.accepts_varargs_size(f, method=True):
                    varargs.add("Tensor." + f.func.name.name)
    named = sorted({(b["py_name"], b["named_returns"]) for b in bindings if b["named_returns"]})
    old = [_deprecated_binding(d, {}) for d in deprecated]
    headers = sorted({layout.api_header(r) for r in roots} | {layout.api_header(d.schema.name.base) for d in deprecated})
    modules = sorted({b["module"] for b in bindings if b["module"]})
    return render("python_functions.cpp.j2", shard=shard, num_shards=num_shards, headers=headers,
                  bindings=bindings, modules=modules, varargs=sorted(varargs), factories=sorted(factories), deprecated=old, named_returns=named)


def render_binding_index(num_shards: int) -> str:
    return render("python_bindings.h.j2", shards=range(num_shards))
