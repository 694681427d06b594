"""How a schema is spelled in the nanobind bindings: parameter types the casters
accept, the conversion to the C++ API type, and Python default values."""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass

from ..model import NativeFunction
from ..schema import Argument, BaseType, ListType, OptionalType, Type
from . import cpp

# base type -> binding parameter type
_BIND_BASE = {
    "Tensor": "const tcore::Tensor&",
    "str": "std::string",
    "Scalar": "tcore::Scalar",
}


def binding_type(t: Type) -> str:
    if isinstance(t, BaseType):
        if t.name in _BIND_BASE:
            return _BIND_BASE[t.name]
        spelled = cpp.BASE_CPP[t.name][0]
        return f"tcore::{spelled}" if spelled[0].isupper() else spelled
    if isinstance(t, OptionalType):
        inner = binding_type(t.elem).removeprefix("const ").removesuffix("&")
        return f"std::optional<{inner}>"
    elem = t.elem
    if isinstance(elem, BaseType) and elem.name in ("int", "SymInt"):
        return "tcore::python::IntList"
    if isinstance(elem, BaseType) and elem.name == "bool" and t.size is not None:
        return f"std::array<bool, {t.size}>"
    inner = binding_type(elem).removeprefix("const ").removesuffix("&")
    return f"std::vector<{inner}>"


def to_cpp(t: Type, name: str) -> str:
    """Expression that turns binding parameter `name` into the C++ API argument."""
    if isinstance(t, BaseType):
        return name
    if isinstance(t, OptionalType):
        if isinstance(t.elem, ListType) or (isinstance(t.elem, BaseType) and t.elem.name == "str"):
            return f"tcore::python::optional_ref({name})"
        return name
    if isinstance(t.elem, BaseType) and t.elem.name == "bool" and t.size is not None:
        return name
    return f"tcore::python::array_ref({name})"


def python_default(arg: Argument) -> str | None:
    """A C++ expression yielding the Python default object for nanobind's arg_v."""
    d = arg.default
    if d is None:
        return None
    if d == "None":
        return "nb::none()"
    if d in ("True", "False"):
        return f"nb::bool_({d.lower()})"
    if d.startswith("["):
        items = [i.strip() for i in d[1:-1].split(",") if i.strip()]
        return "nb::make_tuple(" + ", ".join(_literal(i) for i in items) + ")" if items else "nb::tuple()"
    if d[0] in "'\"":
        return f"nb::str({json.dumps(ast.literal_eval(d))})"
    if d[0].isdigit() or d[0] == "-":
        return _literal(d)
    return f"nb::cast({cpp.default_value(arg)})"


def _literal(text: str) -> str:
    if text in ("True", "False"):
        return f"nb::bool_({text.lower()})"
    if any(c in text for c in ".eE") and not text.lstrip("-").isdigit():
        return f"nb::float_({text})"
    return f"nb::int_({text})"


@dataclass(frozen=True)
class BindingArg:
    name: str
    type: str
    convert: str
    default: str | None
    kwarg_only: bool


def out_tuple(f: NativeFunction) -> tuple[Argument, ...]:
    """The outs a binding takes as one `out=` tuple, as torch does for several (max(x, 1,
    out=(values, indices))): an out= overload's outs when there are several plain Tensors."""
    outs = f.func.out_arguments
    if len(outs) > 1 and all(a.type == BaseType("Tensor") for a in outs):
        return outs
    return ()


def binding_args(f: NativeFunction, method: bool) -> list[BindingArg]:
    func = f.func
    out = []
    kw = set(a.name for a in func.kwarg_only)
    tupled = out_tuple(f)
    for a in func.arguments:
        if method and a.name == "self":
            continue
        if a in tupled:
            if a is tupled[0]:
                out.append(BindingArg("out", f"std::tuple<{', '.join(['tcore::Tensor'] * len(tupled))}>", "out", None,
                                      True))
            continue
        pname = cpp.cpp_ident(a.name)
        out.append(BindingArg(a.name, binding_type(a.type), to_cpp(a.type, pname), python_default(a), a.name in kw))
    return out


def qualified_name(f: NativeFunction) -> str:
    """The function's name in tcore._C: an entry with `python_module: linalg` is bound in the
    submodule tcore._C._linalg (linalg_det is tcore._C._linalg.linalg_det, as in torch._C)."""
    name = f.func.name.name
    return f"_{f.python_module}.{name}" if f.python_module else name


TENSOR_OPTIONS = frozenset({"dtype", "layout", "device", "pin_memory"})


def is_factory(f: NativeFunction) -> bool:
    """A function that makes a tensor from options (zeros, arange, empty_like...): PyTorch's
    bindings add requires_grad= to these (torchgen: the schema's tensor options, not out=)."""
    return not f.func.is_out_fn and TENSOR_OPTIONS <= {a.name for a in f.func.kwarg_only}


def accepts_varargs_size(f: NativeFunction, method: bool) -> bool:
    """PyTorch lets an int-list argument be given as varargs (ones(2, 3), x.view(2, 3)) when it
    is the only positional argument; split(2, 1) is a size and a dim, not a list."""
    args = [a for a in f.func.positional if not (method and a.name == "self")]
    if len(args) != 1:
        return False
    t = args[0].type
    return isinstance(t, ListType) and isinstance(t.elem, BaseType) and t.elem.name in ("int", "SymInt")
