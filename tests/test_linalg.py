"""torch.linalg's factorizations (native/cpu/BatchLinearAlgebra.cpp, LAPACK through OpenBLAS):
inv, solve, solve_triangular, det, slogdet, logdet, cholesky, eigh, eigvalsh, svd, svdvals, qr,
matrix_norm and norm against torch 2.13 — values of single matrices and
batches (empty ones too), torch's errors and their types, out=, gradients, second derivatives
and tangents."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

if tcore.backends.cpu.blas() != "openblas":  # pragma: no cover - CI installs OpenBLAS
    pytestmark = pytest.mark.skip(reason="this build has no LAPACK (it comes with OpenBLAS)")

LIBS = (tcore, torch)


def well_conditioned(shape, seed=0, spd=False):
    """Matrices of `shape` (..., n, n) far from singular: random plus n on the diagonal, or
    symmetric positive-definite (M M^T + n I)."""
    rng = np.random.default_rng(seed)
    m = rng.standard_normal(shape)
    n = shape[-1]
    if spd:
        return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    return m + n * np.eye(n) * np.sign(rng.standard_normal(shape[:-2] + (1, 1)) + 0.1)


def both(fn, *arrays, dtype="float64", **kw):
    """fn(lib, *tensors) in each library, as numpy arrays (tuples flattened)."""
    out = []
    for lib in LIBS:
        r = fn(lib, *[lib.tensor(a, dtype=getattr(lib, dtype)) for a in arrays], **kw)
        r = r if isinstance(r, tuple) else (r,)
        out.append([x.detach().numpy() for x in r])
    return out


SHAPES = [(1, 1), (3, 3), (8, 8), (2, 5, 5), (2, 3, 4, 4)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
def test_values_as_torch(shape, dtype):
    a = well_conditioned(shape, seed=len(shape))
    s = well_conditioned(shape, seed=9, spd=True)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-5)
    for fn, arg in ((lambda L, x: L.linalg.inv(x), a), (lambda L, x: L.inverse(x), a),
                    (lambda L, x: L.linalg.det(x), a), (lambda L, x: x.det(), a),
                    (lambda L, x: tuple(L.linalg.slogdet(x)), a), (lambda L, x: tuple(x.slogdet()), a),
                    (lambda L, x: L.logdet(x), s), (lambda L, x: L.linalg.cholesky(x), s),
                    (lambda L, x: L.linalg.cholesky(x, upper=True), s)):
        ours, theirs = both(fn, arg, dtype=dtype)
        for o, t in zip(ours, theirs):
            assert o.shape == t.shape and o.dtype == t.dtype
            np.testing.assert_allclose(o, t, **tol)
    b = np.random.default_rng(1).standard_normal(shape[:-1] + (3,))
    ours, theirs = both(lambda L, x, y: L.linalg.solve(x, y), a, b, dtype=dtype)
    np.testing.assert_allclose(ours[0], theirs[0], **tol)


def test_inputs_are_left_as_they_were():
    """LAPACK factors in place: each function works on a copy (contiguous inputs were overwritten)."""
    a = well_conditioned((2, 3, 3), seed=8, spd=True)
    t = tcore.tensor(a)
    for fn in (tcore.linalg.inv, tcore.linalg.det, tcore.linalg.slogdet, tcore.linalg.cholesky, tcore.logdet,
               lambda x: tcore.linalg.cholesky(x, upper=True), lambda x: tcore.linalg.solve(x, x),
               lambda x: tcore.linalg.solve(x, x, left=False)):
        fn(t)
        np.testing.assert_array_equal(t.numpy(), a)


def test_empty_matrices_as_torch():
    for shape in [(0, 0), (3, 0, 0), (0, 2, 2)]:
        a = np.zeros(shape)
        for fn in (lambda L, x: L.linalg.inv(x), lambda L, x: L.linalg.det(x), lambda L, x: tuple(L.linalg.slogdet(x)),
                   lambda L, x: L.linalg.cholesky(x), lambda L, x: L.logdet(x)):
            ours, theirs = both(fn, a)
            for o, t in zip(ours, theirs):
                assert o.shape == t.shape
                np.testing.assert_array_equal(o, t)


def test_det_and_slogdet_of_singular_and_negative_matrices():
    for a in (np.array([[1.0, 2.0], [2.0, 4.0]]), -np.eye(3), np.diag([1e200, 1e200, 1e-300]),
              np.array([[0.0, 1.0], [1.0, 0.0]]), np.zeros((2, 2))):
        for fn in (lambda L, x: L.linalg.det(x), lambda L, x: tuple(L.linalg.slogdet(x)), lambda L, x: L.logdet(x)):
            ours, theirs = both(fn, a)
            for o, t in zip(ours, theirs):
                np.testing.assert_allclose(o, t, rtol=1e-12)
                np.testing.assert_array_equal(np.signbit(o), np.signbit(t))  # slogdet's sign of a singular: -0 too


def test_solve_shapes_as_torch():
    """torch's right-hand sides: a vector, a batch of vectors (B is A's shape without its last
    dim), matrices with broadcast batches, and left=False (X A = B)."""
    a = well_conditioned((3, 2, 2), seed=4)
    rng = np.random.default_rng(5)
    for aa, b, left in ((a[0], rng.standard_normal(2), True), (a, rng.standard_normal((3, 2)), True),
                        (a, rng.standard_normal((2, 2)), True), (a, rng.standard_normal((4, 1, 2, 1)), True),
                        (a[0], rng.standard_normal((5, 2)), False), (a, rng.standard_normal((4, 1, 3, 2)), False),
                        (a[0], rng.standard_normal((2, 0)), True)):
        ours, theirs = both(lambda L, x, y: L.linalg.solve(x, y, left=left), aa, b)
        assert ours[0].shape == theirs[0].shape
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return e
    return None


@pytest.mark.parametrize("case", [
    ("inv singular", lambda L: L.linalg.inv(L.tensor([[1.0, 2.0], [2.0, 4.0]]))),
    ("inv batch", lambda L: L.linalg.inv(L.stack([L.eye(2), L.tensor([[1.0, 2.0], [2.0, 4.0]])]))),
    ("inv not square", lambda L: L.linalg.inv(L.ones(2, 3))),
    ("inv 1-D", lambda L: L.linalg.inv(L.ones(3))),
    ("inv int", lambda L: L.linalg.inv(L.eye(2, dtype=L.int64))),
    ("inv half", lambda L: L.linalg.inv(L.eye(2, dtype=L.float16))),
    ("inv bfloat16", lambda L: L.linalg.inv(L.eye(2, dtype=L.bfloat16))),
    ("det not square", lambda L: L.linalg.det(L.ones(2, 3))),
    ("det int", lambda L: L.linalg.det(L.eye(2, dtype=L.int64))),
    ("solve singular", lambda L: L.linalg.solve(L.tensor([[1.0, 2.0], [2.0, 4.0]]), L.ones(2))),
    ("solve batch", lambda L: L.linalg.solve(L.stack([L.eye(2), L.tensor([[1.0, 2.0], [2.0, 4.0]])]), L.ones(2, 2))),
    ("solve shapes", lambda L: L.linalg.solve(L.eye(2), L.ones(3))),
    ("solve shapes matrix", lambda L: L.linalg.solve(L.eye(2), L.ones(3, 2))),
    ("solve right vector", lambda L: L.linalg.solve(L.eye(2), L.ones(2), left=False)),
    ("solve dtypes", lambda L: L.linalg.solve(L.eye(2), L.ones(2, dtype=L.float64))),
    ("cholesky not PD", lambda L: L.linalg.cholesky(L.tensor([[1.0, 2.0], [2.0, 1.0]]))),
    ("cholesky batch", lambda L: L.linalg.cholesky(L.stack([L.eye(2), -L.eye(2)]))),
    ("cholesky lower read", lambda L: L.linalg.cholesky(L.tensor([[4.0, 1.0], [100.0, 9.0]]))),
    ("cholesky upper read", lambda L: L.linalg.cholesky(L.tensor([[4.0, 100.0], [1.0, 9.0]]), upper=True)),
    ("cholesky not square", lambda L: L.linalg.cholesky(L.ones(2, 3))),
], ids=lambda c: c[0])
def test_errors_as_torch(case):
    _, fn = case
    ours, theirs = error_of(lambda: fn(tcore)), error_of(lambda: fn(torch))
    assert theirs is not None and ours is not None, (ours, theirs)
    assert isinstance(ours, RuntimeError)
    if isinstance(theirs, torch.linalg.LinAlgError):
        assert isinstance(ours, tcore.linalg.LinAlgError)
        assert str(ours) == str(theirs)
    elif "dtype" not in case[0] and "int" not in case[0] and "half" not in case[0] and "bfloat16" not in case[0]:
        assert str(ours) == str(theirs)  # shapes: the same words (dtype names are tcore's: float32, not Float)


def test_only_one_triangle_is_read():
    s = well_conditioned((4, 4), seed=3, spd=True)
    garbage = s + np.triu(np.full((4, 4), 1e3), 1)  # the strict upper triangle is never read
    np.testing.assert_allclose(tcore.linalg.cholesky(tcore.tensor(garbage)).numpy(),
                               torch.linalg.cholesky(torch.tensor(s)).numpy(), rtol=1e-12)
    garbage = s + np.tril(np.full((4, 4), 1e3), -1)
    np.testing.assert_allclose(tcore.linalg.cholesky(tcore.tensor(garbage), upper=True).numpy(),
                               torch.linalg.cholesky(torch.tensor(s), upper=True).numpy(), rtol=1e-12)


def test_out_overloads():
    a = well_conditioned((2, 3, 3), seed=6)
    s = well_conditioned((3, 3), seed=7, spd=True)
    t = tcore.tensor(a)
    for fn, name in ((tcore.linalg.inv, "inv"), (tcore.inverse, "inverse"), (tcore.linalg.det, "det")):
        out = tcore.empty(0, dtype=tcore.float64)
        assert fn(t, out=out) is out
        np.testing.assert_array_equal(out.numpy(), fn(t).numpy())
    out = tcore.empty(0, dtype=tcore.float64)
    tcore.linalg.cholesky(tcore.tensor(s), upper=True, out=out)
    np.testing.assert_array_equal(out.numpy(), tcore.linalg.cholesky(tcore.tensor(s), upper=True).numpy())
    out = tcore.empty(0, dtype=tcore.float64)
    tcore.linalg.solve(t, tcore.ones(2, 3, dtype=tcore.float64), out=out)
    np.testing.assert_array_equal(out.numpy(), tcore.linalg.solve(t, tcore.ones(2, 3, dtype=tcore.float64)).numpy())
    for fn in (tcore.linalg.slogdet, tcore.slogdet):
        sign, logabsdet = tcore.empty(0, dtype=tcore.float64), tcore.empty(0, dtype=tcore.float64)
        r = fn(t, out=(sign, logabsdet))
        assert r[0] is sign and r[1] is logabsdet
        np.testing.assert_array_equal(logabsdet.numpy(), fn(t).logabsdet.numpy())
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float64"):
            fn(t, out=(tcore.empty(0, dtype=tcore.float32), tcore.empty(0, dtype=tcore.float32)))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float64"):
        tcore.linalg.inv(t, out=tcore.empty(0, dtype=tcore.float32))


def grads(lib, fn, arrays, weights):
    """First derivatives of sum(fn(*x) * w) and second derivatives of sum(grad * v), float64."""
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = fn(lib, *xs)
    g = lib.autograd.grad((y * lib.tensor(weights)).sum(), xs, create_graph=True)
    v = [np.linspace(-1, 1, a.size).reshape(a.shape) for a in arrays]
    gg = lib.autograd.grad(sum((gi * lib.tensor(vi)).sum() for gi, vi in zip(g, v)), xs, allow_unused=True)
    return [x.detach().numpy() for x in g], [None if x is None else x.numpy() for x in gg]


GRAD_CASES = [
    ("inv", lambda L, a: L.linalg.inv(a), [(3, 3)], False),
    ("inv batch", lambda L, a: L.linalg.inv(a), [(2, 4, 4)], False),
    ("det", lambda L, a: L.linalg.det(a), [(4, 4)], False),
    ("det batch", lambda L, a: L.linalg.det(a), [(3, 3, 3)], False),
    ("logabsdet", lambda L, a: L.linalg.slogdet(a)[1], [(4, 4)], False),
    ("logdet", lambda L, a: L.logdet(a), [(2, 3, 3)], True),
    ("solve", lambda L, a, b: L.linalg.solve(a, b), [(3, 3), (3, 2)], False),
    ("solve vector", lambda L, a, b: L.linalg.solve(a, b), [(3, 3), (3,)], False),
    ("solve broadcast", lambda L, a, b: L.linalg.solve(a, b), [(2, 3, 3), (4, 1, 3, 2)], False),
    ("solve left=False", lambda L, a, b: L.linalg.solve(a, b, left=False), [(3, 3), (5, 3)], False),
    ("cholesky", lambda L, a: L.linalg.cholesky(a), [(4, 4)], True),
    ("cholesky upper batch", lambda L, a: L.linalg.cholesky(a, upper=True), [(2, 3, 3)], True),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c[0])
def test_gradients_and_second_derivatives_as_torch(case):
    _, fn, shapes, spd = case
    arrays = [well_conditioned(s, seed=i + 11, spd=spd) if len(s) >= 2 and s[-1] == s[-2] and i == 0
              else np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes)]
    out_shape = tuple(fn(torch, *[torch.tensor(a) for a in arrays]).shape)
    weights = np.random.default_rng(2).standard_normal(out_shape)
    (g1, gg1), (g2, gg2) = grads(tcore, fn, arrays, weights), grads(torch, fn, arrays, weights)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(gg1, gg2):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)



@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (40, 40)])
def test_cholesky_tangents_as_torch(upper, shape):
    """cholesky's forward-mode derivative (two triangular solves) against torch's, for a symmetric
    and a non-symmetric tangent."""
    a = well_conditioned(shape, seed=3, spd=True)
    t = np.random.default_rng(4).standard_normal(shape)
    for tangent in (t + np.swapaxes(t, -1, -2), t):
        got = []
        for lib in LIBS:
            with lib.autograd.forward_ad.dual_level():
                d = lib.autograd.forward_ad.make_dual(lib.tensor(a), lib.tensor(tangent))
                got.append(lib.autograd.forward_ad.unpack_dual(lib.linalg.cholesky(d, upper=upper)).tangent.numpy())
        np.testing.assert_allclose(got[0], got[1], rtol=1e-9, atol=1e-10)

@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c[0])
def test_first_derivatives_on_the_forward_factors_as_torch(case):
    """Without create_graph, solve's, det's and slogdet's backward solve on the LU factors the forward
    computed (not A again): the same gradients as torch's."""
    _, fn, shapes, spd = case
    arrays = [well_conditioned(s, seed=i + 11, spd=spd) if len(s) >= 2 and s[-1] == s[-2] and i == 0
              else np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes)]
    weights = np.random.default_rng(2).standard_normal(tuple(fn(torch, *[torch.tensor(a) for a in arrays]).shape))
    results = []
    for lib in LIBS:
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        (fn(lib, *xs) * lib.tensor(weights)).sum().backward()
        results.append([x.grad.numpy() for x in xs])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_solve_ex_as_torch():
    """linalg.solve_ex and _linalg_solve_ex: solutions, A's LU factors (its batch, not the broadcast
    one), info per matrix, check_errors, out=; a singular matrix gives info, no error."""
    a = well_conditioned((2, 3, 3), seed=8)
    singular = a.copy()
    singular[1, 2] = 0.0  # a zero row: a zero pivot, info 3
    rng = np.random.default_rng(9)
    for aa, b, left in ((a, rng.standard_normal((2, 3)), True), (a, rng.standard_normal((4, 1, 3, 2)), True),
                        (a[0], rng.standard_normal(3), True), (a, rng.standard_normal((5, 3)), False),
                        (singular, rng.standard_normal((2, 3, 1)), True)):
        ours = tcore._C._linalg_solve_ex(tcore.tensor(aa), tcore.tensor(b), left=left)
        theirs = torch._linalg_solve_ex(torch.tensor(aa), torch.tensor(b), left=left)
        for o, t in zip(ours, theirs):
            assert o.shape == tuple(t.shape) and str(o.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        np.testing.assert_array_equal(ours[3].numpy(), theirs[3].numpy())
        regular = slice(0, 1) if aa is singular else slice(None)  # (a singular matrix's solution: inf and NaN)
        np.testing.assert_allclose(ours[0].numpy()[regular], theirs[0].numpy()[regular], rtol=1e-10, atol=1e-12)
        lu, pivots, _ = torch.linalg.lu_factor_ex(torch.tensor(aa))
        np.testing.assert_allclose(ours[1].numpy(), lu.numpy(), rtol=1e-12)
        np.testing.assert_array_equal(ours[2].numpy(), pivots.numpy())
        short = tcore.linalg.solve_ex(tcore.tensor(aa), tcore.tensor(b), left=left)
        np.testing.assert_array_equal(short.result.numpy(), ours[0].numpy())
        np.testing.assert_array_equal(short.info.numpy(), ours[3].numpy())
    for lib in LIBS:
        with pytest.raises(lib.linalg.LinAlgError, match=r"^torch.linalg.solve_ex: \(Batch element 1\): The solver "
                                                         r"failed because the input matrix is singular.$"):
            lib.linalg.solve_ex(lib.tensor(singular), lib.ones(2, 3, dtype=lib.float64), check_errors=True)
    result, info = tcore.empty(0, dtype=tcore.float64), tcore.empty(0, dtype=tcore.int32)
    r = tcore.linalg.solve_ex(tcore.tensor(a), tcore.ones(2, 3, dtype=tcore.float64), out=(result, info))
    assert r[0] is result and r[1] is info and info.tolist() == [0, 0]
    np.testing.assert_allclose(result.numpy(), np.linalg.solve(a, np.ones((2, 3, 1)))[..., 0], rtol=1e-10)


def test_det_derivatives_at_a_singular_matrix_without_create_graph():
    """The cofactors (adjugate^T) at a singular matrix on the path without create_graph too, and the
    tangent tr(adj(A) dA): torch 2.13 gives 0 for both there (its LU path scales by det = 0); its
    create_graph path gives the cofactors."""
    import tcore.autograd.forward_ad as fwAD

    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]])
    cofactors = np.array([[[4.0, -2.0], [-2.0, 1.0]], [[3.0, -1.0], [-1.0, 2.0]]])
    x = tcore.tensor(a, requires_grad=True)
    tcore.linalg.det(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), cofactors, atol=1e-12)
    t = torch.tensor(a, requires_grad=True)
    g, = torch.autograd.grad(torch.linalg.det(t).sum(), t, create_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), g.detach().numpy(), atol=1e-12)
    direction = np.ones_like(a)
    with fwAD.dual_level():
        d = fwAD.make_dual(tcore.tensor(a), tcore.tensor(direction))
        tangent = fwAD.unpack_dual(tcore.linalg.det(d)).tangent.numpy()
    np.testing.assert_allclose(tangent, (cofactors * direction).sum((-2, -1)), atol=1e-12)  # d/dt det(A + t 1) = 1, 3


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c[0])
def test_tangents_as_torch(case):
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    _, fn, shapes, spd = case
    arrays = [well_conditioned(s, seed=i + 11, spd=spd) if len(s) >= 2 and s[-1] == s[-2] and i == 0
              else np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes)]
    tangents = [np.random.default_rng(20 + i).standard_normal(a.shape) for i, a in enumerate(arrays)]
    if spd:  # a symmetric direction: the factorization reads one triangle
        tangents = [t + np.swapaxes(t, -1, -2) for t in tangents]
    results = []
    for lib, ad in ((tcore, fwAD), (torch, tfwAD)):
        with ad.dual_level():
            duals = [ad.make_dual(lib.tensor(a), lib.tensor(t)) for a, t in zip(arrays, tangents)]
            results.append(ad.unpack_dual(fn(lib, *duals)).tangent.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("a", [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
                               [[0.0, 0.0], [0.0, 0.0]], [[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]]])
def test_det_gradient_at_a_singular_matrix_as_torch(a):
    """The cofactors through the SVD (rank n - 1: not zero; lower: zero), a batch mixing singular and
    regular matrices, and second derivatives."""
    results = []
    for lib in LIBS:
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        d = lib.linalg.det(x)
        g, = lib.autograd.grad(d.sum(), x, create_graph=True)
        gg, = lib.autograd.grad((g * lib.tensor(np.arange(g.numel(), dtype=np.float64).reshape(g.shape))).sum(), x,
                                allow_unused=True)
        results.append((g.detach().numpy(), None if gg is None else gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    if results[1][1] is not None and np.all(np.linalg.svd(np.array(a), compute_uv=False)[..., -2:] > 1e-9):
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8, atol=1e-10)


def symmetric(shape, seed):
    m = np.random.default_rng(seed).standard_normal(shape)
    return m + np.swapaxes(m, -1, -2)


def aligned(v, reference):
    """Eigenvectors v with each column's sign that of reference's (an eigenvector's sign is free)."""
    flip = np.sign(np.sum(v * reference, axis=-2, keepdims=True))
    return v * flip, flip


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 6, 6), (2, 3, 5, 5), (0, 0), (3, 0, 0)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_as_torch(shape, dtype, uplo):
    a = symmetric(shape, seed=len(shape))
    garbage = a + (np.triu if uplo == "L" else np.tril)(np.full(shape, 1e3), 1 if uplo == "L" else -1)  # never read
    ours = tcore.linalg.eigh(tcore.tensor(garbage, dtype=getattr(tcore, dtype)), UPLO=uplo)
    theirs = torch.linalg.eigh(torch.tensor(a, dtype=getattr(torch, dtype)), UPLO=uplo)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours.eigenvalues.numpy(), theirs.eigenvalues.numpy(), **tol)
    v, _ = aligned(ours.eigenvectors.numpy(), theirs.eigenvectors.numpy())
    np.testing.assert_allclose(v, theirs.eigenvectors.numpy(), **tol)
    np.testing.assert_allclose(tcore.linalg.eigvalsh(tcore.tensor(garbage), UPLO=uplo).numpy(),
                               torch.linalg.eigvalsh(torch.tensor(a), UPLO=uplo).numpy(), rtol=1e-10, atol=1e-10)
    values, vectors = tcore.empty(0, dtype=ours.eigenvalues.dtype), tcore.empty(0, dtype=ours.eigenvalues.dtype)
    r = tcore.linalg.eigh(tcore.tensor(garbage, dtype=getattr(tcore, dtype)), UPLO=uplo, out=(values, vectors))
    assert r[0] is values and r[1] is vectors
    np.testing.assert_array_equal(vectors.numpy(), ours.eigenvectors.numpy())


