"""mm and what builds on it (bmm, matmul, addmm, linear) against numpy in float64, through
whichever path the build has (OpenBLAS's sgemm/dgemm for float32/float64, tcore's own kernel for
the other dtypes or without OpenBLAS): every operand layout BLAS takes without a copy
(row-major, transposed views, row strides wider than the row) and the ones it does not
(expanded, strided columns), empty and degenerate sizes, and the dtypes."""
from __future__ import annotations

import numpy as np
import pytest

SHAPES = [(1, 1, 1), (3, 4, 5), (1, 7, 1), (7, 1, 9), (0, 3, 4), (4, 0, 3), (4, 3, 0), (64, 64, 64), (100, 33, 77),
          (5, 300, 2), (129, 65, 17)]


def layouts(tcore, x: np.ndarray):
    """The same matrix as a tensor laid out in several ways."""
    yield "row-major", tcore.from_numpy(x.copy())
    yield "transposed view", tcore.from_numpy(np.ascontiguousarray(x.T)).t()
    wide = np.zeros((x.shape[0], x.shape[1] + 3), dtype=x.dtype)
    wide[:, : x.shape[1]] = x
    yield "rows of a wider matrix", tcore.from_numpy(wide)[:, : x.shape[1]]
    if x.shape[1] > 0:
        double = np.repeat(x, 2, axis=1)
        yield "every other column", tcore.from_numpy(double)[:, ::2]
    if x.shape[0] > 0:
        yield "expanded row", tcore.from_numpy(x[:1].copy()).expand(x.shape[0], x.shape[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n, k, m", SHAPES)
def test_mm_every_layout(tcore, n, k, m, dtype):
    rng = np.random.default_rng(n * 1000 + k * 10 + m)
    a, b = rng.standard_normal((n, k)).astype(dtype), rng.standard_normal((k, m)).astype(dtype)
    tol = 1e-5 * max(1, k) ** 0.5 if dtype == np.float32 else 1e-12 * max(1, k)
    for la, ta in layouts(tcore, a):
        want_a = ta.numpy().astype(np.float64)
        for lb, tb in layouts(tcore, b):
            got = tcore.mm(ta, tb)
            assert got.dtype == ta.dtype and tuple(got.shape) == (n, m) and got.is_contiguous()
            np.testing.assert_allclose(got.numpy(), want_a @ tb.numpy().astype(np.float64), rtol=tol, atol=tol,
                                       err_msg=f"{la} @ {lb}")


@pytest.mark.parametrize("dtype", ["int64", "int32", "float16", "bfloat16"])
def test_mm_other_dtypes(tcore, dtype):
    rng = np.random.default_rng(3)
    a, b = rng.integers(-5, 5, (17, 9)), rng.integers(-5, 5, (9, 13))
    ta, tb = (tcore.tensor(x.tolist(), dtype=getattr(tcore, dtype)) for x in (a, b))
    got = tcore.mm(ta, tb.t().contiguous().t())
    assert got.dtype == getattr(tcore, dtype)
    np.testing.assert_array_equal(got.float().numpy(), (a @ b).astype(np.float32))


def test_large_k_accuracy(tcore):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((8, 100_000)).astype(np.float32), rng.standard_normal((100_000, 8)).astype(np.float32)
    got = tcore.mm(tcore.from_numpy(a), tcore.from_numpy(b)).numpy()
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=2e-2)


def test_what_builds_on_mm(tcore):
    rng = np.random.default_rng(1)
    x, w, bias = (rng.standard_normal(s).astype(np.float32) for s in ((6, 10), (4, 10), (4,)))
    tx, tw, tb = (tcore.from_numpy(v) for v in (x, w, bias))
    np.testing.assert_allclose(tcore.nn.functional.linear(tx, tw, tb).numpy(), x @ w.T + bias, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tcore.addmm(tb, tx, tw.t(), beta=0.5, alpha=2).numpy(), 0.5 * bias + 2 * x @ w.T,
                               rtol=1e-5, atol=1e-5)
    b3 = rng.standard_normal((5, 6, 7)).astype(np.float32)
    c3 = rng.standard_normal((5, 7, 3)).astype(np.float32)
    np.testing.assert_allclose(tcore.bmm(tcore.from_numpy(b3), tcore.from_numpy(c3)).numpy(), b3 @ c3, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tcore.matmul(tcore.from_numpy(b3), tcore.from_numpy(c3[0])).numpy(), b3 @ c3[0],
                               rtol=1e-5, atol=1e-5)


def test_gradients_through_mm(tcore):
    a = tcore.randn(5, 3, dtype=tcore.float64, requires_grad=True)
    b = tcore.randn(3, 4, dtype=tcore.float64, requires_grad=True)
    assert tcore.autograd.gradcheck(lambda x, y: tcore.mm(x.t().t(), y), (a, b))


def test_nan_and_inf_propagate(tcore):
    a = tcore.tensor([[1.0, float("nan")], [2.0, 3.0]])
    b = tcore.tensor([[1.0, 0.0], [0.0, float("inf")]])
    got = tcore.mm(a, b).numpy()
    with np.errstate(invalid="ignore"):
        want = a.numpy() @ b.numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


def test_threads_give_the_same_product(tcore):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((300, 200)).astype(np.float32), rng.standard_normal((200, 250)).astype(np.float32)
    before = tcore.get_num_threads()
    try:
        out = []
        for n in (1, 2, 1):
            tcore.set_num_threads(n)
            out.append(tcore.mm(tcore.from_numpy(a), tcore.from_numpy(b)).numpy())
    finally:
        tcore.set_num_threads(before)
    for o in out:
        np.testing.assert_allclose(o, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_the_build_says_what_computes_matmul(tcore):
    assert tcore.backends.cpu.blas() in ("openblas", "tcore")
