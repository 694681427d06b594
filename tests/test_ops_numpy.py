"""Every operator against numpy on random inputs: broadcasting, non-contiguous
inputs, 0-dim and empty tensors, every dtype it supports. One table drives it."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

F32, F64, I64, BOOL = "float32", "float64", "int64", "bool"
ALL = (F32, F64, I64, BOOL)
NUMERIC = (F32, F64, I64)

SHAPE_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((2, 1, 3), (4, 1)),
    ((), (3,)),
    ((5,), ()),
    ((), ()),
    ((0, 3), (3,)),
    ((2, 0), (1, 0)),
]


def promote(a: str, b: str, a_dims: int = 1, b_dims: int = 1) -> str:
    """PyTorch's promotion on these dtypes: a 0-dim tensor only wins against a tensor
    with dims when it is of a higher category (bool < int < float)."""
    if a == b:
        return a
    order = [BOOL, I64, F32, F64]
    category = {BOOL: 0, I64: 1, F32: 2, F64: 2}
    if (a_dims == 0) != (b_dims == 0):
        dim_t, zero_t = (a, b) if b_dims == 0 else (b, a)
        if category[zero_t] <= category[dim_t]:
            return dim_t
    return max(a, b, key=order.index)


def tol(dtype: str) -> dict:
    return {F32: dict(rtol=1e-5, atol=1e-6), F64: dict(rtol=1e-12, atol=1e-12)}.get(dtype, dict(rtol=0, atol=0))


def make(tcore, rng, shape, dtype, noncontig=False, positive=False, unit=False):
    """A tcore tensor and its numpy twin; non-contiguous ones are transposed views.
    positive: values > 0; unit: values strictly inside (-1, 1) (bool: 0 or 1)."""
    if dtype == BOOL:
        arr = rng.random(shape) > 0.5
    elif dtype == I64:
        arr = np.zeros(shape, np.int64) if unit else rng.integers(1 if positive else -5, 6, size=shape).astype(np.int64)
    elif unit:
        arr = (rng.random(shape) * 1.8 - 0.9).astype(dtype)
    else:
        arr = (rng.random(shape) * 4 + 0.1 if positive else rng.standard_normal(shape)).astype(dtype)
    if noncontig and len(shape) >= 2:
        base = tcore.tensor(np.ascontiguousarray(np.swapaxes(arr, -1, -2)), dtype=getattr(tcore, dtype))
        t = base.transpose(-1, -2)
        assert not t.is_contiguous() or min(shape[-2:]) <= 1
        return t, arr
    return tcore.tensor(arr, dtype=getattr(tcore, dtype)), arr


def check(tcore, got, expected: np.ndarray, dtype: str):
    assert got.dtype == getattr(tcore, dtype), f"dtype {got.dtype} != {dtype}"
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.numpy().astype(np.float64) if dtype != BOOL else got.numpy(),
                               expected.astype(np.float64) if dtype != BOOL else expected, **tol(dtype))


BINARY = {
    "add": (lambda x, y: x + y, ALL),
    "sub": (lambda x, y: x - y, NUMERIC),
    "mul": (lambda x, y: x * y, ALL),
    "div": (lambda x, y: x / y, ALL),
}


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("dtypes", list(itertools.product(ALL, repeat=2)), ids=lambda d: "-".join(d))
def test_binary(tcore, op, shapes, dtypes):
    fn, supported = BINARY[op]
    if dtypes[0] not in supported or dtypes[1] not in supported:
        pytest.skip("dtype not supported by this operator")
    if op == "sub" and dtypes == (BOOL, BOOL):
        pytest.skip()
    rng = np.random.default_rng(hash((op, shapes, dtypes)) & 0xFFFF)
    a, an = make(tcore, rng, shapes[0], dtypes[0], noncontig=True)
    b, bn = make(tcore, rng, shapes[1], dtypes[1], positive=op == "div")
    result_dtype = promote(*dtypes, len(shapes[0]), len(shapes[1]))
    if op == "div" and result_dtype in (I64, BOOL):
        result_dtype = F32
    compute = np.dtype(result_dtype if result_dtype != BOOL else np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = fn(an.astype(compute), bn.astype(compute))
    if result_dtype == BOOL:
        expected = expected.astype(bool)
    check(tcore, getattr(tcore, op)(a, b), expected, result_dtype)
    # method, out= and in-place overloads agree with the function
    check(tcore, getattr(a, op)(b), expected, result_dtype)
    out = tcore.empty([0], dtype=getattr(tcore, result_dtype))
    got = getattr(tcore, op)(a, b, out=out)
    check(tcore, out, expected, result_dtype)
    assert got.data_ptr() == out.data_ptr()
    if expected.shape == tuple(an.shape) and result_dtype == dtypes[0]:
        c = tcore.tensor(an, dtype=getattr(tcore, dtypes[0]))
        getattr(c, op + "_")(b)
        check(tcore, c, expected, result_dtype)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("scalar", [2, 0.5, True])
def test_binary_scalar(tcore, op, dtype, scalar):
    if op == "sub" and isinstance(scalar, bool):
        scalar = 3
    rng = np.random.default_rng(3)
    a, an = make(tcore, rng, (3, 4), dtype, positive=True)
    # a Python number does not widen a tensor of the same category
    if isinstance(scalar, float) and dtype == I64 or op == "div" and dtype == I64:
        result = F32
    else:
        result = dtype
    fn = BINARY[op][0]
    expected = fn(an.astype(np.float64), scalar)
    check(tcore, getattr(tcore, op)(a, scalar), expected, result)
    check(tcore, getattr(a, op)(scalar), expected, result)


def test_alpha(tcore):
    a = tcore.tensor([1.0, 2.0])
    b = tcore.tensor([10.0, 20.0])
    np.testing.assert_allclose(tcore.add(a, b, alpha=2).numpy(), [21, 42])
    np.testing.assert_allclose(tcore.sub(a, b, alpha=0.5).numpy(), [-4, -8])
    with pytest.raises(TypeError, match="alpha"):
        tcore.add(tcore.tensor([1, 2]), tcore.tensor([1, 2]), alpha=0.5)


def _erf(x):
    from math import erf

    return np.vectorize(erf, otypes=[np.float64])(x) if x.size else x.astype(np.float64)


# op: (numpy oracle, dtypes it supports, input domain). Domains: "any", "positive" (> 0),
# "unit" (-1 < x < 1). FLOATING ops compute integer and bool inputs in float32.
UNARY = {
    "neg": (np.negative, NUMERIC, "any"),
    "exp": (np.exp, ALL, "any"),
    "log": (np.log, ALL, "positive"),
    "relu": (lambda x: np.maximum(x, 0), NUMERIC, "any"),
    "sqrt": (np.sqrt, ALL, "positive"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), ALL, "positive"),
    "sin": (np.sin, ALL, "any"),
    "cos": (np.cos, ALL, "any"),
    "tan": (np.tan, ALL, "unit"),
    "tanh": (np.tanh, ALL, "any"),
    "asin": (np.arcsin, ALL, "unit"),
    "acos": (np.arccos, ALL, "unit"),
    "atan": (np.arctan, ALL, "any"),
    "sinh": (np.sinh, ALL, "any"),
    "cosh": (np.cosh, ALL, "any"),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), ALL, "any"),
    "exp2": (np.exp2, ALL, "any"),
    "log2": (np.log2, ALL, "positive"),
    "log1p": (np.log1p, ALL, "positive"),
    "expm1": (np.expm1, ALL, "any"),
    "erf": (_erf, ALL, "any"),
    "reciprocal": (lambda x: 1 / x, ALL, "positive"),
    "abs": (np.abs, NUMERIC, "any"),
    "sign": (np.sign, NUMERIC, "any"),
    "floor": (np.floor, NUMERIC, "any"),
    "ceil": (np.ceil, NUMERIC, "any"),
    "round": (np.round, NUMERIC, "any"),  # half to even, as numpy and PyTorch
    "trunc": (np.trunc, NUMERIC, "any"),
}
FLOATING = {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "asin", "acos", "atan", "sinh", "cosh",
            "sigmoid", "exp2", "log2", "log1p", "expm1", "erf", "reciprocal"}


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), (), (0,), (7,)], ids=str)
@pytest.mark.parametrize("dtype", ALL)
def test_unary(tcore, op, shape, dtype):
    fn, supported, domain = UNARY[op]
    rng = np.random.default_rng(11)
    a, an = make(tcore, rng, shape, dtype, noncontig=True, positive=domain == "positive", unit=domain == "unit")
    if dtype not in supported:
        with pytest.raises(TypeError):
            getattr(tcore, op)(a)
        return
    result = dtype if op not in FLOATING or dtype in (F32, F64) else F32
    expected = fn(an.astype(np.float64) if result in (F32, F64) else an)
    check(tcore, getattr(tcore, op)(a), expected, result)
    check(tcore, getattr(a, op)(), expected, result)
    if result == dtype:
        c = tcore.tensor(an, dtype=getattr(tcore, dtype))
        getattr(c, op + "_")()
        check(tcore, c, expected, result)
    if op != "relu":
        out = tcore.empty([0], dtype=getattr(tcore, result))
        getattr(tcore, op)(a, out=out)
        check(tcore, out, expected, result)


REDUCTIONS = [(None, False), ([0], False), ([1], True), ([-1, 0], False), ([0, 2], True), (1, False)]


@pytest.mark.parametrize("dim,keepdim", REDUCTIONS, ids=str)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 0, 3)], ids=str)
def test_sum_mean(tcore, dim, keepdim, dtype, shape):
    rng = np.random.default_rng(5)
    a, an = make(tcore, rng, shape, dtype, noncontig=True)
    axis = None if dim is None else tuple(dim) if isinstance(dim, list) else dim
    sum_dtype = dtype if dtype in (F32, F64) else I64
    expected = np.sum(an.astype(np.float64), axis=axis, keepdims=keepdim and axis is not None)
    got = tcore.sum(a) if dim is None else tcore.sum(a, dim, keepdim=keepdim)
    check(tcore, got, expected, sum_dtype)
    if dtype in (F32, F64):
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.mean(an.astype(np.float64), axis=axis, keepdims=keepdim and axis is not None)
        got = a.mean() if dim is None else a.mean(dim, keepdim=keepdim)
        np.testing.assert_allclose(got.numpy(), m, rtol=1e-5, equal_nan=True)
    else:
        with pytest.raises(TypeError, match="could not infer output dtype"):
            a.mean()
        got = a.mean(dtype=tcore.float64)
        np.testing.assert_allclose(got.numpy(), np.mean(an.astype(np.float64)), rtol=1e-12)


def test_sum_dtype_and_out(tcore):
    a = tcore.tensor([[1, 2], [3, 4]])
    assert tcore.sum(a, dtype=tcore.float64).dtype == tcore.float64
    out = tcore.empty([0])
    tcore.sum(a, [0], out=out)
    np.testing.assert_allclose(out.numpy(), [4, 6])
    with pytest.raises(ValueError, match="appears multiple times"):
        a.sum([0, 0])
    with pytest.raises(IndexError, match="Dimension out of range"):
        a.sum(2)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n,k,m", [(3, 4, 5), (1, 1, 1), (0, 3, 2), (4, 0, 3), (17, 33, 9)])
def test_mm(tcore, dtype, n, k, m):
    rng = np.random.default_rng(7)
    a, an = make(tcore, rng, (n, k), dtype, noncontig=True)
    b, bn = make(tcore, rng, (k, m), dtype)
    expected = an.astype(np.float64) @ bn.astype(np.float64)
    check(tcore, tcore.mm(a, b), expected, dtype)
    check(tcore, a @ b, expected, dtype)
    out = tcore.empty([0], dtype=getattr(tcore, dtype))
    tcore.mm(a, b, out=out)
    check(tcore, out, expected, dtype)


def test_mm_errors(tcore):
    with pytest.raises(ValueError, match=r"cannot be multiplied \(2x3 and 4x5\)"):
        tcore.mm(tcore.ones(2, 3), tcore.ones(4, 5))
    with pytest.raises(TypeError, match="same dtype"):
        tcore.mm(tcore.ones(2, 3), tcore.ones(3, 2, dtype=tcore.float64))


@pytest.mark.parametrize("dtype", ALL)
def test_factories(tcore, dtype):
    dt = getattr(tcore, dtype)
    for fn, value in ((tcore.zeros, 0), (tcore.ones, 1)):
        t = fn(2, 3, dtype=dt)
        assert t.dtype == dt and t.shape == (2, 3)
        np.testing.assert_array_equal(t.numpy(), np.full((2, 3), value, dtype=dtype))
        out = tcore.empty([0], dtype=dt)
        fn([4], out=out)
        np.testing.assert_array_equal(out.numpy(), np.full((4,), value, dtype=dtype))
    t = tcore.full([2, 2], 1, dtype=dt)
    np.testing.assert_array_equal(t.numpy(), np.ones((2, 2), dtype=dtype))
    assert tcore.empty([3, 0], dtype=dt).shape == (3, 0)
    assert tcore.zeros([], dtype=dt).shape == ()


def test_full_infers_dtype(tcore):
    assert tcore.full([2], 3).dtype == tcore.int64
    assert tcore.full([2], 3.5).dtype == tcore.float32
    assert tcore.full([2], True).dtype == tcore.bool
    assert tcore.ones(2).dtype == tcore.float32


def test_views_share_storage(tcore):
    a = tcore.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    v = a.view(4, 3)
    assert v._storage_ptr() == a._storage_ptr()
    t = a.transpose(0, 1)
    assert t.shape == (4, 3) and t.stride() == (1, 4) and not t.is_contiguous()
    np.testing.assert_array_equal(t.numpy(), np.arange(12).reshape(3, 4).T)
    v.add_(1)  # writes through a view are visible in the base
    np.testing.assert_array_equal(a.numpy(), np.arange(12).reshape(3, 4) + 1)
    assert a.view(-1).shape == (12,)
    with pytest.raises(ValueError, match="view size is not compatible"):
        t.view(12)
    with pytest.raises(ValueError, match="invalid for input of size 12"):
        a.view(5, 3)
    c = t.contiguous()
    assert c.is_contiguous() and c._storage_ptr() != a._storage_ptr()
    assert a.contiguous()._is_same(a)
    a.transpose_(0, 1)
    assert a.shape == (4, 3)


def test_clone_and_copy(tcore):
    a = tcore.tensor([[1.0, 2.0], [3.0, 4.0]])
    c = a.t() if hasattr(a, "t") else a.transpose(0, 1)
    d = tcore.clone(c)  # in c's layout (preserve_format), as PyTorch's
    assert d.stride() == (1, 2) and d._storage_ptr() != a._storage_ptr()
    np.testing.assert_array_equal(d.numpy(), [[1, 3], [2, 4]])
    e = tcore.clone(c, memory_format=tcore.contiguous_format)
    assert e.is_contiguous() and e._storage_ptr() != a._storage_ptr()
    np.testing.assert_array_equal(e.numpy(), [[1, 3], [2, 4]])
    z = tcore.zeros(2, 2, dtype=tcore.int64)
    z.copy_(tcore.tensor([7.9, -1.2]))  # broadcast and convert
    np.testing.assert_array_equal(z.numpy(), [[7, -1], [7, -1]])
    with pytest.raises(ValueError, match=r"shapes \[2, 2\] and \[3\]"):
        z.copy_(tcore.ones(3))


def test_python_api(tcore):
    x = tcore.ones(2, 3) + 1
    assert repr(x) == "tensor([[2., 2., 2.],\n        [2., 2., 2.]])"
    assert repr(tcore.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(tcore.tensor([1.5], dtype=tcore.float64)) == "tensor([1.5000], dtype=tcore.float64)"
    assert x.shape == (2, 3) and len(x) == 2 and x.ndim == 2
    assert (x - 1).sum().item() == 6.0
    assert (2 * x / 4).numpy().tolist() == [[1.0] * 3] * 2
    assert (-x).numpy()[0, 0] == -2
    arr = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = tcore.from_numpy(arr)
    arr[0, 0] = 42  # shares memory
    assert t.numpy()[0, 0] == 42
    np.testing.assert_array_equal(np.asarray(t), arr)


def test_shape_errors_name_both_shapes(tcore):
    with pytest.raises(ValueError, match=r"\[2, 3\] and \[4\]"):
        tcore.ones(2, 3) + tcore.ones(4)
    with pytest.raises(TypeError):
        tcore.add(tcore.ones(2), "x")
    with pytest.raises(TypeError, match="bool"):
        -tcore.tensor([True])


# op: (numpy oracle, dtypes it supports, result: "promote" | "bool" | "float", method variant, exponent-like
# second operand (kept >= 0 for integers, as numpy refuses negative integer powers)
BINARY_MATH = {
    "eq": (np.equal, ALL, "bool", True),
    "ne": (np.not_equal, ALL, "bool", True),
    "lt": (np.less, ALL, "bool", True),
    "le": (np.less_equal, ALL, "bool", True),
    "gt": (np.greater, ALL, "bool", True),
    "ge": (np.greater_equal, ALL, "bool", True),
    "logical_and": (np.logical_and, ALL, "bool", True),
    "logical_or": (np.logical_or, ALL, "bool", True),
    "logical_xor": (np.logical_xor, ALL, "bool", True),
    "bitwise_and": (np.bitwise_and, (I64, BOOL), "promote", True),
    "bitwise_or": (np.bitwise_or, (I64, BOOL), "promote", True),
    "bitwise_xor": (np.bitwise_xor, (I64, BOOL), "promote", True),
    "maximum": (np.maximum, ALL, "promote", True),
    "minimum": (np.minimum, ALL, "promote", True),
    "atan2": (np.arctan2, ALL, "float", True),
    "pow": (np.power, NUMERIC, "promote", True),
    "remainder": (np.remainder, NUMERIC, "promote", True),
    "fmod": (np.fmod, NUMERIC, "promote", True),
}
POSITIVE_OTHER = {"pow", "remainder", "fmod"}  # integer zero divisors are an error, negative powers truncate


@pytest.mark.parametrize("op", BINARY_MATH)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS[:5] + SHAPE_PAIRS[6:], ids=str)
@pytest.mark.parametrize("dtypes", [(F32, F32), (F64, F32), (I64, I64), (I64, F64), (BOOL, BOOL), (BOOL, I64)],
                         ids=lambda d: "-".join(d))
def test_binary_math(tcore, op, shapes, dtypes):
    fn, supported, result_rule, method = BINARY_MATH[op]
    rng = np.random.default_rng(hash((op, shapes, dtypes)) & 0xFFFF)
    a, an = make(tcore, rng, shapes[0], dtypes[0], noncontig=True)
    b, bn = make(tcore, rng, shapes[1], dtypes[1], positive=op in POSITIVE_OTHER)
    promoted = promote(*dtypes, len(shapes[0]), len(shapes[1]))
    if promoted not in supported:  # the dtype the operator computes in
        with pytest.raises(TypeError):
            getattr(tcore, op)(a, b)
        return
    result = {"bool": BOOL, "promote": promoted, "float": promoted if promoted in (F32, F64) else F32}[result_rule]
    compute = np.dtype({"bool": promoted, "promote": promoted, "float": result}[result_rule])
    if compute == np.dtype(BOOL) and op in ("pow", "atan2"):
        compute = np.dtype(np.int64)
    with np.errstate(all="ignore"):
        expected = np.asarray(fn(an.astype(compute), bn.astype(compute))).astype(result)
    check(tcore, getattr(tcore, op)(a, b), expected, result)
    if method:
        check(tcore, getattr(a, op)(b), expected, result)
    out = tcore.empty([0], dtype=getattr(tcore, result))
    assert getattr(tcore, op)(a, b, out=out).data_ptr() == out.data_ptr()
    check(tcore, out, expected, result)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("dtypes", [(F32, F32), (F64, I64), (I64, I64)], ids=lambda d: "-".join(d))
def test_div_rounding_modes(tcore, mode, dtypes):
    rng = np.random.default_rng(9)
    a, an = make(tcore, rng, (4, 5), dtypes[0], noncontig=True)
    an = an * 7
    a = tcore.tensor(an, dtype=getattr(tcore, dtypes[0]))
    b, bn = make(tcore, rng, (5,), dtypes[1])
    bn = np.where(bn == 0, 3, bn).astype(bn.dtype)
    b = tcore.tensor(bn, dtype=getattr(tcore, dtypes[1]))
    promoted = promote(*dtypes)
    if mode is None:
        result, expected = (promoted if promoted != I64 else F32), an.astype(np.float64) / bn
    else:
        result = promoted
        q = an.astype(np.float64) / bn
        expected = np.trunc(q) if mode == "trunc" else np.floor_divide(an.astype(promoted), bn.astype(promoted))
    check(tcore, tcore.div(a, b, rounding_mode=mode), np.asarray(expected), result)
    check(tcore, a.div(b, rounding_mode=mode), np.asarray(expected), result)
    out = tcore.empty([0], dtype=getattr(tcore, result))
    tcore.div(a, b, rounding_mode=mode, out=out)
    check(tcore, out, np.asarray(expected), result)
    if result == dtypes[0]:
        c = tcore.tensor(an, dtype=getattr(tcore, dtypes[0]))
        c.div_(b, rounding_mode=mode)
        check(tcore, c, np.asarray(expected), result)


def test_integer_division_forms_and_errors(tcore):
    x, y = tcore.tensor([5, -5, 7, -7]), tcore.tensor([3, 3, -2, -2])
    assert (x // y).tolist() == [1, -2, -4, 3] and (x % y).tolist() == [2, 1, -1, -1]
    assert tcore.fmod(x, y).tolist() == [2, -2, 1, -1] and (7 // y).tolist() == [2, 2, -4, -4]
    assert tcore.remainder(3, y).tolist() == [0, 0, -1, -1] and tcore.fmod(x, 4).tolist() == [1, -1, 3, -3]
    assert tcore.div(x, 2, rounding_mode="trunc").tolist() == [2, -2, 3, -3]
    f = tcore.tensor([5.5, -5.5])
    assert (f // 2).tolist() == [2.0, -3.0] and (f % 2).tolist() == [1.5, 0.5] and tcore.fmod(f, 2).tolist() == [1.5, -1.5]
    z = tcore.tensor([1, 0])
    for fn in (lambda: x[:2] // z, lambda: x[:2] % z, lambda: tcore.fmod(x[:2], z)):
        with pytest.raises(ValueError, match="ZeroDivisionError"):
            fn()
    assert np.isinf((tcore.tensor([1.0]) // 0).item())
    with pytest.raises(ValueError, match="rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"):
        tcore.div(x, y, rounding_mode="round")
    with pytest.raises(TypeError, match="bool"):
        tcore.remainder(tcore.tensor([True]), tcore.tensor([True]))


@pytest.mark.parametrize("dtype", (F32, F64))
def test_lerp(tcore, dtype):
    rng = np.random.default_rng(10)
    a, an = make(tcore, rng, (3, 4), dtype, noncontig=True)
    e, en = make(tcore, rng, (4,), dtype)
    w, wn = make(tcore, rng, (3, 1), dtype, unit=True)
    for weight in (0.0, 0.3, 0.7, 1.0):
        check(tcore, tcore.lerp(a, e, weight), an + weight * (en - an), dtype)
    check(tcore, a.lerp(e, w), an + wn * (en - an), dtype)
    out = tcore.empty([0], dtype=getattr(tcore, dtype))
    tcore.lerp(a, e, 0.25, out=out)
    check(tcore, out, an + 0.25 * (en - an), dtype)
    c = tcore.tensor(an, dtype=getattr(tcore, dtype))
    c.lerp_(e, 1.0)
    np.testing.assert_array_equal(c.numpy(), np.broadcast_to(en, (3, 4)))  # exact at weight 1
    with pytest.raises(TypeError, match="floating"):
        tcore.lerp(tcore.tensor([1]), tcore.tensor([2]), 0.5)


JOIN_SHAPES = [[(2, 3), (4, 3)], [(2, 3), (2, 3), (1, 3)], [(0, 3), (2, 3)], [(3,), (0,), (2,)], [(2, 3, 4), (2, 1, 4)]]


@pytest.mark.parametrize("shapes", JOIN_SHAPES, ids=str)
@pytest.mark.parametrize("dtypes", [(F32,), (I64, F64), (BOOL, I64)], ids="-".join)
def test_cat_like_numpy(tcore, shapes, dtypes):
    rng = np.random.default_rng(12)
    dim = 1 if len(shapes[0]) == 3 else 0
    pairs = [make(tcore, rng, shape, dtypes[i % len(dtypes)], noncontig=True) for i, shape in enumerate(shapes)]
    result = dtypes[0]
    for d in dtypes[1:len(shapes)]:
        result = promote(result, d)
    expected = np.concatenate([n.astype(result) for _, n in pairs], axis=dim)
    check(tcore, tcore.cat([t for t, _ in pairs], dim), expected, result)
    check(tcore, tcore.cat(tuple(t for t, _ in pairs), dim=dim - len(shapes[0])), expected, result)
    out = tcore.empty([0], dtype=getattr(tcore, result))
    assert tcore.cat([t for t, _ in pairs], dim, out=out).data_ptr() == out.data_ptr()
    check(tcore, out, expected, result)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float16])
def test_cat_of_contiguous_inputs_in_order(tcore, dim, dtype):
    """Contiguous inputs of the result's dtype are copied block after block per leading index: three
    inputs of different extents along dim (one of them 0), a legacy 1-D empty one skipped, into a
    fresh result, into out=, and into a non-contiguous out (the strided path)."""
    rng = np.random.default_rng(dim + 4)
    sizes = [3, 0, 5]
    parts = []
    for n in sizes:
        shape = [4, 6, 7]
        shape[dim] = n
        parts.append((rng.standard_normal(shape) * 10).astype(dtype))
    ts = [tcore.from_numpy(p) for p in parts]
    want = np.concatenate(parts, axis=dim)
    np.testing.assert_array_equal(tcore.cat(ts, dim).numpy(), want)
    np.testing.assert_array_equal(tcore.cat([ts[0], tcore.empty([0], dtype=ts[0].dtype), ts[2]], dim).numpy(),
                                  np.concatenate([parts[0], parts[2]], axis=dim))
    out = tcore.empty(want.shape, dtype=ts[0].dtype)
    np.testing.assert_array_equal(tcore.cat(ts, dim, out=out).numpy(), want)
    wide = tcore.zeros(*want.shape[:-1], want.shape[-1] * 2, dtype=ts[0].dtype)
    tcore.cat(ts, dim, out=wide[..., ::2])
    np.testing.assert_array_equal(wide[..., ::2].numpy(), want)
    assert not wide[..., 1::2].numpy().any()


def test_cat_legacy_empty_and_errors(tcore):
    a = tcore.ones(2, 3)
    assert tcore.cat([a, tcore.empty([0]), a]).shape == (4, 3)  # a 1-D empty tensor is skipped, as in PyTorch
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        tcore.cat([])
    with pytest.raises(ValueError, match=r"Sizes of tensors must match except in dimension 1.*\[2, 3\] and \[3, 3\]"):
        tcore.cat([a, tcore.ones(3, 3)], 1)
    with pytest.raises(ValueError, match="same number of dimensions: got 2 and 1"):
        tcore.cat([a, tcore.ones(3)])
    with pytest.raises(ValueError, match="zero-dimensional tensor \\(at position 1\\)"):
        tcore.cat([a, tcore.tensor(1.0)])
    with pytest.raises(IndexError, match="Dimension out of range"):
        tcore.cat([a, a], 2)
    with pytest.raises(TypeError):
        tcore.cat([a, 1])
    out = tcore.ones(4, 3)
    tcore.cat([out[:2], out[2:] * 2], out=out)  # inputs that alias the output are read before it is written
    np.testing.assert_array_equal(out.numpy(), [[1] * 3] * 2 + [[2] * 3] * 2)


def test_stack_split_chunk(tcore):
    rng = np.random.default_rng(13)
    arrs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    ts = [tcore.tensor(a) for a in arrs]
    for dim in (0, 1, 2, -1):
        check(tcore, tcore.stack(ts, dim), np.stack(arrs, axis=dim), F32)
    out = tcore.empty([0])
    tcore.stack(ts, 1, out=out)
    check(tcore, out, np.stack(arrs, axis=1), F32)
    with pytest.raises(ValueError, match=r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 and "
                                         r"\[3\] at entry 1"):
        tcore.stack([ts[0], tcore.ones(3)])
    x = tcore.tensor(np.arange(20, dtype=np.float32).reshape(4, 5))
    pieces = x.split(2, 1)
    assert [p.shape for p in pieces] == [(4, 2), (4, 2), (4, 1)]
    assert all(p._storage_ptr() == x._storage_ptr() for p in pieces)  # the pieces are views
    np.testing.assert_array_equal(pieces[2].numpy(), x.numpy()[:, 4:])
    assert [p.shape for p in tcore.split(x, [1, 3])] == [(1, 5), (3, 5)]
    assert [p.shape for p in x.chunk(3, 1)] == [(4, 2), (4, 2), (4, 1)]
    assert [p.shape for p in tcore.chunk(x, 4)] == [(1, 5)] * 4
    assert [p.shape for p in tcore.chunk(tcore.empty([0]), 2)] == [(0,), (0,)]
    pieces[0].zero_()  # writes through a piece reach the base
    assert x.numpy()[:, :2].sum() == 0
    with pytest.raises(ValueError, match=r"split_with_sizes expects split_sizes to sum exactly to 4"):
        x.split([1, 2])
    with pytest.raises(ValueError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        x.chunk(0)
    with pytest.raises(ValueError, match="split expects split_size be non-negative"):
        x.split(-1)


def test_dtype_conversions(tcore):
    x = tcore.tensor([1.7, -2.2, 0.0])
    assert x.to(tcore.float32) is x or x.to(tcore.float32)._is_same(x)  # no copy when the dtype is the same
    assert x.to(tcore.float32, copy=True)._storage_ptr() != x._storage_ptr()
    assert x.long().tolist() == [1, -2, 0] and x.long().dtype == tcore.int64
    assert x.bool().tolist() == [True, True, False] and x.double().dtype == tcore.float64
    assert x.int().dtype == tcore.int32 and x.byte().dtype == tcore.uint8 and x.short().dtype == tcore.int16
    assert x.char().dtype == tcore.int8 and tcore.tensor([1, 2]).float().dtype == tcore.float32
    assert tcore.tensor([1, 2]).type_as(x).dtype == tcore.float32
    v = x.to(tcore.float64)
    np.testing.assert_allclose(v.numpy(), np.array([1.7, -2.2, 0.0], np.float32).astype(np.float64))


def test_comparison_operators_and_scalars(tcore):
    a = tcore.tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal((a == 2).numpy(), [False, True, False])
    np.testing.assert_array_equal((a != 2).numpy(), [True, False, True])
    np.testing.assert_array_equal((a < 2.5).numpy(), [True, True, False])
    np.testing.assert_array_equal((a >= tcore.tensor([3.0, 1.0, 3.0])).numpy(), [False, True, True])
    np.testing.assert_array_equal((2 < a).numpy(), [False, False, True])  # reflected: a > 2
    assert (a == "x") is False and (a != None) is True  # noqa: E711 - not comparable: plain Python answer
    assert a.eq(2).dtype == tcore.bool and tcore.lt(tcore.tensor([1, 5]), 2.5).numpy().tolist() == [True, False]
    assert len({a, a}) == 1  # hashable by identity


def test_bitwise_operators(tcore):
    x, y = tcore.tensor([12, 10]), tcore.tensor([10, 6])
    assert (x & y).numpy().tolist() == [8, 2] and (x | y).numpy().tolist() == [14, 14]
    assert (x ^ y).numpy().tolist() == [6, 12] and (~x).numpy().tolist() == [-13, -11]
    m = tcore.tensor([True, False])
    assert (~m).numpy().tolist() == [False, True] and (m & True).numpy().tolist() == [True, False]
    with pytest.raises(TypeError, match="integral and bool dtypes only"):
        tcore.ones(2) & tcore.ones(2)
    assert tcore.logical_not(tcore.tensor([0.0, 2.0])).numpy().tolist() == [True, False]


def test_pow_forms(tcore):
    a = tcore.tensor([1.0, 2.0, 4.0])
    np.testing.assert_allclose((a ** 2).numpy(), [1, 4, 16])
    np.testing.assert_allclose((2 ** a).numpy(), [2, 4, 16])
    np.testing.assert_allclose(tcore.pow(a, 0.5).numpy(), [1, 2 ** 0.5, 2])
    assert (tcore.tensor([2, 3]) ** 0.5).dtype == tcore.float32  # a float number makes an int tensor float
    assert tcore.pow(tcore.tensor([2, -1, 1, 3]), tcore.tensor([-1, -3, -2, 2])).numpy().tolist() == [0, -1, 1, 9]
    b = tcore.tensor([1.0, 2.0])
    b **= 3
    np.testing.assert_allclose(b.numpy(), [1, 8])
    np.testing.assert_allclose(abs(tcore.tensor([-1.5, 2.0])).numpy(), [1.5, 2.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_by_special_numbers_computes_as_torch(tcore, dtype):
    """A number exponent of 2, 3, 0.5, -0.5, -1, -2 or 1 is computed as PyTorch computes it (x*x,
    x*x*x, sqrt, 1/sqrt, 1/x, 1/(x*x), x: sqrt(-0.) is -0. and sqrt(-inf) NaN where pow gives +0.
    and inf), in place and into out= too; a 0-dim tensor exponent keeps std::pow, as in torch."""
    x = np.concatenate([[0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, 3e38, -2.5],
                        np.random.default_rng(0).standard_normal(300) * 10]).astype(dtype)
    forms = {2: lambda v: v * v, 3: lambda v: v * v * v, 0.5: np.sqrt, -0.5: lambda v: 1 / np.sqrt(v),
             -1: lambda v: 1 / v, -2: lambda v: 1 / (v * v), 1: lambda v: v, 2.5: lambda v: v ** 2.5}
    with np.errstate(all="ignore"):
        for e, form in forms.items():
            want = form(x)
            t = tcore.from_numpy(x.copy())
            for got in ((t ** e).numpy(), tcore.pow(t, e, out=tcore.empty(x.shape, dtype=t.dtype)).numpy(), t.clone().pow_(e).numpy()):
                if e == 2.5:  # std::pow: within an ulp
                    np.testing.assert_allclose(got, want, rtol=3e-7 if dtype == np.float32 else 1e-15, equal_nan=True)
                else:
                    np.testing.assert_array_equal(got, want)
                    assert np.array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)])), e
        assert tcore.from_numpy(np.array([-0.0], dtype)).pow(tcore.tensor(0.5)).item() == 0.0  # std::pow: +0.
        assert not np.signbit(tcore.from_numpy(np.array([-0.0], dtype)).pow(tcore.tensor(0.5)).item())


def test_maximum_propagates_nan(tcore):
    a, b = tcore.tensor([float("nan"), 1.0, 3.0]), tcore.tensor([0.0, float("nan"), 2.0])
    np.testing.assert_array_equal(tcore.maximum(a, b).numpy(), np.maximum(a.numpy(), b.numpy()))
    np.testing.assert_array_equal(tcore.minimum(a, b).numpy(), np.minimum(a.numpy(), b.numpy()))


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4), (3, 4)), ((3, 1), (4,), ()), ((), (2, 3), (2, 1))], ids=str)
@pytest.mark.parametrize("dtypes", [(F32, F32), (I64, F64), (BOOL, I64)], ids=lambda d: "-".join(d))
def test_where(tcore, shapes, dtypes):
    rng = np.random.default_rng(2)
    c, cn = make(tcore, rng, shapes[0], BOOL, noncontig=True)
    a, an = make(tcore, rng, shapes[1], dtypes[0])
    b, bn = make(tcore, rng, shapes[2], dtypes[1])
    result = promote(*dtypes, len(shapes[1]), len(shapes[2]))
    expected = np.where(cn, an.astype(result), bn.astype(result))
    check(tcore, tcore.where(c, a, b), expected, result)
    out = tcore.empty([0], dtype=getattr(tcore, result))
    tcore.where(c, a, b, out=out)
    check(tcore, out, expected, result)
    with pytest.raises(TypeError, match="condition to be a boolean"):
        tcore.where(tcore.ones(2), a, b)


def _lse(a, axis, keepdims):
    m = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


# name: (tcore call(t, dim, keepdim), numpy oracle(a, axis, keepdims), dtypes, result dtype rule)
# rule: "same", "long" (indices), "bool", "acc" (sum-like: integers accumulate in int64), "float"
REDUCE_MORE = {
    "prod": (lambda tc, t, d, k: t.prod(d, keepdim=k), lambda a, x, k: np.prod(a, axis=x, keepdims=k), NUMERIC, "acc"),
    "amax": (lambda tc, t, d, k: tc.amax(t, [d], k), lambda a, x, k: np.max(a, axis=x, keepdims=k), ALL, "same"),
    "amin": (lambda tc, t, d, k: tc.amin(t, [d], k), lambda a, x, k: np.min(a, axis=x, keepdims=k), ALL, "same"),
    "max_values": (lambda tc, t, d, k: t.max(d, k).values, lambda a, x, k: np.max(a, axis=x, keepdims=k), NUMERIC,
                   "same"),
    "max_indices": (lambda tc, t, d, k: t.max(d, keepdim=k).indices,
                    lambda a, x, k: np.expand_dims(np.argmax(a, axis=x), x) if k else np.argmax(a, axis=x), NUMERIC,
                    "long"),
    "min_indices": (lambda tc, t, d, k: tc.min(t, d, k)[1],
                    lambda a, x, k: np.expand_dims(np.argmin(a, axis=x), x) if k else np.argmin(a, axis=x), NUMERIC,
                    "long"),
    "argmax": (lambda tc, t, d, k: tc.argmax(t, d, k),
               lambda a, x, k: np.expand_dims(np.argmax(a, axis=x), x) if k else np.argmax(a, axis=x), NUMERIC, "long"),
    "argmin": (lambda tc, t, d, k: t.argmin(d, keepdim=k),
               lambda a, x, k: np.expand_dims(np.argmin(a, axis=x), x) if k else np.argmin(a, axis=x), NUMERIC, "long"),
    "all": (lambda tc, t, d, k: t.all(d, k), lambda a, x, k: np.all(a, axis=x, keepdims=k), ALL, "bool"),
    "any": (lambda tc, t, d, k: tc.any(t, d, keepdim=k), lambda a, x, k: np.any(a, axis=x, keepdims=k), ALL, "bool"),
    "var": (lambda tc, t, d, k: t.var([d], keepdim=k), lambda a, x, k: np.var(a, axis=x, ddof=1, keepdims=k),
            (F32, F64), "same"),
    "std0": (lambda tc, t, d, k: tc.std(t, [d], correction=0, keepdim=k),
             lambda a, x, k: np.std(a, axis=x, ddof=0, keepdims=k), (F32, F64), "same"),
    "logsumexp": (lambda tc, t, d, k: tc.logsumexp(t, [d], k), _lse, ALL, "float"),
    "softmax": (lambda tc, t, d, k: t.softmax(d), lambda a, x, k: np.exp(a - _lse(a, x, True)), ALL, "float"),
    "log_softmax": (lambda tc, t, d, k: tc.log_softmax(t, d), lambda a, x, k: a - _lse(a, x, True), ALL, "float"),
    "cumsum": (lambda tc, t, d, k: t.cumsum(d), lambda a, x, k: np.cumsum(a, axis=x), ALL, "acc"),
    "cumprod": (lambda tc, t, d, k: tc.cumprod(t, d), lambda a, x, k: np.cumprod(a, axis=x), NUMERIC, "acc"),
}


@pytest.mark.parametrize("op", REDUCE_MORE)
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False)], ids=str)
@pytest.mark.parametrize("dtype", ALL)
def test_reductions_more(tcore, op, dim, keepdim, dtype):
    call, oracle, supported, rule = REDUCE_MORE[op]
    if dtype not in supported:
        pytest.skip("dtype not supported by this operator")
    rng = np.random.default_rng(17)
    a, an = make(tcore, rng, (3, 4, 5), dtype, noncontig=True)
    result = {"same": dtype, "long": I64, "bool": BOOL, "float": dtype if dtype in (F32, F64) else F32,
              "acc": dtype if dtype in (F32, F64) else I64}[rule]
    compute = np.float64 if result in (F32, F64) else (np.int64 if result == I64 and rule == "acc" else None)
    expected = np.asarray(oracle(an.astype(compute) if compute else an, dim, keepdim))
    check(tcore, call(tcore, a, dim, keepdim), expected.astype(result), result)


def test_full_reductions_and_errors(tcore):
    x = tcore.tensor([[3.0, -1.0], [7.0, 2.0]])
    assert x.max().item() == 7.0 and x.min().item() == -1.0 and x.argmax().item() == 2 and x.prod().item() == -42.0
    assert x.argmin(keepdim=True).shape == (1, 1) and tcore.amax(x).item() == 7.0
    assert x.all().item() is True and tcore.tensor([0, 1]).any().item() is True
    np.testing.assert_allclose(x.var().item(), np.var(x.numpy(), ddof=1))
    nan = tcore.tensor([1.0, float("nan"), 3.0])
    assert np.isnan(nan.max().item()) and nan.argmax().item() == 1  # NaN wins, as in PyTorch
    with pytest.raises(IndexError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
        tcore.empty([0]).max()
    with pytest.raises(TypeError, match="input dtype should be floating point"):
        tcore.tensor([1, 2]).var()
    r = x.max(0)
    assert type(r).__name__ == "max" and type(r).__module__ == "tcore.return_types" and r._fields == ("values", "indices")


def test_float32_exp_accuracy_and_edges(tcore):
    """float32 exp (and softmax) use a vectorizable polynomial: within 2 ulp of the exact
    value over the whole range, with inf, -inf, NaN, overflow and underflow as expf."""
    x = np.concatenate([np.linspace(-103.0, 88.7, 200001, dtype=np.float32),
                        np.array([np.inf, -np.inf, np.nan, 89.0, -104.0, 0.0, -0.0], dtype=np.float32)])
    got = tcore.exp(tcore.tensor(x)).numpy()
    exact = np.exp(x.astype(np.float64))
    finite = np.isfinite(exact) & (exact > np.finfo(np.float32).tiny) & (exact < np.finfo(np.float32).max)
    ulp = np.spacing(exact[finite].astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got[finite] - exact[finite]) / ulp) <= 2.0
    assert got[-7] == np.inf and got[-6] == 0.0 and np.isnan(got[-5]) and got[-4] == np.inf and got[-3] == 0.0
    assert got[-2] == 1.0 and got[-1] == 1.0
    s = tcore.softmax(tcore.tensor(np.array([[1000.0, 0.0], [-np.inf, 0.0]], dtype=np.float32)), 1).numpy()
    np.testing.assert_array_equal(s, [[1.0, 0.0], [0.0, 1.0]])


# matmul's shapes: vector/matrix combinations and broadcast batch dims
MATMUL_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)),
                 ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)), ((0, 3, 4), (4, 2))]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", (F32, F64, I64))
def test_matmul_like_numpy(tcore, shapes, dtype):
    rng = np.random.default_rng(4)
    a, an = make(tcore, rng, shapes[0], dtype, noncontig=int(np.prod(shapes[0])) > 0)
    b, bn = make(tcore, rng, shapes[1], dtype)
    expected = np.matmul(an.astype(np.float64), bn.astype(np.float64))
    check(tcore, tcore.matmul(a, b), np.asarray(expected), dtype)
    check(tcore, a @ b, np.asarray(expected), dtype)


def test_linear_algebra_composites(tcore):
    rng = np.random.default_rng(8)
    m, v, w = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(3)
    M, V, W = tcore.tensor(m), tcore.tensor(v), tcore.tensor(w)
    np.testing.assert_allclose(tcore.dot(V, V).numpy(), v @ v)
    np.testing.assert_allclose(M.mv(V).numpy(), m @ v)
    np.testing.assert_allclose(tcore.outer(W, V).numpy(), np.outer(w, v))
    np.testing.assert_allclose(tcore.addmm(tcore.tensor(np.ones((3, 3))), M, M.t(), beta=0.5, alpha=2).numpy(),
                               0.5 + 2 * m @ m.T)
    b3 = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(tcore.bmm(tcore.tensor(b3), tcore.tensor(b3).transpose(1, 2)).numpy(),
                               b3 @ b3.transpose(0, 2, 1))
    bias = rng.standard_normal(3)
    np.testing.assert_allclose(tcore._C._nn.linear(tcore.tensor(rng.standard_normal((5, 4))), M, tcore.tensor(bias)).shape,
                               (5, 3))
    with pytest.raises(ValueError, match="1D tensors expected"):
        tcore.dot(M, V)
    with pytest.raises(ValueError, match=r"cannot be multiplied \(3x4 and 3x4\)"):
        M @ M
    with pytest.raises(ValueError, match="need to be at least 1D"):
        tcore.matmul(tcore.tensor(1.0), M)


@pytest.mark.parametrize("args, dtype", [((5,), None), ((1, 7, 2), None), ((0.0, 1.0, 0.25), None), ((3, -3, -1), None),
                                         ((2, 5), "float64"), ((0.5, 3),None)], ids=str)
def test_arange_like_numpy(tcore, args, dtype):
    got = tcore.arange(*args, dtype=getattr(tcore, dtype)) if dtype else tcore.arange(*args)
    expected = np.arange(*args, dtype=dtype)
    assert got.dtype == (getattr(tcore, dtype) if dtype else (tcore.float32 if any(isinstance(a, float) for a in args)
                                                              else tcore.int64))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


def test_creation_operators(tcore):
    np.testing.assert_allclose(tcore.linspace(-1, 1, 5).numpy(), np.linspace(-1, 1, 5))
    assert tcore.linspace(0, 1, 1).tolist() == [0.0] and tcore.linspace(0, 1, 0).shape == (0,)
    np.testing.assert_array_equal(tcore.eye(3).numpy(), np.eye(3))
    np.testing.assert_array_equal(tcore.eye(2, 4, dtype=tcore.int64).numpy(), np.eye(2, 4, dtype=np.int64))
    x = tcore.tensor([[1, 2], [3, 4]])
    assert tcore.zeros_like(x).tolist() == [[0, 0], [0, 0]] and tcore.ones_like(x, dtype=tcore.float64).dtype == tcore.float64
    assert tcore.full_like(x, 7).tolist() == [[7, 7], [7, 7]] and tcore.empty_like(x).shape == (2, 2)
    with pytest.raises(ValueError, match="step must be nonzero"):
        tcore.arange(0, 1, 0)
    with pytest.raises(ValueError, match="inconsistent with step sign"):
        tcore.arange(0, 5, -1)


def test_random_operators_are_seeded_and_distributed(tcore):
    tcore.manual_seed(1234)
    a = tcore.rand(1000)
    tcore.manual_seed(1234)
    b = tcore.rand(1000)
    assert a.tolist() == b.tolist() and a.dtype == tcore.float32
    assert 0.0 <= a.min().item() and a.max().item() < 1.0 and abs(a.mean().item() - 0.5) < 0.05
    n = tcore.randn(20000, dtype=tcore.float64)
    assert abs(n.mean().item()) < 0.05 and abs(n.std().item() - 1.0) < 0.05
    r = tcore.randint(3, 7, [5000])
    assert r.dtype == tcore.int64 and set(r.tolist()) == {3, 4, 5, 6}
    assert set(tcore.randint(2, [100]).tolist()) <= {0, 1}
    u = tcore.empty([3, 1000]).transpose(0, 1).uniform_(-2.0, -1.0)  # a non-contiguous tensor fills too
    assert -2.0 <= u.min().item() and u.max().item() < -1.0
    m = tcore.zeros(5000, dtype=tcore.float64).normal_(10.0, 2.0)
    assert abs(m.mean().item() - 10.0) < 0.2 and abs(m.std().item() - 2.0) < 0.2
    with pytest.raises(TypeError, match="uniform_ expects a floating point tensor"):
        tcore.zeros(2, dtype=tcore.int64).uniform_()
    with pytest.raises(ValueError, match="normal expects std >= 0.0"):
        tcore.zeros(2).normal_(0.0, -1.0)


def _gelu(x, tanh=False):
    from math import erf, tanh as th

    if tanh:
        return np.vectorize(lambda v: 0.5 * v * (1 + th(0.7978845608028654 * (v + 0.044715 * v ** 3))))(x)
    return np.vectorize(lambda v: 0.5 * v * (1 + erf(v / 2 ** 0.5)))(x)


@pytest.mark.parametrize("dtype", ALL)
def test_clamp_activations_and_float_tests(tcore, dtype):
    rng = np.random.default_rng(21)
    a, an = make(tcore, rng, (3, 4), dtype, noncontig=True)
    if dtype == BOOL:
        with pytest.raises(TypeError):
            tcore.clamp(a, 0, 1)
    else:
        check(tcore, tcore.clamp(a, -1, 1), np.clip(an, -1, 1), dtype)
        check(tcore, a.clamp(max=0), np.minimum(an, 0), dtype)
        out = tcore.empty([0], dtype=getattr(tcore, dtype))
        tcore.clamp(a, min=0, out=out)
        check(tcore, out, np.maximum(an, 0), dtype)
        c = tcore.tensor(an, dtype=getattr(tcore, dtype))
        c.clamp_(-1, 1)
        check(tcore, c, np.clip(an, -1, 1), dtype)
    if dtype in (F32, F64):
        x = an.astype(np.float64)
        check(tcore, tcore._C._nn.gelu(a), _gelu(x), dtype)
        check(tcore, tcore._C._nn.gelu(a, approximate="tanh"), _gelu(x, tanh=True), dtype)
        check(tcore, tcore._C._nn.silu(a), x / (1 + np.exp(-x)), dtype)
        check(tcore, tcore._C._nn.mse_loss(a, a * 0.5), np.mean((x * 0.5) ** 2), dtype)
        check(tcore, tcore._C._nn.mse_loss(a, a * 0.5, 2), np.sum((x * 0.5) ** 2), dtype)
        check(tcore, tcore._C._nn.mse_loss(a, a * 0.5, 0), (x * 0.5) ** 2, dtype)
    else:
        with pytest.raises(TypeError, match="not implemented for"):
            tcore._C._nn.gelu(a)
    check(tcore, tcore.isnan(a), np.isnan(an.astype(np.float64)), BOOL)
    check(tcore, a.isinf(), np.isinf(an.astype(np.float64)), BOOL)


def test_clamp_and_gelu_edges(tcore):
    assert tcore.clamp(tcore.tensor([1, 5]), 0.5, 2.5).tolist() == [1.0, 2.5]  # a float bound makes it float
    x = tcore.tensor([float("nan"), float("inf"), -float("inf")])
    assert np.isnan(x.clamp(-1, 1).numpy()[0]) and x.isinf().tolist() == [False, True, True]
    with pytest.raises(ValueError, match="At least one of 'min' or 'max'"):
        tcore.clamp(x)
    with pytest.raises(ValueError, match="approximate argument must be either none or tanh"):
        tcore._C._nn.gelu(x, approximate="fast")
    with pytest.raises(ValueError, match="reduction must be"):
        tcore._C._nn.mse_loss(x, x, 3)


# ------------------------------------------------------------------ float16 and bfloat16
def _round_bf16(a: np.ndarray) -> np.ndarray:
    """float32 -> nearest bfloat16 (ties to even), as float32."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    return r.view(np.float32)


