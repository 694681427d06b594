"""One-line errors for arguments of the wrong type, as PyTorch gives them.

When no overload of a generated binding accepts the arguments, nanobind raises a
TypeError listing every overload on several lines. The bindings are wrapped so that the
message becomes one line naming the argument, what was given and what is accepted:

    add(): argument 'other' (position 2) must be Tensor or number, not str

The diagnosis reads the overloads' signatures (`__nb_signature__`), finds the overload
that accepts the longest prefix of the arguments, and reports its first mismatch. The
wrapper costs one try block per call; nothing is computed unless the call fails.
"""
from __future__ import annotations

import builtins
import functools
import numbers
from dataclasses import dataclass

from . import _C

_NB_FAILURE = "incompatible function arguments"


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # as nanobind spells it, e.g. "int | Sequence[int] | None"
    has_default: bool
    kw_only: bool


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def parse_signature(sig: str) -> list[Param]:
    """The parameters of one nanobind signature ('def f(a: T, *, b: U = \\0) -> R')."""
    inner = sig[sig.index("(") + 1:sig.rindex(") ->")] if ") ->" in sig else sig[sig.index("(") + 1:sig.rindex(")")]
    params, kw_only = [], False
    for part in _split_top(inner):
        if part == "*":
            kw_only = True
            continue
        if part == "/":
            continue
        head, _, default = part.partition("=")
        name, _, typ = head.partition(":")
        params.append(Param(name.strip(), typ.strip() or "object", bool(default.strip()), kw_only))
    return params


def _is_int(v) -> bool:
    if isinstance(v, builtins.bool):
        return False
    if isinstance(v, builtins.int):
        return True
    if isinstance(v, (builtins.float, str, _C.Tensor)):
        return False
    return hasattr(v, "__index__")


def _is_number(v) -> bool:
    return isinstance(v, (builtins.bool, numbers.Number)) and not isinstance(v, complex)


def _accepts_one(typ: str, v) -> bool:
    typ = typ.strip()
    if typ == "None":
        return v is None
    if typ in ("object", "collections.abc.Callable", "list"):
        return True if typ != "list" else isinstance(v, list)
    if typ == "tcore._C.Tensor":
        return isinstance(v, _C.Tensor)
    if typ == "bool":
        return isinstance(v, builtins.bool)
    if typ == "int":
        return _is_int(v)
    if typ == "float":
        return _is_number(v) and not isinstance(v, builtins.bool)
    if typ == "str":
        return isinstance(v, str)
    if typ == "Sequence[int]":
        return isinstance(v, (list, tuple)) and all(_is_int(x) for x in v)
    if typ.startswith("collections.abc.Sequence["):
        elem = typ[len("collections.abc.Sequence["):-1]
        return isinstance(v, (list, tuple)) and all(_accepts(elem, x) for x in v)
    if typ == "tcore._C.device":
        return isinstance(v, (_C.device, str, builtins.int))
    if typ.startswith("tcore._C."):
        cls = getattr(_C, typ[len("tcore._C."):], None)
        return cls is not None and isinstance(v, cls)
    return True  # a type this diagnosis does not know: never blamed


def _accepts(typ: str, v) -> bool:
    if typ == "int | float | bool":
        return _is_number(v)
    return any(_accepts_one(t, v) for t in _split_union(typ))


