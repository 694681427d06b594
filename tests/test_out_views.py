"""Views against PyTorch: out= into, in-place on, and inputs as a view that starts inside its
storage (buf[1]), a transposed view and a strided one (every other column). The kernels write
their result there and touch nothing else of the buffer, as torch does; a kernel that wrote at
the storage's start, or assumed a tensor contiguous from offset 0, fails here. torch is a
test-only oracle."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

rng = np.random.default_rng(5)
A = rng.standard_normal((4, 6)).astype(np.float32)
B = rng.standard_normal((4, 6)).astype(np.float32)
P = (np.abs(A) + 0.5).astype(np.float32)
I = rng.integers(-5, 6, (4, 6)).astype(np.int64)
J = rng.integers(1, 6, (4, 6)).astype(np.int64)
M = rng.standard_normal((6, 5)).astype(np.float32)
IDX = rng.integers(0, 6, (4, 3)).astype(np.int64)
ROWS = np.array([3, 0, 0, 2], dtype=np.int64)

# label -> (function, positional inputs (numpy arrays or Python values), keyword arguments)
CASES = {
    "exp": ("exp", (A,), {}), "log": ("log", (P,), {}), "abs": ("abs", (A,), {}), "neg": ("neg", (I,), {}),
    "sigmoid": ("sigmoid", (A,), {}), "tanh": ("tanh", (A,), {}), "erf": ("erf", (A,), {}),
    "floor": ("floor", (A,), {}), "sign": ("sign", (A,), {}), "sqrt": ("sqrt", (P,), {}),
    "add": ("add", (A, B), {"alpha": 2}), "sub": ("sub", (A, B), {}), "mul": ("mul", (I, J), {}),
    "div": ("div", (A, P), {}), "div floor": ("div", (I, J), {"rounding_mode": "floor"}),
    "maximum": ("maximum", (A, B), {}), "pow": ("pow", (P, B), {}), "remainder": ("remainder", (I, J), {}),
    "fmod": ("fmod", (A, P), {}), "atan2": ("atan2", (A, B), {}), "eq": ("eq", (I, J), {}),
    "lt": ("lt", (A, B), {}), "logical_and": ("logical_and", (A, B), {}), "bitwise_xor": ("bitwise_xor", (I, J), {}),
    "where": ("where", (A > 0, A, B), {}), "clamp": ("clamp", (A, -0.5, 0.5), {}),
    "lerp": ("lerp", (A, B, 0.3), {}),
    "sum dim": ("sum", (A, [0]), {"keepdim": True}), "mean dim": ("mean", (A, [0]), {"keepdim": True}),
    "prod dim": ("prod", (A, 0), {"keepdim": True}), "amax": ("amax", (A, [0]), {"keepdim": True}),
    "argmax": ("argmax", (A, 0), {"keepdim": True}), "cumsum 0": ("cumsum", (A, 0), {}),
    "cumsum 1": ("cumsum", (A, 1), {}), "cumprod 0": ("cumprod", (A, 0), {}),
    "softmax 0": ("softmax", (A, 0), {}), "log_softmax 0": ("log_softmax", (A, 0), {}),
    "softmax 1": ("softmax", (A, 1), {}), "all dim": ("all", (A > -1, 0), {"keepdim": True}),
    "mm": ("mm", (A, M[:, :6]), {}), "matmul": ("matmul", (A, M[:, :6]), {}),
    "gather": ("gather", (A, 1, IDX), {}), "index_select": ("index_select", (A, 0, ROWS), {}),
    "cat": ("cat", ([A[:2], B[:2]],), {}),
}


def _to(lib, value):
    if isinstance(value, np.ndarray):
        return lib.from_numpy(value.copy())
    if isinstance(value, list):
        return [_to(lib, v) for v in value]
    return value


def _views(lib, shape, dtype):
    """(label, buffer, out view of `shape` into it), the buffer filled with a sentinel."""
    sentinel = 7 if dtype in (lib.int64, lib.bool) else -123.0
    rows, cols = shape
    buf = lib.full((3, rows, cols), sentinel, dtype=dtype)
    yield "offset", buf, buf[1]
    buf = lib.full((cols, rows), sentinel, dtype=dtype)
    yield "transposed", buf, buf.t()
    buf = lib.full((rows, 2 * cols), sentinel, dtype=dtype)
    yield "strided", buf, buf[:, ::2]


@pytest.mark.parametrize("label", sorted(CASES))
def test_out_into_views_like_torch(tcore, label):
    name, inputs, kwargs = CASES[label]
    want = getattr(torch, name)(*[_to(torch, v) for v in inputs], **kwargs)
    if want.dim() != 2:
        pytest.skip("the views are of 2-D results")
    shape, tdtype = tuple(want.shape), want.dtype
    dtype = getattr(tcore, str(tdtype).replace("torch.", ""))
    for (kind, tbuf, tout), (_, buf, out) in zip(_views(torch, shape, tdtype), _views(tcore, shape, dtype)):
        getattr(torch, name)(*[_to(torch, v) for v in inputs], **kwargs, out=tout)
        result = getattr(tcore, name)(*[_to(tcore, v) for v in inputs], **kwargs, out=out)
        assert result._is_same(out) if hasattr(result, "_is_same") else True, (label, kind)
        got, expected = buf.numpy(), tbuf.numpy()
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{label}, out= a {kind} view: the buffer differs from torch's")


# in-place operators on the same views: label -> f(lib, view) (the view's own values are A's)
INPLACE = {
    "exp_": lambda L, v: v.exp_(), "add_": lambda L, v: v.add_(L.from_numpy(B.copy()), alpha=0.5),
    "mul_ scalar": lambda L, v: v.mul_(3), "clamp_": lambda L, v: v.clamp_(-0.5, 0.5),
    "masked_fill_": lambda L, v: v.masked_fill_(v > 0, 9.0), "fill_": lambda L, v: v.fill_(2.5),
    "zero_": lambda L, v: v.zero_(), "copy_": lambda L, v: v.copy_(L.from_numpy(B.copy())),
    "div_ floor": lambda L, v: v.div_(L.from_numpy(P.copy()), rounding_mode="floor"),
    "pow_": lambda L, v: v.abs_().pow_(1.5), "tril_": lambda L, v: v.tril_(1),
    "index_add_": lambda L, v: v.index_add_(0, L.from_numpy(ROWS.copy()), L.from_numpy(B.copy())),
    "scatter_add_": lambda L, v: v.scatter_add_(1, L.from_numpy(IDX.copy()), L.from_numpy(B[:, :3].copy())),
    "index_put_ accumulate": lambda L, v: v.index_put_((L.from_numpy(ROWS.copy()),), L.from_numpy(B.copy()),
                                                       accumulate=True),
    "setitem mask": lambda L, v: v.__setitem__(v < 0, 0.25),
    "relu_": lambda L, v: v.relu_(), "sigmoid_": lambda L, v: v.sigmoid_(),
}


@pytest.mark.parametrize("label", sorted(INPLACE))
def test_inplace_on_views_like_torch(tcore, label):
    f = INPLACE[label]
    for (kind, tbuf, tview), (_, buf, view) in zip(_views(torch, A.shape, torch.float32),
                                                   _views(tcore, A.shape, tcore.float32)):
        tview.copy_(torch.from_numpy(A.copy()))
        view.copy_(tcore.from_numpy(A.copy()))
        f(torch, tview)
        f(tcore, view)
        np.testing.assert_allclose(buf.numpy(), tbuf.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{label} on a {kind} view: the buffer differs from torch's")


def _as_view(lib, array: np.ndarray, kind: str):
    """`array` as an offset, a transposed or a strided view of a larger tensor."""
    t = lib.from_numpy(np.ascontiguousarray(array))
    if kind == "offset":
        buf = lib.stack([lib.zeros_like(t), t, lib.zeros_like(t)])
        return buf[1]
    if kind == "transposed":
        return lib.from_numpy(np.ascontiguousarray(array.T)).t()
    buf = lib.zeros((array.shape[0], 2 * array.shape[1]), dtype=t.dtype)
    buf[:, ::2] = t
    return buf[:, ::2]


# functional operators whose tensor inputs arrive as views: label -> (function, inputs, kwargs)
VIEW_INPUTS = {
    "gather": ("gather", (A, 1, IDX), {}), "index_select": ("index_select", (A, 1, ROWS), {}),
    "scatter_add": ("scatter_add", (A, 1, IDX, B), {}), "index_add": ("index_add", (A, 0, ROWS, B), {}),
    "cat": ("cat", ([A, B], 1), {}), "where": ("where", (A > 0, A, B), {}), "mm": ("mm", (A, M[:, :6]), {}),
    "softmax": ("softmax", (A, 0), {}), "cumsum": ("cumsum", (A, 0), {}), "argmax": ("argmax", (A, 0), {}),
    "masked_fill": ("masked_fill", (A, A > 0, 2.0), {}), "tril": ("tril", (A,), {}), "flip": ("flip", (A, [0, 1]), {}),
    "clamp": ("clamp", (A, -0.3, 0.3), {}), "remainder": ("remainder", (I, J), {}),
}


@pytest.mark.parametrize("kind", ["offset", "transposed", "strided"])
@pytest.mark.parametrize("label", sorted(VIEW_INPUTS))
def test_inputs_as_views_like_torch(tcore, label, kind):
    name, inputs, kwargs = VIEW_INPUTS[label]

    def args(lib):
        out = []
        for v in inputs:
            if isinstance(v, np.ndarray) and v.ndim == 2:
                out.append(_as_view(lib, v, kind))
            elif isinstance(v, list) and all(isinstance(u, np.ndarray) for u in v):
                out.append([_as_view(lib, u, kind) for u in v])
            else:
                out.append(_to(lib, v))
        return out

    want = getattr(torch, name)(*args(torch), **kwargs)
    got = getattr(tcore, name)(*args(tcore), **kwargs)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1] and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-5, atol=1e-6)


# The elementwise loop's tiles (native/cpu/Loops.h, tiled_loop_2d): a transposed operand of at
# least 128 rows, tiles of 64 rows by 8-32 columns (by the element size), ragged edges, negative
# strides, a transposed out, every element size.
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int16", "bool", "float16"])
@pytest.mark.parametrize("rows, cols", [(128, 16), (129, 77), (300, 130), (1000, 513)])
def test_tiled_transposed_operands(tcore, dtype, rows, cols):
    tc = tcore
    r = np.random.default_rng(rows * 1000 + cols)
    x = (r.standard_normal((rows, cols)) * 20).astype(dtype)
    y = (r.standard_normal((cols, rows)) * 20).astype(dtype)
    tx, ty = tc.from_numpy(x.copy()), tc.from_numpy(y.copy())
    op = np.logical_or if dtype == "bool" else np.add
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal((tx + ty.t()).numpy(), op(x, y.T))
        np.testing.assert_array_equal(ty.t().contiguous().numpy(), y.T)
        np.testing.assert_array_equal((tx.flip(0) + ty.t().flip(1)).numpy(), op(x[::-1], y.T[:, ::-1]))
        out = tc.from_numpy(np.zeros((cols, rows), dtype=dtype)).t()  # a transposed out
        tc.add(tx, tx, out=out)
        np.testing.assert_array_equal(out.numpy(), op(x, x))


# Transposed operands of 4 and 8 bytes go through a buffer (64 x 256 tiles transposed by vector
# blocks: 8 x 8 / 4 x 4 with AVX, 4 x 4 / 2 x 2 with SSE2): ragged tiles and blocks, both operands transposed, a transposed out (the
# buffer is transposed back), in place on a transposed tensor, unary kernels and where (its bool
# condition keeps the narrow tiles), 4- and 8-byte dtypes; bit-exact against numpy.
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "int64"])
@pytest.mark.parametrize("rows, cols", [(64, 64), (67, 131), (130, 65), (257, 300), (64, 4099), (300, 257)])
def test_buffered_transposed_operands(tcore, dtype, rows, cols):
    tc = tcore
    r = np.random.default_rng(rows * 7 + cols)
    def sample(shape):
        return (r.standard_normal(shape) * 1000).astype(dtype)
    x, y, z = sample((rows, cols)), sample((cols, rows)), sample((cols, rows))
    tx, ty, tz = tc.from_numpy(x.copy()), tc.from_numpy(y.copy()), tc.from_numpy(z.copy())
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal((tx + ty.t()).numpy(), x + y.T)
        np.testing.assert_array_equal((ty.t() * tx).numpy(), y.T * x)
        np.testing.assert_array_equal((ty.t() - tz.t()).numpy(), y.T - z.T)  # both through buffers
        np.testing.assert_array_equal(ty.t().contiguous().numpy(), y.T)
        np.testing.assert_array_equal(tc.neg(ty.t()).numpy(), -y.T)
        out = tc.from_numpy(np.zeros((cols, rows), dtype=dtype)).t()  # a transposed out, contiguous inputs
        tc.add(tx, tx, out=out)
        np.testing.assert_array_equal(out.numpy(), x + x)
        np.testing.assert_array_equal(out.contiguous().numpy(), x + x)
        inplace = tc.from_numpy(y.copy())
        inplace.t().add_(tx)  # self transposed: read and written through the buffer
        np.testing.assert_array_equal(inplace.numpy(), y + x.T)
        cond = tc.from_numpy(r.standard_normal((cols, rows)) > 0)
        np.testing.assert_array_equal(tc.where(cond.t(), tx, ty.t()).numpy(), np.where(cond.numpy().T, x, y.T))
        cond = cond.t().contiguous()  # a bool operand that runs along the rows: the buffered tiles
        np.testing.assert_array_equal(tc.where(cond, ty.t(), tx).numpy(), np.where(cond.numpy(), y.T, x))
        if dtype in ("float32", "float64"):
            np.testing.assert_allclose(tc.exp(ty.t() / 1000).numpy(), np.exp(y.T / 1000), rtol=4e-7 if dtype == "float32" else 1e-15)


# The buffers move bytes with vector shuffles: every bit pattern survives a transposing copy,
# NaN payloads and signaling NaNs included, for 4- and 8-byte floats.
@pytest.mark.parametrize("dtype, bits", [("float32", "uint32"), ("float64", "uint64")])
def test_buffered_transpose_keeps_every_bit(tcore, dtype, bits):
    r = np.random.default_rng(5)
    raw = r.integers(0, np.iinfo(bits).max, size=(300, 257), dtype=bits, endpoint=True)
    raw[::7, ::5] = np.array(0x7F800001 if bits == "uint32" else 0x7FF0000000000001, dtype=bits)  # signaling NaN
    x = raw.view(dtype)
    t = tcore.from_numpy(x.copy())
    np.testing.assert_array_equal(t.t().contiguous().numpy().view(bits), raw.T)
    out = tcore.from_numpy(np.zeros((257, 300), dtype=dtype)).t()
    out.copy_(t)  # into a transposed out: through the buffer and back
    np.testing.assert_array_equal(out.numpy().view(bits), raw)


# Outputs of 32 MiB and more, whose rows run along the tiles' rows, leave the buffered tiles row by
# row through non-temporal stores (a row buffer, then aligned vector stores, plain copies at the
# ends), and the inputs read in place are prefetched rows ahead (into the next tile at a tile's end;
# never past a short last band): ragged tiles, a short last band (rows % 64 == 3), an out whose
# rows are not aligned to a vector (a view one element in), in place on the contiguous operand,
# negative strides, where with a bool condition read in place;
# bit-exact against numpy. The fence after the streamed rows: the result is read by this thread
# after another wrote it (two threads).
@pytest.mark.parametrize("dtype, rows, cols", [("float32", 2883, 2917), ("float64", 2051, 2050)])
def test_streamed_output_of_buffered_tiles(tcore, dtype, rows, cols):
    tc = tcore
    assert rows * cols * np.dtype(dtype).itemsize >= 32 << 20
    r = np.random.default_rng(rows)
    x = r.standard_normal((rows, cols)).astype(dtype)
    y = r.standard_normal((cols, rows)).astype(dtype)
    tx, ty = tc.from_numpy(x.copy()), tc.from_numpy(y.copy())
    threads = tc.get_num_threads()
    try:
        for n in (1, 2):
            tc.set_num_threads(n)
            np.testing.assert_array_equal((tx + ty.t()).numpy(), x + y.T)
            np.testing.assert_array_equal(ty.t().contiguous().numpy(), y.T)
            big = tc.from_numpy(np.zeros((rows + 1, cols + 1), dtype=dtype))
            out = big[1:, 1:]  # rows start one element past a vector boundary
            tc.mul(tx, ty.t(), out=out)
            np.testing.assert_array_equal(out.numpy(), x * y.T)
            np.testing.assert_array_equal(big.numpy()[0], 0)  # nothing written outside the view
            np.testing.assert_array_equal(big.numpy()[:, 0], 0)
            inplace = tc.from_numpy(x.copy())
            inplace.sub_(ty.t())  # out = the input read in place (and prefetched)
            np.testing.assert_array_equal(inplace.numpy(), x - y.T)
            # negative strides: the in-place input's rows and the transposed operand's rows past
            # the tile are prefetched backwards through memory
            np.testing.assert_array_equal((tx.flip(0) + ty.t().flip(1)).numpy(), x[::-1] + y.T[:, ::-1])
            cond = tc.from_numpy(r.standard_normal((rows, cols)) > 0)  # a 1-byte input read in place
            np.testing.assert_array_equal(tc.where(cond, tx, ty.t()).numpy(), np.where(cond.numpy(), x, y.T))
    finally:
        tc.set_num_threads(threads)


# The loops hand a kernel's body two dims at a time (native/cpu/Loops.cpp: m runs of n elements in
# one call): geometries of 2-4 dims that do not coalesce, thread ranges that start and end inside a
# row (two threads split ~100K elements mid-row), whole rows in one call, carries into the dims
# above, broadcast operands (stride 0) along the outer and the inner dim, a permuted out, short rows
# (3 elements); bit-exact against numpy at one and two threads.
@pytest.mark.parametrize("dtype", ["float32", "int64", "int8"])
@pytest.mark.parametrize("shape, perm", [((3, 37, 1001), (1, 0, 2)), ((5, 7, 11, 173), (2, 0, 3, 1)),
                                         ((40001, 3), (1, 0)), ((6, 33335, 1), (1, 0, 2)), ((4, 5), (1, 0))])
def test_loops_run_two_dims_at_a_time(tcore, dtype, shape, perm):
    tc = tcore
    r = np.random.default_rng(sum(shape))
    x = (r.standard_normal(shape) * 50).astype(dtype)
    xp = x.transpose(perm)
    y = (r.standard_normal(xp.shape) * 50).astype(dtype)
    inner = (r.standard_normal(xp.shape[-1:]) * 50).astype(dtype)  # broadcast along every outer dim
    outer = (r.standard_normal(xp.shape[:1] + (1,) * (xp.ndim - 1)) * 50).astype(dtype)  # along the inner ones
    tx, ty = tc.from_numpy(x.copy()).permute(*perm), tc.from_numpy(y.copy())
    threads = tc.get_num_threads()
    try:
        for n in (1, 2):
            tc.set_num_threads(n)
            with np.errstate(over="ignore"):
                np.testing.assert_array_equal((tx + ty).numpy(), xp + y)
                np.testing.assert_array_equal((tx * tc.from_numpy(inner.copy())).numpy(), xp * inner)
                np.testing.assert_array_equal((tc.from_numpy(outer.copy()) - tx).numpy(), outer - xp)
                np.testing.assert_array_equal(tx[..., ::2].neg().numpy(), -xp[..., ::2])
                out = tc.from_numpy(np.zeros(shape, dtype=dtype)).permute(*perm)  # out in x's layout
                tc.mul(ty, ty, out=out)
                np.testing.assert_array_equal(out.numpy(), y * y)
    finally:
        tc.set_num_threads(threads)