def _round_to(dtype: str, a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float32)
    return a.astype(np.float16).astype(np.float32) if dtype == "float16" else _round_bf16(a)


# name: (tcore call on (a, b), numpy oracle in float32 on the rounded inputs)
REDUCED_OPS = {
    "add": (lambda t, a, b: a + b, lambda a, b: a + b),
    "sub": (lambda t, a, b: t.sub(a, b, alpha=2), lambda a, b: a - 2 * b),
    "mul": (lambda t, a, b: a * b, lambda a, b: a * b),
    "div": (lambda t, a, b: a / b, lambda a, b: a / b),
    "maximum": (lambda t, a, b: t.maximum(a, b), np.maximum),
    "pow": (lambda t, a, b: t.abs(a) ** b, lambda a, b: np.abs(a) ** b),
    "exp": (lambda t, a, b: t.exp(a), lambda a, b: np.exp(a)),
    "log": (lambda t, a, b: t.log(t.abs(a)), lambda a, b: np.log(np.abs(a))),
    "tanh": (lambda t, a, b: a.tanh(), lambda a, b: np.tanh(a)),
    "sigmoid": (lambda t, a, b: t.sigmoid(a), lambda a, b: 1 / (1 + np.exp(-a))),
    "neg": (lambda t, a, b: -a, lambda a, b: -a),
    "sum": (lambda t, a, b: a.sum(1), lambda a, b: a.sum(1)),
    "mean": (lambda t, a, b: a.mean(), lambda a, b: a.mean()),
    "amax": (lambda t, a, b: t.amax(a, [0]), lambda a, b: a.max(0)),
    "softmax": (lambda t, a, b: a.softmax(1), lambda a, b: np.exp(a) / np.exp(a).sum(1, keepdims=True)),
    "mm": (lambda t, a, b: a @ b.t(), lambda a, b: a @ b.T),
    "cumsum": (lambda t, a, b: a.cumsum(1), lambda a, b: np.cumsum(a, 1)),
    "var": (lambda t, a, b: a.var([1]), lambda a, b: a.var(1, ddof=1)),
    "where": (lambda t, a, b: t.where(a > 0, a, b), lambda a, b: np.where(a > 0, a, b)),
    "clamp": (lambda t, a, b: a.clamp(-0.5, 0.5), lambda a, b: np.clip(a, -0.5, 0.5)),
    "gelu": (lambda t, a, b: t._C._nn.gelu(a, approximate="tanh"),
             lambda a, b: 0.5 * a * (1 + np.tanh(0.7978845608028654 * (a + 0.044715 * a ** 3)))),
}


