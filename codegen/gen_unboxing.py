"""JIT unboxing (what PyTorch's tools/jit/gen_unboxing.py generates): per operator a
function that takes its arguments off a stack of IValues, converting each by its
schema type and filling in the schema's defaults, calls the operator and pushes the
results; registered by schema name. Sharded like the dispatch files (jit/Unboxing_N.cpp)."""
from __future__ import annotations

import json

from .api import cpp
from .gen_headers import Layout
from .model import NativeFunction
from .schema import Argument, BaseType, ListType, OptionalType, Type
from .templates import render

# base type -> (local C++ type, converter in tcore::jit)
_BASE = {
    "Tensor": ("Tensor", "to_tensor"),
    "int": ("int64_t", "to_int"),
    "SymInt": ("int64_t", "to_int"),
    "float": ("double", "to_double"),
    "bool": ("bool", "to_bool"),
    "Scalar": ("Scalar", "to_scalar"),
    "str": ("std::string", "to_string_value"),
    "ScalarType": ("ScalarType", "to_scalar_type"),
    "Layout": ("Layout", "to_layout"),
    "MemoryFormat": ("MemoryFormat", "to_memory_format"),
    "Device": ("Device", "to_device"),
    "Generator": ("Generator", "to_generator"),
}


def _local(t: Type) -> tuple[str, str, str] | None:
    """(local type, conversion of IValue `v` named `n`, how the local is passed to the API)."""
    if isinstance(t, BaseType):
        if t.name not in _BASE:
            return None
        ty, fn = _BASE[t.name]
        return ty, f"{fn}({{v}}, {{n}})", "{x}"
    if isinstance(t, OptionalType):
        inner = t.elem
        if isinstance(inner, BaseType) and inner.name == "Tensor":
            return "std::optional<Tensor>", "to_optional_tensor({v}, {n})", "{x}"
        if isinstance(inner, ListType) and isinstance(inner.elem, BaseType) and inner.elem.name in ("int", "SymInt"):
            return ("std::optional<std::vector<int64_t>>", "to_optional<std::vector<int64_t>>({v}, to_int_list, {n})",
                    "({x} ? OptionalIntArrayRef(IntArrayRef(*{x})) : OptionalIntArrayRef())")
        if isinstance(inner, BaseType) and inner.name in _BASE:
            ty, fn = _BASE[inner.name]
            pass_expr = "({x} ? std::optional<std::string_view>(*{x}) : std::nullopt)" if inner.name == "str" else "{x}"
            return f"std::optional<{ty}>", f"to_optional<{ty}>({{v}}, {fn}, {{n}})", pass_expr
        return None
    if isinstance(t.elem, BaseType) and t.elem.name in ("int", "SymInt"):
        return "std::vector<int64_t>", "to_int_list({v}, {n})", "IntArrayRef({x})"
    if isinstance(t.elem, BaseType) and t.elem.name == "bool" and t.size is not None:  # output_mask's bool[3]
        return f"std::array<bool, {t.size}>", f"to_bool_array<{t.size}>({{v}}, {{n}})", "{x}"
    if isinstance(t.elem, BaseType) and t.elem.name == "Tensor":
        return "std::vector<Tensor>", "to_tensor_list({v}, {n})", "ArrayRef<Tensor>({x})"
    if isinstance(t.elem, OptionalType) and isinstance(t.elem.elem, BaseType) and t.elem.elem.name == "Tensor":
        return ("std::vector<std::optional<Tensor>>", "to_optional_tensor_list({v}, {n})",
                "ArrayRef<std::optional<Tensor>>({x})")
    return None


def _default(arg: Argument, local_type: str) -> str:
    d = cpp.default_value(arg)
    if d == "::std::nullopt":
        return "std::nullopt"
    if local_type == "std::vector<int64_t>":
        return f"std::vector<int64_t>{d}" if d.startswith("{") else f"std::vector<int64_t>{{{d}}}"
    if local_type.startswith("std::array<bool"):  # a list of exactly N (codegen/defaults.py)
        return f"{local_type}{d}" if d.startswith("{") else f"{local_type}{{{d}}}"
    return f"{local_type}({d})"


def _ivalue_default(arg: Argument) -> str:
    """The schema default as an IValue expression (what Python fills in for a missing argument)."""
    d = arg.default
    if d is None or d == "None":
        return "IValue()"
    if d in ("True", "False"):
        return f"IValue({d.lower()})"
    if d.startswith("["):
        items = [i.strip() for i in d[1:-1].split(",") if i.strip()]
        if all(i in ("True", "False") for i in items) and items:  # bool[N]
            return "IValue(List{" + ", ".join(f"IValue({i.lower()})" for i in items) + "})"
        return "IValue(List{" + ", ".join(f"IValue(int64_t{{{i}}})" for i in items) + "})"
    if d[0] in "'\"":
        return f"IValue(std::string({cpp.default_value(arg)}))"
    if d.lstrip("-").isdigit():
        return f"IValue(int64_t{{{d}}})"
    if any(c.isdigit() for c in d) and all(c in "0123456789.e-+" for c in d):
        return f"IValue(double{{{d}}})"
    return f"IValue(static_cast<int64_t>({cpp.default_value(arg)}))"