def test_eigh_errors_as_torch():
    for fn in (lambda L: L.linalg.eigh(L.eye(2), UPLO="X"), lambda L: L.linalg.eigh(L.ones(2, 3)),
               lambda L: L.linalg.eigvalsh(L.ones(3))):
        ours, theirs = error_of(lambda: fn(tcore)), error_of(lambda: fn(torch))
        assert isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError)
        assert str(ours) == str(theirs)
    assert isinstance(error_of(lambda: tcore.linalg.eigh(tcore.eye(2, dtype=tcore.int64))), RuntimeError)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_eigh_gradients_and_tangents_as_torch(shape):
    """Functions of the eigenvectors that do not depend on their signs (V^2 weighted), and of the
    eigenvalues; second derivatives through the backward formula; tangents with the signs aligned."""
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    a = symmetric(shape, seed=3)
    w = np.random.default_rng(4).standard_normal(shape)
    u = np.random.default_rng(5).standard_normal(shape[:-1])
    results = []
    for lib in LIBS:
        x = lib.tensor(a, requires_grad=True)
        vals, vecs = lib.linalg.eigh(x)
        loss = (vecs * vecs * lib.tensor(w)).sum() + (vals * lib.tensor(u)).sum() + (lib.linalg.eigvalsh(x) ** 2).sum()
        g, = lib.autograd.grad(loss, x, create_graph=True)
        gg, = lib.autograd.grad((g * lib.tensor(w)).sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8, atol=1e-9)
    t = symmetric(shape, seed=6)
    tangents = []
    for lib, ad in ((tcore, fwAD), (torch, tfwAD)):
        with ad.dual_level():
            vals, vecs = lib.linalg.eigh(ad.make_dual(lib.tensor(a), lib.tensor(t)))
            tangents.append((ad.unpack_dual(vals).tangent.numpy(), ad.unpack_dual(vecs).primal.numpy(),
                             ad.unpack_dual(vecs).tangent.numpy()))
    np.testing.assert_allclose(tangents[0][0], tangents[1][0], rtol=1e-10, atol=1e-10)
    _, flip = aligned(tangents[0][1], tangents[1][1])
    np.testing.assert_allclose(tangents[0][2] * flip, tangents[1][2], rtol=1e-9, atol=1e-10)