@pytest.mark.parametrize("op", REDUCED_OPS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_floats(tcore, op, dtype):
    """Computed in float32 and rounded once on store: within one rounding of the float32
    result of the rounded inputs."""
    call, oracle = REDUCED_OPS[op]
    rng = np.random.default_rng(14)
    an, bn = (_round_to(dtype, rng.standard_normal((6, 5)) + 0.1) for _ in range(2))
    dt = getattr(tcore, dtype)
    a = tcore.tensor(an).to(dt).transpose(0, 1).transpose(0, 1)
    b = tcore.tensor(bn).to(dt)
    got = call(tcore, a, b)
    assert got.dtype == dt, f"{op} gave {got.dtype}"
    with np.errstate(all="ignore"):
        expected = np.asarray(oracle(an.astype(np.float32), bn.astype(np.float32)), dtype=np.float32)
    eps = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
    reductions = op in ("sum", "mean", "mm", "cumsum", "var", "softmax")
    np.testing.assert_allclose(got.float().numpy(), expected, rtol=eps * (4 if reductions else 1),
                               atol=eps * (4 if reductions else 0.5))


BLOCKED_UNARY = {  # float16/bfloat16 through float32 blocks (native/cpu/Unary.h's reduced_float_runs)
    "exp": lambda t, x: x.exp(), "sigmoid": lambda t, x: x.sigmoid(), "tanh": lambda t, x: x.tanh(),
    "erf": lambda t, x: x.erf(), "sqrt": lambda t, x: x.abs().sqrt(), "relu": lambda t, x: x.relu(),
    "neg": lambda t, x: -x, "abs": lambda t, x: x.abs(), "floor": lambda t, x: x.floor(),
    "clamp": lambda t, x: x.clamp(-0.5, 0.25), "clamp_nan": lambda t, x: x.clamp(min=float("nan")),
    "gelu": lambda t, x: t.nn.functional.gelu(x), "gelu_tanh": lambda t, x: t.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda t, x: t.nn.functional.silu(x), "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x, 0.3),
    "softplus": lambda t, x: t.nn.functional.softplus(x, beta=2.0), "elu": lambda t, x: t.nn.functional.elu(x),
}


def _same_values(got, expected):
    """Equal values, NaN where NaN, and the same sign of zero."""
    g, e = got.float().numpy(), expected.float().numpy()
    np.testing.assert_array_equal(g, e)
    assert (np.signbit(g) == np.signbit(e))[~np.isnan(e)].all()


@pytest.mark.parametrize("op", BLOCKED_UNARY)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_float_blocks_are_the_rounded_float32_result(tcore, op, dtype):
    """Contiguous float16/bfloat16 tensors go through float32 blocks of 1024 on the threads: every
    length around the blocks' and vectors' edges, special values, in place and out=, at one and two
    threads, gives the float32 result of the same input rounded once; and torch's within a rounding."""
    torch = pytest.importorskip("torch")
    call = BLOCKED_UNARY[op]
    dt = getattr(tcore, dtype)
    rng = np.random.default_rng(3)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-6, 6e4, -7e4, 3.0, -3.0], np.float32)
    before = tcore.get_num_threads()
    try:
        for n in (0, 1, 15, 17, 1023, 1025, 70001):
            values = np.concatenate([special, (rng.standard_normal(n) * 3).astype(np.float32)])[:max(n, 1) if n else 0]
            x = tcore.from_numpy(values).to(dt)
            expected = call(tcore, x.float()).to(dt)
            for threads in (1, 2):
                tcore.set_num_threads(threads)
                _same_values(call(tcore, x), expected)
                if op in ("exp", "sigmoid", "tanh", "relu", "neg", "abs", "floor", "erf"):
                    y = x.clone()
                    getattr(y, op + "_")()
                    _same_values(y, expected)
                    o = tcore.empty(0, dtype=dt)
                    getattr(tcore, op)(x, out=o)
                    _same_values(o, expected)
            if n > 1000:
                ref = call(torch, torch.from_numpy(values).to(getattr(torch, dtype))).float().numpy()
                got = call(tcore, x).float().numpy()
                eps = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
                finite = slice(len(special), None)  # (torch's bfloat16 gelu(inf) is NaN)
                np.testing.assert_allclose(got[finite], ref[finite], rtol=2 * eps, atol=1e-3 if op == "gelu_tanh" else 1e-5)
    finally:
        tcore.set_num_threads(before)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape,dim", [((300000,), None), ((1, 300000), [1]), ((3, 70001), [1]), ((1000, 7), [1]),
                                       ((5, 4, 3000), [0, 2]), ((0, 5), [1]), ((4, 0), [1]),
                                       ((1003, 300), [0]), ((4, 37, 600), [1]), ((9, 4100), [0])])
