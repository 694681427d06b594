"""Advanced indexing (tcore/_indexing.py over the index/index_put_ operators) against
numpy where numpy and PyTorch agree, against hand-derived results where they differ
(PyTorch applies ints before the advanced indices), and against torch when installed."""
from __future__ import annotations

import numpy as np
import pytest

BASE = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
MASK2 = (BASE[:, :, 0] % 3 == 0)  # (3, 4)
I = np.array([2, 0, -1, 0])


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


# index expressions on which numpy and PyTorch agree (the index shapes and their order)
CASES = {
    "int list": lambda: [0, 2],
    "negative ints": lambda: [-1, -3, 0],
    "repeated ints": lambda: [1, 1, 1, 0],
    "numpy array": lambda: np.array([2, 1]),
    "2-d index": lambda: np.array([[0, 1], [2, 2]]),
    "empty list": lambda: [],
    "bool mask 1-d": lambda: np.array([True, False, True]),
    "bool mask 2-d": lambda: MASK2,
    "bool mask 3-d": lambda: BASE % 7 == 0,
    "mask after slice": lambda: (slice(None), np.array([True, False, True, True])),
    "all-false mask": lambda: np.zeros(3, dtype=bool),
    "two lists broadcast": lambda: ([0, 2], [[1], [3]]),
    "three lists": lambda: ([0, 1], [1, 2], [3, 4]),
    "slice then list": lambda: (slice(1, None), [0, 3]),
    "list, slice, list (non-adjacent)": lambda: ([0, 1], slice(None), [4, 0]),
    "None and list": lambda: (None, [0, 2]),
    "ellipsis then list": lambda: (Ellipsis, [1, 4]),
    "list then ellipsis": lambda: ([2], Ellipsis),
    "list, ellipsis, list": lambda: ([0, 1], Ellipsis, [1, 2]),
    "slice with step and list": lambda: (slice(None, None, 2), slice(None), [0, -1]),
    "list between slices": lambda: (slice(None), [3, 0], slice(1, 3)),
    "None between lists": lambda: (slice(None), [0, 1], None, [1, 2]),
    "mask and list": lambda: (np.array([True, False, True]), [0, 3]),
}


def as_tcore(tc, index):
    """The same index with numpy arrays turned into tcore tensors (lists stay lists)."""
    def conv(i):
        return tc.from_numpy(np.ascontiguousarray(i)) if isinstance(i, np.ndarray) else i
    return tuple(conv(i) for i in index) if isinstance(index, tuple) else conv(index)


@pytest.mark.parametrize("name", sorted(CASES))
def test_read_matches_numpy(tcore, name):
    index = CASES[name]()
    expected = BASE[index]
    got = tcore.tensor(BASE)[as_tcore(tcore, index)]
    assert tuple(got.shape) == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)


@pytest.mark.parametrize("name", sorted(CASES))
def test_read_non_contiguous_source(tcore, name):
    base = np.ascontiguousarray(BASE.transpose(2, 1, 0)).transpose(2, 1, 0)  # same values, permuted strides
    t = tcore.tensor(np.ascontiguousarray(BASE.transpose(2, 1, 0))).permute(2, 1, 0)
    assert not t.is_contiguous()
    index = CASES[name]()
    np.testing.assert_array_equal(t[as_tcore(tcore, index)].numpy(), base[index])


@pytest.mark.parametrize("name", sorted(CASES))
def test_write_matches_numpy(tcore, name):
    index = CASES[name]()
    expected = BASE.copy()
    expected[index] = -1
    t = tcore.tensor(BASE)
    t[as_tcore(tcore, index)] = -1
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("name", sorted(CASES))
def test_write_tensor_values(tcore, name):
    index = CASES[name]()
    shape = BASE[index].shape
    values = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    expected = BASE.copy()
    expected[index] = values
    t = tcore.tensor(BASE)
    t[as_tcore(tcore, index)] = tcore.tensor(values)
    if name == "repeated ints":  # which write wins is unspecified: compare only untouched rows
        np.testing.assert_array_equal(t.numpy()[2], expected[2])
        return
    np.testing.assert_array_equal(t.numpy(), expected)


