"""<< and >> (bitwise_left_shift, bitwise_right_shift) against torch: every integer dtype, shifts by
negative amounts and by the width or more, bits shifted out, signed right shifts, promotion with
numbers and tensors, in place and out=, and torch's refusals of floating and bool operands."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

INTS = ["int8", "uint8", "int16", "int32", "int64"]
AMOUNTS = [-70, -1, 0, 1, 3, 7, 8, 15, 16, 31, 32, 63, 64, 100]


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", ["<<", ">>"])
def test_every_amount_as_torch(tcore, dtype, op):
    def run(lib):
        info = np.iinfo(dtype)
        values = sorted(v for v in {int(info.min), int(info.min) + 1, -3, -1, 0, 1, 5, 100, int(info.max)}
                        if info.min <= v <= info.max)
        x = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(-1, 1)
        s = lib.tensor([a for a in AMOUNTS if info.min <= a <= info.max], dtype=getattr(lib, dtype))
        r = (x << s) if op == "<<" else (x >> s)
        return r.tolist(), str(r.dtype).split(".")[-1]

    assert run(tcore) == run(torch)


CASES = {
    "number shift": lambda t: t.tensor([1, -8, 127, -128], dtype=t.int8) << 1,
    "number shift right": lambda t: t.tensor([1, -8, 127, -128], dtype=t.int8) >> 8,
    "negative number shift": lambda t: t.tensor([1, -8, 127], dtype=t.int16) >> -1,
    "int64 by 63": lambda t: t.tensor([1, -1, 3], dtype=t.int64) << 63,
    "int64 by 64": lambda t: t.tensor([1, -1, 3], dtype=t.int64) << 64,
    "promotes to the tensor's int64": lambda t: t.tensor([1, -8, 127], dtype=t.int8) << t.tensor([1, 2, 3]),
    "reflected number": lambda t: 2 << t.tensor([1, 2, 40]),
    "reflected right": lambda t: 1024 >> t.tensor([1, 2, 40], dtype=t.int16),
    "bool with a number": lambda t: t.tensor([True, False]) << 1,
    "broadcast": lambda t: t.arange(4).reshape(4, 1) << t.arange(3),
    "transposed": lambda t: t.arange(12).reshape(3, 4).t() >> t.tensor([0, 1, 2]),
    "function": lambda t: t.bitwise_left_shift(t.tensor([3]), 2),
    "function tensors": lambda t: t.bitwise_right_shift(t.tensor([12, -12]), t.tensor([2, 2])),
    "method": lambda t: t.tensor([12, -12]).bitwise_right_shift(1),
    "function reflected": lambda t: t.bitwise_left_shift(3, t.tensor([1, 2])),
    "out": lambda t: t.bitwise_left_shift(t.tensor([3, 4]), t.tensor([1, 2]), out=t.empty(0, dtype=t.int64)),
    "out int32 of int64": lambda t: t.bitwise_left_shift(t.tensor([3, 4], dtype=t.int16), 2,
                                                         out=t.empty(2, dtype=t.int32)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cases_as_torch(tcore, name):
    def run(lib):
        r = CASES[name](lib)
        return r.tolist(), str(r.dtype).split(".")[-1], tuple(r.shape)

    assert run(tcore) == run(torch)


def test_in_place_as_torch(tcore):
    def run(lib):
        x = lib.tensor([3, -5, 100], dtype=lib.int16)
        y = x
        v = x._version
        x <<= 2
        x >>= lib.tensor([1, 0, 3], dtype=lib.int16)
        x.bitwise_left_shift_(1)
        x.bitwise_right_shift_(lib.tensor(1))
        return y is x, x.tolist(), x._version - v

    assert run(tcore) == run(torch)


ERRORS = {
    "float": lambda t: t.tensor([1.0]) << 1,
    "float amount": lambda t: t.tensor([1, 2]) << t.tensor([1.0]),
    "number float amount": lambda t: t.tensor([1]) >> 1.5,
    "bool tensors": lambda t: t.tensor([True, False]) << t.tensor([True, True]),
    "in place of bool": lambda t: t.tensor([True]).bitwise_left_shift_(t.tensor([1])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(tcore, name):
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError):
            ERRORS[name](lib)


def test_in_place_bitwise_operators_as_torch(tcore):
    """&=, |=, ^= write self (torch's bitwise_and_ and the like); before, Python rebound the name to
    a new tensor and views of self kept the old values."""
    def run(lib):
        x = lib.tensor([True, False, True])
        y, view = x, x[1:]
        x &= lib.tensor([False, False, True])
        x |= lib.tensor([False, True, False])
        x ^= True
        a = lib.tensor([1, 2, 3], dtype=lib.int8)
        a |= 4
        a ^= lib.tensor([1, 1, 1])
        a.bitwise_and_(lib.tensor([6], dtype=lib.int8))
        return y is x, x.tolist(), view.tolist(), a.tolist(), str(a.dtype).split(".")[-1]

    assert run(tcore) == run(torch)


@pytest.mark.parametrize("case", ["bool |= int", "int8 &= float", "float &= int"])
def test_in_place_bitwise_refusals_as_torch(tcore, case):
    def run(lib):
        if case == "bool |= int":
            x = lib.tensor([True])
            x |= lib.tensor([2])
        elif case == "int8 &= float":
            x = lib.tensor([1], dtype=lib.int8)
            x &= 1.5
        else:
            x = lib.tensor([1.0])
            x &= 1

    for lib in (torch, tcore):
        with pytest.raises(RuntimeError):
            run(lib)


@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor"])
@pytest.mark.parametrize("number", [3, True, -1])
def test_a_number_on_the_left_of_a_bitwise_function(tcore, op, number):
    def run(lib):
        r = getattr(lib, op)(number, lib.tensor([1, 2, 6], dtype=lib.int16))
        return r.tolist(), str(r.dtype).split(".")[-1]

    assert run(tcore) == run(torch)