def test_reduced_float_sums_are_the_float32_sums(tcore, dtype, shape, dim):
    """sum/mean of float16/bfloat16 rows and columns convert them to float32 in blocks: the same bits
    as the sum of the whole input in float32, rounded once, at one and two threads; torch's within
    a rounding."""
    torch = pytest.importorskip("torch")
    dt = getattr(tcore, dtype)
    values = (np.random.default_rng(5).standard_normal(shape) + 0.25).astype(np.float32)
    x = tcore.from_numpy(values).to(dt)
    before = tcore.get_num_threads()
    try:
        for name in ("sum", "mean"):
            f = (lambda v: getattr(v, name)()) if dim is None else (lambda v: getattr(v, name)(dim))
            expected = f(x.float()).to(dt)
            for threads in (1, 2):
                tcore.set_num_threads(threads)
                _same_values(f(x), expected)
            tx = torch.from_numpy(values).to(getattr(torch, dtype))
            ref = (getattr(tx, name)() if dim is None else getattr(tx, name)(dim)).float().numpy()
            scale = np.abs(values).sum() / max(values.size, 1) * (1 if name == "mean" else max(values.size, 1) / max(ref.size, 1))
            np.testing.assert_allclose(f(x).float().numpy(), ref, rtol=2 ** -6, atol=2 ** -6 * scale)
    finally:
        tcore.set_num_threads(before)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_float_binary_kernels_in_every_layout_as_torch(tcore, dtype):
    """float16/bfloat16 binary kernels (native/cpu/ReducedFloatLoops.h) over transposed, broadcast,
    stepped, one-value and empty operands, out= and in place: torch's values bit for bit (float32
    arithmetic rounded once), comparisons included; the layout of the result too."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(21)
    base = (rng.standard_normal((70, 90)) * 3).astype(np.float32)
    other = (rng.standard_normal((90, 70)) * 3).astype(np.float32)
    row = (rng.standard_normal(90) * 3).astype(np.float32)
    col = (rng.standard_normal((70, 1)) * 3).astype(np.float32)

    def operands(lib):
        dt = getattr(lib, dtype)
        b, o = lib.from_numpy(base).to(dt), lib.from_numpy(other).to(dt)
        r, c = lib.from_numpy(row).to(dt), lib.from_numpy(col).to(dt)
        return {"contiguous": (b, b * 0.5), "transposed": (b, o.t()), "row": (b, r), "col": (b, c),
                "stepped": (b[::2, 1::3], o.t()[::2, ::3]), "one_value": (b, r[3]), "scalar_first": (r[3], b),
                "empty": (b[:0], r), "both_transposed": (o.t(), o.t() * 2)}

    ops = {"add": lambda L, x, y: L.add(x, y, alpha=3), "sub": lambda L, x, y: x - y, "mul": lambda L, x, y: x * y,
           "div": lambda L, x, y: x / y, "maximum": lambda L, x, y: L.maximum(x, y), "gt": lambda L, x, y: x > y,
           "eq": lambda L, x, y: x == y, "le": lambda L, x, y: x <= y, "mul_number": lambda L, x, y: x * 1.1,
           "add_number": lambda L, x, y: x + 0.7, "ne_number": lambda L, x, y: x != 0.7}
    ours, theirs = operands(tcore), operands(torch)
    for layout in ours:
        for name, op in ops.items():
            got, ref = op(tcore, *ours[layout]), op(torch, *theirs[layout])
            if name == "add":  # torch's own rounds alpha * y first in the tail of its vector loop
                ref = op(torch, *(v.float() for v in theirs[layout])).to(ref.dtype)
            assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], (layout, name)
            assert got.shape == tuple(ref.shape) and got.stride() == ref.stride(), (layout, name)
            np.testing.assert_array_equal(got.float().numpy(), ref.float().numpy(), err_msg=f"{layout} {name}")
    # in place on a transposed self, and out= of a fresh and of a wrong-sized tensor
    x, y = ours["transposed"][1].clone(), ours["row"][1]
    tx, ty = theirs["transposed"][1].clone(), theirs["row"][1]
    assert x.stride() == tx.stride() == (1, 70)
    x.mul_(y)
    tx.mul_(ty)
    np.testing.assert_array_equal(x.float().numpy(), tx.float().numpy())
    o, to = tcore.empty(3, dtype=getattr(tcore, dtype)), torch.empty(3, dtype=getattr(torch, dtype))
    with pytest.warns(UserWarning, match="resized"):
        tcore.mul(*ours["col"], out=o)
    with pytest.warns(UserWarning, match="resized"):
        torch.mul(*theirs["col"], out=to)
    assert o.stride() == to.stride()
    np.testing.assert_array_equal(o.float().numpy(), to.float().numpy())
    m, tm = tcore.empty((70, 90), dtype=tcore.bool), torch.empty((70, 90), dtype=torch.bool)
    tcore.gt(*ours["row"], out=m)
    torch.gt(*theirs["row"], out=tm)
    np.testing.assert_array_equal(m.numpy(), tm.numpy())


def _functional(tensor):
    """The nn.functional module of the library `tensor` belongs to (tcore or torch)."""
    return __import__(type(tensor).__module__.split(".")[0]).nn.functional


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(3, 7), (700, 130), (2, 40000), (5, 1), (4, 0)])
def test_reduced_float_row_kernels_are_the_rounded_float32_rows(tcore, dtype, shape):
    """softmax, log_softmax and layer_norm of float16/bfloat16 rows convert each row to float32 in
    the thread's buffers (native/cpu/Reduce.h's reduced_float_rows): the same values as the float32
    kernels of the same input, rounded once, at one and two threads; transposed inputs and other dims
    too; torch's within a rounding."""
    torch = pytest.importorskip("torch")
    dt = getattr(tcore, dtype)
    values = np.random.default_rng(8).standard_normal(shape).astype(np.float32) * 4
    x = tcore.from_numpy(values).to(dt)
    w = tcore.from_numpy(np.linspace(0.5, 1.5, shape[-1], dtype=np.float32)).to(dt)
    calls = {
        "softmax": lambda v, w: v.softmax(-1), "log_softmax": lambda v, w: v.log_softmax(-1),
        "softmax_t": lambda v, w: v.t().softmax(-1), "log_softmax_0": lambda v, w: v.log_softmax(0),
        "layer_norm": lambda v, w: _functional(v).layer_norm(v, [shape[-1]], w, w),
        "layer_norm_plain": lambda v, w: _functional(v).layer_norm(v, [shape[-1]]),
        "layer_norm_weight": lambda v, w: _functional(v).layer_norm(v, [shape[-1]], w),
    }
    before = tcore.get_num_threads()
    try:
        for name, call in calls.items():
            expected = call(x.float(), w.float()).to(dt)
            for threads in (1, 2):
                tcore.set_num_threads(threads)
                got = call(x, w)
                assert got.dtype == dt and got.shape == expected.shape, name
                _same_values(got, expected)
            ref = call(torch.from_numpy(values).to(getattr(torch, dtype)),
                       torch.from_numpy(w.float().numpy()).to(getattr(torch, dtype))).float().numpy()
            eps = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
            np.testing.assert_allclose(got.float().numpy(), ref, rtol=4 * eps, atol=4 * eps * (8 if "log" in name else 1))
        mean_rstd = tcore.ops.native_layer_norm(x, [shape[-1]], w, w, 1e-5)[1:]
        for got, expected in zip(mean_rstd, tcore.ops.native_layer_norm(x.float(), [shape[-1]], w.float(), w.float(), 1e-5)[1:]):
            _same_values(got, expected.to(dt))
    finally:
        tcore.set_num_threads(before)