# PyTorch's own results where numpy differs: ints are selections applied first
def test_int_and_list_separated_by_slice(tcore):
    t = tcore.tensor(BASE)
    got = t[0, :, [0, 1]]
    assert tuple(got.shape) == (4, 2)  # numpy: (2, 4)
    np.testing.assert_array_equal(got.numpy(), BASE[0][:, [0, 1]])
    assert tuple(t[[0, 1], :, 0].shape) == (2, 4)
    assert tuple(t[:, 0, [0, 1]].shape) == (3, 2)


def test_bool_scalars_and_zero_dim_tensors(tcore):
    t = tcore.tensor(BASE)
    assert tuple(t[True].shape) == (1, 3, 4, 5)
    assert tuple(t[False].shape) == (0, 3, 4, 5)
    assert tuple(t[None, True].shape) == (1, 1, 3, 4, 5)
    assert tuple(t[tcore.tensor(True)].shape) == (1, 3, 4, 5)
    assert tuple(t[tcore.tensor(False)].shape) == (0, 3, 4, 5)
    assert tuple(t[0, True].shape) == (1, 4, 5)
    assert tuple(t[[0, 1], True].shape) == (2, 4, 5)
    got = t[tcore.tensor(1)]  # a 0-dim integer tensor selects as an int, torch's: a view
    assert tuple(got.shape) == (4, 5)
    np.testing.assert_array_equal(got.numpy(), BASE[1])
    got[0, 0] = 1000
    assert t[1, 0, 0].item() == 1000


def test_nested_list_is_a_tuple_like_pytorch(tcore):
    t = tcore.tensor(BASE)
    assert tuple(t[[[0, 1]]].shape) == (2, 4, 5)  # PyTorch 2.13 reads it as t[[0, 1]]
    assert tuple(t[[0, slice(None)]].shape) == (4, 5)
    np.testing.assert_array_equal(t[(0, 1)].numpy(), BASE[0, 1])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "bool", "int8", "int32", "int64", "float64"])
def test_every_dtype(tcore, dtype):
    t = tcore.tensor(BASE).to(getattr(tcore, dtype))
    idx = tcore.tensor([2, 0])
    got = t[idx]
    assert got.dtype == t.dtype and tuple(got.shape) == (2, 4, 5)
    np.testing.assert_array_equal(got.float().numpy(), t.float().numpy()[[2, 0]])
    old = t.float().numpy().copy()
    t[idx] = t[tcore.tensor([0, 1])]  # row 2 <- row 0, row 0 <- row 1
    np.testing.assert_array_equal(t.float().numpy()[[2, 0, 1]], old[[0, 1, 1]])


def test_int32_index_tensor(tcore):
    t = tcore.tensor(BASE)
    np.testing.assert_array_equal(t[tcore.tensor([1, 2], dtype=tcore.int32)].numpy(), BASE[[1, 2]])


def test_empty_tensor_and_empty_index(tcore):
    e = tcore.zeros(0, 3)
    assert tuple(e[tcore.tensor([], dtype=tcore.int64)].shape) == (0, 3)
    assert tuple(e[e.sum(1) > 0].shape) == (0, 3)
    t = tcore.tensor(BASE)
    assert tuple(t[:, []].shape) == (3, 0, 5)
    with pytest.raises(IndexError, match="index 0 is out of bounds for dimension 0 with size 0"):
        e[[0]]


def test_indexing_a_view_writes_the_base(tcore):
    t = tcore.tensor(BASE)
    row = t[1]
    row[[0, 2]] = 7.0
    expected = BASE.copy()
    expected[1, [0, 2]] = 7.0
    np.testing.assert_array_equal(t.numpy(), expected)
    t[1:, [True, False, False, True]] = 0.0
    expected[1:, [0, 3]] = 0.0
    np.testing.assert_array_equal(t.numpy(), expected)


