"""float16/bfloat16 elementwise loops (csrc/native/cpu/ReducedFloatLoops.h) against torch: the
contiguous runs go sixteen values at a time through registers, the rest in float32 chunks; every run
length around the block sizes, broadcast and one-number operands, comparisons into bool, and the
sign-bit kernels of abs and neg."""
import ctypes

import numpy as np
import pytest

torch = pytest.importorskip("torch")

LENGTHS = [1, 15, 16, 17, 31, 33, 255, 256, 257, 1000, 1025, 4099]
DTYPES = ["float16", "bfloat16"]


def pair(tcore, values: np.ndarray, dtype: str):
    t = torch.from_numpy(values).to(getattr(torch, dtype))
    return tcore.from_numpy(values).to(getattr(tcore, dtype)), t


def bits(x) -> np.ndarray:
    """The raw 16-bit patterns of a tcore or torch float16/bfloat16 tensor (tcore has no view(dtype):
    its memory read through ctypes)."""
    if isinstance(x, torch.Tensor):
        return x.contiguous().view(torch.int16).numpy()
    x = x.contiguous()
    return np.frombuffer(ctypes.string_at(x.data_ptr(), 2 * x.numel()), dtype=np.int16).reshape(tuple(x.shape))


def from_bits(tcore, raw: np.ndarray, dtype: str):
    t = tcore.empty(raw.shape, dtype=getattr(tcore, dtype))
    ctypes.memmove(t.data_ptr(), np.ascontiguousarray(raw, dtype=np.int16).ctypes.data, 2 * raw.size)
    return t


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "lt", "eq"])
def test_binary_runs_match_torch_bit_for_bit(tcore, dtype, n, op):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 3).astype(np.float32)
    b = (rng.standard_normal(n) * 3).astype(np.float32)
    a[::7] = b[::7]  # equal pairs for eq
    ta, pa = pair(tcore, a, dtype)
    tb, pb = pair(tcore, b, dtype)
    got, want = getattr(tcore, op)(ta, tb), getattr(torch, op)(pa, pb)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    if want.dtype == torch.bool:
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 17), (5, 16), (2, 1025), (33, 48)])
def test_broadcast_and_number_operands(tcore, dtype, shape):
    rng = np.random.default_rng(1)
    m = rng.standard_normal(shape).astype(np.float32)
    row = rng.standard_normal(shape[1]).astype(np.float32)
    col = rng.standard_normal((shape[0], 1)).astype(np.float32)
    tm, pm = pair(tcore, m, dtype)
    for other in (row, col):
        to, po = pair(tcore, other, dtype)
        np.testing.assert_array_equal(bits(tcore.add(tm, to)), bits(torch.add(pm, po)))
        np.testing.assert_array_equal(bits(tcore.mul(to, tm)), bits(torch.mul(po, pm)))
    np.testing.assert_array_equal(bits(tcore.mul(tm, 1.7)), bits(torch.mul(pm, 1.7)))
    np.testing.assert_array_equal(bits(tcore.add(tm, 0.1)), bits(torch.add(pm, 0.1)))
    np.testing.assert_array_equal(bits(tm.t() + tm.t()), bits(pm.t() + pm.t()))  # strided: the chunk path
    out = tcore.empty(shape, dtype=getattr(tcore, dtype))
    tcore.add(tm, tm, out=out)
    np.testing.assert_array_equal(bits(out), bits(pm + pm))
    tm2 = tm.clone()
    tm2.mul_(tm2)  # in place: out is an input
    np.testing.assert_array_equal(bits(tm2), bits(pm * pm))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", LENGTHS)
def test_unary_runs(tcore, dtype, n):
    rng = np.random.default_rng(n + 100)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    tx, px = pair(tcore, x, dtype)
    for op in ("relu", "neg", "abs"):
        np.testing.assert_array_equal(bits(getattr(tcore, op)(tx)), bits(getattr(torch, op)(px)))
    for op in ("exp", "sigmoid", "tanh"):
        got = getattr(tcore, op)(tx).float().numpy()
        want = getattr(torch, op)(px).float().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-3)  # one float16/bfloat16 rounding apart