def test_reduced_precision_rules(tcore):
    h = tcore.tensor([1.0, 2.0], dtype=tcore.float16)
    bf = tcore.tensor([1.0, 2.0], dtype=tcore.bfloat16)
    assert (h + bf).dtype == tcore.float32  # float16 with bfloat16 promotes to float32, as PyTorch
    assert (h + tcore.ones(2)).dtype == tcore.float32 and (h + 1.5).dtype == tcore.float16
    assert (h + tcore.tensor(2.0, dtype=tcore.float64)).dtype == tcore.float16  # a 0-dim tensor does not widen
    assert (tcore.tensor([1, 2]) + tcore.tensor(0.5, dtype=tcore.bfloat16)).dtype == tcore.bfloat16
    assert tcore.promote_types(tcore.float16, tcore.int64) == tcore.float16
    assert tcore.float16.is_floating_point and tcore.bfloat16.itemsize == 2
    x = np.array([1.0, 1e-8, 70000.0, -0.1, 2049.0], dtype=np.float32)
    np.testing.assert_array_equal(tcore.tensor(x).half().numpy(), x.astype(np.float16))  # rounding, inf, subnormal
    np.testing.assert_array_equal(tcore.tensor(x).bfloat16().float().numpy(), _round_bf16(x))
    arr = np.arange(4, dtype=np.float16)
    t = tcore.from_numpy(arr)
    arr[0] = 7  # float16 numpy arrays share memory
    assert t.dtype == tcore.float16 and t[0].item() == 7.0
    assert repr(bf) == "tensor([1., 2.], dtype=tcore.bfloat16)" and bf.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="Got unsupported ScalarType bfloat16"):
        bf.numpy()
    for make in (tcore.zeros, tcore.ones, tcore.rand, tcore.randn):
        assert make(2, 3, dtype=tcore.bfloat16).dtype == tcore.bfloat16
    assert tcore.arange(4, dtype=tcore.float16).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(TypeError, match="integral and bool dtypes only"):
        h & h
    g = tcore.tensor([0.5, -1.0], dtype=tcore.float16, requires_grad=True)
    (g * g).sum().backward()  # autograd through float16: the gradient keeps the dtype
    assert g.grad.dtype == tcore.float16 and g.grad.tolist() == [1.0, -2.0]


