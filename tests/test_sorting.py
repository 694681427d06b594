"""sort, argsort, topk, kthvalue, median, cummax/cummin, unique: against numpy (NaN as
the largest value, as in PyTorch), every dim, non-contiguous inputs, empty and 0-dim
tensors, and their gradients against finite differences."""
from __future__ import annotations

import numpy as np
import pytest

RNG = np.random.default_rng(7)
A = RNG.standard_normal((4, 5, 6)).astype(np.float32)
WITH_TIES = RNG.integers(0, 4, (5, 7)).astype(np.float32)
WITH_NAN = np.array([[3.0, np.nan, 1.0, 2.0, 1.0], [np.nan, 0.5, np.nan, -1.0, 4.0]], dtype=np.float32)


def numeric_grad(fn, x, eps=1e-6):
    """Central differences of sum(fn(x) * w) for a fixed random w; returns (grad, w)."""
    out = np.asarray(fn(x))
    w = np.random.default_rng(0).standard_normal(out.shape)
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        p, m = x.copy(), x.copy()
        p[idx] += eps
        m[idx] -= eps
        g[idx] = (np.sum(np.asarray(fn(p)) * w) - np.sum(np.asarray(fn(m)) * w)) / (2 * eps)
    return g, w


def check_grad(tcore, tfn, nfn, x):
    expected, w = numeric_grad(nfn, x)
    t = tcore.tensor(x, requires_grad=True)
    (got,) = tcore.autograd.grad(tfn(t), t, grad_outputs=tcore.tensor(w))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_numpy(tcore, dim, descending):
    values, indices = tcore.sort(tcore.tensor(A), dim=dim, descending=descending)
    order = np.argsort(-A if descending else A, axis=dim, kind="stable")
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(A, order, dim))
    np.testing.assert_array_equal(tcore.tensor(A).argsort(dim=dim, descending=descending).numpy(), order)


def test_sort_is_stable_with_ties_and_nan_is_largest(tcore):
    for descending in (False, True):
        v, i = tcore.tensor(WITH_TIES).sort(dim=1, descending=descending, stable=True)
        order = np.argsort(-WITH_TIES if descending else WITH_TIES, axis=1, kind="stable")
        np.testing.assert_array_equal(i.numpy(), order)
    v, i = tcore.sort(tcore.tensor(WITH_NAN))
    np.testing.assert_array_equal(i.numpy(), np.argsort(WITH_NAN, axis=1, kind="stable"))  # numpy: NaN last too
    v, i = tcore.sort(tcore.tensor([2.0, np.nan, 1.0, -np.inf]), descending=True)
    assert i.tolist() == [1, 0, 2, 3] and np.isnan(v[0].item())


def test_sort_non_contiguous_int_and_reduced_precision(tcore):
    t = tcore.tensor(np.ascontiguousarray(A[:, :, 0].T)).t()  # a transposed view
    assert not t.is_contiguous()
    np.testing.assert_array_equal(t.sort(0).values.numpy(), np.sort(A[:, :, 0], 0))
    ints = RNG.integers(-50, 50, (3, 9))
    np.testing.assert_array_equal(tcore.tensor(ints).sort().values.numpy(), np.sort(ints))
    half = tcore.tensor(A[0]).half()
    v, i = half.sort()
    assert v.dtype == tcore.float16
    np.testing.assert_array_equal(v.float().numpy(), np.sort(A[0].astype(np.float16).astype(np.float32)))
    bools = tcore.tensor([True, False, True, False])
    assert bools.sort().values.tolist() == [False, False, True, True]


def test_sort_edge_shapes(tcore):
    v, i = tcore.sort(tcore.tensor(3.0))
    assert tuple(v.shape) == () and v.item() == 3.0 and i.item() == 0
    v, i = tcore.sort(tcore.zeros(2, 0), dim=1)
    assert tuple(v.shape) == (2, 0) and i.dtype == tcore.int64
    with pytest.raises(IndexError, match="Dimension out of range"):
        tcore.sort(tcore.ones(2, 3), dim=2)


