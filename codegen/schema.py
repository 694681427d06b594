"""PyTorch's function-schema language: a tokenizer, a recursive-descent parser and
frozen dataclasses that print back the exact text they were parsed from.

    schema   := name ['.' overload] '(' [arg {',' arg}] ')' '->' returns
    arg      := '*' | type IDENT ['=' default]
    type     := IDENT [annotation] {'?' | '[' [INT] ']'}
    returns  := '(' [ret {',' ret}] ')' | ret
    ret      := type [IDENT]
    annotation := '(' alias {'|' alias} ['!'] ['->' (alias {'|' alias} | '*')] ')'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator

from .defaults import check_default
from .errors import SourceError

# ---------------------------------------------------------------------------- types

BASE_TYPES = frozenset(
    {
        "Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType",
        "Layout", "Device", "DeviceIndex", "MemoryFormat", "Generator", "Dimname",
        "Storage", "Stream", "QScheme", "ConstQuantizerPtr", "SymBool", "GraphModule",
        "Any",
    }
)


@dataclass(frozen=True)
class Annotation:
    """Alias annotation such as `a!`, `a`, `a -> *`, `b! -> b|c`."""

    alias_set: tuple[str, ...]
    is_write: bool
    alias_set_after: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = "|".join(self.alias_set) + ("!" if self.is_write else "")
        if self.alias_set_after:
            text += " -> " + "|".join(self.alias_set_after)
        return text


@dataclass(frozen=True)
class BaseType:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class OptionalType:
    elem: "Type"

    def __str__(self) -> str:
        return f"{self.elem}?"


@dataclass(frozen=True)
class ListType:
    elem: "Type"
    size: int | None = None

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"


Type = BaseType | OptionalType | ListType


def base_of(t: Type) -> BaseType:
    while not isinstance(t, BaseType):
        t = t.elem
    return t


def is_tensor_like(t: Type) -> bool:
    return base_of(t).name == "Tensor"


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: str | None = None  # exact source text of the default
    annotation: Annotation | None = None

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def type_str(self) -> str:
        return _type_with_annotation(self.type, self.annotation)

    def __str__(self) -> str:
        text = f"{self.type_str()} {self.name}"
        return text if self.default is None else f"{text}={self.default}"


@dataclass(frozen=True)
class Return:
    type: Type
    name: str | None = None
    annotation: Annotation | None = None

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        text = _type_with_annotation(self.type, self.annotation)
        return text if self.name is None else f"{text} {self.name}"


def _type_with_annotation(t: Type, ann: Annotation | None) -> str:
    if ann is None:
        return str(t)
    # The annotation sits right after the base type name: Tensor(a!)[] / Tensor(a)?
    base = base_of(t).name
    return f"{base}({ann}){str(t)[len(base):]}"


@dataclass(frozen=True)
class OperatorName:
    name: str  # e.g. "add_" (with the in-place underscore)
    overload: str = ""

    @property
    def inplace(self) -> bool:
        return self.name.endswith("_") and not self.name.endswith("__")

    @property
    def base(self) -> str:
        """The name without the in-place underscore: add_ -> add, __iand__ stays."""
        return self.name[:-1] if self.inplace else self.name

    @property
    def unambiguous(self) -> str:
        """A C++ identifier naming this overload: add_Tensor, add__Tensor, sum."""
        return f"{self.name}_{self.overload}" if self.overload else self.name

    def __str__(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name


@dataclass(frozen=True)
class FunctionSchema:
    name: OperatorName
    arguments: tuple[Argument, ...]
    kwarg_only_start: int | None  # index of the first keyword-only argument
    returns: tuple[Return, ...]
    returns_tuple: bool  # returns written as "(...)" even with one element

    @property
    def positional(self) -> tuple[Argument, ...]:
        end = len(self.arguments) if self.kwarg_only_start is None else self.kwarg_only_start
        return self.arguments[:end]

    @property
    def kwarg_only(self) -> tuple[Argument, ...]:
        return () if self.kwarg_only_start is None else self.arguments[self.kwarg_only_start:]

    # cached (the generators ask for these thousands of times a schema; a frozen dataclass's
    # cached_property lives in the instance's __dict__, outside its fields, equality and hash)
    @cached_property
    def out_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.kwarg_only if a.is_write)

    @property
    def is_out_fn(self) -> bool:
        return bool(self.out_arguments)

    @property
    def kind(self) -> str:
        if self.is_out_fn:
            return "out"
        if self.name.inplace:
            return "inplace"
        return "functional"

    def __str__(self) -> str:
        return self._text

    @cached_property
    def _text(self) -> str:
        parts = [str(a) for a in self.arguments]
        if self.kwarg_only_start is not None:
            parts.insert(self.kwarg_only_start, "*")
        rets = ", ".join(str(r) for r in self.returns)
        if self.returns_tuple or len(self.returns) != 1:
            rets = f"({rets})"
        return f"{self.name}({', '.join(parts)}) -> {rets}"


# ---------------------------------------------------------------------------- tokenizer

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<arrow>->)
  | (?P<number>-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<punct>[()\[\],*=?!.|-])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # ident, number, string, punct, arrow, end
    text: str
    pos: int  # 0-based offset in the schema string


def tokenize(text: str) -> Iterator[Token]:
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise SchemaError(f"unexpected character {text[pos]!r}", pos)
        kind = m.lastgroup
        if kind != "ws":
            yield Token(kind, m.group(), pos)
        pos = m.end()
    yield Token("end", "", len(text))


class SchemaError(SourceError):
    """A grammar error; `offset` is the 0-based column inside the schema string."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


