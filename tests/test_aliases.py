"""torch's alias names (native/composite/Aliases.cpp) give what the operators they name give, in
torch's words: values, the in-place and out= forms, gradients, and the errors of the operator named."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

X = np.linspace(-0.9, 0.9, 7)
Y = np.linspace(0.5, 2.0, 7)

CASES = [
    ("arccos", lambda L, x, y: L.arccos(x)), ("arcsin", lambda L, x, y: L.arcsin(x)),
    ("arctan", lambda L, x, y: x.arctan()), ("arccosh", lambda L, x, y: L.arccosh(y + 1)),
    ("arcsinh", lambda L, x, y: L.arcsinh(x)), ("arctanh", lambda L, x, y: x.arctanh()),
    ("arctan2", lambda L, x, y: L.arctan2(x, y)), ("absolute", lambda L, x, y: L.absolute(x)),
    ("negative", lambda L, x, y: x.negative()), ("positive", lambda L, x, y: L.positive(x) * 2),
    ("multiply", lambda L, x, y: L.multiply(x, y) + x.multiply(3)),
    ("subtract", lambda L, x, y: L.subtract(x, y, alpha=2) + x.subtract(1.5)),
    ("divide", lambda L, x, y: L.divide(x, y) + x.divide(2)),
    ("divide modes", lambda L, x, y: L.divide(x * 10, y, rounding_mode="floor") + L.divide(x * 10, 3, rounding_mode="trunc")),
    ("clip", lambda L, x, y: L.clip(x, -0.5, 0.5) + x.clip(min=y - 1.5)),
    ("ravel", lambda L, x, y: L.ravel(x.reshape(7, 1) * y)), ("msort", lambda L, x, y: L.msort(x.reshape(7, 1) * y)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_values_and_gradients_as_torch(case):
    _, fn = case
    results = []
    for lib in (tcore, torch):
        x, y = lib.tensor(X, requires_grad=True), lib.tensor(Y, requires_grad=True)
        r = fn(lib, x, y)
        r.sum().backward()
        results.append((r.detach().numpy(), None if x.grad is None else x.grad.numpy(),
                        None if y.grad is None else y.grad.numpy()))
    for a, b in zip(*results):
        if b is None:
            assert a is None or not a.any()
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,args", [
    ("arccos_", ()), ("arcsin_", ()), ("arctan_", ()), ("arcsinh_", ()), ("arctanh_", ()), ("absolute_", ()),
    ("negative_", ()), ("arctan2_", ("y",)), ("multiply_", ("y",)), ("multiply_", (2.0,)), ("subtract_", ("y",)),
    ("divide_", ("y",)), ("divide_", (4.0,)), ("true_divide_", ("y",)), ("true_divide_", (4.0,)), ("clip_", (-0.2, 0.3)),
])
def test_in_place_forms_as_torch(name, args):
    results = []
    for lib in (tcore, torch):
        t = lib.tensor(X)
        values = [lib.tensor(Y) if a == "y" else a for a in args]
        assert getattr(t, name)(*values) is t
        results.append(t.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda L, o: L.arccos(L.tensor(X), out=o), lambda L, o: L.absolute(L.tensor(X), out=o),
    lambda L, o: L.arctan2(L.tensor(X), L.tensor(Y), out=o), lambda L, o: L.multiply(L.tensor(X), L.tensor(Y), out=o),
    lambda L, o: L.subtract(L.tensor(X), L.tensor(Y), alpha=3, out=o),
    lambda L, o: L.divide(L.tensor(X), L.tensor(Y), rounding_mode="floor", out=o),
    lambda L, o: L.clip(L.tensor(X), 0.0, 0.5, out=o), lambda L, o: L.msort(L.tensor(X[::-1].copy()), out=o),
])
def test_out_forms_as_torch(fn):
    results = []
    for lib in (tcore, torch):
        out = lib.empty(0, dtype=lib.float64)
        assert fn(lib, out) is out
        results.append(out.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_errors_are_the_named_operators():
    with pytest.raises(RuntimeError, match="bool tensor is not supported"):
        tcore.positive(tcore.tensor([True]))
    for lib in (tcore, torch):
        with pytest.raises(RuntimeError):
            lib.divide(lib.ones(2), lib.ones(2), rounding_mode="nearest")
        with pytest.raises(RuntimeError):
            lib.clip(lib.ones(2))


@pytest.mark.parametrize("name", ["eq_", "ne_", "gt_", "ge_", "lt_", "le_", "greater_", "greater_equal_", "less_",
                                  "less_equal_", "not_equal_", "logical_and_", "logical_or_", "logical_xor_"])
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
@pytest.mark.parametrize("other", ["tensor", "scalar"])
def test_in_place_comparisons_keep_self_dtype_as_torch(name, dtype, other):
    if other == "scalar" and name.startswith("logical"):
        pytest.skip("the logical operators take tensors")
    results = []
    for lib in (tcore, torch):
        t = lib.tensor([0, 1, 2, 3]).to(getattr(lib, dtype))
        arg = lib.tensor([3, 1, 0, 3]).to(getattr(lib, dtype)) if other == "tensor" else 1
        assert getattr(t, name)(arg) is t
        results.append((t.tolist(), str(t.dtype).split(".")[-1]))
    assert results[0] == results[1]


def test_logical_not_in_place_and_comparison_aliases_as_torch():
    for lib_pair in [(lambda L: L.tensor([0.0, 2.0]).logical_not_()),
                     (lambda L: L.greater(L.tensor([1, 2, 3]), 2)), (lambda L: L.less_equal(L.tensor([1, 2, 3]), L.tensor(2))),
                     (lambda L: L.not_equal(L.tensor([1.0, 2.0]), 2.0)), (lambda L: L.greater_equal(L.tensor([1, 5]), 3))]:
        ours, theirs = lib_pair(tcore), lib_pair(torch)
        assert ours.tolist() == theirs.tolist() and str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    out = tcore.empty(0, dtype=tcore.bool)
    assert tcore.less(tcore.tensor([1, 2]), 2, out=out) is out and out.tolist() == [True, False]
    out = tcore.empty(0, dtype=tcore.bool)
    assert tcore.greater(tcore.tensor([1, 2]), tcore.tensor([0, 3]), out=out) is out and out.tolist() == [True, False]