@pytest.mark.parametrize("largest", [True, False])
def test_topk(tcore, largest):
    for dim in (0, 1, 2):
        k = 3
        v, i = tcore.topk(tcore.tensor(A), k, dim=dim, largest=largest)
        order = np.argsort(-A if largest else A, axis=dim, kind="stable")
        expected = np.take_along_axis(A, np.take(order, range(k), axis=dim), dim)
        np.testing.assert_array_equal(v.numpy(), expected)
        np.testing.assert_array_equal(np.take_along_axis(A, i.numpy(), dim), expected)
    v, i = tcore.tensor([2.0, np.nan, 1.0, 3.0]).topk(2)
    assert np.isnan(v[0].item()) and v[1].item() == 3.0 and i.tolist() == [1, 3]
    assert tuple(tcore.ones(4).topk(0).values.shape) == (0,)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        tcore.ones(2).topk(3)


def test_kthvalue_and_median(tcore):
    for dim in (0, 1, 2):
        for k in (1, 2, A.shape[dim]):
            v, i = tcore.tensor(A).kthvalue(k, dim)
            expected = np.take(np.sort(A, axis=dim), k - 1, axis=dim)
            np.testing.assert_array_equal(v.numpy(), expected)
            np.testing.assert_array_equal(np.squeeze(np.take_along_axis(A, np.expand_dims(i.numpy(), dim), dim), dim),
                                          expected)
        v, i = tcore.tensor(A).median(dim, keepdim=True)
        n = A.shape[dim]
        np.testing.assert_array_equal(v.numpy(), np.take(np.sort(A, axis=dim), [(n - 1) // 2], axis=dim))
        assert tuple(i.shape) == tuple(v.shape)
    even = np.array([4.0, 1.0, 3.0, 2.0], dtype=np.float32)
    assert tcore.tensor(even).median().item() == 2.0  # the lower of the two middle values, as in PyTorch
    assert tcore.median(tcore.tensor([[5, 1, 3]])).item() == 3  # integers too
    with pytest.raises(RuntimeError, match="selected number k out of range for dimension 0"):
        tcore.tensor([1.0, 2.0]).kthvalue(3)


def test_median_with_nan_and_empty(tcore):
    assert np.isnan(tcore.tensor([1.0, np.nan, 2.0]).median().item())
    v, i = tcore.tensor(WITH_NAN).median(1)
    assert np.isnan(v[0].item()) and i[0].item() == 1 and np.isnan(v[1].item()) and i[1].item() == 0
    assert np.isnan(tcore.tensor([]).median().item())
    with pytest.raises(IndexError, match=r"median\(\): Expected reduction dim 0 to have non-zero size"):
        tcore.zeros(0, 2).median(0)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin(tcore, op):
    ufunc = np.maximum if op == "cummax" else np.minimum
    for dim in (0, 1):
        v, i = getattr(tcore, op)(tcore.tensor(WITH_TIES), dim)
        np.testing.assert_array_equal(v.numpy(), ufunc.accumulate(WITH_TIES, axis=dim))
        np.testing.assert_array_equal(np.take_along_axis(WITH_TIES, i.numpy(), dim), v.numpy())
    v, i = getattr(tcore, op)(tcore.tensor([1.0, 3.0, 3.0, 2.0, np.nan, 5.0, np.nan]), 0)
    if op == "cummax":  # PyTorch: ties move the index on; NaN takes over and stays
        assert i.tolist() == [0, 1, 2, 2, 4, 4, 6]
    assert np.isnan(v[-1].item())
    assert tuple(getattr(tcore, op)(tcore.zeros(0, 3), 1).values.shape) == (0, 3)


def test_unique(tcore):
    x = np.array([[3, 1, 2], [1, 3, 3]])
    values, inverse, counts = tcore.unique(tcore.tensor(x), return_inverse=True, return_counts=True)
    ev, ei, ec = np.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), ev)
    np.testing.assert_array_equal(inverse.numpy(), ei.reshape(x.shape))
    np.testing.assert_array_equal(counts.numpy(), ec)
    assert tcore.tensor(x).unique().tolist() == [1, 2, 3]
    with_nan = tcore.unique(tcore.tensor([2.0, np.nan, 1.0, np.nan, 2.0]), return_inverse=True)
    assert with_nan[0].tolist()[:2] == [1.0, 2.0] and len(with_nan[0]) == 4  # each NaN is its own value
    assert with_nan[1].tolist() == [1, 2, 0, 3, 1]
    rows = np.array([[1, 2], [0, 5], [1, 2]])
    values, inverse, counts = tcore.unique(tcore.tensor(rows), dim=0, return_inverse=True, return_counts=True)
    ev, ei, ec = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), ev)
    np.testing.assert_array_equal(inverse.numpy(), ei.ravel())
    np.testing.assert_array_equal(counts.numpy(), ec)
    cols = tcore.unique(tcore.tensor(rows), dim=1)
    np.testing.assert_array_equal(cols.numpy(), np.unique(rows, axis=1))
    assert tcore.unique(tcore.tensor([], dtype=tcore.float32)).tolist() == []