def test_setitem_values_broadcast_and_convert(tcore):
    t = tcore.zeros(3, 4)
    t[[0, 2]] = tcore.arange(4)  # int64 into float32, broadcast over the index dim
    np.testing.assert_array_equal(t.numpy()[[0, 2]], np.tile(np.arange(4, dtype=np.float32), (2, 1)))
    t = tcore.zeros(3)
    t[[0, 1]] = tcore.ones(1, 1, 2)  # extra leading ones are dropped, as in PyTorch
    np.testing.assert_array_equal(t.numpy(), [1, 1, 0])
    t = tcore.zeros(2, 3)
    t[0] = tcore.ones(1, 3)
    np.testing.assert_array_equal(t.numpy(), [[1, 1, 1], [0, 0, 0]])
    t = tcore.zeros(3)
    t[[0, 2]] = [5, 6]
    np.testing.assert_array_equal(t.numpy(), [5, 0, 6])


def test_augmented_assignment_with_repeats(tcore):
    t = tcore.zeros(3)
    idx = tcore.tensor([0, 0, 1])
    t[idx] += 1  # read, add, write back: a repeated index is written once (as PyTorch and numpy)
    np.testing.assert_array_equal(t.numpy(), [1, 1, 0])


def test_index_put_accumulate(tcore):
    rng = np.random.default_rng(1)
    idx = rng.integers(-4, 4, 50)
    vals = rng.standard_normal(50).astype(np.float32)
    expected = np.zeros(4, np.float32)
    np.add.at(expected, idx, vals)
    t = tcore.zeros(4)
    out = t.index_put_([tcore.tensor(idx)], tcore.tensor(vals), accumulate=True)
    np.testing.assert_array_equal(out.numpy(), t.numpy())
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-5, atol=1e-6)
    # functional form leaves its input alone; a 2-d accumulate with a broadcast value
    base = tcore.zeros(2, 3)
    got = tcore.index_put(base, [tcore.tensor([0, 0, 1]), tcore.tensor([2, 2, 0])], tcore.tensor(1.5), accumulate=True)
    np.testing.assert_array_equal(got.numpy(), [[0, 0, 3], [1.5, 0, 0]])
    assert base.sum().item() == 0


def test_index_put_bool_accumulate_and_aliasing(tcore):
    b = tcore.zeros(3, dtype=tcore.bool)
    b.index_put_([tcore.tensor([1, 1])], tcore.tensor(True), accumulate=True)
    assert b.tolist() == [False, True, False]
    # values aliasing part of the destination are refused, as torch's (tcore computed them from the
    # values as they were)
    message = "some elements of the input tensor and the written-to tensor refer to a single memory location"
    t = tcore.arange(5)
    with pytest.raises(RuntimeError, match=message):
        t[tcore.tensor([1, 2, 3])] = t[0:3]
    with pytest.raises(RuntimeError, match=message):
        t.index_put_([tcore.tensor([1, 2, 3])], t[0:3])
    assert t.tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("index, error, message", [
    ([3], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    ([-4], IndexError, "index -4 is out of bounds for dimension 0 with size 3"),
    ((slice(None), [0, 9]), IndexError, "index 9 is out of bounds for dimension 1 with size 4"),
    ([[0, 1], [0, 1, 2]], IndexError, "shape mismatch: indexing tensors could not be broadcast together with shapes "
                                      r"\[2\], \[3\]"),
    (np.array([True, False]), IndexError, r"The shape of the mask \[2\] at index 0 does not match the shape of the "
                                          r"indexed tensor \[3, 4, 5\] at index 0"),
    (np.array([0.5]), IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    (([0], [0], [0], [0]), IndexError, "too many indices for tensor of dimension 3"),
    ((np.ones((3, 4), bool), [0], [0]), IndexError, "too many indices for tensor of dimension 3"),
    ("a", IndexError, "only integers, slices"),
    ({1: 2}, IndexError, "only integers, slices"),
])
def test_bad_indices(tcore, index, error, message):
    t = tcore.tensor(BASE)
    with pytest.raises(error, match=message):
        t[as_tcore(tcore, index)]


def test_bad_writes(tcore):
    t = tcore.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot be broadcast to "
                                           r"indexing result of shape \[2, 4\]"):
        t[[0, 1]] = tcore.ones(3)
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        t[[5]] = 1.0
    assert t.sum().item() == 0  # nothing was written
    with pytest.raises(TypeError, match="can't assign a dict"):
        t[[0]] = {}
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        t.index_put_([tcore.tensor([0])], tcore.ones(4, dtype=tcore.float64))


# ------------------------------------------------------------------ autograd
def test_index_backward_accumulates_repeats(tcore):
    x = tcore.tensor(BASE, requires_grad=True)
    idx = np.array([0, 2, 0, 0])
    y = x[tcore.tensor(idx)]
    w = np.random.default_rng(2).standard_normal(y.shape).astype(np.float32)
    (y * tcore.tensor(w)).sum().backward()
    expected = np.zeros_like(BASE)
    np.add.at(expected, idx, w)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


def test_mask_backward(tcore):
    x = tcore.tensor(BASE, requires_grad=True)
    mask = BASE % 4 == 1
    x[tcore.tensor(mask)].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), mask.astype(np.float32))


