"""mm and what builds on it (bmm, matmul, addmm, linear) against numpy in float64, through
whichever path the build has (OpenBLAS's sgemm/dgemm for float32/float64, tcore's own kernel for
the other dtypes or without OpenBLAS): every operand layout BLAS takes without a copy
(row-major, transposed views, row strides wider than the row) and the ones it does not
(expanded, strided columns), empty and degenerate sizes, and the dtypes."""
from __future__ import annotations

import numpy as np
import pytest

# (150, 100, 77) and (257, 300, 45): mid-sized, at AVX-512 through SmallGemm.h's kernel (B's column
# panels copied when k is small, read in place otherwise), rows and columns past whole blocks
SHAPES = [(1, 1, 1), (3, 4, 5), (1, 7, 1), (7, 1, 9), (0, 3, 4), (4, 0, 3), (4, 3, 0), (64, 64, 64), (100, 33, 77),
          (5, 300, 2), (129, 65, 17), (150, 100, 77), (257, 300, 45)]


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


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mid_sized_addmm_scales_as_blas(tcore, dtype, threads):
    """alpha and beta on the products SmallGemm.h computes at AVX-512 (as BLAS's: beta 0 does not
    read the out, NaN there does not survive), a 256^2 product split across threads."""
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(s).astype(dtype) for s in ((256, 256), (256, 200), (256, 200)))
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    before = tcore.get_num_threads()
    tcore.set_num_threads(threads)
    try:
        got = tcore.addmm(tcore.from_numpy(c), tcore.from_numpy(a), tcore.from_numpy(b), beta=0.5, alpha=-2.0).numpy()
        np.testing.assert_allclose(got, 0.5 * c - 2 * want, rtol=tol, atol=tol)
        nan = np.full_like(c, np.nan)
        got = tcore.addmm(tcore.from_numpy(nan), tcore.from_numpy(a).t().t(), tcore.from_numpy(b), beta=0.0, alpha=3.0).numpy()
        np.testing.assert_allclose(got, 3 * want, rtol=tol, atol=tol)
        got = tcore.mm(tcore.from_numpy(np.ascontiguousarray(a.T)).t(), tcore.from_numpy(b)).numpy()
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    finally:
        tcore.set_num_threads(before)


def test_the_build_says_what_computes_matmul(tcore):
    assert tcore.backends.cpu.blas() in ("openblas", "tcore")


def batch_layouts(tcore, x: np.ndarray):
    """The same batch of matrices as tensors laid out in several ways."""
    yield "contiguous", tcore.from_numpy(x.copy())
    yield "each matrix transposed", tcore.from_numpy(np.ascontiguousarray(x.transpose(0, 2, 1))).transpose(1, 2)
    yield "every other matrix", tcore.from_numpy(np.repeat(x, 2, axis=0))[::2]
    yield "batch-major inside", tcore.from_numpy(np.ascontiguousarray(x.transpose(1, 0, 2))).transpose(0, 1)
    if x.shape[2] > 0:
        yield "strided columns", tcore.from_numpy(np.repeat(x, 2, axis=2))[:, :, ::2]
    if x.shape[0] > 0:
        yield "expanded batch", tcore.from_numpy(x[:1].copy()).expand(*x.shape)