def _split_union(typ: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in typ:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "|" and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out


_NAMES = {
    "tcore._C.Tensor": "Tensor", "int | float | bool": "number", "int | Sequence[int]": "int or tuple of ints",
    "collections.abc.Sequence[tcore._C.Tensor]": "sequence of Tensors",
    "collections.abc.Sequence[tcore._C.Tensor | None]": "sequence of Tensors or None",
    "tcore._C.dtype": "tcore.dtype", "tcore._C.device": "tcore.device or str", "tcore._C.layout": "tcore.layout",
    "tcore._C.memory_format": "tcore.memory_format", "tcore._C.Generator": "tcore.Generator",
}


def describe(typ: str) -> str:
    """A type as a user reads it: 'Tensor', 'number', 'int or tuple of ints', ..."""
    if typ in _NAMES:
        return _NAMES[typ]
    if typ == "int | Sequence[int] | None":
        return "int, tuple of ints or None"
    parts = _split_union(typ)
    if len(parts) > 1 and parts[-1] == "None":
        return describe(" | ".join(parts[:-1])) + " or None"
    return typ


def _given(v) -> str:
    if isinstance(v, _C.Tensor):
        return "Tensor"
    if isinstance(v, (list, tuple)) and v:
        inner = sorted({_given(x) for x in v})
        return f"{type(v).__name__} of [{', '.join(inner)}]"
    return type(v).__name__


@dataclass
class _Attempt:
    score: int  # how many arguments the overload accepted before the first problem
    message: str | None  # the problem, or None when this diagnosis sees none
    param: Param | None = None
    position: int | None = None


def _attempt(name: str, params: list[Param], args: tuple, kwargs: dict, method: bool) -> _Attempt:
    if method and params and params[0].name == "self":
        params = params[1:]
    positional = [p for p in params if not p.kw_only]
    if len(args) > len(positional):
        return _Attempt(len(positional) - 1 if positional else -1,
                        f"{name}() takes {len(positional)} positional argument{'s' * (len(positional) != 1)} "
                        f"but {len(args)} were given")
    score = 0
    for i, v in enumerate(args):
        p = positional[i]
        if not _accepts(p.type, v):
            return _Attempt(score, "", p, i + 1)
        score += 1
    known = {p.name: p for p in params}
    for k, v in kwargs.items():
        if k not in known:
            return _Attempt(score - 1, f"{name}() got an unexpected keyword argument '{k}'")
        if k in {p.name for p in positional[:len(args)]}:
            return _Attempt(score - 1, f"{name}() got multiple values for argument '{k}'")
        if not _accepts(known[k].type, v):
            return _Attempt(score, "", known[k], None)
        score += 1
    given = {p.name for p in positional[:len(args)]} | set(kwargs)
    for p in params:
        if not p.has_default and p.name not in given:
            return _Attempt(score - 1, f"{name}() missing required argument '{p.name}'")
    return _Attempt(score, None)


def diagnose(fn, args: tuple, kwargs: dict, method: bool) -> str:
    """One line saying why no overload of `fn` accepts (args, kwargs)."""
    name = getattr(fn, "__name__", "function")
    overloads = [parse_signature(s[0]) for s in getattr(fn, "__nb_signature__", ())]
    attempts = [_attempt(name, ps, args, kwargs, method) for ps in overloads]
    if not attempts:
        return f"{name}(): invalid arguments"
    best = max(a.score for a in attempts)
    top = [a for a in attempts if a.score == best]
    typed = [a for a in top if a.param is not None]
    if typed:
        first = typed[0]
        p = first.param
        value = args[first.position - 1] if first.position is not None else kwargs[p.name]
        accepted = []
        for a in typed:  # what the overloads accept at that place
            if (a.position == first.position) if first.position is not None else (a.param.name == p.name):
                d = describe(a.param.type)
                if d not in accepted:
                    accepted.append(d)
        where = f" (position {first.position})" if first.position is not None else ""
        return f"{name}(): argument '{p.name}'{where} must be {' or '.join(accepted)}, not {_given(value)}"
    for a in top:
        if a.message:
            return a.message
    got = ", ".join([_given(v) for v in args] + [f"{k}={_given(v)}" for k, v in kwargs.items()])
    accepted = " | ".join("(" + ", ".join(f"{describe(p.type)} {p.name}" for p in ps
                                         if not (method and p.name == "self")) + ")" for ps in overloads)
    return f"{name}(): invalid combination of arguments: got ({got}); accepted: {accepted}"


def checked(fn, method: bool):
    """`fn` (a nanobind function or method) with one-line argument errors."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if "out" in kwargs and kwargs["out"] is None:  # out=None is no out, as in torch
            del kwargs["out"]
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            if type(e) is not TypeError or _NB_FAILURE not in str(e):
                raise
            message = diagnose(fn, args[1:] if method else args, kwargs, method)
        raise TypeError(message) from None
    return call


def _is_binding(obj) -> bool:
    return type(obj).__name__ in ("nb_func", "nb_method")


def install() -> None:
    """Wraps every generated function of tcore._C and every Tensor method."""
    for module in (_C, *(getattr(_C, "_" + m) for m in _C._python_modules)):
        for name in dir(module):
            obj = getattr(module, name)
            if not name.startswith("_") and _is_binding(obj):
                setattr(module, name, checked(obj, method=False))
    T = _C.Tensor
    for name, obj in list(vars(T).items()):
        if not name.startswith("__") and _is_binding(obj):
            setattr(T, name, checked(obj, method=True))
