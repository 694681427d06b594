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
        if f.autogen_from is None:  # autogen: out= overloads have no line of their own
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


# ---------------------------------------------------------------- defaults against their types

GOOD_DEFAULTS = [
    ("bool", "False"), ("bool", "True"), ("bool?", "None"), ("bool?", "False"), ("SymBool", "True"),
    ("int", "0"), ("int", "-1"), ("int", "9223372036854775807"), ("int", "-9223372036854775807"), ("int", "Mean"),
    ("SymInt", "-100"), ("int?", "None"), ("float", "1e-05"), ("float", "0"), ("float", "1.0"), ("float", ".5"),
    ("float", "-2.5e+10"), ("float", "1e308"), ("float", "4.9e-324"), ("float", "0e999"), ("Scalar", "1"),
    ("Scalar", "0.3333333333333333"), ("Scalar", "-1"), ("str", "'none'"), ("str", '"valid"'), ("str", '""'),
    ("str", "'fro'"), ("str", r'"\"\'\\"'), ("str", r"'\x41\n\t'"), ("str", "'caf\u00e9'"), ("str?", "None"),
    ("ScalarType?", "long"), ("ScalarType?", "None"), ("ScalarType", "float"), ("Layout", "strided"),
    ("MemoryFormat", "contiguous_format"), ("MemoryFormat?", "contiguous_format"), ("Tensor?", "None"),
    ("Generator?", "None"), ("Device?", "None"), ("int[]", "[]"), ("int[]", "[0,1]"), ("int[1]", "[-2,-1]"),
    ("int[1]", "0"), ("int[2]", "1"), ("int[2]", "[]"), ("int[2]", "[1,2]"), ("SymInt[3]", "[0,0,0]"),
    ("int[1]?", "None"), ("bool[3]", "[True,True,False]"), ("float[]", "[1.5,2]"), ("int[]?", "None"),
]

BAD_DEFAULTS = [
    ("bool", "Flase", "did you mean False?"), ("bool", "1", "expected False, True"), ("bool", "None", "non-optional"),
    ("int", "abc", "expected an integer or Mean"), ("int", "1.5", "not an integer"), ("int", "1e3", "not an integer"),
    ("int", "99999999999999999999", "out of range"), ("int", "-9223372036854775808", "out of range"),
    ("int", "010", "leading zero"), ("int", "'1'", "not an integer"), ("SymInt", "Sum", "expected an integer or Mean"),
    ("float", "1e99999", "out of range"), ("float", "-1e400", "out of range"), ("float", "1e-400", "underflows"),
    ("float", "inf", "must be a number"), ("float", "True", "must be a number"), ("Scalar", "True", "must be a number"),
    ("Scalar", "99999999999999999999", "out of range"), ("str", "none", "must be a quoted string"),
    ("str", "1", "must be a quoted string"), ("str", r"'a\qb'", "unknown escape"), ("str", r"'\x4'", "unknown escape"),
    ("str", r"'\x00'", "NUL"), ("ScalarType?", "notatype", "invalid default 'notatype'"),
    ("ScalarType?", "lnog", "did you mean long?"), ("ScalarType", "half", "expected double, float, int, long"),
    ("Layout?", "sparse", "expected strided"), ("MemoryFormat", "channels_first", "expected contiguous_format"),
    ("Tensor", "None", "non-optional"), ("Tensor?", "0", "takes no default but None"),
    ("Device?", '"cpu"', "takes no default but None"), ("Generator?", "default", "takes no default but None"),
    ("int[]", "1", "must be a list"), ("int", "[1]", "a list is not a default"), ("int[]", "[1.5]", "not an integer"),
    ("int[]", "[True]", "expected an integer"), ("bool[3]", "[True,False]", "has 2 items, expected 3"),
    ("bool[2]", "True", "must be a list"), ("int[2]", "[1,2,3]", "has 3 items, expected 0 or 2"),
    ("float[]", "[1e99999]", "out of range"), ("int[]", "[None]", "non-optional"), ("str", "None", "non-optional"),
]


@pytest.mark.parametrize("type_text,default", GOOD_DEFAULTS)
def test_good_defaults(type_text, default):
    text = f"f({type_text} x={default}) -> ()"
    assert str(parse_schema(text)) == text


@pytest.mark.parametrize("type_text,default,message", BAD_DEFAULTS)
def test_bad_defaults_are_positioned(type_text, default, message):
    text = f"f({type_text} x={default}) -> ()"
    with pytest.raises(SchemaError) as info:
        parse_schema(text)
    assert message in info.value.message, info.value.message
    start = text.index("x=") + 2
    assert start <= info.value.offset < start + len(default), (info.value.offset, text)


def test_default_spellings_agree_with_the_cpp_api():
    """Every identifier the checker accepts is one the C++ API layer translates (one table
    could go stale against the other)."""
    from codegen.api import cpp
    from codegen.defaults import ENUM_DEFAULTS, INT_NAMES

    for names in [*ENUM_DEFAULTS.values(), INT_NAMES]:
        for name in names:
            assert name in cpp._ENUM_DEFAULTS, name


def test_good_defaults_compile(tmp_path):
    """Every accepted default, spelled by the C++ API layer, compiles (g++ -fsyntax-only)."""
    import shutil
    import subprocess

    from codegen.api import cpp

    if shutil.which("g++") is None:
        pytest.skip("no g++")
    decls = []
    for i, (type_text, default) in enumerate(GOOD_DEFAULTS):
        arg = parse_schema(f"f({type_text} x={default}) -> ()").arguments[0]
        decls.append(f"void f{i}({cpp.argument_type(arg.type)} x = {cpp.default_value(arg)});")
    src = tmp_path / "defaults.cpp"
    src.write_text('#include "tcore/core/OpDecl.h"\nnamespace tcore {\n' + "\n".join(decls) + "\n}\n")
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{ROOT / 'csrc/include'}", str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
