"""A number that does not fit the dtype an operator converts it to is refused as torch's ("value cannot
be converted to type Half without overflow"): float16 and bfloat16 as the integer types and float32
already were (fill_, full, clamp, pow's exponent, add's alpha, masked_fill, linspace). Where torch
rounds such a number to inf instead (setitem and scalar_tensor into float16/bfloat16, a number on the
other side of +, *, where), tcore does too. Also index_fill, whose value is a number or a 0-dim tensor."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (dtype, a number beyond it): float16's largest is 65504, bfloat16's 3.3895e38
BEYOND = [("float16", 1e5), ("float16", -65520.0), ("float16", 100000), ("bfloat16", 3.39e38),
          ("int8", 300), ("uint8", 256), ("int32", 2**40), ("float32", 1e39),
          ("int8", 127.5), ("uint8", -0.5), ("int16", -32768.5)]
OPS = {
    "fill_": lambda lib, x, v: x.clone().fill_(v),
    "full": lambda lib, x, v: lib.full((2,), v, dtype=x.dtype),
    "full_like": lambda lib, x, v: lib.full_like(x, v),
    "new_full": lambda lib, x, v: x.new_full((2,), v),
    "clamp": lambda lib, x, v: x.clamp(max=v),
    "clamp_min": lambda lib, x, v: x.clamp_min(v),
    "clamp_": lambda lib, x, v: x.clone().clamp_(min=-v if v > 0 else v),
    "pow": lambda lib, x, v: x.pow(v),
    "add_alpha": lambda lib, x, v: x.add(x, alpha=v),
    "sub_alpha": lambda lib, x, v: x.sub(x, alpha=v),
    "masked_fill": lambda lib, x, v: x.masked_fill(x > 0, v),
    "masked_fill_tensor": lambda lib, x, v: x.masked_fill(x > 0, lib.tensor(v)),
    "index_fill": lambda lib, x, v: x.index_fill(0, lib.tensor([0]), v),
    "linspace": lambda lib, x, v: lib.linspace(0, v, 3, dtype=x.dtype),
    "hardtanh": lambda lib, x, v: lib.nn.functional.hardtanh(x, -abs(v), abs(v)),
    # no overflow error in torch: the number takes part as a number, or is rounded to inf
    "add": lambda lib, x, v: x + v,
    "mul_": lambda lib, x, v: x.clone().mul_(v),
    "where": lambda lib, x, v: lib.where(x > 0, v, x),
    "setitem": lambda lib, x, v: _setitem(x.clone(), 0, v),
    "setitem_advanced": lambda lib, x, v: _setitem(x.clone(), lib.tensor([0]), v),
    "scalar_tensor": lambda lib, x, v: lib.scalar_tensor(v, dtype=x.dtype),
}


def _setitem(x, index, v):
    x[index] = v
    return x


def _outcome(lib, fn, dtype, value):
    x = lib.ones(2, dtype=getattr(lib, dtype))
    try:
        r = fn(lib, x, value)
    except RuntimeError as e:
        return "overflow" if "without overflow" in str(e) else "another error"  # (torch words some otherwise)
    return np.array(r.double().tolist())


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype,value", BEYOND, ids=[f"{d}-{v!r}" for d, v in BEYOND])
def test_number_beyond_the_dtype_as_torch(tcore, op, dtype, value):
    expected = _outcome(torch, OPS[op], dtype, value)
    got = _outcome(tcore, OPS[op], dtype, value)
    if isinstance(expected, str) or isinstance(got, str):
        assert str(got) == str(expected)
    else:
        np.testing.assert_array_equal(got, expected)


def test_overflow_message_names_the_type(tcore):
    with pytest.raises(RuntimeError, match="value cannot be converted to type Half without overflow"):
        tcore.zeros(2, dtype=tcore.float16).fill_(1e5)
    with pytest.raises(RuntimeError, match="to type BFloat16 without overflow"):
        tcore.full((1,), -1e39, dtype=tcore.bfloat16)
    # the largest float16 and the infinities and NaN are in range
    for v in (65504.0, float("inf"), float("-inf"), float("nan")):
        assert np.array_equal(tcore.full((1,), v, dtype=tcore.float16).tolist(), [v], equal_nan=True)


def test_tensor_from_numbers_beyond_the_dtype_is_inf_without_a_warning(tcore, recwarn):
    assert tcore.tensor([1e5, -1e5], dtype=tcore.float16).tolist() == [float("inf"), float("-inf")]
    assert tcore.tensor([1e40]).tolist() == [float("inf")]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_arange_of_a_reduced_float_beyond_int64(tcore):
    # the bounds of a floating arange are not converted to int64 (they were, and overflowed)
    for dtype in ("bfloat16", "float32", "float64"):
        def run(lib):
            return lib.arange(0, 3.39e38, 1.69e38, dtype=getattr(lib, dtype)).double().tolist()
        assert run(tcore) == run(torch)


def test_scalar_tensor_as_torch(tcore):
    cases = [(True, None), (3, None), (2.5, None), (2.7, "int32"), (-1, "uint8"), (2**63 - 1, "float32"),
             (1e5, "float16"), (300, "int8"), (1e39, "float32")]
    for value, dtype in cases:
        def make(lib):
            return lib.scalar_tensor(value, **({"dtype": getattr(lib, dtype)} if dtype else {}))
        expected, got = _outcome(torch, lambda lib, x, v: make(lib), "float32", value), \
            _outcome(tcore, lambda lib, x, v: make(lib), "float32", value)
        if isinstance(expected, str):
            assert got == expected, (value, dtype)
        else:
            np.testing.assert_array_equal(got, expected)
            assert str(make(tcore).dtype).split(".")[-1] == str(make(torch).dtype).split(".")[-1]
    assert tcore.scalar_tensor(2.0, requires_grad=True).requires_grad


INDEX_FILL = [
    lambda lib, x: x.index_fill(1, lib.tensor([-1, 0]), 7),
    lambda lib, x: x.index_fill(0, lib.tensor(1), -2.5),
    lambda lib, x: x.index_fill(1, lib.tensor([], dtype=lib.long), 7),
    lambda lib, x: x.long().index_fill(1, lib.tensor([0]), 2.5),
    lambda lib, x: x.index_fill(1, lib.tensor([0]), lib.tensor(7, dtype=lib.int64)),
    lambda lib, x: x.clone().index_fill_(1, lib.tensor([2, 2]), 1),
    lambda lib, x: lib.index_fill(x, -2, lib.tensor([0]), lib.tensor(3.0)),
    lambda lib, x: lib.tensor(5.0).index_fill(0, lib.tensor([0]), 1),
    lambda lib, x: lib.tensor(5.0).index_fill(-1, lib.tensor(-1), 1),
    lambda lib, x: x.t().index_fill(0, lib.tensor([1]), 9),
]
INDEX_FILL_ERRORS = [
    (lambda lib, x: x.index_fill(1, lib.tensor([3]), 7), IndexError, "index 3 is out of bounds for dimension 1"),
    (lambda lib, x: x.index_fill(1, lib.tensor([-4]), 7), IndexError, "index -4 is out of bounds for dimension 1"),
    (lambda lib, x: x.index_fill(1, lib.tensor([[0]]), 7), RuntimeError, "Index has to be a vector/scalar"),
    (lambda lib, x: x.index_fill(1, lib.tensor([0.0]), 7), IndexError, "Expected dtype int64 for index"),
    (lambda lib, x: x.index_fill(1, lib.tensor([0], dtype=lib.int32), 7), IndexError, "Expected dtype int64"),
    (lambda lib, x: x.index_fill(1, lib.tensor([0]), lib.tensor([7.0])), RuntimeError,
     "only supports a 0-dimensional value tensor"),
    (lambda lib, x: x.index_fill(2, lib.tensor([0]), 7), IndexError, "out of range"),
]


@pytest.mark.parametrize("case", range(len(INDEX_FILL)))
def test_index_fill_as_torch(tcore, case):
    def run(lib):
        return INDEX_FILL[case](lib, lib.arange(6.0).reshape(2, 3))
    expected, got = run(torch), run(tcore)
    assert got.tolist() == expected.tolist()
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]


@pytest.mark.parametrize("case", range(len(INDEX_FILL_ERRORS)))
def test_index_fill_errors_as_torch(tcore, case):
    fn, kind, message = INDEX_FILL_ERRORS[case]
    for lib in (torch, tcore):
        with pytest.raises(kind, match=message):
            fn(lib, lib.arange(6.0).reshape(2, 3))


def test_index_fill_gradients_as_torch(tcore):
    # a repeated index fills once: the value's gradient sums each filled position once (torch's)
    def run(lib):
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
        v = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
        w = lib.arange(6.0, dtype=lib.float64).reshape(2, 3) + 1
        (x.index_fill(1, lib.tensor([0, 0, 2]), v) * w).sum().backward()
        y = x.detach().clone().requires_grad_()
        z = y * 1
        z.index_fill_(0, lib.tensor([1]), 5.0)
        (z * w).sum().backward()
        return x.grad.tolist(), v.grad.item(), y.grad.tolist()
    assert run(tcore) == run(torch)


CLAMPS = {
    "min only keeps inf": lambda lib, x: x.clamp(min=0),
    "max only keeps -inf": lambda lib, x: x.clamp(max=0),
    "min inf": lambda lib, x: x.clamp(min=float("inf")),
    "clamp_min": lambda lib, x: lib.clamp_min(x, -1),
    "clamp_max in place": lambda lib, x: x.clone().clamp_max_(1),
    "hardtanh int64 extremes": lambda lib, x: lib.nn.functional.hardtanh(lib.tensor([5, -7]), -(2**63 - 1), 2**63 - 1),
}


@pytest.mark.parametrize("name", sorted(CLAMPS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_clamp_with_one_bound_keeps_infinities(tcore, name, dtype):
    """A missing bound does not limit (it was the dtype's largest finite value: inf.clamp(min=0)
    was 3.4e38)."""
    def run(lib):
        x = lib.tensor([float("inf"), float("-inf"), float("nan"), 2.5, -3.0], dtype=getattr(lib, dtype))
        return np.array(CLAMPS[name](lib, x).double().tolist())

    np.testing.assert_array_equal(run(tcore), run(torch))


@pytest.mark.parametrize("alpha", [128, -128, 127, 2**31, -(2**31)])
@pytest.mark.parametrize("dtype", ["int8", "int32"])
def test_sub_checks_minus_alpha_as_torch(tcore, alpha, dtype):
    """sub's kernels take -alpha: that is what must fit (int8 alpha=128 works, -128 does not)."""
    def run(lib):
        x = lib.tensor([5, -3], dtype=getattr(lib, dtype))
        try:
            return lib.sub(x, lib.tensor([1, 2], dtype=x.dtype), alpha=alpha).tolist()
        except RuntimeError as e:
            return "overflow" if "without overflow" in str(e) else str(e)

    assert run(tcore) == run(torch)


TENSOR_OR_NUMBER = {
    "clamp 0-dim tensor bound": lambda lib, x: x.clamp(max=lib.tensor(300)),
    "clamp 1-element tensor bound": lambda lib, x: x.clamp(max=lib.tensor([300])),
    "clamp numpy integer bound": lambda lib, x: x.clamp(min=np.int64(3)),
    "full with a tensor": lambda lib, x: lib.full((2,), lib.tensor(3)),
    "pow by a tensor": lambda lib, x: x.pow(lib.tensor(2)),
    "masked_fill with a tensor": lambda lib, x: x.masked_fill(x > 0, lib.tensor(5)),
}


@pytest.mark.parametrize("name", sorted(TENSOR_OR_NUMBER))
def test_an_integer_tensor_goes_to_the_tensor_overload(tcore, name):
    """An integer tensor has __index__, so it also reads as a number; the Tensor overload takes it
    first, as torch's parser does (int8.clamp(max=tensor(300)) wraps to 44 there; tcore refused it)."""
    def run(lib):
        r = TENSOR_OR_NUMBER[name](lib, lib.tensor([100], dtype=lib.int8))
        return r.tolist(), str(r.dtype).split(".")[-1]

    assert run(tcore) == run(torch)
