"""Bad input from Python is an exception with a clear message, never a crash: every
bound function and Tensor method called with wrong argument types and counts (generated
over the registry), and a table of wrong shapes, dtypes, dims and indices."""
from __future__ import annotations

import numpy as np
import pytest


def _bound_names(tcore):
    names = sorted({s.split("(")[0].split(".")[0] for s in tcore._C._schemas()})
    functions = [n for n in names if callable(getattr(tcore._C, n, None))]
    methods = [n for n in names if callable(getattr(tcore._C.Tensor, n, None))]
    return functions, methods


def test_wrong_argument_types_and_counts_everywhere(tcore):
    """Each is a TypeError naming the signatures nanobind knows (or the operator's own
    check): no crash, no silent success."""
    functions, methods = _bound_names(tcore)
    assert len(functions) > 150 and len(methods) > 150
    x = tcore.ones(2, 2)
    bad_calls = [
        lambda f: f(object()),
        lambda f: f("a string", {"a": 1}),
        lambda f: f(*([x] * 12)),
        lambda f: f(x, no_such_keyword=1),
    ]
    tensor_varargs = {"broadcast_tensors", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d",  # f(x, x, ...)
                      "block_diag", "cartesian_prod", "chain_matmul"}  # is right
    for name in functions:
        fn = getattr(tcore, name, None) or getattr(tcore._C, name)
        for call in bad_calls[:2] + bad_calls[3:] if name in tensor_varargs else bad_calls:
            with pytest.raises((TypeError, ValueError, IndexError)):
                call(fn)
    for name in methods:
        for call in bad_calls:
            with pytest.raises((TypeError, ValueError, IndexError)):
                call(getattr(x, name))


# (call, exception, message) for wrong shapes, dtypes, dims and indices
ERRORS = [
    (lambda t: t.ones(2, 3) + t.ones(4), ValueError, r"\[2, 3\] and \[4\]"),
    (lambda t: t.mm(t.ones(2, 3), t.ones(2, 3)), ValueError, r"cannot be multiplied \(2x3 and 2x3\)"),
    (lambda t: t.matmul(t.ones(2, 3, 4), t.ones(5, 2)), ValueError, "cannot be multiplied"),
    (lambda t: t.ones(2, 3).view(4), ValueError, "invalid for input of size 6"),
    (lambda t: t.ones(2, 3).expand(3, 3), ValueError, "expanded size"),
    (lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)]), ValueError, "Sizes of tensors must match"),
    (lambda t: t.stack([t.ones(2), t.ones(3)]), ValueError, "stack expects each tensor to be equal size"),
    (lambda t: t.where(t.ones(2), t.ones(2), t.ones(2)), TypeError, "condition to be a boolean"),
    (lambda t: t.ones(2) & t.ones(2), TypeError, "integral and bool dtypes only"),
    (lambda t: -t.tensor([True]), TypeError, "bool"),
    (lambda t: t.tensor([1, 2]).mean(), TypeError, "could not infer output dtype"),
    (lambda t: t.tensor([1, 2]).var(), TypeError, "floating point"),
    (lambda t: t.ones(2, dtype=t.int64).uniform_(), TypeError, "floating point"),
    (lambda t: t.add(t.ones(2, dtype=t.int64), t.ones(2), out=t.empty([2], dtype=t.int64)), TypeError,
     "can't be cast to the desired output type"),
    (lambda t: t.lerp(t.tensor([1]), t.tensor([2]), 0.5), TypeError, "floating"),
    (lambda t: t._C._nn.gelu(t.tensor([1])), TypeError, "not implemented for 'int64'"),
    (lambda t: t.ones(2, 3).sum(2), IndexError, "Dimension out of range"),
    (lambda t: t.ones(2, 3).softmax(-3), IndexError, "Dimension out of range"),
    (lambda t: t.cat([t.ones(2), t.ones(2)], 1), IndexError, "Dimension out of range"),
    (lambda t: t.ones(2, 3).transpose(0, 5), IndexError, "Dimension out of range"),
    (lambda t: t.ones(2, 3).select(1, 3), IndexError, "out of range"),
    (lambda t: t.ones(2, 3)[5], IndexError, "out of range"),
    (lambda t: t.gather(t.ones(2, 3), 1, t.tensor([[3]])), RuntimeError, "index 3 is out of bounds for dimension 1"),
    (lambda t: t.index_select(t.ones(2, 3), 0, t.tensor([2])), IndexError, "index 2 is out of bounds"),
    (lambda t: t.embedding(t.ones(4, 2), t.tensor([4])), IndexError, "index 4 is out of bounds"),
    (lambda t: t.cross_entropy(t.ones(2, 3), t.tensor([0, 3])), IndexError, "Target 3 is out of bounds"),
    (lambda t: t.conv2d(t.ones(1, 2, 4, 4), t.ones(1, 3, 2, 2)), ValueError, "to have 3 channels, but got 2"),
    (lambda t: t.max_pool2d(t.ones(1, 1, 2, 2), 3), ValueError, "Output size is too small"),
    (lambda t: t.layer_norm(t.ones(2, 3), [2]), ValueError, "expected input with shape"),
    (lambda t: t.ones(4).split([1, 2]), ValueError, "sum exactly to 4"),
    (lambda t: t.tensor([1, 2]) // t.tensor([1, 0]), ValueError, "ZeroDivisionError"),
    (lambda t: t.div(t.ones(2), t.ones(2), rounding_mode="up"), ValueError, "rounding_mode"),
    (lambda t: t.dropout(t.ones(2), -0.5, True), ValueError, "dropout probability"),
    (lambda t: t.set_num_threads(-1), ValueError, "positive integer"),
    (lambda t: t.arange(0, 1, 0), ValueError, "step must be nonzero"),
    (lambda t: t.ones(2).item(), ValueError, "cannot be converted to Scalar"),
    (lambda t: t.tensor([1.0], dtype=t.bfloat16).numpy(), TypeError, "unsupported ScalarType bfloat16"),
    (lambda t: t.norm(t.tensor([1, 2])), TypeError, "floating point"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_semantic_errors(tcore, case):
    call, error, message = ERRORS[case]
    with pytest.raises(error, match=message):
        call(tcore)