def test_index_double_backward(tcore):
    x = tcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x[tcore.tensor([0, 0, 2])] ** 2).sum()
    (g,) = tcore.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [4.0, 0.0, 6.0])
    (gg,) = tcore.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [4.0, 0.0, 2.0])


def test_index_put_backward(tcore):
    base = tcore.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    vals = tcore.tensor([10.0, 20.0], requires_grad=True)
    idx = [tcore.tensor([0, 2]), tcore.tensor([1, 1])]
    out = tcore.index_put(base, idx, vals)
    w = tcore.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (out * w).sum().backward()
    np.testing.assert_array_equal(base.grad.numpy(), [[1, 0], [3, 4], [5, 0]])  # overwritten cells get nothing
    np.testing.assert_array_equal(vals.grad.numpy(), [2, 6])
    base.grad = None
    vals.grad = None
    out = tcore.index_put(base, idx, vals, accumulate=True)
    (out * w).sum().backward()
    np.testing.assert_array_equal(base.grad.numpy(), w.numpy())


def test_setitem_records_history(tcore):
    v = tcore.tensor([1.0, 2.0], requires_grad=True)
    x = tcore.zeros(4) * 1.0
    x[tcore.tensor([3, 0])] = v * 3
    x.sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [3, 3])


# ------------------------------------------------------------------ masks, nonzero, where
def test_nonzero_and_argwhere(tcore):
    a = np.array([[0, 1.5, 0], [np.nan, 0, -2]], dtype=np.float32)
    t = tcore.tensor(a)
    expected = np.argwhere(a != 0)
    np.testing.assert_array_equal(t.nonzero().numpy(), expected)
    np.testing.assert_array_equal(tcore.argwhere(t).numpy(), expected)
    assert t.nonzero().dtype == tcore.int64
    assert tuple(tcore.tensor(5.0).nonzero().shape) == (1, 0)
    assert tuple(tcore.tensor(0.0).nonzero().shape) == (0, 0)
    assert tuple(tcore.zeros(0, 3).nonzero().shape) == (0, 2)
    rows, cols = tcore.nonzero(t, as_tuple=True)
    np.testing.assert_array_equal(rows.numpy(), [0, 1, 1])
    np.testing.assert_array_equal(cols.numpy(), [1, 0, 2])
    r, c = tcore.where(t != 0)
    np.testing.assert_array_equal(c.numpy(), [1, 0, 2])


def test_masked_select_broadcasts(tcore):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    m = np.array([True, False, True])
    np.testing.assert_array_equal(tcore.masked_select(tcore.tensor(a), tcore.tensor(m)).numpy(),
                                  a[np.broadcast_to(m, a.shape)])
    np.testing.assert_array_equal(tcore.tensor(2.0).masked_select(tcore.tensor(True)).numpy(), [2.0])
    x = tcore.tensor(a, requires_grad=True)
    x.masked_select(tcore.tensor(m)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.broadcast_to(m, a.shape).astype(np.float32))