# ---------------------------------------------------------------------------- parser


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = list(tokenize(text))
        self.i = 0

    # -- token helpers
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def error(self, message: str, tok: Token | None = None) -> SchemaError:
        tok = tok or self.tok
        found = "end of schema" if tok.kind == "end" else repr(tok.text)
        return SchemaError(f"{message}, found {found}", tok.pos)

    def accept(self, text: str) -> Token | None:
        if self.tok.text == text and self.tok.kind in ("punct", "arrow"):
            tok = self.tok
            self.i += 1
            return tok
        return None

    def expect(self, text: str, what: str | None = None) -> Token:
        tok = self.accept(text)
        if tok is None:
            raise self.error(f"expected {what or repr(text)}")
        return tok

    def ident(self, what: str) -> str:
        if self.tok.kind != "ident":
            raise self.error(f"expected {what}")
        self.i += 1
        return self.tokens[self.i - 1].text

    # -- grammar
    def schema(self) -> FunctionSchema:
        name = self.operator_name()
        self.expect("(")
        args, kw_start = self.arguments()
        self.expect(")", "',' or ')'")
        self.expect("->")
        returns, as_tuple = self.returns()
        if self.tok.kind != "end":
            raise self.error("expected end of schema")
        return FunctionSchema(name, tuple(args), kw_start, tuple(returns), as_tuple)

    def operator_name(self) -> OperatorName:
        name = self.ident("operator name")
        overload = ""
        if self.accept("."):
            overload = self.ident("overload name")
        return OperatorName(name, overload)

    def arguments(self) -> tuple[list[Argument], int | None]:
        args: list[Argument] = []
        kw_start: int | None = None
        names: set[str] = set()
        if self.tok.text == ")":
            return args, kw_start
        while True:
            star = self.accept("*")
            if star is not None:
                if kw_start is not None:
                    raise self.error("'*' given twice", star)
                kw_start = len(args)
            else:
                name_tok_index = self.i
                arg = self.argument()
                if arg.name in names:
                    raise self.error(f"duplicate argument name {arg.name!r}", self._name_token(name_tok_index))
                names.add(arg.name)
                args.append(arg)
            if not self.accept(","):
                return args, kw_start

    def _name_token(self, start: int) -> Token:
        j = start
        while self.tokens[j].kind != "ident" or self.tokens[j + 1].text not in (",", ")", "="):
            j += 1
        return self.tokens[j]

    def argument(self) -> Argument:
        t, ann = self.type()
        name = self.ident("argument name")
        default = None
        if self.accept("="):
            start = self.i
            default = self.default()
            check_default(t, self.tokens[start:self.i])
        return Argument(name, t, default, ann)

    def type(self) -> tuple[Type, Annotation | None]:
        tok = self.tok
        name = self.ident("a type")
        if name not in BASE_TYPES:
            raise SchemaError(f"unknown type {name!r}", tok.pos)
        ann = self.annotation() if self.tok.text == "(" else None
        t: Type = BaseType(name)
        while True:
            if self.accept("?"):
                t = OptionalType(t)
            elif self.accept("["):
                size = None
                if self.tok.kind == "number":
                    if not self.tok.text.isdigit():
                        raise self.error("expected a list size")
                    size = int(self.tok.text)
                    self.i += 1
                self.expect("]")
                t = ListType(t, size)
            else:
                return t, ann

    def annotation(self) -> Annotation:
        self.expect("(")
        before = self.alias_set()
        is_write = self.accept("!") is not None
        after: tuple[str, ...] = ()
        if self.accept("->"):
            after = ("*",) if self.accept("*") else self.alias_set()
        self.expect(")")
        return Annotation(before, is_write, after)

    def alias_set(self) -> tuple[str, ...]:
        names = [self.ident("an alias name")]
        while self.accept("|"):
            names.append(self.ident("an alias name"))
        return tuple(names)

    def default(self) -> str:
        """Returns the exact text of a default value (checked for well-formedness)."""
        start = self.tok
        if self.accept("["):
            if not self.accept("]"):
                while True:
                    self.scalar_default()
                    if not self.accept(","):
                        break
                self.expect("]")
        else:
            self.scalar_default()
        end = self.tokens[self.i - 1]
        return self.text[start.pos : end.pos + len(end.text)]

    def scalar_default(self) -> None:
        if self.tok.kind in ("number", "string", "ident"):
            self.i += 1
            return
        raise self.error("expected a default value")

    def returns(self) -> tuple[list[Return], bool]:
        if self.accept("("):
            rets: list[Return] = []
            if not self.accept(")"):
                while True:
                    rets.append(self.ret())
                    if not self.accept(","):
                        break
                self.expect(")", "',' or ')'")
            return rets, True
        return [self.ret()], False

    def ret(self) -> Return:
        t, ann = self.type()
        name = self.ident("return name") if self.tok.kind == "ident" else None
        return Return(t, name, ann)


def parse_schema(text: str) -> FunctionSchema:
    """Parse one schema string. Raises SchemaError (with a 0-based offset) on bad input."""
    schema = _Parser(text).schema()
    printed = str(schema)
    if printed != text:
        # the model must round-trip; a difference means unusual spacing in the input
        at = next((i for i, (a, b) in enumerate(zip(text, printed)) if a != b), min(len(text), len(printed)))
        raise SchemaError(f"schema is not in canonical form (expected {printed!r})", at)
    return schema


def parse_type(text: str) -> tuple[Type, Annotation | None]:
    p = _Parser(text)
    t = p.type()
    if p.tok.kind != "end":
        raise p.error("expected end of type")
    return t
