"""derivatives.yaml formulas in PyTorch's dialect, spelled in tcore's C++ API.

PyTorch's formulas call ATen's Tensor methods (`grad.mul(other).conj()`, `self.sgn()`); tcore's
C++ API has the operators as free functions (tcore::mul(grad, other)) and only metadata methods on
Tensor. So a formula's method calls become calls of the free function with the receiver first:

    grad.mul(other).conj()        ->  conj(mul(grad, other))
    std::get<0>(r).sum(dims)      ->  sum(std::get<0>(r), dims)

except the methods tcore::Tensor has (TENSOR_METHODS) and those of optionals, Scalars and lists
(VALUE_METHODS). SymInt is int64_t in tcore, so the symbolic
spellings are the plain ones: `x.sym_sizes()` -> `x.sizes()`, `zeros_symint(...)` -> `zeros(...)`;
ATen's namespace is tcore's (`at::where` -> `tcore::where`) and its Scalar methods tcore's
(`alpha.toDouble()` -> `alpha.to_double()`).
String literals are left alone. Pure text functions; gen_autograd and gen_forward_ad call
spelled().
"""
from __future__ import annotations

import re

# the methods of tcore::Tensor (csrc/include/tcore/core/Tensor.h; tests/test_formula.py checks each
# is declared there): a call of one of them stays a method call
TENSOR_METHODS = frozenset({
    "defined", "impl", "impl_ptr", "is_same", "dtype", "scalar_type", "device", "sizes", "strides", "size",
    "stride", "dim", "numel", "storage_offset", "element_size", "is_contiguous", "storage", "data_ptr",
    "requires_grad", "is_view", "bump_version", "version",
})
# methods of the other values formulas hold (optional, Scalar, IntArrayRef, std::vector): kept
VALUE_METHODS = frozenset({
    "value", "value_or", "has_value", "to_double", "to_long", "is_floating_point", "is_integral", "is_bool",
    "vec", "front", "back", "empty", "begin", "end", "data",
})
# ATen's Scalar methods -> tcore's (csrc/include/tcore/core/Scalar.h)
SCALAR_METHODS = {"toDouble": "to_double", "toFloat": "to_double", "toLong": "to_long",
                  "isFloatingPoint": "is_floating_point", "isIntegral": "is_integral", "isBoolean": "is_bool"}
# ATen's symbolic-shape spellings -> tcore's (SymInt is int64_t)
SYM_METHODS = {"sym_sizes": "sizes", "sym_size": "size", "sym_strides": "strides", "sym_stride": "stride",
               "sym_numel": "numel", "sym_storage_offset": "storage_offset"}

# string and character literals and /* */ comments of a formula
_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)\'|/\*.*?\*/')
_METHOD = re.compile(r"\.\s*([A-Za-z_]\w*)\s*\(")
_ATEN = re.compile(r"(?<![\w:])at::")
# c10's SymInt types are tcore's int64 ones; `opt->method()` on a Tensor? (a Tensor here) is `.`
_TYPES = {"c10::SymInt": "int64_t", "c10::SymIntArrayRef": "IntArrayRef", "at::SymInt": "int64_t",
          "at::SymIntArrayRef": "IntArrayRef", "at::OptionalArrayRef<c10::SymInt>": "tcore::OptionalIntArrayRef",
          "c10::OptionalArrayRef<c10::SymInt>": "tcore::OptionalIntArrayRef",
          "at::OptionalArrayRef<int64_t>": "tcore::OptionalIntArrayRef",
          "c10::OptionalArrayRef<int64_t>": "tcore::OptionalIntArrayRef"}
_TYPE = re.compile(r"(?<![\w:])(?:c10|at)::(?:OptionalArrayRef<(?:c10::SymInt|int64_t)>|SymInt(?:ArrayRef)?\b)")
_ARROW = re.compile(r"->\s*(?=(?:" + "|".join(sorted(TENSOR_METHODS | set(SYM_METHODS))) + r")\s*\()")
_SYMINT_CALL = re.compile(r"(?<![.\w])([A-Za-z_]\w*?)_symint(?=\s*[(<])")
_CLOSE = {")": "(", "]": "[", ">": "<"}


def blank_literals(text: str) -> str:
    """The text with its literals and comments blanked (same length): what is left is code, so
    names, brackets and operators in them do not count."""
    return _LITERAL.sub(lambda m: " " * len(m.group()), text)