def test_generators(tcore):
    """Generator objects: their own stream, reproducible by seed, shared by copies; the
    default generator is tcore.manual_seed's."""
    g = tcore.Generator().manual_seed(7)
    a = tcore.rand(5, generator=g)
    g.manual_seed(7)
    assert tcore.rand(5, generator=g).tolist() == a.tolist() and g.initial_seed() == 7
    tcore.manual_seed(7)
    assert tcore.rand(5).tolist() == a.tolist() and tcore.default_generator.initial_seed() == 7
    # drawing from a generator does not move the default stream
    tcore.manual_seed(3)
    expected = tcore.randn(4).tolist()
    tcore.manual_seed(3)
    other = tcore.Generator().manual_seed(11)
    tcore.randn(100, generator=other)
    assert tcore.randn(4).tolist() == expected
    h = g.manual_seed(1)  # manual_seed returns the generator: the same state
    first = tcore.randint(0, 100, [3], generator=h).tolist()
    g.manual_seed(1)
    assert tcore.randint(0, 100, [3], generator=g).tolist() == first
    assert tcore.randint(4, [50], generator=g).max().item() < 4
    x = tcore.empty(2000, dtype=tcore.float64)
    x.normal_(2.0, 0.5, generator=g)
    assert abs(x.mean().item() - 2.0) < 0.05
    x.uniform_(-1, 1, generator=g)
    assert -1 <= x.min().item() and x.max().item() < 1
    assert tcore.empty(10, dtype=tcore.int64).random_(0, 3, generator=g).max().item() < 3
    assert isinstance(g.seed(), int) and g.initial_seed() != 1
    with pytest.raises(TypeError, match="cannot pass a Generator to a boxed operator"):
        tcore.ops.rand.generator(size=[2], generator=g)