def triangular(shape, upper, seed):
    m = np.random.default_rng(seed).standard_normal(shape)
    n = shape[-1]
    m = np.triu(m) if upper else np.tril(m)
    return m + 3 * np.eye(n)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular_as_torch(upper, left, unitriangular):
    a = triangular((2, 4, 4), upper, seed=1)
    garbage = a + (np.tril if upper else np.triu)(np.full((4, 4), 50.0), -1 if upper else 1)  # never read
    if unitriangular:
        garbage = garbage + 7 * np.eye(4)  # nor is the diagonal
    b = np.random.default_rng(2).standard_normal((3, 1, 4, 5) if left else (3, 1, 5, 4))
    for ta, tb in (("float64", "float64"), ("float32", "float32"), ("float32", "float64")):
        ours = tcore.linalg.solve_triangular(tcore.tensor(garbage, dtype=getattr(tcore, ta)),
                                             tcore.tensor(b, dtype=getattr(tcore, tb)), upper=upper, left=left,
                                             unitriangular=unitriangular)
        theirs = torch.linalg.solve_triangular(torch.tensor(garbage, dtype=getattr(torch, ta)),
                                               torch.tensor(b, dtype=getattr(torch, tb)), upper=upper, left=left,
                                               unitriangular=unitriangular)
        assert ours.shape == tuple(theirs.shape) and str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        tol = 1e-12 if ta == "float64" else 1e-4  # B is taken in A's dtype (float32 sums: the BLAS's order)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)
    out = tcore.empty(0, dtype=tcore.float64)
    tcore.linalg.solve_triangular(tcore.tensor(a), tcore.tensor(b), upper=upper, left=left, out=out)
    np.testing.assert_array_equal(out.numpy(), tcore.linalg.solve_triangular(tcore.tensor(a), tcore.tensor(b),
                                                                              upper=upper, left=left).numpy())