@pytest.mark.parametrize("dtype", DTYPES)
def test_sign_bit_kernels(tcore, dtype):
    """abs and neg flip or clear the sign bit without a conversion: signed zeros, subnormals and
    infinities as torch's; NaN stays NaN (its bits are not specified: torch's own differ between its
    scalar and vector paths)."""
    half = dtype == "float16"
    raw = np.array([0x7E01 if half else 0x7FC1, 0xFE02 if half else 0xFFC2, 0x7C01 if half else 0x7F81, 0x8000, 0x0000, 0x0001, 0x8001,
                    0x7C00 if half else 0x7F80, 0xFC00 if half else 0xFF80, 0xC000, 0x3C00],
                   dtype=np.uint16).view(np.int16)
    p = torch.from_numpy(raw).view(getattr(torch, dtype))
    t = from_bits(tcore, raw, dtype)
    nan = torch.isnan(p).numpy()
    assert nan[:3].all() and not nan[3:].any()
    for op in ("abs", "neg"):
        for a, b in ((getattr(tcore, op)(t), getattr(torch, op)(p)), (getattr(tcore, op)(t.flip(0)).flip(0), getattr(torch, op)(p))):
            np.testing.assert_array_equal(bits(a)[3:], bits(b)[3:])
            assert np.isnan(a.float().numpy()[:3]).all()
    u = t.clone()
    u.abs_()
    np.testing.assert_array_equal(bits(u)[3:], bits(p.abs())[3:])
    assert (bits(u)[:3] >= 0).all()  # NaNs too lose their sign


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 5, 64, 65, 4095, 4097, 100_003])
def test_sums_are_the_float32_sums_rounded(tcore, dtype, n):
    """float16/bfloat16 sum and mean convert each vector in registers: the same bits as the sum of
    the float32 copy, rounded once."""
    x = tcore.from_numpy(np.random.default_rng(n).standard_normal(n).astype(np.float32)).to(getattr(tcore, dtype))
    for op in ("sum", "mean"):
        if n == 0 and op == "mean":
            continue
        got = getattr(x, op)()
        want = getattr(x.float(), op)().to(getattr(tcore, dtype))
        assert bits(got).tolist() == bits(want).tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2048, 64), (9, 33), (16, 1000), (7, 5)])
def test_column_sums(tcore, dtype, shape):
    """sum(0) of float16/bfloat16 adds eight rows in float32, exactly where their values span little:
    the float32 kernel's bits; with values 10^5-10^7 apart, within one rounding of the result's dtype."""
    rng = np.random.default_rng(shape[0])
    x = tcore.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(getattr(tcore, dtype))
    for op in ("sum", "mean"):
        got = getattr(x, op)(0)
        want = getattr(x.float(), op)(0).to(getattr(tcore, dtype))
        assert bits(got).tolist() == bits(want).tolist()
    spread = rng.standard_normal(shape).astype(np.float32) * np.where(rng.random(shape) < 0.5, 1e4 if dtype == "bfloat16" else 1e2, 1e-3).astype(np.float32)
    y = tcore.from_numpy(spread).to(getattr(tcore, dtype))
    exact = y.double().sum(0).numpy()
    got = y.sum(0).double().numpy()
    ulp = np.spacing(np.abs(exact).astype(np.float16 if dtype == "float16" else np.float32)).astype(np.float64)
    if dtype == "bfloat16":
        ulp = ulp * 2.0**16  # bfloat16 keeps 8 bits of float32's 24
    assert (np.abs(got - exact) <= ulp).all()
    want = torch.from_numpy(spread).to(getattr(torch, dtype)).sum(0).double().numpy()
    assert (np.abs(got - want) <= ulp).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000, 2048])
def test_softmax_rows_round_once(tcore, dtype, n):
    """softmax/log_softmax of float16/bfloat16 rows: the float32 kernel's values, the last pass (the
    scale or the shift) made as they are rounded: the float32 result rounded, bit for bit."""
    x = tcore.from_numpy(np.random.default_rng(n).standard_normal((5, n)).astype(np.float32) * 3).to(getattr(tcore, dtype))
    for f in (tcore.softmax, tcore.log_softmax):
        assert bits(f(x, 1)).tolist() == bits(f(x.float(), 1).to(getattr(tcore, dtype))).tolist()