# ------------------------------------------------------------------ gradients
GRADS = {
    "sort": (lambda t: t.sort(1, descending=True).values, lambda a: -np.sort(-a, 1)),
    "topk": (lambda t: t.topk(2, dim=0).values, lambda a: -np.sort(-a, 0)[:2]),
    "kthvalue": (lambda t: t.kthvalue(2, 1).values, lambda a: np.sort(a, 1)[:, 1]),
    "median_dim": (lambda t: t.median(0, keepdim=True).values, lambda a: np.sort(a, 0)[[1]]),
    "median": (lambda t: t.median(), lambda a: np.sort(a, None)[(a.size - 1) // 2]),
    "cummax": (lambda t: t.cummax(1).values, lambda a: np.maximum.accumulate(a, 1)),
    "cummin": (lambda t: t.cummin(0).values, lambda a: np.minimum.accumulate(a, 0)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(tcore, name):
    tfn, nfn = GRADS[name]
    x = np.random.default_rng(11).permutation(12).reshape(3, 4).astype(np.float64) * 0.37  # distinct values
    check_grad(tcore, tfn, nfn, x)


def test_median_gradient_is_shared_by_ties(tcore):
    x = tcore.tensor([1.0, 2.0, 2.0, 5.0, 0.0], requires_grad=True)
    x.median().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0, 0.0]


def test_indices_are_not_differentiable(tcore):
    x = tcore.tensor([3.0, 1.0, 2.0], requires_grad=True)
    for values, indices in (x.sort(), x.topk(2), x.cummax(0), x.kthvalue(1)):
        assert values.requires_grad and not indices.requires_grad
    assert not x.argsort().requires_grad


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.uint8, np.int32, np.int64, np.bool_])
def test_order_keys_match_torch(tcore, dtype):
    """Rows ordered through unsigned keys: NaN of either sign largest, -0. equal to 0. (input order
    kept), infinities, every integer width; sort (both directions, values and positions), topk's
    values, kthvalue and median against PyTorch's."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a = np.asarray(rng.integers(-3, 4, (5, 300))).astype(dtype)
    if a.dtype.kind == "f":
        a[0, ::3], a[1, ::2], a[2, 1::2], a[3, ::4], a[4, -1] = np.nan, -0.0, 0.0, -np.inf, np.nan
        a[3, 1], a[2, 0] = -np.nan, np.inf
    eq = lambda x, y: np.array_equal(x, y, equal_nan=a.dtype.kind == "f")  # noqa: E731
    for descending in (False, True):
        want = torch.from_numpy(a.copy()).sort(dim=1, descending=descending, stable=True)
        got = tcore.from_numpy(a.copy()).sort(1, descending=descending)
        assert eq(got[0].numpy(), want[0].numpy()) and np.array_equal(got[1].numpy(), want[1].numpy())
    if dtype == np.bool_:
        return
    for k in (1, 7, 300):
        for largest in (True, False):
            assert eq(tcore.from_numpy(a.copy()).topk(k, 1, largest=largest)[0].numpy(),
                      torch.from_numpy(a.copy()).topk(k, 1, largest=largest)[0].numpy())
        assert eq(tcore.from_numpy(a.copy()).kthvalue(k, 1)[0].numpy(), torch.from_numpy(a.copy()).kthvalue(k, 1)[0].numpy())
    assert eq(tcore.from_numpy(a.copy()).median(1)[0].numpy(), torch.from_numpy(a.copy()).median(1)[0].numpy())