SMALL_INTS = ("uint8", "int8", "int16", "int32")


@pytest.mark.parametrize("op", ["add", "sub", "mul", "maximum", "remainder", "bitwise_xor", "lt"])
@pytest.mark.parametrize("dtypes", [(a, b) for a in SMALL_INTS + ("int64",) for b in SMALL_INTS], ids="-".join)
def test_small_integer_dtypes_like_numpy(tcore, op, dtypes):
    """uint8, int8, int16, int32 against numpy: promotion (uint8 with int8 is int16) and
    wrap-around in the result dtype, as PyTorch."""
    rng = np.random.default_rng(15)
    an = rng.integers(1, 100, (3, 4)).astype(dtypes[0])
    bn = rng.integers(1, 100, (4,)).astype(dtypes[1])
    a, b = tcore.tensor(an), tcore.tensor(bn)
    fn = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum, "remainder": np.remainder,
          "bitwise_xor": np.bitwise_xor, "lt": np.less}[op]
    expected = fn(an, bn)  # numpy's promotion agrees with PyTorch's on these pairs
    got = getattr(tcore, op)(a, b)
    assert got.dtype == getattr(tcore, str(expected.dtype)), (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got.numpy(), expected)
    assert tcore.promote_types(tcore.uint8, tcore.int8) == tcore.int16
    assert (tcore.tensor(np.array([250], np.uint8)) + 10).tolist() == [4]  # wraps in uint8, as PyTorch


