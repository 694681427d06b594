"""sum and mean over dims that are not the last ones (the column path of ReduceOps.cpp: rows
of kept elements added into an accumulator row) against numpy in float64 / int64, and the
same results as the row path gives for the same values transposed."""
from __future__ import annotations

import numpy as np
import pytest

CASES = [((4096, 64), 0), ((3, 5, 7), 1), ((3, 5, 7), (0, 1)), ((2, 1), 0), ((5, 3000), 0), ((4, 0, 3), 1),
         ((0, 3), 0), ((2, 3, 4, 5), (1, 2)), ((6, 2049), 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape, dim", CASES)
def test_sum_and_mean_over_leading_and_middle_dims(tcore, shape, dim, dtype):
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 10).astype(dtype)
    t = tcore.from_numpy(x)
    wide = np.float64 if x.dtype.kind == "f" else np.int64
    got = t.sum(dim).numpy()
    assert got.dtype == (x.dtype if x.dtype.kind == "f" else np.int64)
    np.testing.assert_allclose(got, x.sum(dim, dtype=wide), rtol=1e-6, atol=1e-3)
    assert tuple(t.sum(dim, keepdim=True).shape) == np.sum(x, dim, keepdims=True).shape
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            want = x.astype(np.float64).mean(dim) if x.size else np.full(got.shape, np.nan)
        np.testing.assert_allclose(t.mean(dim).numpy(), want, rtol=1e-6, atol=1e-6, equal_nan=True)


def test_column_and_row_paths_agree(tcore):
    x = np.random.default_rng(0).standard_normal((300, 40)).astype(np.float32)
    by_columns = tcore.from_numpy(x).sum(0).numpy()
    by_rows = tcore.from_numpy(np.ascontiguousarray(x.T)).sum(1).numpy()
    np.testing.assert_allclose(by_columns, by_rows, rtol=1e-5, atol=1e-5)  # the row path sums in float lanes


def test_nan_and_inf_propagate(tcore):
    x = np.ones((4, 3), dtype=np.float32)
    x[1, 0], x[2, 1] = np.nan, np.inf
    got = tcore.from_numpy(x).sum(0).numpy()
    assert np.isnan(got[0]) and np.isinf(got[1]) and got[2] == 4


def test_scans_and_softmax_into_an_out_with_an_offset(tcore):
    """out= a view that starts inside its storage (buf[1]): the rows are written there, not at the start."""
    tc = tcore
    buf = tc.zeros(3, 4)
    tc.cumsum(tc.arange(4.0), 0, out=buf[1])
    np.testing.assert_array_equal(buf.numpy(), [[0, 0, 0, 0], [0, 1, 3, 6], [0, 0, 0, 0]])
    y = np.array([[1.0, 2.0], [3.0, 5.0]], dtype=np.float32)
    buf = tc.zeros(3, 2, 2)
    tc.softmax(tc.tensor(y), 0, out=buf[2])  # over a non-last dim: rows written back through the view
    want = np.exp(y) / np.exp(y).sum(0, keepdims=True)
    np.testing.assert_allclose(buf[2].numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(buf[:2].numpy(), np.zeros((2, 2, 2)))
    buf = tc.ones(2, 3)
    tc.cumprod(tc.tensor([[1.0, 2.0], [3.0, 4.0]]), 0, out=buf[:, 1:])
    np.testing.assert_array_equal(buf.numpy(), [[1, 1, 2], [1, 3, 8]])