def _opening(s: str, close: int) -> int:
    """Index of the bracket that the one at `close` closes (-1 if unbalanced)."""
    want, depth = _CLOSE[s[close]], 0
    for i in range(close, -1, -1):
        if s[i] == s[close]:
            depth += 1
        elif s[i] == want:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _closing(s: str, open_: int) -> int:
    depth = 0
    for i in range(open_, len(s)):
        if s[i] == "(":
            depth += 1
        elif s[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _receiver_start(s: str, dot: int) -> int:
    """Where the expression before the `.` at `dot` starts: a name (qualified or not), a call or
    subscript of one (`f(x)`, `std::get<0>(r)`, `v[i]`), or a parenthesized expression."""
    j = dot - 1
    while j >= 0 and s[j].isspace():
        j -= 1
    start = -1
    while j >= 0:
        if s[j] in _CLOSE:
            if s[j] == ">" and s[j + 1:j + 2] != "(":
                return start  # a comparison, not the end of template arguments (`std::get<0>(r)`)
            o = _opening(s, j)
            if o < 0:
                return -1
            start, j = o, o - 1
            if j >= 0 and (s[j].isalnum() or s[j] == "_" or s[j] in ")]>"):
                continue  # the callee or subscripted expression
            return start
        if s[j].isalnum() or s[j] == "_":
            k = j
            while k >= 0 and (s[k].isalnum() or s[k] == "_"):
                k -= 1
            start, j = k + 1, k
            if j >= 1 and s[j - 1:j + 1] == "::":
                j -= 2
                continue
            if j >= 0 and s[j] == "." and s[j - 1:j] != ".":  # a.b.c(): the whole member chain
                j -= 1
                continue
            return start
        return start
    return start


def methods_to_calls(text: str) -> str:
    """`recv.name(args)` -> `name(recv, args)` for every name that is not a tcore::Tensor method,
    left to right (so chains nest); the symbolic metadata methods get their plain names."""
    pos = 0
    while True:
        s = blank_literals(text)
        m = _METHOD.search(s, pos)
        if m is None:
            return text
        name = m.group(1)
        renamed = SYM_METHODS.get(name) or SCALAR_METHODS.get(name)
        if renamed:
            text = text[:m.start(1)] + renamed + text[m.end(1):]
            pos = m.start()
            continue
        if name in TENSOR_METHODS or name in VALUE_METHODS:
            pos = m.end()
            continue
        start = _receiver_start(s, m.start())
        close = _closing(s, m.end() - 1)
        if start < 0 or close < 0:
            pos = m.end()
            continue
        receiver = text[start:m.start()].rstrip()
        args = text[m.end():close].strip()
        call = f"{name}({receiver}{', ' + args if args else ''})"
        text = text[:start] + call + text[close + 1:]
        pos = start


# C++ operator -> the operators it may call (csrc/include/tcore/core/TensorOperators.h, the same
# table): generated code that uses one includes their headers
OPERATORS = {"+": ("add",), "*": ("mul",), "-": ("sub", "add", "neg"), "/": ("div", "full_like"),
             "&": ("bitwise_and",), "|": ("bitwise_or",), "^": ("bitwise_xor",), "~": ("bitwise_not",),
             "==": ("eq",), "!=": ("ne",), "<": ("lt", "gt"), "<=": ("le", "ge"), ">": ("gt", "lt"),
             ">=": ("ge", "le")}
_OPERATOR = re.compile(r"==|!=|<=|>=|&&|\|\||->|::|[-+*/&|^~<>]")


def operator_calls(text: str) -> set[str]:
    """The operators a formula's C++ operators may call (a superset: `<` of template arguments
    counts too); logical &&, ||, member access and scope resolution are not tensor operators."""
    names: set[str] = set()
    for m in _OPERATOR.finditer(blank_literals(text)):
        names.update(OPERATORS.get(m.group(), ()))
    return names


def to_cpp(text: str) -> str:
    """A formula in tcore's C++ API (the arguments' names as the schema spells them)."""
    text = _ARROW.sub(".", text)
    text = _TYPE.sub(lambda m: _TYPES[m.group()], text)
    text = _ATEN.sub("tcore::", methods_to_calls(text))
    return _SYMINT_CALL.sub(lambda m: m.group(1), text)


def spelled(text: str, arg_names) -> str:
    """A formula as the generated C++ spells it: the arguments renamed where C++ needs it
    (api/cpp.py's cpp_ident), in tcore's API."""
    from .api import cpp

    return to_cpp(cpp.rename_in_formula(text, arg_names))