def test_bfloat16_column_sums_do_not_overflow_where_double_does_not(tcore):
    """bfloat16 has float32's range: eight rows added in float32 can overflow (3e38 + 3e38) where the
    double accumulator does not; such a group is added in double (it gave NaN)."""
    v = [[3e38] * 4, [3e38] * 4, [-3e38] * 4, [-3e38] * 4] + [[0.0] * 4] * 4 + [[1.0] * 4] * 3
    x = tcore.tensor(v).to(tcore.bfloat16)
    assert x.sum(0).float().tolist() == [3.0] * 4
    assert x.mean(0).float().tolist() == pytest.approx([3.0 / 11] * 4, rel=1e-2)
    inf = tcore.tensor([[float("inf")] * 2, [1.0] * 2] * 4).to(tcore.bfloat16)
    assert inf.sum(0).float().tolist() == [float("inf")] * 2


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_log_softmax_keeps_the_low_bits_of_large_values(tcore, dtype):
    """(x - max) - log(sum), as torch's: max + log(sum) first lost the low bits of x - max."""
    big = 60000.0 if dtype != "float16" else 6000.0
    got = tcore.log_softmax(tcore.full((16,), big).to(getattr(tcore, dtype)), 0)
    want = torch.log_softmax(torch.full((16,), big).to(getattr(torch, dtype)), 0)
    assert got.float().tolist() == want.float().tolist()


def test_layer_norm_parameter_gradients_do_not_overflow_where_double_does_not(tcore):
    """layer_norm's dweight/dbias add eight rows in the compute dtype first; a group whose partial
    overflows (3e38 twice) is added in double (it gave NaN or inf where the sum is 0)."""
    x = tcore.randn(8, 4, requires_grad=True)
    w = tcore.ones(4, requires_grad=True)
    b = tcore.zeros(4, requires_grad=True)
    g = tcore.tensor([[3e38] * 4, [3e38] * 4, [-3e38] * 4, [-3e38] * 4] + [[1.0] * 4] * 4)
    tcore.nn.functional.layer_norm(x, [4], w, b).backward(g)
    assert b.grad.tolist() == [4.0] * 4


@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_of_every_bit_pattern(tcore, dtype):
    """float16/bfloat16 relu works on the bits: every pattern as torch's (a negative number gives
    +0; -0 stays -0, as torch's max(x, 0)), NaN stays the same NaN; in place and transposed alike."""
    raw = np.arange(0, 1 << 16, dtype=np.uint16).view(np.int16)
    x = from_bits(tcore, raw, dtype)
    px = torch.from_numpy(raw.copy()).view(getattr(torch, dtype))
    got, want, nan = bits(tcore.relu(x)), bits(torch.relu(px)), px.isnan().numpy()
    np.testing.assert_array_equal(got[~nan], want[~nan])
    np.testing.assert_array_equal(got[nan], raw[nan])
    y = x.clone()
    y.relu_()
    np.testing.assert_array_equal(bits(y), got)
    square = from_bits(tcore, raw.reshape(256, 256), dtype)
    np.testing.assert_array_equal(bits(tcore.relu(square.t())), got.reshape(256, 256).T)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_relu_keeps_negative_zero_as_torch(tcore, dtype):
    values = [-0.0, 0.0, -1e-30, -2.0, 3.0, float("nan"), float("-inf")]
    got = tcore.relu(tcore.tensor(values, dtype=getattr(tcore, dtype))).float().numpy()
    want = torch.relu(torch.tensor(values, dtype=getattr(torch, dtype))).float().numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["gelu", "exp", "tanh", "sigmoid", "erf", "log1p", "silu", "softplus"])
def test_vector_functions_of_every_bit_pattern_round_the_float32_result(tcore, dtype, op):
    """The float16/bfloat16 runs of the vector functions (bfloat16 thirty-two values a load at
    AVX-512, even and odd elements apart) give, for every bit pattern, the float32 function's
    result rounded once; at each offset into the run (the wide loop, the sixteen-value loop and the
    tail all take part) and the NaNs as NaNs."""
    fn = getattr(tcore.nn.functional, op, None) or getattr(tcore, op)
    raw = np.arange(0, 1 << 16, dtype=np.uint16).view(np.int16)
    x = from_bits(tcore, raw, dtype)
    want = bits(fn(x.float()).to(getattr(tcore, dtype)))
    nan = np.isnan(fn(x.float()).numpy())
    for start in (0, 1, 17, 31):
        got = bits(fn(x[start:]))
        np.testing.assert_array_equal(got[~nan[start:]], want[start:][~nan[start:]])
        assert np.isnan(from_bits(tcore, got, dtype).float().numpy()[nan[start:]]).all()