def test_solve_triangular_errors_and_zero_diagonal_as_torch():
    a = [[2.0, 0.0], [1.0, 3.0]]
    for fn in (lambda L: L.linalg.solve_triangular(L.tensor(a), L.ones(2), upper=False),
               lambda L: L.linalg.solve_triangular(L.tensor(a), L.ones(3, 1), upper=False),
               lambda L: L.linalg.solve_triangular(L.tensor(a), L.ones(1, 3), upper=False, left=False),
               lambda L: L.linalg.solve_triangular(L.ones(2, 3), L.ones(2, 1), upper=True)):
        ours, theirs = error_of(lambda: fn(tcore)), error_of(lambda: fn(torch))
        assert isinstance(ours, RuntimeError) and str(ours) == str(theirs)
    ours = tcore.linalg.solve_triangular(tcore.zeros(2, 2), tcore.ones(2, 1), upper=False).numpy()
    theirs = torch.linalg.solve_triangular(torch.zeros(2, 2), torch.ones(2, 1), upper=False).numpy()
    np.testing.assert_array_equal(ours, theirs)  # inf and NaN: no check, as torch's


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular_derivatives_as_torch(upper, left, unitriangular):
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    a = triangular((2, 3, 3), upper, seed=3) + np.random.default_rng(9).standard_normal((2, 3, 3))  # both triangles
    b = np.random.default_rng(4).standard_normal((2, 3, 2) if left else (2, 2, 3))
    fn = lambda L, x, y: L.linalg.solve_triangular(x, y, upper=upper, left=left, unitriangular=unitriangular)  # noqa: E731
    out_shape = tuple(fn(torch, torch.tensor(a), torch.tensor(b)).shape)
    w = np.random.default_rng(5).standard_normal(out_shape)
    (g1, gg1), (g2, gg2) = grads(tcore, fn, [a, b], w), grads(torch, fn, [a, b], w)
    for x, y in zip(g1 + gg1, g2 + gg2):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)
    # B of another dtype: taken in A's, its gradient cast back
    for lib in LIBS:
        y = lib.tensor(b, dtype=lib.float32, requires_grad=True)
        fn(lib, lib.tensor(a), y).sum().backward()
        assert str(y.grad.dtype).endswith("float32")
    ta, tb = np.random.default_rng(6).standard_normal(a.shape), np.random.default_rng(7).standard_normal(b.shape)
    tangents = []
    for lib, ad in ((tcore, fwAD), (torch, tfwAD)):
        with ad.dual_level():
            r = fn(lib, ad.make_dual(lib.tensor(a), lib.tensor(ta)), ad.make_dual(lib.tensor(b), lib.tensor(tb)))
            tangents.append(ad.unpack_dual(r).tangent.numpy())
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-10, atol=1e-12)


def svd_aligned(ours, theirs):
    """Our U and Vh with each singular pair's sign flipped to torch's (a pair's sign is free)."""
    u, s, vh = (x.numpy() for x in ours)
    k = s.shape[-1]
    flip = np.sign(np.sum(u[..., :, :k] * theirs[0].numpy()[..., :, :k], axis=-2, keepdims=True))
    u = u.copy()
    vh = vh.copy()
    u[..., :, :k] *= flip
    vh[..., :k, :] *= np.swapaxes(flip, -1, -2)
    return u, s, vh


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 6, 4), (2, 3, 4, 6), (1, 1), (0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_as_torch(shape, full_matrices):
    a = np.random.default_rng(len(shape)).standard_normal(shape)
    ours = tcore.linalg.svd(tcore.tensor(a), full_matrices=full_matrices)
    theirs = torch.linalg.svd(torch.tensor(a), full_matrices=full_matrices)
    for o, t in zip(ours, theirs):
        assert o.shape == tuple(t.shape)
    u, s, vh = svd_aligned(ours, theirs)
    np.testing.assert_allclose(s, theirs.S.numpy(), rtol=1e-12, atol=1e-12)
    k = s.shape[-1]
    np.testing.assert_allclose(u[..., :, :k], theirs.U.numpy()[..., :, :k], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(vh[..., :k, :], theirs.Vh.numpy()[..., :k, :], rtol=1e-9, atol=1e-10)
    # orthonormal columns of U and rows of Vh (a full factor's extra ones: any orthonormal completion)
    for f in (ours.U.numpy(), np.swapaxes(ours.Vh.numpy(), -1, -2)):
        c = f.shape[-1]
        np.testing.assert_allclose(np.swapaxes(f, -1, -2) @ f, np.broadcast_to(np.eye(c), f.shape[:-2] + (c, c)), atol=1e-12)
    np.testing.assert_allclose(tcore.linalg.svdvals(tcore.tensor(a)).numpy(), theirs.S.numpy(), rtol=1e-12, atol=1e-12)
    outs = tuple(tcore.empty(0, dtype=tcore.float64) for _ in range(3))
    r = tcore.linalg.svd(tcore.tensor(a), full_matrices=full_matrices, out=outs)
    assert all(x is y for x, y in zip(r, outs))
    np.testing.assert_array_equal(outs[1].numpy(), ours.S.numpy())


def test_svd_float32_and_errors():
    a = np.random.default_rng(1).standard_normal((3, 5, 4)).astype(np.float32)
    np.testing.assert_allclose(tcore.linalg.svdvals(tcore.tensor(a)).numpy(), torch.linalg.svdvals(torch.tensor(a)).numpy(),
                               rtol=1e-5, atol=1e-5)
    for fn in (lambda L: L.linalg.svd(L.ones(3)), lambda L: L.linalg.svd(L.ones(2, 2), driver="gesvd")):
        ours, theirs = error_of(lambda: fn(tcore)), error_of(lambda: fn(torch))
        assert isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError)
        assert str(ours) == str(theirs)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_gradients_as_torch(shape, full_matrices):
    """Losses that do not depend on the singular pairs' signs (U^2, Vh^2, U diag(S) Vh) nor on the
    full factors' completions; first and second derivatives."""
    a = np.random.default_rng(7).standard_normal(shape)
    k = min(shape[-2:])
    wu = np.random.default_rng(8).standard_normal(shape[:-1] + (k,))
    wv = np.random.default_rng(9).standard_normal(shape[:-2] + (k, shape[-1]))
    ws = np.random.default_rng(10).standard_normal(shape[:-2] + (k,))
    results = []
    for lib in LIBS:
        x = lib.tensor(a, requires_grad=True)
        U, S, Vh = lib.linalg.svd(x, full_matrices=full_matrices)
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        loss = ((U * U * lib.tensor(wu)).sum() + (Vh * Vh * lib.tensor(wv)).sum() + (S * lib.tensor(ws)).sum()
                + ((U * S.unsqueeze(-2)) @ Vh).sum() + (lib.linalg.svdvals(x) ** 2).sum())
        g, = lib.autograd.grad(loss, x, create_graph=True)
        gg, = lib.autograd.grad((g * lib.tensor(a)).sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-7, atol=1e-8)


MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")]


@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (2, 0), (1, -1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_values_and_gradients_as_torch(ord, dim, keepdim):
    a = np.random.default_rng(3).standard_normal((3, 4, 5))
    w = None
    results = []
    for lib in LIBS:
        x = lib.tensor(a, requires_grad=True)
        r = lib.linalg.matrix_norm(x, ord=ord, dim=dim, keepdim=keepdim)
        if w is None:
            w = np.random.default_rng(4).standard_normal(tuple(r.shape))
        g, = lib.autograd.grad((r * lib.tensor(w)).sum(), x)
        results.append((r.detach().numpy(), g.numpy()))
    assert results[0][0].shape == results[1][0].shape
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("case", [
    ("vector of all", lambda L, x: L.linalg.norm(x)),
    ("vector dim", lambda L, x: L.linalg.norm(x, dim=1)),
    ("vector ord dim", lambda L, x: L.linalg.norm(x, ord=3, dim=(2,), keepdim=True)),
    ("matrix dims", lambda L, x: L.linalg.norm(x, dim=(0, 2))),
    ("matrix ord dims", lambda L, x: L.linalg.norm(x, ord=-2, dim=(1, 2))),
    ("matrix str", lambda L, x: L.linalg.norm(x[0], ord="nuc")),
    ("matrix ord 2-D", lambda L, x: L.linalg.norm(x[0], ord=float("inf"))),
    ("vector ord 1-D", lambda L, x: L.linalg.norm(x[0, 0], ord=1)),
    ("dtype", lambda L, x: L.linalg.matrix_norm(x.float(), dtype=L.float64)),
], ids=lambda c: c[0])
def test_norm_as_torch(case):
    _, fn = case
    a = np.random.default_rng(5).standard_normal((3, 4, 5))
    ours, theirs = fn(tcore, tcore.tensor(a)), fn(torch, torch.tensor(a))
    assert ours.shape == tuple(theirs.shape) and str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-12)


def test_norm_errors_as_torch():
    for fn in (lambda L: L.linalg.matrix_norm(L.ones(2, 3, 4), ord=3),
               lambda L: L.linalg.matrix_norm(L.ones(2, 3, 4), ord="abc"),
               lambda L: L.linalg.matrix_norm(L.ones(2, 3, 4), dim=(0,)),
               lambda L: L.linalg.matrix_norm(L.ones(2, 3, 4), dim=(1, 1)),
               lambda L: L.linalg.matrix_norm(L.ones(3)),
               lambda L: L.linalg.norm(L.ones(2, 3, 4), ord=2),
               lambda L: L.linalg.norm(L.ones(2, 3, 4), dim=(0, 1, 2)),
               lambda L: L.linalg.norm(L.ones(2, 3, 4), ord="fro", dim=0),
               lambda L: L.linalg.norm(L.ones(3), ord="fro")):
        ours, theirs = error_of(lambda: fn(tcore)), error_of(lambda: fn(torch))
        assert isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError), (ours, theirs)
        assert str(ours) == str(theirs)
    for lib in LIBS:  # an empty matrix's norms are 0
        for ord in (2, 1, -1, "nuc", "fro"):
            assert lib.linalg.matrix_norm(lib.ones(0, 3), ord=ord).item() == 0
    out = tcore.empty(0, dtype=tcore.float64)
    a = tcore.tensor(np.random.default_rng(6).standard_normal((3, 3)))
    assert tcore.linalg.matrix_norm(a, ord="nuc", out=out) is out
    np.testing.assert_array_equal(out.numpy(), tcore.linalg.matrix_norm(a, ord="nuc").numpy())
    assert tcore.linalg.norm(a, ord=2, out=out) is out


