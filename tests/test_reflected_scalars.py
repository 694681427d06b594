"""A Python number on the left of -, /, //, % and ** (Tensor.__rsub__ and friends) promotes as a
number, as torch's: 2.5 - uint8 is float32 (it was computed as -x + 2.5 in uint8 and wrapped
around), 2 / bool is float32, number / tensor is tensor.reciprocal() * number as torch's (1e5 / float16(3)
is 33312: the number converted to float16 first made it inf). Subtraction with any bool operand is refused, as torch's."""
import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

NUMBERS = [2.5, -2, True, 1e5, 1000, 0, 7]
DTYPES = ["uint8", "int8", "int64", "bool", "float16", "bfloat16", "float32", "float64"]
OPS = {"-": lambda a, b: a - b, "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
       "**": lambda a, b: a ** b, "+": lambda a, b: a + b, "*": lambda a, b: a * b}


def _run(lib, fn):
    try:
        r = fn(lib)
    except RuntimeError as e:
        # a number its compute type cannot hold (float16 ** 1e5) is refused
        return ("overflow" if "without overflow" in str(e) else "error"), None
    return str(r.dtype).split(".")[-1], np.array(r.double().tolist() if r.dtype != lib.bool else r.tolist())


@pytest.mark.parametrize("op", sorted(OPS))
def test_number_on_either_side_as_torch(tcore, op):
    for number, dtype in itertools.product(NUMBERS, DTYPES):
        def make(lib):
            return lib.tensor([True, False]) if dtype == "bool" else lib.tensor([1, 3], dtype=getattr(lib, dtype))
        for left in (True, False):
            program = (lambda lib: OPS[op](number, make(lib))) if left else (lambda lib: OPS[op](make(lib), number))
            (td, tv), (od, ov) = _run(torch, program), _run(tcore, program)
            where = f"{number!r} {op} {dtype}" if left else f"{dtype} {op} {number!r}"
            assert od == td, where
            if tv is not None:
                # torch's float16/bfloat16 floor division rounds each step to the type (999 -> 1000
                # in bfloat16), tcore's rounds once: one unit in the last place apart
                tol = {"float16": 1e-3, "bfloat16": 8e-3}.get(td, 0) if op == "//" else 0
                np.testing.assert_allclose(ov, tv, rtol=tol, atol=0, equal_nan=True, err_msg=where)


def test_reflected_ops_keep_autograd_and_refuse_other_types(tcore):
    x = tcore.tensor([1.0, 2.0, 4.0], dtype=tcore.float64, requires_grad=True)
    (3 - x + 2 / x + 2 ** x).sum().backward()
    assert x.grad.tolist() == pytest.approx([-1 - 2 / v**2 + 2**v * np.log(2) for v in (1.0, 2.0, 4.0)])
    with pytest.raises(TypeError):
        "a" - x  # noqa: B018
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        tcore.tensor([True]) - tcore.tensor([3])
