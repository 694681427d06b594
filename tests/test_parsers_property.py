"""Property tests of the parsers on hostile input (issue 20): the IR parser
(tcore.jit.loads) and the code generator's YAML loader (codegen.load).

Whatever the input, each either accepts it (and then round-trips: the IR's canonical
text parses back to itself; a schema prints back as written) or raises its one error
type with a position inside the input: never a crash, a hang or another exception.

CI runs a fixed, derandomized set of examples (seconds); set TCORE_PROPERTY_RANDOM=1
(and TCORE_PROPERTY_EXAMPLES=N) for fresh random ones.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
GRAPHS = sorted((ROOT / "tests/graphs").glob("*.ir"))

PROFILE = settings(
    derandomize=not os.environ.get("TCORE_PROPERTY_RANDOM"),
    max_examples=int(os.environ.get("TCORE_PROPERTY_EXAMPLES", "150")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# ---------------------------------------------------------------- the IR

_IR_TOKENS = [
    "graph", "(", ")", "%x", "%y", "%z", ":", "::", "\n", "=", ",", ".", "[", "]", " ", "tcore", "relu", "add",
    "Scalar", "Tensor", "sum", "dim_IntList", "keepdim", "return", "True", "False", "None", "inf", "nan", "-inf",
    "#c\n", '"s"', '"a\\"b"', '"\\x41"', '"\\q"', '"\\xzz"', '"open', "1", "-1", "2.5", "1e5", "1.2.3", "1e", "--1",
    "-", "99999999999999999999", "1e99999", "1e-400", "0x1F", "007", "\t", "\r", "\x00", "\x1b", "\x7f", "\u00e9",
    "\u20ac", "\U0001F600", "\ud800", "%", "%1", "$", "'", "\\", "[" * 70, "]" * 70,
]
_IR_HOSTILE = st.sampled_from(_IR_TOKENS) | st.text(max_size=3)


def _check_ir(tcore, text: str) -> None:
    try:
        graph = tcore.jit.loads(text, "f.ir")
    except ValueError as e:
        message = str(e)
        m = re.match(r"f\.ir:(\d+):(\d+): ", message)
        assert m, message
        line, col = int(m.group(1)), int(m.group(2))
        assert 1 <= line <= text.count("\n") + 1, message
        assert 1 <= col <= len(text.split("\n")[line - 1].encode("utf-8", "surrogatepass")) + 1, message
        head, shown, caret = message.split("\n")
        assert shown.startswith("    ") and caret.strip() == "^", message
        return
    canonical = str(graph)
    again = tcore.jit.loads(canonical, "canonical.ir")
    assert str(again) == canonical
    assert again.operators() == graph.operators() and again.inputs == graph.inputs


@PROFILE
@given(st.lists(_IR_HOSTILE, max_size=40))
def test_ir_token_soup(tcore, parts):
    _check_ir(tcore, "".join(parts))


@PROFILE
@given(st.sampled_from(GRAPHS), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3), _IR_HOSTILE),
                                         min_size=1, max_size=4))
def test_ir_mutated_graphs(tcore, path, edits):
    text = path.read_text()
    for pos, delete, insert in edits:
        pos %= len(text) + 1
        text = text[:pos] + insert + text[pos + delete:]
    _check_ir(tcore, text)


_NAME = st.sampled_from(["a", "b", "x0", "v_1", "long_name"])
_CONSTANT = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(codec="utf-8"), max_size=6),
    lambda inner: st.lists(inner, max_size=3), max_leaves=8)


def _ir_constant(v) -> str:
    if v is None or isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v > 0 else "-inf") if v in (float("inf"), float("-inf")) else repr(v)
    if isinstance(v, str):
        return '"' + "".join(c if " " <= c < "\x7f" and c not in '"\\' else
                             "".join(f"\\x{b:02X}" for b in c.encode("utf-8")) for c in v) + '"'
    return "[" + ", ".join(_ir_constant(x) for x in v) + "]"


@PROFILE
@given(st.lists(_NAME, max_size=3, unique=True), st.lists(_CONSTANT, max_size=4))
def test_ir_constants_read_back_exactly(tcore, inputs, constants):
    """Any constant Python can write, written in the IR, reads back as the same value."""
    text = "graph(" + ", ".join("%" + n for n in inputs) + "):\n  return (" + \
        ", ".join([_ir_constant(c) for c in constants] + ["%" + n for n in inputs]) + ")\n"
    graph = tcore.jit.loads(text, "c.ir")
    assert tcore.jit.loads(str(graph)).__str__() == str(graph)
    if constants and not inputs:
        out = graph()
        out = list(out) if len(constants) > 1 else [out]
        assert repr(_normalize(out)) == repr(_normalize(constants))


def _normalize(v):
    if isinstance(v, (list, tuple)):
        return [_normalize(x) for x in v]
    return "nan" if isinstance(v, float) and v != v else v


# ---------------------------------------------------------------- the codegen YAML loader

_ENTRIES = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CPU: add_cpu
    CUDA: add_cuda
  tags: [core, pointwise]

- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CompositeExplicitAutograd: add_out

- func: sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  variants: function, method
  structured_delegate: add.out
  cpp_no_default_args: [dim]

- func: gelu(Tensor self, *, str approximate='none') -> Tensor
  python_module: nn
  autogen: gelu.out
  device_check: NoCheck
  precomputed:
  - dim -> int a, int b
"""
_TAGS = "- tag: core\n  desc: core ops\n- tag: pointwise\n  desc: |\n    pointwise\n"