def test_masked_fill(tcore):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    m = np.array([[True], [False]])
    t = tcore.tensor(a)
    np.testing.assert_array_equal(t.masked_fill(tcore.tensor(m), -1).numpy(), np.where(m, -1, a))
    np.testing.assert_array_equal(t.masked_fill(tcore.tensor(m), tcore.tensor(7.0)).numpy(), np.where(m, 7, a))
    t.masked_fill_(tcore.tensor(m), 3.5)
    np.testing.assert_array_equal(t.numpy(), np.where(m, 3.5, a))
    ints = tcore.zeros(2, dtype=tcore.int64).masked_fill(tcore.tensor([True, False]), 1.7)
    assert ints.tolist() == [1, 0]  # truncated, as in PyTorch
    grown = tcore.zeros(1).masked_fill(tcore.tensor([True, False]), 1.0)  # out of place: broadcast shape
    assert grown.tolist() == [1.0, 0.0]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        tcore.zeros(1).masked_fill_(tcore.tensor([True, False]), 1.0)
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        t.masked_fill(tcore.tensor([1, 0, 1]), 0.0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        t.masked_fill(tcore.tensor(m), tcore.tensor([1.0]))


def test_masked_fill_backward(tcore):
    x = tcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = tcore.tensor(5.0, requires_grad=True)
    m = tcore.tensor([True, False, True])
    (x.masked_fill(m, v) * tcore.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 2, 0])
    assert v.grad.item() == 4.0


def test_where_with_numbers(tcore):
    c = tcore.tensor([True, False, True])
    x = tcore.tensor([1.0, 2.0, 3.0])
    assert tcore.where(c, x, 0.0).tolist() == [1.0, 0.0, 3.0]
    assert tcore.where(c, x, 0.0).dtype == tcore.float32
    assert tcore.where(c, 0, x).tolist() == [0.0, 2.0, 0.0]
    assert tcore.where(c, tcore.arange(3), 0.5).dtype == tcore.float32
    assert tcore.where(c, tcore.arange(3), 7).dtype == tcore.int64
    assert tcore.where(c, 1, 0).dtype == tcore.int64
    assert tcore.where(c, 1.0, 0).dtype == tcore.float32
    assert x.where(c, -1.0).tolist() == [1.0, -1.0, 3.0]
    xg = tcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tcore.where(c, xg, 0.0).sum().backward()
    assert xg.grad.tolist() == [1.0, 0.0, 1.0]


def test_against_torch_when_installed(tcore):
    torch = _torch()
    if torch is None:
        pytest.skip("torch is not installed")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5, 6)).astype(np.float32)
    for index in [(0, slice(None), [0, 1]), ([1, 2], 0), (slice(None), 1, [[0], [2]]), (None, [0, 3], ..., 2),
                  ([True, False, True, True], slice(None, None, 2)), (1, [True] * 5)]:
        expected = torch.from_numpy(a)[index].numpy()
        got = tcore.tensor(a)[index].numpy()
        assert got.shape == expected.shape, index
        np.testing.assert_array_equal(got, expected)


ZERO_DIM_AND_ELLIPSES = {
    "0-d int": lambda t: (t.tensor(1),),
    "0-d int32 and int": lambda t: (t.tensor(1, dtype=t.int32), 1),
    "0-d negative": lambda t: (t.tensor(-1),),
    "0-d uint8 is a mask": lambda t: (t.tensor(1, dtype=t.uint8),),
    "0-d, slice, list": lambda t: (t.tensor(1), slice(None), t.tensor([1, 2])),
    "0-d, None, list": lambda t: (t.tensor(1), None, t.tensor([1, 2])),
    "0-d, slice, int": lambda t: (t.tensor(1), slice(None), 2),
    "two ellipses": lambda t: (Ellipsis, Ellipsis),
    "ellipsis, int, ellipsis": lambda t: (Ellipsis, 0, Ellipsis),
    "int, ellipsis, ellipsis": lambda t: (0, Ellipsis, Ellipsis),
    "ellipsis, None, ellipsis": lambda t: (Ellipsis, None, Ellipsis),
    "ellipsis, list, ellipsis": lambda t: (Ellipsis, [0, 1], Ellipsis),
}


