"""How a schema is spelled in C++: the public API (tcore::add), the dispatcher
(ops::add_Tensor::call) and the native kernels (tcore::native::add).

Types are composed from a table of base types; anything the core does not
provide is declared by the generator as an opaque struct (OPAQUE_TYPES), so the
declarations of any operator set compile against the core headers.
"""
from __future__ import annotations

import ast
import re
import json
from collections.abc import Iterable
from dataclasses import dataclass

from ..model import NativeFunction
from ..schema import Argument, BaseType, FunctionSchema, ListType, OptionalType, Type

# base type -> (C++ spelling, passed by value?)
BASE_CPP: dict[str, tuple[str, bool]] = {
    "Tensor": ("Tensor", False),
    "int": ("int64_t", True),
    "SymInt": ("int64_t", True),
    "SymBool": ("bool", True),
    "float": ("double", True),
    "bool": ("bool", True),
    "str": ("::std::string_view", True),
    "Scalar": ("Scalar", False),
    "ScalarType": ("ScalarType", True),
    "Layout": ("Layout", True),
    "Device": ("Device", True),
    "DeviceIndex": ("DeviceIndex", True),
    "MemoryFormat": ("MemoryFormat", True),
    "Storage": ("Storage", False),
    "Generator": ("Generator", False),
    "Dimname": ("Dimname", False),
    "Stream": ("Stream", False),
    "QScheme": ("QScheme", True),
    "ConstQuantizerPtr": ("ConstQuantizerPtr", False),
    "GraphModule": ("GraphModule", False),
    "Any": ("AnyValue", False),
}
# Types the core headers do not define; the generator declares them (OpaqueTypes.h).
OPAQUE_TYPES = ("Dimname", "Stream", "QScheme", "ConstQuantizerPtr", "GraphModule", "AnyValue")

_ENUM_DEFAULTS = {
    "contiguous_format": "MemoryFormat::Contiguous",
    "preserve_format": "MemoryFormat::Preserve",
    "channels_last": "MemoryFormat::ChannelsLast",
    "long": "ScalarType::Long",
    "int": "ScalarType::Int",
    "float": "ScalarType::Float",
    "double": "ScalarType::Double",
    "strided": "Layout::Strided",
    "Mean": "1",  # at::Reduction::Mean
    "Sum": "2",
    "per_tensor_affine": "QScheme{}",
}


def value_type(t: Type) -> str:
    """The C++ type that holds a value of schema type t."""
    if isinstance(t, BaseType):
        return BASE_CPP[t.name][0]
    if isinstance(t, OptionalType):
        return f"::std::optional<{value_type(t.elem)}>"
    if t.size is not None and isinstance(t.elem, BaseType) and t.elem.name == "bool":
        return f"::std::array<bool, {t.size}>"
    return f"ArrayRef<{value_type(t.elem)}>"


def argument_type(t: Type) -> str:
    """The C++ parameter type for schema type t."""
    if isinstance(t, BaseType):
        cpp, by_value = BASE_CPP[t.name]
        return cpp if by_value else f"const {cpp}&"
    if isinstance(t, OptionalType):
        inner = t.elem
        if isinstance(inner, ListType):
            return f"::std::optional<{value_type(inner)}>"
        cpp, by_value = BASE_CPP[inner.name] if isinstance(inner, BaseType) else (value_type(inner), False)
        return f"::std::optional<{cpp}>" if by_value else f"const ::std::optional<{cpp}>&"
    return value_type(t)


def return_value_type(t: Type) -> str:
    if isinstance(t, ListType):
        return f"::std::vector<{return_value_type(t.elem)}>"
    if isinstance(t, OptionalType):
        return f"::std::optional<{return_value_type(t.elem)}>"
    return BASE_CPP[t.name][0]


def return_type(func: FunctionSchema) -> str:
    rets = func.returns
    if not rets:
        return "void"
    if len(rets) == 1 and not func.returns_tuple:
        return return_value_type(rets[0].type)
    return f"::std::tuple<{', '.join(return_value_type(r.type) for r in rets)}>"


def default_value(arg: Argument) -> str | None:
    d = arg.default
    if d is None:
        return None
    if d == "None":
        return "::std::nullopt"
    if d in ("True", "False"):
        return d.lower()
    if d.startswith("["):
        items = [i.strip() for i in d[1:-1].split(",") if i.strip()]
        return "{" + ", ".join(i.lower() if i in ("True", "False") else i for i in items) + "}"
    if d[0] in "'\"":
        return json.dumps(ast.literal_eval(d))
    if d in _ENUM_DEFAULTS:
        return _ENUM_DEFAULTS[d]
    return d


