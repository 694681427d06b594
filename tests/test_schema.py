"""The schema parser: round trips (ours and PyTorch's 2,584 schemas), positions
in errors, and property tests that bad input only ever raises SchemaError."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.errors import SourceError
from codegen.load import load_operator_set
from codegen.schema import SchemaError, parse_schema

ROOT = Path(__file__).resolve().parent.parent


SAMPLES = [
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "foo(int[2] a=[0,1], float b=1e-05, str c=\"x\", str d='fro', MemoryFormat m=contiguous_format) -> ()",
    "bar(Tensor(b! -> b|c) x, int? y=None, bool[3] z=[True,True,False]) -> (Tensor, Tensor)",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_round_trip_samples(text):
    assert str(parse_schema(text)) == text


def test_model_fields():
    s = parse_schema(SAMPLES[1])
    assert s.name.inplace and s.name.base == "add" and s.kind == "inplace"
    out = parse_schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert out.is_out_fn and [a.name for a in out.out_arguments] == ["out"]
    assert [a.name for a in out.kwarg_only] == ["alpha", "out"]


def test_round_trip_project_yaml():
    opset = load_operator_set(str(ROOT / "csrc/native/native_functions.yaml"), str(ROOT / "csrc/native/tags.yaml"))
    assert len(opset.functions) > 40
    for f in opset.functions:
        assert str(f.func) == f.source.split("func:", 1)[1].splitlines()[0].strip()


def test_round_trip_pytorch(pytorch_dir):
    entries = yaml.load((pytorch_dir / "native_functions.yaml").read_text(), Loader=yaml.CSafeLoader)
    assert len(entries) >= 2500
    for e in entries:
        assert str(parse_schema(e["func"])) == e["func"]


def test_pytorch_operator_set_loads(pytorch_dir):
    opset = load_operator_set(str(pytorch_dir / "native_functions.yaml"), str(pytorch_dir / "tags.yaml"))
    assert len(opset.functions) >= 2500
    assert len(opset.by_root()) > 1000


@pytest.mark.parametrize("text,offset,message", [
    ("add(Tensr self) -> Tensor", 4, "unknown type 'Tensr'"),
    ("add(Tensor self, ) -> Tensor", 17, "expected a type"),
    ("add(Tensor  self) -> Tensor", 11, "not in canonical form"),
    ("add(Tensor self) -> ", 20, "expected a type"),
    ("add(Tensor self, *, *, Tensor o) -> Tensor", 20, "'*' given twice"),
    ("add(Tensor self, Tensor self) -> Tensor", 24, "duplicate argument name 'self'"),
    ("add(Tensor(a! self) -> Tensor", 14, "expected ')'"),
    ("add(int[x] a) -> Tensor", 8, "expected ']'"),
    ("add(Tensor self) -> Tensor $", 27, "unexpected character '$'"),
])
def test_errors_carry_offsets(text, offset, message):
    with pytest.raises(SchemaError) as info:
        parse_schema(text)
    assert message in info.value.message
    assert info.value.offset == offset


_ALPHABET = st.sampled_from(list("abcTensorint()[]?,*=!->.| '\"0123456789_") + ["Tensor", "int", "->", "(a!)", "*"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=30).map("".join))
def test_random_strings_raise_only_schema_errors(text):
    try:
        schema = parse_schema(text)
    except SchemaError as e:
        assert 0 <= e.offset <= len(text)
    else:
        assert str(schema) == text


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SAMPLES), st.integers(0, 200), st.integers(0, 200), st.sampled_from(list("()[],*=?!-> .|'\"x1")))
def test_mutated_schemas_raise_only_schema_errors(text, pos, length, insert):
    pos %= len(text) + 1
    mutated = text[:pos] + insert + text[pos + length % 4:]
    try:
        parse_schema(mutated)
    except SchemaError as e:
        assert 0 <= e.offset <= len(mutated)
        rendered = str(SourceError(e.message, None))
        assert rendered