def test_matrices_with_nan_as_torch():
    """NaN inputs: inverse and solutions NaN throughout, cholesky and svd raise (OpenBLAS left finite
    values in the inverse and returned a NaN Cholesky factor)."""
    nan = float("nan")
    for fn in (lambda L: L.linalg.inv(L.tensor([[nan, 1.0], [1.0, 1.0]])),
               lambda L: L.linalg.inv(L.tensor([[1.0, 0.0], [0.0, nan]])),
               lambda L: L.linalg.solve(L.tensor([[nan, 1.0], [1.0, 1.0]]), L.ones(2)),
               lambda L: L.linalg.det(L.tensor([[nan, 1.0], [1.0, 1.0]]))):
        np.testing.assert_array_equal(fn(tcore).numpy(), fn(torch).numpy())
    for fn in (lambda L: L.linalg.svd(L.tensor([[nan, 1.0], [1.0, 1.0]])),
               lambda L: L.linalg.svd(L.stack([L.eye(2), L.tensor([[1.0, nan], [1.0, 1.0]])])),
               lambda L: L.linalg.cholesky(L.stack([L.eye(2), L.tensor([[1.0, 0.0], [0.0, nan]])])),
               lambda L: L.linalg.cholesky(L.tensor([[nan, 0.0], [0.0, 1.0]]))):
        ours, theirs = error_of(lambda: fn(tcore)), error_of(lambda: fn(torch))
        assert isinstance(theirs, torch.linalg.LinAlgError) and isinstance(ours, tcore.linalg.LinAlgError)
        assert str(ours) == str(theirs)


QR_SHAPES = [(4, 4), (5, 3), (3, 5), (2, 6, 4), (2, 3, 4, 6), (1, 1), (0, 3), (3, 0), (2, 0, 0), (1, 7)]


@pytest.mark.parametrize("shape", QR_SHAPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_qr_as_torch(shape, mode, dtype):
    """Q and R as torch's (the same Householder signs), shapes of every mode, empty matrices."""
    a = np.random.default_rng(len(shape)).standard_normal(shape)
    ours, theirs = both(lambda L, x: tuple(L.linalg.qr(x, mode=mode)), a, dtype=dtype)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=2e-4, atol=2e-4)
    for o, t in zip(ours, theirs):
        assert o.shape == t.shape and o.dtype == t.dtype
        np.testing.assert_allclose(o, t, **tol)
    if mode != "r" and a.size:
        q, r = ours
        np.testing.assert_allclose(q @ r[..., : q.shape[-1], :], a, **tol)
    (q_dep, r_dep), (tq, tr) = both(lambda L, x: tuple(L.qr(x, some=mode != "complete")), a, dtype=dtype)
    if mode != "r":
        np.testing.assert_allclose(q_dep, tq, **tol)
        np.testing.assert_allclose(r_dep, tr, **tol)


def test_qr_out_method_and_errors_as_torch():
    a = np.random.default_rng(3).standard_normal((5, 3))
    for lib in LIBS:
        x = lib.tensor(a)
        q, r = lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.float64)
        got = lib.linalg.qr(x, out=(q, r))
        assert got[0] is q and got[1] is r and tuple(q.shape) == (5, 3) and tuple(r.shape) == (3, 3)
        q2, r2 = x.qr()
        np.testing.assert_allclose(q2.numpy(), q.numpy())
    for words, case in ((True, lambda L: L.linalg.qr(L.ones(3, 3), mode="full")),
                        (True, lambda L: L.linalg.qr(L.ones(3))),
                        (False, lambda L: L.linalg.qr(L.ones(3, 3, dtype=L.int64))),
                        (False, lambda L: L.linalg.qr(L.ones(3, 3, dtype=L.float16)))):
        ours, theirs = error_of(lambda: case(tcore)), error_of(lambda: case(torch))
        assert ours is not None and theirs is not None and isinstance(ours, RuntimeError), (ours, theirs)
        if words:  # (dtype names are tcore's)
            assert str(ours) == str(theirs)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3), (2, 3, 5)])
@pytest.mark.parametrize("use", ["QR", "Q", "R"])
def test_qr_gradients_second_derivatives_and_tangents_as_torch(shape, use):
    a = np.random.default_rng(7).standard_normal(shape)
    rng = np.random.default_rng(8)
    m, n = shape[-2:]
    k = min(m, n)
    wq, wr = rng.standard_normal(shape[:-1] + (k,)), rng.standard_normal(shape[:-2] + (k, n))
    results = []
    for lib in LIBS:
        x = lib.tensor(a, requires_grad=True)
        q, r = lib.linalg.qr(x)
        loss = 0
        if "Q" in use:
            loss = loss + (q * lib.tensor(wq)).sum()
        if "R" in use:
            loss = loss + (r * lib.tensor(wr)).sum() ** 2
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8, atol=1e-8)
    t = np.random.default_rng(9).standard_normal(shape)
    tangents = []
    for lib in LIBS:
        with lib.autograd.forward_ad.dual_level():
            x = lib.autograd.forward_ad.make_dual(lib.tensor(a), lib.tensor(t))
            q, r = lib.linalg.qr(x)
            tangents.append([lib.autograd.forward_ad.unpack_dual(y).tangent.numpy() for y in (q, r)])
    for o, th in zip(*tangents):
        np.testing.assert_allclose(o, th, rtol=1e-9, atol=1e-9)


def test_qr_not_differentiable_where_torch_says_so():
    for mode, shape in (("r", (3, 3)), ("complete", (5, 3))):
        msgs = []
        for lib in LIBS:
            x = lib.ones(*shape, dtype=lib.float64).cumsum(0).requires_grad_()
            x = x + lib.eye(*shape, dtype=lib.float64)
            q, r = lib.linalg.qr(x, mode=mode)
            msgs.append(str(error_of(lambda: r.sum().backward())))
        assert msgs[0] == msgs[1] and msgs[0] != "None", msgs


def rank_deficient(shape, rank, seed):
    rng = np.random.default_rng(seed)
    m, n = shape[-2:]
    return rng.standard_normal(shape[:-2] + (m, rank)) @ rng.standard_normal(shape[:-2] + (rank, n))


PINV_CASES = [
    ("tall", lambda L, x: L.linalg.pinv(x), (5, 3)),
    ("wide", lambda L, x: L.linalg.pinv(x), (3, 5)),
    ("batch", lambda L, x: L.linalg.pinv(x), (2, 3, 4, 4)),
    ("rank 2 of 5", lambda L, x: L.linalg.pinv(x), "deficient"),
    ("atol", lambda L, x: L.linalg.pinv(x, atol=1.0), (4, 4)),
    ("rtol", lambda L, x: L.linalg.pinv(x, rtol=0.3), (4, 6)),
    ("atol and rtol", lambda L, x: L.linalg.pinv(x, atol=0.1, rtol=0.2), (6, 4)),
    ("atol tensor", lambda L, x: L.linalg.pinv(x, atol=L.tensor([0.0, 1.5], dtype=L.float64)), (2, 4, 4)),
    ("rcond", lambda L, x: L.linalg.pinv(x, 0.4), (4, 4)),
    ("rcond tensor", lambda L, x: L.linalg.pinv(x, L.tensor(0.4, dtype=L.float64)), (4, 4)),
    ("pinverse", lambda L, x: L.pinverse(x), (3, 5)),
    ("pinverse method", lambda L, x: x.pinverse(rcond=0.5), (5, 3)),
    ("hermitian", lambda L, x: L.linalg.pinv(x + x.mT, hermitian=True), (2, 4, 4)),
    ("hermitian atol", lambda L, x: L.linalg.pinv(x + x.mT, atol=1.0, hermitian=True), (5, 5)),
    ("rank", lambda L, x: L.linalg.matrix_rank(x), "deficient"),
    ("rank tall", lambda L, x: L.linalg.matrix_rank(x), (5, 3)),
    ("rank atol", lambda L, x: L.linalg.matrix_rank(x, atol=1.0), (2, 4, 4)),
    ("rank rtol", lambda L, x: L.linalg.matrix_rank(x, rtol=0.5), (4, 6)),
    ("rank tol", lambda L, x: L.linalg.matrix_rank(x, 1.5), (4, 4)),
    ("rank tol tensor", lambda L, x: L.linalg.matrix_rank(x, L.tensor([0.5, 100.0], dtype=L.float64)), (2, 4, 4)),
    ("rank hermitian", lambda L, x: L.linalg.matrix_rank(x @ x.mT, hermitian=True), "deficient"),
    ("empty pinv", lambda L, x: L.linalg.pinv(x), (2, 0, 3)),
    ("empty rank", lambda L, x: L.linalg.matrix_rank(x), (2, 3, 0)),
]