# (batch, n, k, m): at two threads, products split over threads (many small ones, or as many as
# threads), or one after the other (a few, or large)
BMM_SHAPES = [(1, 3, 4, 5), (2, 5, 6, 7), (3, 4, 5, 6), (8, 33, 17, 9), (64, 16, 16, 16), (0, 3, 4, 5), (4, 0, 3, 2),
              (4, 3, 0, 2), (4, 3, 2, 0), (3, 129, 65, 40), (1, 130, 97, 90), (3, 101, 128, 96)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("b, n, k, m", BMM_SHAPES)
def test_bmm_every_layout(tcore, b, n, k, m, dtype, threads):
    rng = np.random.default_rng(b * 10_000 + n * 1000 + k * 10 + m)
    x, y = rng.standard_normal((b, n, k)).astype(dtype), rng.standard_normal((b, k, m)).astype(dtype)
    tol = 1e-5 * max(1, k) ** 0.5 if dtype == np.float32 else 1e-12 * max(1, k)
    before = tcore.get_num_threads()
    tcore.set_num_threads(threads)
    try:
        for lx, tx in batch_layouts(tcore, x):
            want_x = tx.numpy().astype(np.float64)
            for ly, ty in batch_layouts(tcore, y):
                got = tcore.bmm(tx, ty)
                assert got.dtype == tx.dtype and tuple(got.shape) == (b, n, m) and got.is_contiguous()
                np.testing.assert_allclose(got.numpy(), want_x @ ty.numpy().astype(np.float64), rtol=tol, atol=tol,
                                           err_msg=f"{lx} @ {ly}")
    finally:
        tcore.set_num_threads(before)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float16", "bfloat16"])
def test_bmm_other_dtypes(tcore, dtype):
    rng = np.random.default_rng(4)
    a, b = rng.integers(-5, 5, (3, 7, 9)), rng.integers(-5, 5, (3, 9, 4))
    ta, tb = (tcore.tensor(x.tolist(), dtype=getattr(tcore, dtype)) for x in (a, b))
    got = tcore.bmm(ta, tb.transpose(1, 2).contiguous().transpose(1, 2))
    assert got.dtype == getattr(tcore, dtype)
    np.testing.assert_array_equal(got.float().numpy(), (a @ b).astype(np.float32))


def test_bmm_out_and_errors_as_torch(tcore):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((4, 3, 5)).astype(np.float32), rng.standard_normal((4, 5, 2)).astype(np.float32)
    want = torch.bmm(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    # out=: empty (resized), of the right size, a transposed view, an operand's alias
    for out in (tcore.empty(0), tcore.empty(4, 3, 2), tcore.empty(4, 2, 3).transpose(1, 2)):
        r = tcore.bmm(tcore.from_numpy(x), tcore.from_numpy(y), out=out)
        assert r is out
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    sq = tcore.from_numpy(rng.standard_normal((2, 3, 3)).astype(np.float32))
    want_sq = torch.bmm(torch.from_numpy(sq.numpy()), torch.from_numpy(sq.numpy())).numpy()
    tcore.bmm(sq, sq.clone(), out=sq)
    np.testing.assert_allclose(sq.numpy(), want_sq, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError):
        tcore.bmm(tcore.from_numpy(x), tcore.from_numpy(y), out=tcore.empty(4, 3, 2, dtype=tcore.float64))
    bad = [((2, 3, 4), (3, 4, 5), "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4]."),
           ((2, 3, 4), (2, 3, 5), "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
           ((3, 4), (2, 4, 5), "batch1 must be a 3D tensor"), ((2, 3, 4), (4, 5), "batch2 must be a 3D tensor")]
    for sa, sb, message in bad:
        with pytest.raises(RuntimeError, match=message.replace("[", r"\[").replace("]", r"\]")):
            torch.bmm(torch.ones(sa), torch.ones(sb))
        with pytest.raises(ValueError) as e:
            tcore.bmm(tcore.ones(*sa), tcore.ones(*sb))
        assert message in str(e.value)
    with pytest.raises(TypeError, match="expected scalar type"):
        tcore.bmm(tcore.ones(2, 3, 4), tcore.ones(2, 4, 5, dtype=tcore.float64))
    with pytest.raises(TypeError, match="Bool|bool"):
        tcore.bmm(tcore.ones(2, 3, 4, dtype=tcore.bool), tcore.ones(2, 4, 5, dtype=tcore.bool))


def test_bmm_on_meta_and_its_gradients(tcore):
    torch = pytest.importorskip("torch")
    m = tcore.bmm(tcore.empty(6, 3, 4, device="meta"), tcore.empty(6, 4, 5, device="meta"))
    assert tuple(m.shape) == (6, 3, 5) and m.device.type == "meta"
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 5, 2))
    a = tcore.from_numpy(x.copy()).requires_grad_()
    b = tcore.from_numpy(y.copy()).requires_grad_()
    assert tcore.autograd.gradcheck(lambda p, q: tcore.bmm(p.transpose(1, 2).transpose(1, 2), q), (a, b))
    ta, tb = torch.from_numpy(x).requires_grad_(), torch.from_numpy(y).requires_grad_()
    g = rng.standard_normal((3, 4, 2))
    tcore.bmm(a, b).backward(tcore.from_numpy(g))
    torch.bmm(ta, tb).backward(torch.from_numpy(g))
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_bmm_in_threads_of_python(tcore):
    """mm (BLAS threaded) and bmm (BLAS single-threaded, products on tcore's threads) called from
    several Python threads at once: OpenBLAS's thread count is one setting for the process."""
    import threading

    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((16, 40, 30)).astype(np.float32), rng.standard_normal((16, 30, 20)).astype(np.float32)
    p, q = rng.standard_normal((200, 150)).astype(np.float32), rng.standard_normal((150, 100)).astype(np.float32)
    want_b, want_m = x.astype(np.float64) @ y, p.astype(np.float64) @ q
    errors = []

    def work(i):
        try:
            for _ in range(20):
                if i % 2:
                    np.testing.assert_allclose(tcore.bmm(tcore.from_numpy(x), tcore.from_numpy(y)).numpy(), want_b,
                                               rtol=1e-4, atol=1e-4)
                else:
                    np.testing.assert_allclose(tcore.mm(tcore.from_numpy(p), tcore.from_numpy(q)).numpy(), want_m,
                                               rtol=1e-4, atol=1e-4)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    before = tcore.get_num_threads()
    tcore.set_num_threads(2)
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        tcore.set_num_threads(before)
    assert not errors, errors[0]


def test_bmm_hostile_sizes(tcore):
    """Dims past BLAS's int with nothing to compute, a k of 0 (zeros, as torch), and a product
    whose element count overflows int64 (an error, not a crash), on the CPU and on meta."""
    assert tuple(tcore.bmm(tcore.empty(1, 2**31 + 1, 0), tcore.empty(1, 0, 0)).shape) == (1, 2**31 + 1, 0)
    assert tuple(tcore.bmm(tcore.empty(1, 0, 2**31 + 3), tcore.empty(1, 2**31 + 3, 0)).shape) == (1, 0, 0)
    z = tcore.bmm(tcore.empty(2, 3, 0), tcore.empty(2, 0, 1 << 16))
    assert tuple(z.shape) == (2, 3, 1 << 16) and not z.any().item()
    for device in ("cpu", "meta"):  # empty operands, a result of 2^63 elements
        a, b = tcore.empty(2**21, 2**21, 0, device=device), tcore.empty(2**21, 0, 2**21, device=device)
        with pytest.raises(RuntimeError, match="overflows int64"):
            tcore.bmm(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matrix_vector_products_through_gemv(tcore, dtype):
    """Products with one row or one column go to BLAS's gemv: the matrix row- or column-major
    (a transpose), the vector contiguous, strided (a column) or expanded, on either side, in a
    batch, and 1 x 1; against numpy."""
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((37, 53)).astype(dtype), rng.standard_normal((53, 29)).astype(dtype)
    tA, tB = tcore.from_numpy(A), tcore.from_numpy(B)
    cases = {
        "A@v": (tA @ tB[:, 0], A @ B[:, 0]), "At@v": (tA.t() @ tA[:, 0], A.T @ A[:, 0]),
        "v@B": (tA[0] @ tB, A[0] @ B), "strided v@B": (tB[:, 0] @ tB, B[:, 0] @ B), "v@Bt": (tB[0] @ tB.t(), B[0] @ B.T),
        "A@column": (tA @ tB[:, :1], A @ B[:, :1]), "row@B": (tA[:1] @ tB, A[:1] @ B), "row@At": (tA.t()[:1] @ tA, A.T[:1] @ A),
        "At@column": (tA.t() @ tA[:, 2:3], A.T @ A[:, 2:3]), "1x1": (tA[:1] @ tB[:, :1], A[:1] @ B[:, :1]),
        "batch": (tcore.from_numpy(np.stack([A, A])) @ tcore.from_numpy(np.stack([B[:, :1], B[:, 1:2]])),
                  np.stack([A, A]) @ np.stack([B[:, :1], B[:, 1:2]])),
        "expanded": (tA @ tcore.ones(53, dtype=tA.dtype), A @ np.ones(53, dtype)),
        "mv": (tcore.mv(tA, tB[:, 4]), A @ B[:, 4]),
    }
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for name, (got, want) in cases.items():
        assert tuple(got.shape) == want.shape, name
        np.testing.assert_allclose(got.numpy(), want, **tol, err_msg=name)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("batch", [None, 3])
def test_reduced_float_products_large_enough_for_onednn(tcore, dtype, batch):
    """bfloat16/float16 products big enough for oneDNN's matmul (where it is built and the CPU has
    its kernels; float32 products otherwise) in every layout: each result is the exact product of
    the rounded operands, rounded once (float32 accumulation), as torch's; torch's own agrees."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    n, k, m = 96, 80, 70
    shape_a, shape_b = ((batch,) if batch else ()) + (n, k), ((batch,) if batch else ()) + (k, m)
    a, b = rng.standard_normal(shape_a).astype(np.float32), rng.standard_normal(shape_b).astype(np.float32)
    ta, tb = tcore.from_numpy(a).to(getattr(tcore, dtype)), tcore.from_numpy(b).to(getattr(tcore, dtype))
    exact = ta.double().numpy() @ tb.double().numpy()
    eps = 2.0 ** -8 if dtype == "bfloat16" else 2.0 ** -11  # half a unit in the last place
    expected = (torch.from_numpy(ta.float().numpy()).to(getattr(torch, dtype)) @
                torch.from_numpy(tb.float().numpy()).to(getattr(torch, dtype))).float().numpy()
    for form, x, y in [("plain", ta, tb), ("a transposed", ta.transpose(-1, -2).contiguous().transpose(-1, -2), tb),
                       ("b transposed", ta, tb.transpose(-1, -2).contiguous().transpose(-1, -2)),
                       ("rows of a wider matrix", tcore.cat([ta, ta[..., :5]], -1)[..., :k], tb)]:
        got = (x @ y).float().numpy()
        assert got.dtype == np.float32 and got.shape == exact.shape
        np.testing.assert_allclose(got, exact, rtol=eps * 1.01, atol=1e-5 * np.sqrt(k), err_msg=form)
        np.testing.assert_allclose(got, expected, rtol=2 * eps, atol=1e-5 * np.sqrt(k), err_msg=form)