_YAML_TOKENS = [
    "-", "- ", ":", ": ", "\n", "\n  ", "  ", "[", "]", "{", "}", ",", "&a ", "*a", "!!str ", "!!python/object:x ",
    "? ", "|", ">", "#", "'", '"', "\\", "\t", "\x00", "\x07", "\u00e9", "\ufeff", "\ud7ff", "---\n", "...\n",
    "func", "dispatch", "CPU", "CUDA", "variants", "tags", "autogen", "structured", "True", "null", "~", "1e99999",
    "2001-13-45", "0x1F", "Flase", "abc", "abs-out; system()", "delete", "Tensor", "int", "int[2]", "bool[3]", "=",
    "(", ")", "->", "?", "*", "!", "a!", "None", "long", "notatype", "99999999999999999999", "[" * 70, "]" * 70,
]
_YAML_HOSTILE = st.sampled_from(_YAML_TOKENS) | st.text(max_size=3)


def _check_yaml(directory: Path, text: str) -> None:
    from codegen.errors import SourceError
    from codegen.load import load_operator_set

    native = directory / "native_functions.yaml"
    native.write_text(text, encoding="utf-8", errors="surrogatepass")
    tags = directory / "tags.yaml"
    tags.write_text(_TAGS)
    try:
        opset = load_operator_set(str(native), str(tags))
    except SourceError as e:
        rendered = str(e)
        assert e.location is not None or rendered.startswith(("not UTF-8", "cannot read")), rendered
        if e.location is not None:
            lines = native.read_bytes().decode("utf-8", "replace").splitlines() or [""]
            assert e.location.file == str(native) and 1 <= e.location.line <= len(lines) + 1, rendered
            assert 1 <= e.location.col, rendered
            head, shown, caret = rendered.split("\n")
            assert caret.strip() == "^" and head.startswith(f"{native}:{e.location.line}:{e.location.col}: error: ")
        return
    from codegen.schema import parse_schema

    for f in opset.functions:  # accepted: every schema prints back and parses to itself
        assert parse_schema(str(f.func)) == f.func


@PROFILE
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 4), _YAML_HOSTILE), min_size=1, max_size=4))
def test_yaml_mutated_entries(edits):
    text = _ENTRIES
    for pos, delete, insert in edits:
        pos %= len(text) + 1
        text = text[:pos] + insert + text[pos + delete:]
    with tempfile.TemporaryDirectory() as d:
        _check_yaml(Path(d), text)


@PROFILE
@given(st.lists(_YAML_HOSTILE, max_size=30))
def test_yaml_token_soup(parts):
    with tempfile.TemporaryDirectory() as d:
        _check_yaml(Path(d), "- func: " + "".join(parts))


def test_valid_entries_load():
    """The unmutated entries load: the mutation tests start from a valid file."""
    with tempfile.TemporaryDirectory() as d:
        _check_yaml(Path(d), _ENTRIES)
        from codegen.load import load_operator_set

        opset = load_operator_set(str(Path(d) / "native_functions.yaml"), str(Path(d) / "tags.yaml"))
        assert [str(f.func.name) for f in opset.functions] == ["add.Tensor", "add.out", "sum.dim_IntList", "gelu", "gelu.out"]


@pytest.mark.parametrize("text", [
    "- func: " + "a" * 200000 + "() -> ()\n",
    "- func: f() -> ()\n  x: " + "[" * 200000 + "\n",
    "- func: f() -> ()\n  x: " + "{a: " * 70 + "b" + "}" * 70 + "\n",
    "- func: f() -> ()\n  x: '" + "\\" * 100000 + "'\n",
], ids=["long name", "unclosed deep list", "deep mappings", "long string"])
def test_yaml_large_inputs_are_bounded(text):
    with tempfile.TemporaryDirectory() as d:
        _check_yaml(Path(d), text)
