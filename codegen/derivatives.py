"""derivatives.yaml and deprecated.yaml: PyTorch's format, parsed per entry and checked.

A derivatives entry names a schema (`name:`) and gives, per input or group of inputs
(`self, other:`), a backward formula; `result:` (or `result0`, ...) gives a forward
formula; `output_differentiability:` and `dispatch:` sub-sections (Default,
AutogradNestedTensor, ...) as in PyTorch. Each formula may use only the inputs,
`grad`/`grads[i]`, the outputs (`result`, `resultN`, return names, `grad_<name>`),
the forward-mode names (`<input>_t`, `<input>_p`) and the helpers of the formula
language; an unknown bare name is an error with file:line:col.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import Location, SourceError
from .file_writer import atomic_write
from .formula import blank_literals
from .schema import FunctionSchema, ListType, SchemaError, is_tensor_like, parse_schema
from .yaml_source import Entry, YMap, entry_location, parse_entry, read_source, split_entries

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Names a formula may use besides its own inputs and outputs: C++ words and the
# context PyTorch's generated backward functions provide.
FORMULA_CONTEXT = frozenset({
    "grad", "grads", "result", "true", "false", "nullptr", "this", "auto", "const", "int64_t", "double",
    "bool", "float", "size_t", "return", "if", "else", "static_cast", "sizeof",
    "retain_variables", "output_mask", "grad_input_mask", "is_forward_grad_defined",
    "wrap_opt_if", "not_implemented", "std", "c10", "at", "nullopt", "optional",
    # special formula values
    "non_differentiable", "auto_linear", "auto_element_wise",
    # foreach formulas index their list arguments; in-place formulas see the original self
    "i", "original_self", "original_self_t", "original_self_p",
})


@dataclass(frozen=True)
class Formula:
    inputs: tuple[str, ...]  # the key: one name or a group "self, other"
    text: str
    line: int  # absolute line of the key
    col: int


@dataclass(frozen=True)
class Derivative:
    schema: FunctionSchema
    backward: tuple[Formula, ...]  # formulas for inputs
    forward: tuple[Formula, ...]  # result / resultN formulas
    output_differentiability: tuple[bool | str, ...] | None
    dispatch: tuple[tuple[str, tuple[Formula, ...]], ...]  # per dispatch key: backward formulas
    file: str
    line: int
    location: Location  # of the schema text, for errors about the entry as a whole
    source: str = ""  # the entry's text (what generated code is keyed on)


@dataclass(frozen=True)
class Deprecated:
    schema: FunctionSchema
    call: str  # the current operator call, e.g. "add(self, other, alpha)"
    file: str
    line: int
    location: Location
    source: str = ""


def _schema_at(entry: Entry, data: YMap, key: str) -> FunctionSchema:
    if key not in data or not isinstance(data[key], str):
        raise SourceError(f"entry needs '{key}: <schema>'", entry_location(entry, 0, 3))
    text = data[key]
    try:
        return parse_schema(text)
    except SchemaError as e:
        rel, col = data.value_pos[key]
        line = entry.text.splitlines()[rel]
        start = line.find(text, col - 1)
        raise SourceError(e.message, entry_location(entry, rel, (start if start >= 0 else col - 1) + 1 + e.offset)) from None


def _names_in_scope(schema: FunctionSchema) -> set[str]:
    inputs = {a.name for a in schema.arguments}
    outputs = {f"result{i}" for i in range(len(schema.returns))} | {r.name for r in schema.returns if r.name}
    grads = {f"grad_{r.name}" for r in schema.returns if r.name}
    tangents = {f"{n}_t" for n in inputs} | {f"{n}_p" for n in inputs} | {f"{n}_info" for n in inputs}
    # a Tensor[] input's sizes alone (what cat's formula needs), saved without the tensors
    list_sizes = {f"{a.name}_sizes" for a in schema.arguments if isinstance(a.type, ListType) and is_tensor_like(a.type)}
    return inputs | outputs | grads | tangents | list_sizes | FORMULA_CONTEXT


def check_formula(text: str, scope: set[str], where: Location, n_outputs: int) -> None:
    """Bare names (not a call, member or qualified name) must be in scope."""
    stripped = blank_literals(text)
    for m in _IDENT.finditer(stripped):
        name = m.group()
        before = stripped[: m.start()].rstrip()
        after = stripped[m.end():].lstrip()
        if before.endswith((".", "::", "->")) or after.startswith(("(", "::", "<")) or name[0].isupper():
            continue
        if name[0].isdigit() or name in scope or name.startswith("k"):
            continue
        raise SourceError(f"formula uses {name!r}, which is not an input, an output or grad", where.shifted(m.start()))
    for m in re.finditer(r"grads\[(\d+)\]", stripped):
        if int(m.group(1)) >= n_outputs:
            raise SourceError(f"grads[{m.group(1)}] but the operator has {n_outputs} output(s)", where.shifted(m.start()))


def _formulas(entry: Entry, data: YMap, schema: FunctionSchema, keys: list[str]) -> tuple[list[Formula], list[Formula]]:
    inputs = {a.name for a in schema.arguments}
    outputs = {"result"} | {f"result{i}" for i in range(len(schema.returns))} | {r.name for r in schema.returns if r.name}
    scope = _names_in_scope(schema)
    backward, forward = [], []
    for key in keys:
        value = data[key]
        rel, col = data.key_pos[key]
        vrel, vcol = data.value_pos[key]
        if not isinstance(value, str):
            raise SourceError(f"the formula of '{key}' must be a string", entry_location(entry, rel, col))
        loc = entry_location(entry, vrel, vcol)
        line_text = entry.text.splitlines()[vrel]
        quoted = line_text[vcol - 1:vcol] in ("'", '"')
        where = loc.shifted(1 if quoted else 0)
        names = tuple(n.strip() for n in str(key).split(","))
        is_forward = all(n in outputs for n in names)
        if not is_forward:
            for n in names:
                if n not in inputs:
                    raise SourceError(f"'{n}' is not an input of {schema.name}", entry_location(entry, rel, col))
        check_formula(value, scope, where, len(schema.returns))
        formula = Formula(names, value, entry.line + vrel, where.col)
        (forward if is_forward else backward).append(formula)
    return backward, forward


def parse_derivative(entry: Entry) -> Derivative:
    data = parse_entry(entry)
    schema = _schema_at(entry, data, "name")
    keys = [k for k in data if k not in ("name", "output_differentiability", "dispatch")]
    backward, forward = _formulas(entry, data, schema, keys)
    od = data.get("output_differentiability")
    if od is not None:
        if not isinstance(od, list) or not all(isinstance(x, (bool, str)) for x in od):
            rel, col = data.value_pos["output_differentiability"]
            raise SourceError("output_differentiability must be a list of True/False (or C++ conditions)",
                              entry_location(entry, rel, col))
        if len(od) != len(schema.returns):
            rel, col = data.value_pos["output_differentiability"]
            raise SourceError(f"output_differentiability has {len(od)} entries for {len(schema.returns)} outputs",
                              entry_location(entry, rel, col))
    dispatch = []
    sections = data.get("dispatch")
    if sections is not None and not isinstance(sections, dict):
        # `dispatch:` is the key of the per-dispatch-key sections (as in PyTorch's language), so an
        # input named `dispatch` can get its formula only inside such a section
        rel, col = data.value_pos["dispatch"]
        raise SourceError("'dispatch' holds per-dispatch-key sections (a mapping such as `Default: {input: "
                          "formula}`), not a formula; an input named 'dispatch' gets its formula inside a section",
                          entry_location(entry, rel, col))
    for key, section in (sections or {}).items():
        if not isinstance(section, dict):
            rel, col = data["dispatch"].key_pos[key]
            raise SourceError("a dispatch section maps inputs to formulas", entry_location(entry, rel, col))
        b, f = _formulas(entry, section, schema, list(section))
        dispatch.append((str(key), tuple(b + f)))
    rel, col = data.value_pos["name"]
    return Derivative(schema, tuple(backward), tuple(forward), tuple(od) if od is not None else None,
                      tuple(dispatch), entry.file, entry.line, entry_location(entry, rel, col), entry.text)


def load_derivatives(path: str, cache_dir: str | None = None) -> tuple[Derivative, ...]:
    """Every entry of the file, parsed; with cache_dir, kept there for the same bytes and parser
    (a schema edit in native_functions.yaml does not parse derivatives.yaml again: 0.3 s at
    PyTorch's scale), with the names each entry's formulas call (the plan's digests need them)."""
    from . import gen_autograd

    def build(text: str):
        derivatives = tuple(parse_derivative(e) for e in split_entries(path, text))
        return derivatives, {d.source: gen_autograd.called_names(d) for d in derivatives}

    derivatives, calls = _cached(path, cache_dir, "derivatives", build)
    gen_autograd.remember_calls(calls)
    return derivatives


def _cached(path: str, cache_dir: str | None, kind: str, build):
    """build(text of path), kept in cache_dir for the same bytes and parser. The whole file is the
    key: an entry's positions depend on those above it."""
    text = read_source(path)
    cache = _cache_file(cache_dir, kind, path, text) if cache_dir else None
    if cache is not None:
        try:
            with open(cache, "rb") as f:
                return pickle.load(f)
        except Exception:  # absent, torn or foreign: parse
            pass
    payload = build(text)
    if cache is not None:
        try:
            for old in cache.parent.glob(cache.name.split("~")[0] + "~*.pickle"):  # one file per input path
                old.unlink(missing_ok=True)
            atomic_write(cache, pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            pass  # only a speed-up
    return payload


def _cache_file(cache_dir: str, kind: str, path: str, text: str) -> Path:
    """cache_dir/<kind>-<path key>~<content and parser key>.pickle. The path as given is part of
    the key (errors name the file as it was given); the parser is every module of the generator (what
    derivatives.py imports imports more: defaults.py's checks...) and PyYAML's version."""
    import yaml

    h = hashlib.sha1(text.encode())
    h.update(yaml.__version__.encode())
    for module in sorted(Path(__file__).parent.glob("*.py")):
        h.update(module.read_bytes())
    where = hashlib.sha1(f"{os.path.abspath(path)}|{path}".encode()).hexdigest()[:16]
    return Path(cache_dir) / f"{kind}-{where}~{h.hexdigest()[:24]}.pickle"


def check_against(derivatives: tuple[Derivative, ...], functions: dict[str, object],
                  autogen: frozenset[str] = frozenset()) -> None:
    """Every entry must name an operator of native_functions.yaml (or one generated by an
    `autogen:` field) with the same schema."""
    seen: dict[str, Derivative] = {}
    for d in derivatives:
        name = str(d.schema.name)
        loc = d.location
        if name in seen:
            raise SourceError(f"second derivatives entry for {name!r}", loc)
        seen[name] = d
        f = functions.get(name)
        if f is None and name in autogen:
            continue
        if f is None:
            raise SourceError(f"derivatives entry for {name!r}, which is not in native_functions.yaml", loc)
        schema = f if isinstance(f, str) else str(f.func)
        if schema != str(d.schema) and _without_defaults(parse_schema(schema)) != _without_defaults(d.schema):
            raise SourceError(f"schema differs from native_functions.yaml: {schema}", loc)


def _without_defaults(schema: FunctionSchema) -> FunctionSchema:
    """Defaults may differ (a default edit in native_functions.yaml alone is fine)."""
    from dataclasses import replace

    return replace(schema, arguments=tuple(replace(a, default=None) for a in schema.arguments))


def load_checked(path: str, schemas: dict[str, str], autogen: frozenset[str] = frozenset(),
                 cache_dir: str | None = None):
    """derivatives.yaml, and deprecated.yaml beside it (as in PyTorch), parsed (kept in cache_dir
    when given) and checked against the operators (name -> schema); returns (derivatives, deprecated)."""
    derivatives = load_derivatives(path, cache_dir)
    check_against(derivatives, schemas, autogen)
    beside = Path(path).with_name("deprecated.yaml")
    deprecated = load_deprecated(str(beside), cache_dir) if beside.exists() else ()
    roots = {name.split(".")[0] for name in schemas} | {name.split(".")[0] for name in autogen}
    for d in deprecated:
        target = d.call.split("(", 1)[0].strip()
        if target not in roots and target.removesuffix("_out") not in roots:
            raise SourceError(f"deprecated signature maps to unknown operator {target!r}", d.location)
    return derivatives, deprecated


def parse_deprecated(entry: Entry) -> Deprecated:
    data = parse_entry(entry)
    schema = _schema_at(entry, data, "name")
    call = data.get("aten")
    if not isinstance(call, str):
        raise SourceError("a deprecated entry needs 'aten: op(args)'", entry_location(entry, 0, 3))
    rel, col = data.value_pos["aten"]
    names = {a.name for a in schema.arguments}
    m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\((.*)\)\s*", call)
    if m is None:
        raise SourceError("'aten' must be a call: name(arg, ...)", entry_location(entry, rel, col))
    for arg in (a.strip() for a in m.group(2).split(",") if a.strip()):
        if _IDENT.fullmatch(arg) and arg not in names and arg not in ("True", "False", "None"):
            raise SourceError(f"'{arg}' is not an argument of the deprecated signature", entry_location(entry, rel, col))
    return Deprecated(schema, call, entry.file, entry.line, entry_location(entry, rel, col), entry.text)


def load_deprecated(path: str, cache_dir: str | None = None) -> tuple[Deprecated, ...]:
    return _cached(path, cache_dir, "deprecated",
                   lambda text: tuple(parse_deprecated(e) for e in split_entries(path, text)))
