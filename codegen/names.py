"""Names from the YAML that the generator writes into C++: kernel names of `dispatch:`
sections (optionally namespaced, `at::native::add_out`) and operator names (`add.out`).
Each check returns None for a good name, else (offset of the first bad character, why)."""
from __future__ import annotations

import re

# C++20 keywords and alternative tokens: none may name a kernel.
CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template
this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t
while xor xor_eq
""".split())

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _found(text: str, i: int) -> str:
    return f"unexpected {text[i]!r}" if i < len(text) else "an identifier is missing at the end"


def bad_kernel_name(text: str) -> tuple[int, str] | None:
    """A C++ identifier, optionally qualified (ns::name, a::b::name), and no keyword."""
    if not text:
        return 0, "the name is empty"
    i = 0
    while True:
        m = _IDENT.match(text, i)
        if m is None:
            return i, _found(text, i)
        if m.group() in CPP_KEYWORDS:
            return i, f"{m.group()!r} is a C++ keyword"
        i = m.end()
        if i == len(text):
            return None
        if not text.startswith("::", i):
            return i, _found(text, i)
        i += 2


def bad_operator_name(text: str) -> tuple[int, str] | None:
    """name or name.overload, each an identifier."""
    if not text:
        return 0, "the name is empty"
    m = _IDENT.match(text)
    if m is None:
        return 0, _found(text, 0)
    i = m.end()
    if i < len(text) and text[i] == ".":
        m = _IDENT.match(text, i + 1)
        if m is None:
            return i + 1, _found(text, i + 1)
        i = m.end()
    return None if i == len(text) else (i, _found(text, i))
