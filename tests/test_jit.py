"""The text IR and its interpreter: example graphs against eager execution, errors
with line:column, a fuzzed parser, and scripts/gen_op_list.py."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
GRAPHS = ROOT / "tests" / "graphs"


def test_mlp_graph_matches_eager(tcore):
    rng = np.random.default_rng(0)
    x, w1, w2 = (tcore.tensor(rng.standard_normal(s).astype(np.float32)) for s in ((4, 3), (3, 5), (5, 2)))
    s, o = tcore.jit.load(GRAPHS / "mlp.ir")(x, w1, w2)
    eager = (x @ w1).relu() @ w2
    np.testing.assert_allclose(o.numpy(), eager.numpy(), rtol=1e-6)
    np.testing.assert_allclose(s.numpy(), eager.sum(1, keepdim=True).numpy(), rtol=1e-6)


def test_cross_entropy_graph_matches_eager(tcore):
    rng = np.random.default_rng(1)
    logits = tcore.tensor(rng.standard_normal((4, 3)).astype(np.float32))
    targets = tcore.tensor(np.eye(3, dtype=np.float32)[[0, 2, 1, 1]])
    loss = tcore.jit.load(GRAPHS / "cross_entropy.ir")(logits, targets)
    eager = -((logits - logits.exp().sum(1, keepdim=True).log()) * targets).sum() / 4
    assert loss.item() == pytest.approx(eager.item(), rel=1e-6)


def test_views_and_inplace_graph(tcore):
    x = tcore.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    f, s, v = tcore.jit.load(GRAPHS / "views_inplace.ir")(x)
    expected = np.arange(6, dtype=np.float32).reshape(2, 3).T + 10
    np.testing.assert_array_equal(f.numpy(), expected)
    assert s.item() == pytest.approx(float(expected.sum()))
    np.testing.assert_array_equal(v.numpy(), (np.arange(6) + 10).astype(np.float32))  # the view sees the write
    np.testing.assert_array_equal(x.numpy(), np.arange(6).reshape(2, 3))  # the input was cloned first


@pytest.mark.parametrize("text,error,where", [
    ("graph(%x):\n  %y = tcore::nope(%x)\n  return (%y)\n", "unknown operator 'tcore::nope'", "2:8"),
    ("graph(%x):\n  %y = tcore::relu(%z)\n  return (%y)\n", "use of undefined value %z", "2:20"),
    ("graph(%x)\n  return (%x)\n", "expected ':'", "1:10"),
    ("graph(%x):\n  %y = tcore::relu(%x\n  return (%y)\n", "expected ',' or ')'", "2:22"),
    ("graph(%x):\n  %y = tcore::relu(%x) $\n", "unexpected character '$'", "2:24"),
    ("graph(%x, %x):\n  return (%x)\n", "input %x is defined twice", "1:11"),
])
def test_parse_errors(tcore, text, error, where):
    with pytest.raises(ValueError) as info:
        tcore.jit.loads(text, "g.ir")
    assert str(info.value).startswith(f"g.ir:{where}: ") and error in str(info.value), str(info.value)


@pytest.mark.parametrize("text,error", [
    ("graph(%x):\n  %y = tcore::add.Tensor(%x, 1)\n  return (%y)\n", "g.ir:2:8: tcore::add.Tensor: argument 'other' must be Tensor, not int"),
    ("graph(%x):\n  %y = tcore::relu(%x, %x)\n  return (%y)\n", "g.ir:2:8: tcore::relu takes 1 arguments"),
    ("graph(%x):\n  %y = tcore::mm(%x)\n  return (%y)\n", "g.ir:2:8: tcore::mm is missing argument 'mat2'"),
    ("graph(%x):\n  %y = tcore::add.Tensor(%x, %x, beta=2)\n  return (%y)\n", "has no argument 'beta'"),
])
def test_run_errors(tcore, text, error):
    with pytest.raises(TypeError, match=error.replace("(", r"\(").replace(")", r"\)")):
        tcore.jit.loads(text, "g.ir")(tcore.ones(2, 2))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["graph", "(", ")", "%x", "%y", ":", "\n", "=", "tcore", "::", "relu", "add", ".",
                                 "Tensor", ",", "[", "]", "1", "2.5", "True", "None", '"s"', "return", " ", "#c\n"]),
                max_size=30))
def test_fuzzed_parser_raises_only_value_errors(tcore, parts):
    text = "".join(parts)
    try:
        tcore.jit.loads(text, "f.ir")
    except ValueError as e:
        assert str(e).startswith("f.ir:")


def test_gen_op_list(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "scripts/gen_op_list.py"), str(GRAPHS / "views_inplace.ir"),
                        "--out", str(tmp_path / "ops.yaml")], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ops = [line[2:] for line in (tmp_path / "ops.yaml").read_text().splitlines()]
    # the graph's own operators, and what the composite ones call (clone -> empty, copy_)
    assert {"clone", "transpose.int", "view", "add_.Scalar", "contiguous", "sum"} <= set(ops)
    assert {"copy_", "empty.memory_format", "add_.Tensor"} <= set(ops)
    assert "mm" not in ops


def _mlp(x, w1, w2):
    o = (x @ w1).relu() @ w2
    return o.sum(1, keepdim=True), o


def _cross_entropy(logits, targets):
    return -((logits - logits.exp().sum(1, keepdim=True).log()) * targets).sum() / 4


def _views(x):
    c = x.clone()
    t = c.transpose(0, 1)
    v = c.view(-1)
    t.add_(10)
    return t.contiguous(), c.sum(), v


@pytest.mark.parametrize("fn,shapes", [(_mlp, [(4, 3), (3, 5), (5, 2)]), (_cross_entropy, [(4, 3), (4, 3)]),
                                       (_views, [(2, 3)])], ids=["mlp", "cross_entropy", "views_inplace"])
def test_traced_graphs_match_eager(tcore, tmp_path, fn, shapes):
    rng = np.random.default_rng(2)
    inputs = [tcore.tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    traced = tcore.jit.trace(fn, [tcore.clone(i) for i in inputs])
    assert "tcore::" in traced.code and traced.code.startswith("graph(%x0")
    path = tmp_path / "traced.ir"
    traced.save(path)
    again = tcore.jit.load(path)  # the saved text parses back
    eager = fn(*[tcore.clone(i) for i in inputs])
    eager = eager if isinstance(eager, tuple) else (eager,)
    for runner in (traced, again):
        out = runner(*[tcore.clone(i) for i in inputs])
        out = out if isinstance(out, tuple) else (out,)
        for a, b in zip(out, eager):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    r = subprocess.run([sys.executable, str(ROOT / "scripts/gen_op_list.py"), str(path)], capture_output=True, text=True)
    assert r.returncode == 0 and set(traced.operators()) <= {l[2:] for l in r.stdout.splitlines()}


def test_trace_rejects_untraced_constants(tcore):
    c = tcore.ones(2)
    with pytest.raises(RuntimeError, match="neither an input of the trace nor the result"):
        tcore.jit.trace(lambda x: x + c, [tcore.ones(2)])
    assert (tcore.ones(2) + 1).sum().item() == 4.0  # tracing is off again


# ---------------------------------------------------------------- hostile IR (issue 20)

def _graph_with(constant: str) -> str:
    return f"graph(%x):\n  %y = tcore::add.Scalar(%x, {constant})\n  return (%y)\n"


@pytest.mark.parametrize("text,error,where", [
    (_graph_with("1.2.3"), "malformed number '1.2.3'", "2:30"),
    (_graph_with("1e"), "malformed number '1e'", "2:30"),
    (_graph_with("1e+"), "malformed number '1e+'", "2:30"),
    (_graph_with("--1"), "malformed number '--1'", "2:30"),
    (_graph_with("12abc"), "malformed number '12abc'", "2:30"),
    (_graph_with("0x10"), "malformed number '0x10'", "2:30"),
    (_graph_with("99999999999999999999"), "integer 99999999999999999999 is out of range for int64", "2:30"),
    (_graph_with("-9223372036854775809"), "is out of range for int64", "2:30"),
    (_graph_with("1e99999"), "float 1e99999 is out of range for a double", "2:30"),
    (_graph_with("-1e400"), "is out of range for a double", "2:30"),
    (_graph_with("1e-400"), "underflows to 0", "2:30"),
    (_graph_with('"a\\qb"'), "unknown escape '\\q'", "2:32"),
    (_graph_with('"\\x4"'), "\\x needs two hexadecimal digits", "2:31"),
    (_graph_with('"\\xff"'), "not UTF-8 once its \\x escapes are decoded", "2:30"),
    ("graph(%x):\n  %y = tcore::relu(%x) # caf\u00e9\n  return (%y)\n", "non-ASCII character U+00E9", "2:29"),
    ("graph(%x):\n  %y = tcore::r\u00e9lu(%x)\n  return (%y)\n", "non-ASCII character U+00E9", "2:16"),
    ("graph(%x):\n  %y = tcore::relu(%x)\0\n  return (%y)\n", "NUL byte", "2:23"),
    ("graph(%x):\n  %y = tcore::relu(%x)\x1b[2J\n  return (%y)\n", "control character \\x1B", "2:23"),
    ("graph(%x):\x0b\n  return (%x)\n", "control character \\x0B", "1:11"),
    ("graph(%x):\n  return (%x, \ud800)\n", "non-ASCII character U+D800", "2:15"),  # a lone surrogate
    ("graph():\n  return (" + "[" * 100000 + "]" * 100000 + ")\n", "lists nested deeper than 64 levels", "2:75"),
])
def test_hostile_ir_is_positioned(tcore, text, error, where):
    with pytest.raises(ValueError) as info:
        tcore.jit.loads(text, "g.ir")
    message = str(info.value)
    assert message.startswith(f"g.ir:{where}: ") and error in message, message
    head, line, caret = message.split("\n")  # FILE:LINE:COL: message, the line, a caret under the column
    assert message.isascii() and line.isprintable() and caret.strip() == "^"
    line_no, col = (int(n) for n in where.split(":"))
    source = text.split("\n")[line_no - 1]
    if len(source) < 100:  # shown whole, the caret under its column
        assert line[4:].startswith(source[: col - 1]) and caret.index("^") - 4 == col - 1


def test_nesting_limit_is_exact(tcore):
    ok = "graph():\n  return (" + "[" * 64 + "]" * 64 + ")\n"
    assert tcore.jit.loads(ok).operators() == []
    with pytest.raises(ValueError, match="deeper than 64"):
        tcore.jit.loads("graph():\n  return (" + "[" * 65 + "]" * 65 + ")\n")


def test_numbers_read_exactly(tcore):
    graph = tcore.jit.loads("graph():\n  return (-9223372036854775808, 9223372036854775807, 1e308, 4.9e-324, "
                            "-0.0, 1., 2.5e-3, inf, -inf, nan, \"q\\\"\\\\\\n\\x41\")\n")
    values = graph()
    assert values[:2] == (-(2**63), 2**63 - 1) and all(type(v) is int for v in values[:2])
    assert values[2:8] == (1e308, 4.9e-324, -0.0, 1.0, 2.5e-3, float("inf"))
    assert values[8] == float("-inf") and values[9] != values[9]
    assert values[10] == 'q"\\\nA'


def test_load_refuses_folders_and_fifos(tcore, tmp_path):
    with pytest.raises(ValueError, match="it is a folder"):
        tcore.jit.load(tmp_path)
    with pytest.raises(ValueError, match="no such file"):
        tcore.jit.load(tmp_path / "missing.ir")
    fifo = tmp_path / "fifo.ir"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):  # would block reading before
        tcore.jit.load(fifo)


def test_enum_arguments_are_range_checked(tcore):
    g = tcore.jit.loads("graph():\n  %y = tcore::empty.memory_format([2], memory_format=1000)\n  return (%y)\n", "g.ir")
    with pytest.raises(ValueError, match="1000 is not a memory format"):
        g()
    g = tcore.jit.loads("graph():\n  %y = tcore::empty.memory_format([2], layout=-1)\n  return (%y)\n", "g.ir")
    with pytest.raises(ValueError, match="-1 is not a layout"):
        g()


def _is_tracing(tcore) -> bool:
    """True when an operator call would be recorded: tracing with no trace in progress fails."""
    try:
        tcore.jit.trace(lambda x: x.relu(), [tcore.ones(1)])
    except RuntimeError as e:
        assert "already in progress" in str(e)
        return True
    return False


@pytest.mark.parametrize("fn,exception", [
    (lambda x: 3, TypeError),  # not a Tensor: _trace_stop's argument conversion failed, tracing stayed on
    (lambda x: (x.relu(), "s"), TypeError),
    (lambda x: {"a": x}, TypeError),
    (lambda x: 1 / 0, ZeroDivisionError),
    (lambda x: x + tcore_ones_outside, RuntimeError),
])
def test_failed_trace_resets_the_tracer(tcore, fn, exception):
    global tcore_ones_outside
    tcore_ones_outside = tcore.ones(2)
    with pytest.raises(exception):
        tcore.jit.trace(fn, [tcore.ones(2)])
    assert not _is_tracing(tcore)
    traced = tcore.jit.trace(lambda x: (x * 2).relu(), [tcore.ones(2)])  # tracing works again
    assert traced.operators() == ["mul.Scalar", "relu"]
    np.testing.assert_array_equal(traced(tcore.tensor(np.array([-1.0, 3.0], np.float32))).numpy(), [0, 6])


def test_failed_trace_records_nothing_afterwards(tcore):
    with pytest.raises(TypeError):
        tcore.jit.trace(lambda x: x.relu().sum().item(), [tcore.ones(2)])
    for _ in range(1000):  # recorded (and kept alive) forever before the fix
        tcore.ones(64).add(1)
    traced = tcore.jit.trace(lambda x: x.neg(), [tcore.ones(2)])
    assert traced.code.count("tcore::") == 1


def test_traced_constants_parse_back(tcore):
    """inf, nan and strings with quotes and non-ASCII are written so that the IR reads them back."""
    x = tcore.tensor(np.array([1.0, -2.0], np.float32))
    traced = tcore.jit.trace(lambda x: (x * float("inf")).add(float("nan")).sub(float("-inf")), [x])
    assert "inf" in traced.code and "nan" in traced.code
    assert np.isnan(traced(x).numpy()).all()
    traced = tcore.jit.trace(lambda x: x.div(x, rounding_mode="floor"), [x])
    assert 'rounding_mode' not in traced.code and '"floor"' in traced.code
    # a str with a quote, a backslash and non-ASCII: the IR's escapes give the same str (the same error) as eager
    with pytest.raises(ValueError) as info:
        tcore.jit.trace(lambda x: x.div(x, rounding_mode='fl"o\\\u00e9r'), [x])
    assert not _is_tracing(tcore)
    g = tcore.jit.loads('graph(%x):\n  %y = tcore::div.Tensor_mode(%x, %x, "fl\\"o\\\\\\xC3\\xA9r")\n  return (%y)\n')
    with pytest.raises(ValueError) as again:
        g(x)
    assert str(again.value).split(": ")[-1] == str(info.value).split(": ")[-1]


def test_deeply_nested_python_values_are_refused(tcore):
    """A Python list passed to a graph (or a boxed call) is converted recursively: bounded like the IR."""
    identity = tcore.jit.loads("graph(%a):\n  return (%a)\n")
    deep = []
    for _ in range(100000):  # a segfault before
        deep = [deep]
    selfish = []
    selfish.append(selfish)
    for value in (deep, selfish):
        with pytest.raises(ValueError, match="nested deeper than 64 levels"):
            identity(value)
    ok = [1]
    for _ in range(63):
        ok = [ok]
    assert identity(ok) == ok