@pytest.mark.parametrize("case", PINV_CASES, ids=lambda c: c[0])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pinv_and_matrix_rank_as_torch(case, dtype):
    _, fn, shape = case
    a = rank_deficient((5, 5), 2, 4) if shape == "deficient" else np.random.default_rng(5).standard_normal(shape)
    (ours,), (theirs,) = both(fn, a, dtype=dtype)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    tol = dict(rtol=1e-9, atol=1e-9) if dtype == "float64" else dict(rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(ours, theirs, **tol)


def test_pinv_and_matrix_rank_out_and_errors_as_torch():
    a = np.random.default_rng(6).standard_normal((4, 3))
    for lib in LIBS:
        out = lib.empty(0, dtype=lib.float64)
        assert lib.linalg.pinv(lib.tensor(a), out=out) is out and tuple(out.shape) == (3, 4)
        rank = lib.empty(0, dtype=lib.int64)
        assert lib.linalg.matrix_rank(lib.tensor(a), out=rank) is rank and rank.item() == 3
    for case in (lambda L: L.linalg.pinv(L.ones(3)), lambda L: L.linalg.pinv(L.ones(3, 3, dtype=L.int64)),
                 lambda L: L.linalg.matrix_rank(L.ones(3)), lambda L: L.linalg.pinv(L.ones(2, 3), hermitian=True)):
        ours, theirs = error_of(lambda: case(tcore)), error_of(lambda: case(torch))
        assert isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError), (ours, theirs)
        if "dimensions of float" not in str(theirs):  # (dtype names are tcore's)
            assert str(ours) == str(theirs)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_derivatives_as_torch(shape, hermitian):
    if hermitian and shape[-1] != shape[-2]:
        pytest.skip("hermitian needs square matrices")
    a = np.random.default_rng(11).standard_normal(shape)
    w = np.random.default_rng(12).standard_normal(shape[:-2] + shape[-2:][::-1])
    results, tangents = [], []
    for lib in LIBS:
        x = lib.tensor(a, requires_grad=True)
        y = lib.linalg.pinv(x + x.mT if hermitian else x, hermitian=hermitian)
        (g,) = lib.autograd.grad((y * lib.tensor(w)).sum() ** 2, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
        with lib.autograd.forward_ad.dual_level():
            d = lib.autograd.forward_ad.make_dual(lib.tensor(a), lib.tensor(a[..., ::-1, :].copy()))
            y = lib.linalg.pinv(d + d.mT if hermitian else d, hermitian=hermitian)
            tangents.append(lib.autograd.forward_ad.unpack_dual(y).tangent.numpy())
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-8, atol=1e-9)


LU_SHAPES = [(4, 4), (5, 3), (3, 5), (2, 4, 4), (2, 3, 5, 2), (1, 1), (0, 3), (3, 0), (2, 0, 0)]


@pytest.mark.parametrize("shape", LU_SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lu_factor_lu_and_unpack_as_torch(shape, dtype):
    """The same pivots (partial pivoting picks the same rows), factors, info and P L U."""
    a = np.random.default_rng(len(shape) + shape[-1]).standard_normal(shape)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=2e-4, atol=2e-4)
    for fn in (lambda L, x: tuple(L.linalg.lu_factor(x)), lambda L, x: tuple(L.linalg.lu_factor_ex(x)),
               lambda L, x: tuple(L.linalg.lu(x)), lambda L, x: tuple(L.lu_unpack(*L.linalg.lu_factor(x))),
               lambda L, x: tuple(L.lu_unpack(*L.linalg.lu_factor(x), unpack_data=False)),
               lambda L, x: tuple(L.lu_unpack(*L.linalg.lu_factor(x), unpack_pivots=False))):
        ours, theirs = both(fn, a, dtype=dtype)
        for o, t in zip(ours, theirs):
            assert o.shape == t.shape and o.dtype == t.dtype
            np.testing.assert_allclose(o, t, **tol)
    if a.size:
        p, l, u = both(lambda L, x: tuple(L.linalg.lu(x)), a, dtype=dtype)[0]
        np.testing.assert_allclose(p @ l @ u, a, **tol)


def test_lu_of_singular_matrices_and_errors_as_torch():
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]])
    ours, theirs = both(lambda L, x: tuple(L.linalg.lu_factor_ex(x)), singular)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)
    ours, theirs = both(lambda L, x: tuple(L.linalg.lu(x)), singular)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)
    cases = [
        (True, lambda L: L.linalg.lu_factor(L.tensor(singular))),
        (True, lambda L: L.linalg.lu_factor(L.tensor(singular[1]))),
        (True, lambda L: L.linalg.lu_factor_ex(L.tensor(singular), check_errors=True)),
        (True, lambda L: L.linalg.lu_factor(L.eye(2), pivot=False)),
        (True, lambda L: L.linalg.lu_factor(L.ones(3))),
        (False, lambda L: L.linalg.lu_factor(L.ones(2, 2, dtype=L.int64))),
        (True, lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(3))),
        (True, lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(2, 2))),
        (True, lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(2, 2), left=False)),
        (True, lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.ones(3, 4)), L.ones(3, 2))),
    ]
    for words, case in cases:
        ours, theirs = error_of(lambda: case(tcore)), error_of(lambda: case(torch))
        assert isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError), (ours, theirs)
        if isinstance(theirs, torch.linalg.LinAlgError):
            assert isinstance(ours, tcore.linalg.LinAlgError)
        if words:
            assert str(ours) == str(theirs)
    # pivots out of range are refused, not read past the matrix
    lu, piv = tcore.linalg.lu_factor(tcore.eye(3))
    for bad in ([0, 2, 3], [1, 2, 4], [-5, 1, 1]):
        with pytest.raises(ValueError):
            tcore.linalg.lu_solve(lu, tcore.tensor(bad, dtype=tcore.int32), tcore.ones(3, 1))
        with pytest.raises(ValueError):
            tcore.lu_unpack(lu, tcore.tensor(bad, dtype=tcore.int32))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_as_torch(left, adjoint):
    a = well_conditioned((2, 1, 4, 4), seed=3)
    b = np.random.default_rng(4).standard_normal((3, 4, 2) if left else (3, 2, 4))  # (the batches broadcast)
    ours, theirs = both(lambda L, x, y: L.linalg.lu_solve(*L.linalg.lu_factor(x), y, left=left, adjoint=adjoint), a, b)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10, atol=1e-10)
    ours, theirs = both(lambda L, x, y: L.lu_solve(y, *L.linalg.lu_factor(x)), a[0, 0], b[0] if left else b[0].T)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10, atol=1e-10)



@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("n, k", [(1, 1), (37, 1), (37, 3), (70, 64)])
def test_lu_solve_one_column_and_sizes_as_torch(left, adjoint, n, k):
    """One right-hand side (trsv's path), several (trsm's), and the interchanges of a pivoted LU of
    a size past the small cases, for each side and op, float64 and float32."""
    a = np.random.default_rng(n).standard_normal((n, n)) + 0.5 * n ** 0.5 * np.eye(n)
    b = np.random.default_rng(k).standard_normal((2, n, k) if left else (2, k, n))
    for dt, tol in (("float64", 1e-9), ("float32", 2e-3)):
        got = [lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.tensor(a, dtype=getattr(lib, dt))),
                                   lib.tensor(b, dtype=getattr(lib, dt)), left=left, adjoint=adjoint).numpy()
               for lib in LIBS]
        np.testing.assert_allclose(got[0], got[1], rtol=tol, atol=tol)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
@pytest.mark.parametrize("k", [1, 3])
def test_solve_triangular_of_a_transposed_view_as_torch(upper, unitriangular, k):
    """A given as the transpose of a contiguous matrix (read where it lies, the other triangle) and one
    or several columns; the triangle not named holds garbage that is never read."""
    n = 40
    full = np.random.default_rng(8).standard_normal((3, n, n)) * 0.1 + 2 * np.eye(n)
    b = np.random.default_rng(9).standard_normal((3, n, k))
    got = []
    for lib in LIBS:
        a = lib.tensor(full).transpose(-2, -1)  # a view: strides of the transpose
        got.append(lib.linalg.solve_triangular(a, lib.tensor(b), upper=upper, unitriangular=unitriangular).numpy())
    np.testing.assert_allclose(got[0], got[1], rtol=1e-10, atol=1e-10)
    a = np.swapaxes(full, -1, -2)
    tri = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        tri = tri * (1 - np.eye(n)) + np.eye(n)
    np.testing.assert_allclose(tri @ got[0], b, rtol=1e-9, atol=1e-9)