@pytest.mark.parametrize("shape", [(130, 129), (1000, 777), (64, 4096)])
def test_transposed_operands_tiled(tcore, shape):
    """Elementwise loops with a transposed operand run in tiles (native/cpu/Loops.h
    tiled_loop_2d): every element, the partial tiles at both edges, and negative strides."""
    rng = np.random.default_rng(shape[0])
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape[::-1]).astype(np.float32)
    tx, ty = tcore.tensor(x), tcore.tensor(y)
    np.testing.assert_array_equal(tcore.add(tx, ty.t()).numpy(), x + y.T)
    np.testing.assert_array_equal(ty.t().contiguous().numpy(), np.ascontiguousarray(y.T))
    np.testing.assert_array_equal(tcore.mul(ty.t(), tx).numpy(), y.T * x)
    np.testing.assert_array_equal(tcore.neg(ty.t()).numpy(), -y.T)
    flipped = tcore.flip(ty, [1]).t()  # a negative stride in the outer dim... and a transpose
    np.testing.assert_array_equal(tcore.add(tx, flipped).numpy(), x + y[:, ::-1].T)
    out = tcore.empty(shape[::-1]).t()  # a transposed output
    tcore.add(tx, tx, out=out)
    np.testing.assert_array_equal(out.numpy(), x + x)
