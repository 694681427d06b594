"""The text IR and its interpreter: example graphs against eager execution, errors
with line:column, a fuzzed parser, and scripts/gen_op_list.py."""
from __future__ import annotations

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