@pytest.mark.parametrize("name", sorted(ZERO_DIM_AND_ELLIPSES))
def test_zero_dim_indices_and_ellipses_as_torch(tcore, name):
    """A 0-dim integer tensor selects as an int (a view; the result dims placed as an int's,
    not an advanced index's); each `...` passes over the dims no other item names."""
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
        index = ZERO_DIM_AND_ELLIPSES[name](lib)
        y = (x * 1)[index]
        y.sum().backward()
        written = lib.zeros(2, 3, 4)
        written[index] = 7
        return y.tolist(), tuple(y.shape), y.stride(), y._is_view(), x.grad.tolist(), written.tolist()

    assert run(tcore) == run(torch)


NEGATIVE_INDEX = {
    "gather": lambda t: t.arange(3.0).gather(0, t.tensor([-1])),
    "index_select": lambda t: t.arange(3.0).index_select(0, t.tensor([-1])),
    "index_add": lambda t: t.zeros(3).index_add(0, t.tensor([-1]), t.ones(1)),
    "scatter_add": lambda t: t.zeros(3).scatter_add(0, t.tensor([-1]), t.ones(1)),
    "embedding": lambda t: t.nn.functional.embedding(t.tensor([-1]), t.eye(3)),
    "advanced index": lambda t: t.arange(3.0)[t.tensor([-1])],
    "index_put": lambda t: t.zeros(3).index_put((t.tensor([-1]),), t.ones(1)),
}


@pytest.mark.parametrize("name", sorted(NEGATIVE_INDEX))
def test_negative_index_refused_or_counted_from_the_end_as_torch(tcore, name):
    """gather, index_select, index_add, scatter_add and embedding refuse a negative index (torch's
    IndexError/RuntimeError; tcore counted it from the end); indexing and index_put count it."""
    torch = pytest.importorskip("torch")

    def run(lib):
        try:
            return NEGATIVE_INDEX[name](lib).tolist()
        except (IndexError, RuntimeError):
            return "refused"

    assert run(tcore) == run(torch)


INDEX_DTYPES = {
    "int8 tensor": lambda t: (t.tensor([1, 2], dtype=t.int8),),
    "int16 tensor": lambda t: (t.tensor([1, 2], dtype=t.int16),),
    "int32 tensor": lambda t: (t.tensor([1, 2], dtype=t.int32),),
    "0-d int8 selects": lambda t: (t.tensor(1, dtype=t.int8),),
    "0-d int16 selects": lambda t: (t.tensor(-1, dtype=t.int16),),
    "numpy int8 array": lambda t: (np.array([1, 2], dtype=np.int8),),
    "numpy uint16 array": lambda t: (np.array([3, 0], dtype=np.uint16),),
    "numpy uint8 array masks": lambda t: (np.array([1, 0, 0, 1, 1, 0], dtype=np.uint8),),
    "float tensor": lambda t: (t.tensor([1.0]),),
}


@pytest.mark.parametrize("name", sorted(INDEX_DTYPES))
def test_index_dtypes_as_torch(tcore, name):
    """int8 and int16 index tensors are refused as torch's (an IndexError; a 0-dim one selects as an
    int); a numpy array is a list of ints, except a uint8 one, which masks."""
    torch = pytest.importorskip("torch")

    def run(lib):
        index = INDEX_DTYPES[name](lib)
        results = []
        # (torch refuses to write through a uint8 numpy array, "masked_fill_ only supports boolean masks")
        actions = ("get",) if name == "numpy uint8 array masks" else ("get", "set", "index_put")
        for action in actions:
            x = lib.arange(6.0)
            try:
                if action == "get":
                    results.append(x[index].tolist())
                elif action == "set":
                    x[index] = 7
                    results.append(x.tolist())
                elif isinstance(index[0], lib.Tensor):
                    results.append(x.index_put(index, lib.tensor(7.0)).tolist())
            except IndexError as e:
                results.append(("IndexError", str(e)))
        return results

    assert run(tcore) == run(torch)