@dataclass(frozen=True)
class CppArg:
    name: str
    type: str
    default: str | None
    schema: Argument

    def decl(self, with_default: bool) -> str:
        text = f"{self.type} {self.name}"
        return f"{text}={self.default}" if with_default and self.default is not None else text


_CPP_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
    default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
    reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template
    this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t
    while xor xor_eq from""".split())  # from: kept from the earlier list (random_.from's from_)

# The names the generated C++ declares, or calls without qualification, where the schema's
# arguments are in scope (the templates under codegen/templates/ and the code the emitters write),
# and the names of derivatives.yaml's language (grad, result, ...). A schema argument with one of
# these names is renamed in C++ (tests/test_generated_names.py compiles every template with them).
GENERATED_NAMES = frozenset("""
    key entry schema name overload_name call
    requires_grad grad_fn result below no_fw no_grad original_self original_self_p tangent base_ i
    check_inplace check_no_grad_for_out collect_next_edges append_next_edges edge_input set_history rebase_history
    set_inplace_view_history as_view update_view_fn fw_grad fw_grad_or_zeros fw_grads_or_zeros fw_tangent_arg
    fw_tangent_args set_fw_grad set_fw_grad_inplace set_fw_grads fw_accumulate fw_not_implemented save_list
    sizes_of needs_grad
    grad grads grad_inputs grad_result formula_grads grad_input_mask retain_variables should_compute_output should_compute_any
    assign_range unpack_list next_edges saved_ivalue field
    args operand record
    functionalization wrapped meta replay mutated_view
    structured int64_t
    lazy lazy_rec lazy_meta lazy_node lazy_fb lazy_result lazy_shapes
    """.split())
# The names above that formulas mean as the language defines them (an argument so named cannot
# be referred to by a formula; the rest are renamed in formulas too).
LANGUAGE_NAMES = frozenset({"grad", "grads", "result", "grad_input_mask", "retain_variables", "original_self"})
_RENAMED = "_arg"


def cpp_ident(name: str) -> str:
    """The C++ name of a schema argument: itself, or with `_arg` appended when it is a C++ keyword,
    a name of the generated code, or already ends in `_arg` (so the mapping stays one-to-one)."""
    if name in _CPP_KEYWORDS or name in GENERATED_NAMES or name.endswith(_RENAMED):
        return f"{name}{_RENAMED}"
    return name


def rename_in_formula(text: str, names: Iterable[str]) -> str:
    """A derivatives.yaml formula with the arguments whose C++ name differs (cpp_ident) spelled
    as in C++: `x`, and the forward-mode `x_t` / `x_p`."""
    for name in names:
        c = cpp_ident(name)
        if c == name or name in LANGUAGE_NAMES:
            continue
        text = re.sub(rf"(?<![\w.:>]){re.escape(name)}(_t|_p)?(?!\w)", lambda m: c + (m.group(1) or ""), text)
    return text


def dispatcher_args(func: FunctionSchema) -> list[CppArg]:
    """Schema order, no defaults: the signature of ops::X::call and of native kernels."""
    return [CppArg(cpp_ident(a.name), argument_type(a.type), None, a) for a in func.arguments]


def public_name(func: FunctionSchema) -> str:
    if func.is_out_fn:
        return f"{func.name.base}_out"
    return func.name.name


def public_args(f: NativeFunction) -> list[CppArg]:
    """The public API: out arguments first (tcore::add_out(out, a, b)), then the rest with
    defaults, except that defaults are dropped before the last non-defaulted argument."""
    func = f.func
    out_ids = {id(a) for a in func.out_arguments}
    outs = [a for a in func.arguments if id(a) in out_ids]
    rest = [a for a in func.arguments if id(a) not in out_ids]
    ordered = outs + rest
    args = []
    for a in ordered:
        default = None if (a in outs or a.name in f.cpp_no_default_args) else default_value(a)
        args.append(CppArg(cpp_ident(a.name), argument_type(a.type), default, a))
    # C++ needs defaults to be a suffix
    seen_required = False
    for i in range(len(args) - 1, -1, -1):
        if args[i].default is None:
            seen_required = True
        elif seen_required:
            args[i] = CppArg(args[i].name, args[i].type, None, args[i].schema)
    return args


def struct_name(func: FunctionSchema) -> str:
    """ops::add_Tensor, ops::add__Tensor (in place), ops::sum."""
    return func.name.unambiguous


def uses_type(func: FunctionSchema) -> set[str]:
    names: set[str] = set()

    def walk(t: Type) -> None:
        if isinstance(t, BaseType):
            names.add(BASE_CPP[t.name][0])
        else:
            walk(t.elem)

    for a in func.arguments:
        walk(a.type)
    for r in func.returns:
        walk(r.type)
    return names