def test_lu_out_overloads():
    a = np.random.default_rng(5).standard_normal((4, 3))
    for lib in LIBS:
        x = lib.tensor(a)
        lu, piv = lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32)
        got = lib.linalg.lu_factor(x, out=(lu, piv))
        assert got[0] is lu and got[1] is piv and tuple(lu.shape) == (4, 3)
        p, l, u = (lib.empty(0, dtype=lib.float64) for _ in range(3))
        got = lib.linalg.lu(x, out=(p, l, u))
        assert got[2] is u and tuple(l.shape) == (4, 3)
        out = lib.empty(0, dtype=lib.float64)
        assert lib.linalg.lu_solve(*lib.linalg.lu_factor(x[:3]), x, left=False, out=out) is out


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 3)])
def test_lu_derivatives_as_torch(shape):
    """lu_factor's packed factors and lu's L and U: gradients, second derivatives and tangents."""
    a = well_conditioned(shape, seed=6) if shape[-1] == shape[-2] else np.random.default_rng(6).standard_normal(shape)
    rng = np.random.default_rng(7)
    m, n = shape[-2:]
    k = min(m, n)
    w, wl, wu = rng.standard_normal(shape), rng.standard_normal(shape[:-1] + (k,)), rng.standard_normal(shape[:-2] + (k, n))
    results, tangents = [], []
    for lib in LIBS:
        x = lib.tensor(a, requires_grad=True)
        lu, _ = lib.linalg.lu_factor(x)
        _, l, u = lib.linalg.lu(x)
        loss = (lu * lib.tensor(w)).sum() ** 2 + (l * lib.tensor(wl)).sum() + (u * u * lib.tensor(wu)).sum()
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
        with lib.autograd.forward_ad.dual_level():
            d = lib.autograd.forward_ad.make_dual(lib.tensor(a), lib.tensor(w))
            lu, _ = lib.linalg.lu_factor(d)
            _, l, u = lib.linalg.lu(d)
            tangents.append([lib.autograd.forward_ad.unpack_dual(y).tangent.numpy() for y in (lu, l, u)])
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-7, atol=1e-8)
    for o, t in zip(*tangents):
        np.testing.assert_allclose(o, t, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_derivatives_as_torch(left, adjoint):
    a = well_conditioned((2, 4, 4), seed=8)
    b = np.random.default_rng(9).standard_normal((2, 4, 3) if left else (2, 3, 4))
    results, tangents = [], []
    for lib in LIBS:
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        lu, piv = lib.linalg.lu_factor(x)
        out = lib.linalg.lu_solve(lu, piv, y, left=left, adjoint=adjoint)
        gx, gy = lib.autograd.grad((out * out).sum(), (x, y), create_graph=True)
        (gg,) = lib.autograd.grad((gx * gx).sum() + (gy * gy).sum(), x)
        results.append((gx.detach().numpy(), gy.detach().numpy(), gg.numpy()))
        with lib.autograd.forward_ad.dual_level():
            lu, piv = lib.linalg.lu_factor(lib.tensor(a))
            dlu = lib.autograd.forward_ad.make_dual(lu, lib.tensor(np.tril(a, -1) * 0.1 + np.triu(a)))
            dy = lib.autograd.forward_ad.make_dual(lib.tensor(b), lib.tensor(b[..., ::-1].copy()))
            out = lib.linalg.lu_solve(dlu, piv, dy, left=left, adjoint=adjoint)
            tangents.append(lib.autograd.forward_ad.unpack_dual(out).tangent.numpy())
    for o, t in zip(*results):
        np.testing.assert_allclose(o, t, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-8, atol=1e-9)


LSTSQ_CASES = [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((4, 4), (4, 1)), ((2, 5, 3), (1, 5, 2)), ((5, 3), (5,)),
               ((2, 5, 3), (2, 5)), ((0, 3), (0, 2)), ((4, 0), (4, 2))]


@pytest.mark.parametrize("shapes", LSTSQ_CASES, ids=str)
@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_as_torch(shapes, driver):
    """solution, residuals (only where torch computes them), rank and singular values of every driver."""
    if driver == "gels" and shapes[0][-1] > shapes[0][-2]:
        pytest.skip("gels of a wide matrix: LAPACK's minimum-norm solution, torch's too, but no rank check")
    rng = np.random.default_rng(12)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    for dtype, tol in (("float64", 1e-9), ("float32", 2e-4)):
        ours, theirs = both(lambda L, x, y: tuple(L.linalg.lstsq(x, y, driver=driver)), a, b, dtype=dtype)
        for o, t in zip(ours, theirs):
            assert o.shape == t.shape and o.dtype == t.dtype, (o.shape, t.shape, o.dtype, t.dtype)
            np.testing.assert_allclose(o, t, rtol=tol, atol=tol)


def test_lstsq_without_right_hand_sides():
    """B with no columns (torch 2.13's gelsd and gelss crash there): no solutions, A's rank and
    singular values all the same."""
    a = rank_deficient((4, 3), 2, 18)
    for driver in ("gelsy", "gelsd", "gelss"):
        r = tcore.linalg.lstsq(tcore.tensor(a), tcore.ones(4, 0, dtype=tcore.float64), driver=driver)
        assert tuple(r.solution.shape) == (3, 0) and r.rank.item() == 2
        if driver != "gelsy":
            np.testing.assert_allclose(r.singular_values.numpy(), np.linalg.svd(a, compute_uv=False), atol=1e-12)


@pytest.mark.parametrize("driver", [None, "gelsd"])
def test_lstsq_of_rank_deficient_matrices_and_rcond_as_torch(driver):
    a, b = rank_deficient((6, 4), 2, 13), np.random.default_rng(14).standard_normal((6, 3))
    # (a rank cut by rcond: gelsy's basic solution depends on how the LAPACK at hand estimates the
    # condition, OpenBLAS's reference code or torch's MKL; the SVD drivers' minimum-norm one does not)
    for kw in ({}, {"rcond": 1e-12}) if driver is None else ({}, {"rcond": 0.5}, {"rcond": 1e-12}):
        ours, theirs = both(lambda L, x, y: tuple(L.linalg.lstsq(x, y, driver=driver, **kw)), a, b)
        for o, t in zip(ours, theirs):
            np.testing.assert_allclose(o, t, rtol=1e-8, atol=1e-8)


def test_lstsq_out_and_errors_as_torch():
    a, b = np.random.default_rng(15).standard_normal((5, 3)), np.random.default_rng(16).standard_normal((5, 2))
    for lib in LIBS:
        outs = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int64),
                lib.empty(0, dtype=lib.float64))
        got = lib.linalg.lstsq(lib.tensor(a), lib.tensor(b), driver="gelsd", out=outs)
        assert all(g is o for g, o in zip(got, outs)) and tuple(outs[3].shape) == (3,)
    cases = [
        (True, lambda L: L.linalg.lstsq(L.ones(5, 3), L.ones(5, 2), driver="foo")),
        (True, lambda L: L.linalg.lstsq(L.ones(5, 3), L.ones(4, 2))),
        (False, lambda L: L.linalg.lstsq(L.ones(5, 3), L.ones(5, 2, dtype=L.float64))),
        (True, lambda L: L.linalg.lstsq(L.ones(3), L.ones(3, 2))),
        (True, lambda L: L.linalg.lstsq(L.ones(5, 3), L.ones(2, 3, 5, 2))),
        (False, lambda L: L.linalg.lstsq(L.ones(5, 3, dtype=L.int64), L.ones(5, 2, dtype=L.int64))),
    ]
    for words, case in cases:
        ours, theirs = error_of(lambda: case(tcore)), error_of(lambda: case(torch))
        assert isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError), (ours, theirs)
        if words:
            assert str(ours) == str(theirs)


@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 5, 3), (2, 5))], ids=str)
@pytest.mark.parametrize("driver", [None, "gelsd"])
def test_lstsq_derivatives_as_torch(shapes, driver):
    """Through the solution and the residuals: gradients in A and B, second derivatives, tangents."""
    rng = np.random.default_rng(17)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    results, tangents = [], []
    for lib in LIBS:
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        r = lib.linalg.lstsq(x, y, driver=driver)
        loss = (r.solution ** 2).sum() + (r.residuals.sum() if r.residuals.numel() else 0)
        gx, gy = lib.autograd.grad(loss, (x, y), create_graph=True)
        (gg,) = lib.autograd.grad((gx * gx).sum() + (gy * gy).sum(), x)
        results.append((gx.detach().numpy(), gy.detach().numpy(), gg.numpy()))
        with lib.autograd.forward_ad.dual_level():
            dx = lib.autograd.forward_ad.make_dual(lib.tensor(a), lib.tensor(a[..., ::-1, :].copy()))
            dy = lib.autograd.forward_ad.make_dual(lib.tensor(b), lib.tensor(b * 0.5))
            r = lib.linalg.lstsq(dx, dy, driver=driver)
            tangents.append([lib.autograd.forward_ad.unpack_dual(t).tangent for t in (r.solution, r.residuals)])
    for o, t in zip(*results):
        np.testing.assert_allclose(o, t, rtol=1e-7, atol=1e-8)
    for o, t in zip(*tangents):
        assert (o is None) == (t is None)
        if o is not None:
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-8, atol=1e-9)