TAKE = {
    "2-d index": lambda t: t.take(t.arange(6.0).reshape(2, 3), t.tensor([[-1, 0], [5, 2]])),
    "0-d self and index": lambda t: t.take(t.tensor(3.0), t.tensor(0)),
    "transposed self": lambda t: t.arange(6.0).reshape(2, 3).t().take(t.tensor([1, 4])),
    "empty index": lambda t: t.take(t.ones(0), t.tensor([], dtype=t.long)),
    "out of range": lambda t: t.take(t.arange(6.0), t.tensor([6])),
    "below range": lambda t: t.take(t.arange(6.0), t.tensor([-7])),
    "int32 index": lambda t: t.take(t.arange(6.0), t.tensor([1], dtype=t.int32)),
    "from empty": lambda t: t.take(t.ones(0), t.tensor([0])),
}


@pytest.mark.parametrize("name", sorted(TAKE))
def test_take_as_torch(tcore, name):
    """take reads self as if flattened (negative indices count from the end); an IndexError out of
    range or from an empty tensor, a RuntimeError for a non-int64 index, as torch's."""
    torch = pytest.importorskip("torch")

    def run(lib):
        try:
            r = TAKE[name](lib)
        except (IndexError, RuntimeError) as e:
            return type(e).__name__
        return r.tolist(), tuple(r.shape)

    assert run(tcore) == run(torch)


def test_take_gradient_accumulates_repeats(tcore):
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
        y = x.take(lib.tensor([[0, 5], [0, -1]]))
        (y * lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)).sum().backward()
        return x.grad.tolist()

    assert run(tcore) == run(torch)


@pytest.mark.parametrize("shape", [(3,), (), (2, 2), (1, 1), (0, 3), (2, 3, 4)])
def test_nonzero_layout_as_torch(tcore, shape):
    """nonzero's result has each dim's coordinates contiguous (strides (1, count)), as torch's."""
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.arange(float(np.prod(shape))).reshape(shape) if shape else lib.tensor(1.0)
        r = lib.nonzero(x.remainder(3) != 1)
        columns = lib.nonzero(x.remainder(3) != 1, as_tuple=True)
        return r.tolist(), tuple(r.shape), r.stride(), [c.stride() for c in columns], lib.argwhere(x).stride()

    assert run(tcore) == run(torch)


OUT_OF_RANGE = {
    "gather": lambda t: t.zeros(3).gather(0, t.tensor([3])),
    "scatter": lambda t: t.zeros(3).scatter(0, t.tensor([3]), 1.0),
    "scatter_add": lambda t: t.zeros(3).scatter_add(0, t.tensor([3]), t.ones(1)),
    "scatter_reduce": lambda t: t.zeros(3).scatter_reduce(0, t.tensor([-1]), t.ones(1), "amax"),
    "index_select": lambda t: t.zeros(3).index_select(0, t.tensor([3])),
    "index_add": lambda t: t.zeros(3).index_add(0, t.tensor([3]), t.ones(1)),
    "embedding": lambda t: t.nn.functional.embedding(t.tensor([3]), t.eye(3)),
}


@pytest.mark.parametrize("name", sorted(OUT_OF_RANGE))
def test_index_out_of_range_error_kind_as_torch(tcore, name):
    """gather and the scatters raise a RuntimeError, index_select/index_add/embedding an IndexError,
    as torch's."""
    torch = pytest.importorskip("torch")

    def kind(lib):
        try:
            OUT_OF_RANGE[name](lib)
        except (IndexError, RuntimeError) as e:
            return "IndexError" if isinstance(e, IndexError) else "RuntimeError"
        return None

    assert kind(tcore) == kind(torch) is not None