def _push(f: NativeFunction) -> str | None:
    rets = f.func.returns
    if not rets:
        return ""
    pushes = []
    for i, r in enumerate(rets):
        value = "result" if len(rets) == 1 and not f.func.returns_tuple else f"std::get<{i}>(result)"
        if isinstance(r.type, BaseType) and r.type.name in ("Tensor", "int", "SymInt", "float", "bool"):
            pushes.append(f"stack.emplace_back({value});")
        elif isinstance(r.type, BaseType) and r.type.name == "ScalarType":  # (an int on the stack, as torch's)
            pushes.append(f"stack.emplace_back(static_cast<int64_t>({value}));")
        elif isinstance(r.type, BaseType) and r.type.name == "Scalar":
            pushes.append(f"stack.emplace_back({value}.is_floating_point() ? IValue({value}.to_double()) : "
                          f"{value}.is_bool() ? IValue({value}.to<bool>()) : IValue({value}.to_long()));")
        elif isinstance(r.type, ListType) and isinstance(r.type.elem, BaseType) and r.type.elem.name == "Tensor":
            pushes.append(f"{{ List l; for (auto& t : {value}) l.emplace_back(t); stack.emplace_back(std::move(l)); }}")
        else:
            return None
    return " ".join(pushes)


def unboxed(f: NativeFunction) -> dict | None:
    """The template's view of one function, or None when a type has no boxed form."""
    args = []
    for i, a in enumerate(f.func.arguments):
        local = _local(a.type)
        if local is None:
            return None
        ty, conv, pass_expr = local
        name = json.dumps(a.name)
        args.append(dict(
            index=i, name=cpp.cpp_ident(a.name), local_type=ty,
            convert=conv.format(v=f"s[base + {i}]", n=name),
            default=_default(a, ty) if a.default is not None else None,
            passed=pass_expr.format(x=f"a_{cpp.cpp_ident(a.name)}"),
            schema_name=a.name, schema_type=str(a.type_str()),
            kwarg_only=f.func.kwarg_only_start is not None and i >= f.func.kwarg_only_start,
            ivalue_default=_ivalue_default(a),
        ))
    push = _push(f)
    if push is None:
        return None
    by_name = {a["schema_name"]: a for a in args}
    call = ", ".join(by_name[a.schema.name]["passed"] for a in cpp.public_args(f))
    return dict(
        struct=cpp.struct_name(f.func), name=str(f.func.name), schema=json.dumps(str(f.func)),
        args=args, nargs=len(args), call=f"tcore::{cpp.public_name(f.func)}({call})",
        has_result=bool(f.func.returns), push=push, returns=len(f.func.returns),
    )


def render_unboxing(shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]], layout: Layout) -> str:
    per_root = {r: [u for f in fs if (u := unboxed(f)) is not None] for r, fs in groups.items()}
    ops = [u for us in per_root.values() for u in us]
    headers = sorted({layout.api_header(r) for r, us in per_root.items() if us})
    return render("unboxing.cpp.j2", shard=shard, num_shards=num_shards, headers=headers, ops=ops)


def boxable(f: NativeFunction) -> bool:
    """Whether unboxed(f) is not None (every argument and the returns have a boxed form), cheaply."""
    return all(_local(a.type) is not None for a in f.func.arguments) and _push(f) is not None


def traced(f: NativeFunction) -> dict | None:
    """The trace kernel's view of one function (same types as unboxing; tensor returns only)."""
    if not boxable(f):
        return None
    rets = f.func.returns
    if not all(isinstance(r.type, BaseType) and r.type.name == "Tensor" for r in rets):
        return None
    args = cpp.dispatcher_args(f.func)
    if len(rets) == 1 and not f.func.returns_tuple:
        outputs = "{result}"
    else:
        outputs = "{" + ", ".join(f"std::get<{i}>(result)" for i in range(len(rets))) + "}"
    return dict(struct=cpp.struct_name(f.func), name=str(f.func.name), ret=cpp.return_type(f.func),
                params=", ".join(a.decl(False) for a in args), args=[a.name for a in args],
                call_args=", ".join(a.name for a in args), outputs=outputs, void=not rets)


def render_trace(shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]], layout: Layout) -> str:
    per_root = {r: [t for f in fs if (t := traced(f)) is not None] for r, fs in groups.items()}
    ops = [t for ts in per_root.values() for t in ts]
    headers = sorted({layout.ops_header(r) for r, ts in per_root.items() if ts})
    return render("trace.cpp.j2", shard=shard, num_shards=num_shards, headers=headers, ops=ops)