def test_inv_ex_and_cholesky_ex_as_torch():
    """info where the matrix fails (0 elsewhere) without raising, the values of the matrices that do
    not fail, check_errors raising torch's LinAlgError; gradients through the _ex forms."""
    spd = well_conditioned((2, 3, 3), seed=19, spd=True)
    bad = spd.copy()
    bad[1] = [[4.0, 2.0, 1.0], [2.0, 1.0, 3.0], [1.0, 3.0, 5.0]]  # the leading minor of order 2 fails
    for upper in (False, True):
        (l, info), (tl, tinfo) = both(lambda L, x: tuple(L.linalg.cholesky_ex(x, upper=upper)), bad)
        np.testing.assert_array_equal(info, tinfo)
        np.testing.assert_allclose(l[0], tl[0], rtol=1e-12, atol=1e-12)
    singular = well_conditioned((2, 3, 3), seed=20)
    singular[1] = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]
    (inv, info), (tinv, tinfo) = both(lambda L, x: tuple(L.linalg.inv_ex(x)), singular)
    np.testing.assert_array_equal(info, tinfo)
    np.testing.assert_allclose(inv[0], tinv[0], rtol=1e-12, atol=1e-12)
    assert not np.isfinite(inv[1]).all()  # (the factors' solve of A X = I: inf and NaN, as torch's)
    for case in (lambda L: L.linalg.cholesky_ex(L.tensor(bad), check_errors=True),
                 lambda L: L.linalg.inv_ex(L.tensor(singular), check_errors=True),
                 lambda L: L.linalg.cholesky(L.tensor(bad)), lambda L: L.linalg.inv(L.tensor(singular))):
        ours, theirs = error_of(lambda: case(tcore)), error_of(lambda: case(torch))
        assert isinstance(ours, tcore.linalg.LinAlgError) and str(ours) == str(theirs), (ours, theirs)
    for lib in LIBS:
        outs = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32))
        got = lib.linalg.cholesky_ex(lib.tensor(spd), out=outs)
        assert got[0] is outs[0] and got[1] is outs[1] and tuple(outs[1].shape) == (2,)
    grads = []
    for lib in LIBS:
        x = lib.tensor(spd, requires_grad=True)
        loss = (lib.linalg.cholesky_ex(x).L ** 2).sum() + (lib.linalg.inv_ex(x).inverse ** 2).sum()
        grads.append(lib.autograd.grad(loss, x)[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-10)


def test_non_finite_matrices_never_reach_the_iterative_routines():
    """OpenBLAS's SVD looped forever on a 3 x 3 matrix with a -inf: a NaN or an infinity is refused
    (LinAlgError) by svd with factors, eigh and the SVD drivers of lstsq; svdvals of a matrix with an
    infinity is NaN and its rank 0, as torch's."""
    a = np.random.default_rng(21).standard_normal((2, 3, 3))
    a = a + np.swapaxes(a, -1, -2)
    for v in (np.nan, np.inf, -np.inf):
        b = a.copy()
        b[1, 2, 0] = b[1, 0, 2] = v
        x = tcore.tensor(b)
        for fn in (lambda: tcore.linalg.svd(x), lambda: tcore.linalg.eigh(x), lambda: tcore.linalg.eigvalsh(x),
                   lambda: tcore.linalg.pinv(x), lambda: tcore.linalg.lstsq(x, x, driver="gelsd"),
                   lambda: tcore.linalg.lstsq(x, x, driver="gelss")):
            with pytest.raises(tcore.linalg.LinAlgError, match=r"\(Batch element 1\).*non-finite"):
                fn()
        if np.isinf(v):
            s = tcore.linalg.svdvals(x).numpy()
            assert np.isfinite(s[0]).all() and np.isnan(s[1]).all()
            assert tcore.linalg.matrix_rank(x).tolist() == [torch.linalg.matrix_rank(torch.tensor(b)).tolist()[0], 0]
        # the triangle eigh does not read may hold anything
        c = a.copy()
        c[:, 0, 2] = v
        np.testing.assert_allclose(tcore.linalg.eigvalsh(tcore.tensor(c)).numpy(), np.linalg.eigvalsh(a), atol=1e-12)


@pytest.mark.parametrize("shape,k", [((5, 3), 3), ((2, 6, 4), 2), ((4, 4), 4), ((3, 0), 0), ((5, 3), 0)])
def test_householder_product_and_geqrf_as_torch(shape, k):
    """(values, gradients of input and tau; geqrf's compact form, which householder_product
    turns back into linalg.qr's Q)"""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    a, tau = rng.standard_normal(shape), rng.random(shape[:-2] + (k,))
    at, tt = torch.tensor(a, requires_grad=True), torch.tensor(tau, requires_grad=True)
    ac, tc = tcore.tensor(a, requires_grad=True), tcore.tensor(tau, requires_grad=True)
    want, got = torch.linalg.householder_product(at, tt), tcore.linalg.householder_product(ac, tc)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)
    if want.numel():
        weights = rng.standard_normal(tuple(want.shape))
        (want * torch.tensor(weights)).sum().backward()
        (got * tcore.tensor(weights)).sum().backward()
        for c, t in ((ac, at), (tc, tt)):  # (no reflector: torch leaves the gradients None, tcore gives zeros)
            want_grad = np.zeros(tuple(t.shape)) if t.grad is None else t.grad.numpy()
            np.testing.assert_allclose(c.grad.numpy(), want_grad, rtol=1e-11, atol=1e-13)
    (wa, wt), (ga, gt) = torch.geqrf(torch.tensor(a)), tcore.geqrf(tcore.tensor(a))
    np.testing.assert_allclose(ga.numpy(), wa.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gt.numpy(), wt.numpy(), rtol=1e-12, atol=1e-14)
    if shape[-1] and shape[-2] >= shape[-1]:
        q = tcore.linalg.householder_product(ga, gt).numpy()
        np.testing.assert_allclose(q, tcore.linalg.qr(tcore.tensor(a))[0].numpy(), rtol=1e-12, atol=1e-13)


def test_householder_product_and_geqrf_errors():
    with pytest.raises(ValueError, match="input must have at least 2 dimensions"):
        tcore.linalg.householder_product(tcore.zeros(3), tcore.zeros(1))
    with pytest.raises(ValueError, match=r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\]"):
        tcore.linalg.householder_product(tcore.zeros(3, 4), tcore.zeros(2))
    with pytest.raises(ValueError, match=r"input.shape\[-1\] must be greater than or equal to tau.shape\[-1\]"):
        tcore.linalg.householder_product(tcore.zeros(4, 3), tcore.zeros(4))
    with pytest.raises(ValueError, match=r"Expected batch dimensions of tau to be equal to input.shape\[:-2\]"):
        tcore.linalg.householder_product(tcore.zeros(2, 4, 3), tcore.zeros(3, 2))
    with pytest.raises(TypeError, match="tau dtype float32 does not match input dtype float64"):
        tcore.linalg.householder_product(tcore.zeros(4, 3, dtype=tcore.float64), tcore.zeros(2))
    with pytest.raises(ValueError, match="torch.geqrf: input must have at least 2 dimensions."):
        tcore.geqrf(tcore.zeros(3))
    a, _ = tcore.geqrf(tcore.ones(3, 2, requires_grad=True))
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
        a.sum().backward()


def test_geqrf_out_casts_as_torch():
    """torch casts geqrf's results into outs of any dtype they can be cast to, and refuses the rest."""
    x = np.random.default_rng(3).standard_normal((4, 3))
    wa, wt = torch.geqrf(torch.tensor(x))
    for dtype in ("float32", "float16"):
        a, tau = tcore.empty(0, dtype=getattr(tcore, dtype)), tcore.empty(0, dtype=getattr(tcore, dtype))
        ga, gt = tcore.geqrf(tcore.tensor(x), out=(a, tau))
        assert ga is a and gt is tau and a.dtype == getattr(tcore, dtype)
        np.testing.assert_allclose(a.numpy().astype(np.float64), wa.numpy(), rtol=2e-3, atol=2e-3)
        np.testing.assert_allclose(tau.numpy().astype(np.float64), wt.numpy(), rtol=2e-3, atol=2e-3)
    with pytest.raises(TypeError, match="torch.geqrf: Expected a to be safely castable from float64 dtype, but got a "
                                        "with dtype int64"):
        tcore.geqrf(tcore.tensor(x), out=(tcore.empty(0, dtype=tcore.int64), tcore.empty(0, dtype=tcore.float64)))
    with pytest.raises(TypeError, match="Expected tau to be safely castable"):
        tcore.geqrf(tcore.tensor(x), out=(tcore.empty(0, dtype=tcore.float64), tcore.empty(0, dtype=tcore.int32)))
