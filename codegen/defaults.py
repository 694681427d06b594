r"""Which default values a schema type takes, checked when the schema is parsed.

The valid spellings are PyTorch's (torch/csrc/jit/frontend/function_schema_parser.cpp
and torchgen's JIT_TO_CPP_DEFAULT), limited to what the C++ API layer can spell
(codegen/api/cpp.py; tests/test_schema.py checks that the two tables agree). A default
that is not one of them is a SchemaError at its offset, so `bool keepdim=Flase` stops
at its file:line:col instead of reaching C++ verbatim.

    bool, SymBool          True, False
    int, SymInt, DeviceIndex  a decimal integer in int64 range (no leading zero: C++
                           would read 010 as octal), or Mean (at::Reduction::Mean)
    float                  a decimal number that is a finite double and does not
                           underflow to 0
    Scalar                 an int (int64 range) or a float (as above)
    str                    a quoted string, escapes \\ \' \" \a \b \f \n \r \t \v \xHH
                           (no NUL, no raw control characters)
    ScalarType, Layout, MemoryFormat  the enum names of ENUM_DEFAULTS
    T?                     None, or a default of T
    T[], T[N]              [a, b, ...] of T defaults; T[N] also takes one T default
                           (PyTorch's `int[2] stride=1`), except bool[N], a std::array
                           that needs a list of exactly N items; T[N] with N >= 2 takes
                           [] or N items
                           (int[1] is PyTorch's "a dim or a list of dims": any length)
    anything else          only None (so only as T?)
"""
from __future__ import annotations

import difflib
import math
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # schema.py imports this module
    from .schema import Token, Type

INT64_MAX = 2**63 - 1  # -2**63 is left out: C++ reads -9223372036854775808 as -(an unsigned literal)

ENUM_DEFAULTS: dict[str, frozenset[str]] = {
    "ScalarType": frozenset({"long", "int", "float", "double"}),
    "Layout": frozenset({"strided"}),
    "MemoryFormat": frozenset({"contiguous_format"}),
}
INT_NAMES = frozenset({"Mean"})  # at::Reduction::Mean, an int in PyTorch's schemas

_INT = re.compile(r"-?(0|[1-9][0-9]*)")
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|[\\'\"abfnrtv])")


def check_default(t: "Type", tokens: "list[Token]") -> None:
    """Raise SchemaError unless tokens (one scalar, or '[' items ']') are a default of t."""
    from .schema import ListType, OptionalType

    first = tokens[0]
    if _is_none(first):
        if not isinstance(t, OptionalType):
            raise _error(f"None is not a default of the non-optional type {t} (write {t}? to allow it)", first)
        return
    if isinstance(t, OptionalType):
        t = t.elem
    is_list = first.kind == "punct" and first.text == "["
    if not isinstance(t, ListType):
        if is_list:
            raise _error(f"a list is not a default of type {t}", first)
        _check_scalar(t, first)
        return
    if not is_list:
        if t.size is None or str(t.elem) == "bool":  # bool[N] is a std::array: no single value
            raise _error(f"the default of type {t} must be a list [...]", first)
        _check_scalar(t.elem, first)  # a sized list takes one value for every item
        return
    items = [tok for tok in tokens[1:-1] if tok.kind != "punct"]
    n = len(items)
    if t.size is not None:
        is_bool = str(t.elem) == "bool"
        if (is_bool and n != t.size) or (not is_bool and t.size >= 2 and n not in (0, t.size)):
            expected = f"{t.size}" if is_bool else f"0 or {t.size}"
            raise _error(f"the default of type {t} has {n} items, expected {expected}", first)
    for tok in items:
        _check_scalar(t.elem, tok)


def _check_scalar(t: "Type", tok: "Token") -> None:
    from .schema import BaseType, OptionalType

    if isinstance(t, OptionalType):
        if _is_none(tok):
            return
        t = t.elem
    elif _is_none(tok):
        raise _error(f"None is not a default of the non-optional type {t}", tok)
    if not isinstance(t, BaseType):
        raise _error(f"type {t} takes no default items", tok)
    name = t.name
    if name in ("bool", "SymBool"):
        _expect_name(tok, t, ("True", "False"))
    elif name in ("int", "SymInt", "DeviceIndex"):
        if tok.kind == "ident":
            _expect_name(tok, t, INT_NAMES, "an integer or " + ", ".join(sorted(INT_NAMES)))
        else:
            _check_int(tok, t)
    elif name in ("float", "Scalar"):
        if tok.kind != "number":
            raise _error(f"the default of type {t} must be a number, not {tok.text!r}", tok)
        if name == "Scalar" and not any(c in tok.text for c in ".eE"):
            _check_int(tok, t)
        else:
            _check_float(tok, t)
    elif name == "str":
        _check_string(tok)
    elif name in ENUM_DEFAULTS:
        _expect_name(tok, t, ENUM_DEFAULTS[name])
    else:
        raise _error(f"type {t} takes no default but None (as {t}?)", tok)


def _is_none(tok: "Token") -> bool:
    return tok.kind == "ident" and tok.text == "None"


def _expect_name(tok: "Token", t: "Type", names, expected: str = "") -> None:
    if tok.kind == "ident" and tok.text in names:
        return
    choices = sorted(names)
    hint = difflib.get_close_matches(tok.text, choices, n=1, cutoff=0.6)
    did_you_mean = f"; did you mean {hint[0]}?" if hint else ""
    raise _error(f"invalid default {tok.text!r} for type {t}: expected {expected or ', '.join(choices)}{did_you_mean}",
                 tok)


def _check_int(tok: "Token", t: "Type") -> None:
    if tok.kind != "number" or not _INT.fullmatch(tok.text):
        why = "a leading zero (C++ reads it as octal)" if re.fullmatch(r"-?0[0-9]+", tok.text) else "not an integer"
        raise _error(f"invalid default {tok.text!r} for type {t}: {why}", tok)
    if abs(int(tok.text)) > INT64_MAX:
        raise _error(f"default {tok.text} is out of range for type {t} (int64: at most {INT64_MAX} in magnitude)", tok)


def _check_float(tok: "Token", t: "Type") -> None:
    value = float(tok.text)
    if math.isinf(value):
        raise _error(f"default {tok.text} is out of range for type {t} (a double: at most 1.8e308)", tok)
    mantissa = re.split(r"[eE]", tok.text)[0]
    if value == 0.0 and any(c in "123456789" for c in mantissa):
        raise _error(f"default {tok.text} underflows to 0 as a double", tok)


def _check_string(tok: "Token") -> None:
    if tok.kind != "string":
        raise _error(f"the default of type str must be a quoted string, not {tok.text!r}", tok)
    body = tok.text[1:-1]
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            m = _ESCAPE.match(body, i)
            if m is None:
                raise _error(f"unknown escape {body[i:i + 2]!r} in a str default "
                             "(use \\\\ \\' \\\" \\a \\b \\f \\n \\r \\t \\v or \\xHH)", tok, 1 + i)
            if m.group(1).lower() == "x00":
                raise _error("a NUL in a str default would cut the C++ string short", tok, 1 + i)
            i = m.end()
            continue
        if ord(c) < 0x20 or ord(c) == 0x7F:
            raise _error(f"control character U+{ord(c):04X} in a str default (write it as an escape)", tok, 1 + i)
        i += 1


def _error(message: str, tok: "Token", offset: int = 0):
    from .schema import SchemaError

    return SchemaError(message, tok.pos + offset)
