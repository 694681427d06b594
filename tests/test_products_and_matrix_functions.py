"""torch's composites over the products and factorizations (native/composite/Products.cpp,
MatrixFunctions.cpp, Correlation.cpp, Integration.cpp, Factories.cpp) and a few kernels: addmv,
addr, baddbmm, addbmm (and in-place forms), ger, inner, vdot, chain_matmul, linalg.multi_dot,
matrix_power, matrix_exp, linalg.cross, diag_embed, tril/triu_indices, torch.svd, cholesky_solve,
cholesky_inverse, triangular_solve, linalg.cond, tensorinv, tensorsolve, vander, cov, corrcoef,
logcumsumexp, trapezoid/trapz/cumulative_trapezoid, renorm, histc, pdist, nuclear_norm and
frobenius_norm against torch 2.13: values, errors, out=, first and second derivatives."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

LIBS = (tcore, torch)
needs_lapack = pytest.mark.skipif(tcore.backends.cpu.blas() != "openblas",
                                  reason="this build has no LAPACK (it comes with OpenBLAS)")


def rand(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape)


def spd(n, batch=(), seed=0):
    m = rand(*batch, n, n, seed=seed)
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def run(lib, fn, arrays, grad):
    xs = [lib.tensor(a, requires_grad=grad and np.issubdtype(a.dtype, np.floating)) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = fn(lib, *xs)
    ys = y if isinstance(y, tuple) else (y,)
    values = [t.detach().numpy() for t in ys]
    if not grad:
        return values, None, None
    diff = [x for x in xs if x.requires_grad]
    out = sum((t * lib.tensor(np.linspace(-1, 1, t.numel()).reshape(tuple(t.shape)))).sum()
              for t in ys if t.dtype == lib.float64 and t.requires_grad)
    g = lib.autograd.grad(out, diff, create_graph=True, allow_unused=True)
    g = [lib.zeros_like(x) if gi is None else gi for gi, x in zip(g, diff)]
    second = sum((gi * gi).sum() for gi in g)
    gg = lib.autograd.grad(second, diff, allow_unused=True) if second.requires_grad else [None] * len(diff)
    return values, [gi.detach().numpy() for gi in g], [None if x is None else x.numpy() for x in gg]


CASES = [
    ("addmv", lambda L, s, m, v: L.addmv(s, m, v, beta=0.5, alpha=2), [(3,), (3, 4), (4,)]),
    ("addmv broadcast", lambda L, s, m, v: L.addmv(s, m, v), [(1,), (3, 4), (4,)]),
    ("addmv beta 0", lambda L, s, m, v: L.addmv(s, m, v, beta=0), [(3,), (3, 4), (4,)]),
    ("addmv_", lambda L, s, m, v: (s * 1).addmv_(m, v, alpha=3), [(3,), (3, 4), (4,)]),
    ("addr", lambda L, s, a, b: L.addr(s, a, b, beta=2, alpha=0.5), [(3, 4), (3,), (4,)]),
    ("addr broadcast", lambda L, s, a, b: L.addr(s, a, b), [(4,), (3,), (4,)]),
    ("addr_", lambda L, s, a, b: (s * 1).addr_(a, b), [(3, 4), (3,), (4,)]),
    ("ger", lambda L, a, b: L.ger(a, b), [(3,), (4,)]),
    ("baddbmm", lambda L, s, a, b: L.baddbmm(s, a, b, beta=0.5, alpha=-1), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("baddbmm broadcast", lambda L, s, a, b: L.baddbmm(s, a, b), [(5,), (2, 3, 4), (2, 4, 5)]),
    ("baddbmm beta 0", lambda L, s, a, b: L.baddbmm(s, a, b, beta=0), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("baddbmm_", lambda L, s, a, b: (s * 1).baddbmm_(a, b, beta=2), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("addbmm", lambda L, s, a, b: L.addbmm(s, a, b, beta=0.5, alpha=2), [(3, 5), (6, 3, 4), (6, 4, 5)]),
    ("addbmm broadcast", lambda L, s, a, b: L.addbmm(s, a, b), [(1, 5), (6, 3, 4), (6, 4, 5)]),
    ("addbmm_", lambda L, s, a, b: (s * 1).addbmm_(a, b), [(3, 5), (6, 3, 4), (6, 4, 5)]),
    ("inner", lambda L, a, b: L.inner(a, b), [(2, 3), (4, 5, 3)]),
    ("inner vectors", lambda L, a, b: L.inner(a, b), [(3,), (3,)]),
    ("inner scalar", lambda L, a, b: L.inner(a, b), [(), (4, 3)]),
    ("vdot", lambda L, a, b: L.vdot(a, b), [(5,), (5,)]),
    ("multi_dot 2", lambda L, a, b: L.linalg.multi_dot([a, b]), [(3, 4), (4, 2)]),
    ("multi_dot 3", lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), [(10, 2), (2, 8), (8, 3)]),
    ("multi_dot 3 right", lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), [(2, 10), (10, 8), (8, 30)]),
    ("multi_dot 5", lambda L, a, b, c, d, e: L.linalg.multi_dot([a, b, c, d, e]),
     [(7, 3), (3, 9), (9, 2), (2, 6), (6, 4)]),
    ("multi_dot vectors", lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), [(3,), (3, 4), (4,)]),
    ("multi_dot vector first", lambda L, a, b: L.linalg.multi_dot([a, b]), [(3,), (3, 4)]),
    ("chain_matmul", lambda L, a, b, c: L.chain_matmul(a, b, c), [(3, 4), (4, 5), (5, 2)]),
    ("matrix_power 0", lambda L, a: L.linalg.matrix_power(a, 0), [(2, 3, 3)]),
    ("matrix_power 1", lambda L, a: L.matrix_power(a, 1), [(3, 3)]),
    ("matrix_power 3", lambda L, a: L.linalg.matrix_power(a, 3), [(2, 3, 3)]),
    ("matrix_power 6", lambda L, a: a.matrix_power(6), [(3, 3)]),
    ("matrix_power 13", lambda L, a: L.linalg.matrix_power(a, 13) * 1e-6, [(3, 3)]),
    ("linalg.cross", lambda L, a, b: L.linalg.cross(a, b), [(4, 3), (1, 3)]),
    ("linalg.cross dim", lambda L, a, b: L.linalg.cross(a, b, dim=0), [(3, 2), (3, 2)]),
    ("cross default dim", lambda L, a, b: L.cross(a, b), [(2, 3, 3), (2, 3, 3)]),
    ("diag_embed", lambda L, a: L.diag_embed(a), [(2, 3)]),
    ("diag_embed offset dims", lambda L, a: L.diag_embed(a, offset=-1, dim1=0, dim2=2), [(2, 3)]),
    ("diag_embed positive offset", lambda L, a: a.diag_embed(2, 1, 0), [(4,)]),
    ("cov", lambda L, a: L.cov(a), [(3, 6)]),
    ("cov vector", lambda L, a: L.cov(a, correction=0), [(7,)]),
    ("corrcoef", lambda L, a: L.corrcoef(a), [(4, 9)]),
    ("vander", lambda L, a: L.linalg.vander(a), [(4,)]),
    ("logcumsumexp", lambda L, a: L.logcumsumexp(a * 30, 1), [(3, 7)]),
    ("logcumsumexp dim 0", lambda L, a: a.logcumsumexp(0), [(5, 2)]),
    ("trapezoid", lambda L, y: L.trapezoid(y), [(3, 6)]),
    ("trapezoid dx dim", lambda L, y: L.trapezoid(y, dx=0.5, dim=0), [(4, 3)]),
    ("trapezoid x", lambda L, y, x: L.trapezoid(y, x), [(3, 5), (5,)]),
    ("trapezoid x matrix", lambda L, y, x: L.trapezoid(y, x, dim=0), [(4, 3), (4, 3)]),
    ("trapz", lambda L, y, x: L.trapz(y, x), [(2, 5), (5,)]),
    ("trapz dx", lambda L, y: L.trapz(y, dx=2.0), [(2, 5)]),
    ("cumulative_trapezoid", lambda L, y: L.cumulative_trapezoid(y), [(2, 6)]),
    ("cumulative_trapezoid x", lambda L, y, x: L.cumulative_trapezoid(y, x, dim=0), [(4, 3), (4,)]),
    ("cumulative_trapezoid dx", lambda L, y: L.cumulative_trapezoid(y, dx=3, dim=-1), [(2, 6)]),
    ("renorm", lambda L, a: L.renorm(a, 2, 0, 1.5), [(4, 3)]),
    ("renorm p1 dim1", lambda L, a: a.renorm(1, 1, 2.0), [(2, 3, 4)]),
    ("renorm_", lambda L, a: (a * 1).renorm_(3, 0, 0.5), [(3, 3)]),
    ("pdist", lambda L, a: L.pdist(a), [(5, 3)]),
    ("pdist p1", lambda L, a: L.pdist(a, p=1), [(4, 3)]),
    ("pdist p3", lambda L, a: L.pdist(a, p=3), [(4, 2)]),
    ("pdist inf", lambda L, a: L.pdist(a, p=float("inf")), [(4, 3)]),
    ("frobenius_norm", lambda L, a: L.frobenius_norm(a, [0, 1]), [(3, 4)]),
    ("vander N", lambda L, a: L.linalg.vander(a, N=6), [(2, 3)]),
]
def norms(lib, a, ord):
    return lib.linalg.matrix_norm(a, ord) * lib.linalg.matrix_norm(lib.linalg.inv(a), ord)


LAPACK_CASES = [
    ("matrix_power -2", lambda L, a: L.linalg.matrix_power(a, -2), [(3, 3)]),
    ("matrix_exp", lambda L, a: L.linalg.matrix_exp(a), [(4, 4)]),
    ("matrix_exp scaled batch", lambda L, a: L.matrix_exp(a * L.tensor([0.01, 1.0, 30.0]).reshape(3, 1, 1)),
     [(3, 3, 3)]),
    ("triangular_solve", lambda L, b, a: L.triangular_solve(b, a + 3 * L.eye(3, dtype=L.float64)), [(3, 2), (3, 3)]),
    ("triangular_solve lower transposed", lambda L, b, a: L.triangular_solve(b, a + 3 * L.eye(3, dtype=L.float64),
                                                                             upper=False, transpose=True),
     [(2, 3, 2), (3, 3)]),
    ("triangular_solve unit", lambda L, b, a: L.triangular_solve(b, a, unitriangular=True)[0], [(3, 2), (3, 3)]),
    ("nuclear_norm", lambda L, a: L.nuclear_norm(a), [(3, 4)]),
    ("nuclear_norm dim", lambda L, a: L.nuclear_norm(a, [0, 2], keepdim=True), [(3, 2, 4)]),
    ("svd", lambda L, a: L.svd(a)[1], [(4, 3)]),
    ("svd uv", lambda L, a: (lambda r: (r[0] @ L.diag_embed(r[1]) @ r[2].mT))(L.svd(a)), [(2, 4, 3)]),
    ("svd no uv", lambda L, a: L.svd(a, compute_uv=False), [(3, 5)]),
    ("cholesky_solve", lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)), [(3, 3), (3, 2)]),
    ("cholesky_solve upper", lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a, upper=True), upper=True),
     [(3, 3), (2, 3, 2)]),
    ("cholesky_inverse", lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)), [(2, 3, 3)]),
    ("cholesky_inverse upper", lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a, upper=True), upper=True), [(4, 4)]),
    ("cond", lambda L, a: L.linalg.cond(a), [(3, 3)]),
    ("cond -2 wide", lambda L, a: L.linalg.cond(a, -2), [(2, 3, 5)]),
    # (torch's own backward fails for these ords, its inverse written in place: |A| |A^-1| instead)
    ("cond 1", lambda L, a: L.linalg.cond(a, 1) if L is tcore else norms(L, a, 1), [(3, 3)]),
    ("cond -inf", lambda L, a: L.linalg.cond(a, -float("inf")) if L is tcore else norms(L, a, -float("inf")),
     [(2, 3, 3)]),
    ("cond fro", lambda L, a: L.linalg.cond(a, "fro") if L is tcore else norms(L, a, "fro"), [(3, 3)]),
    ("cond nuc", lambda L, a: L.linalg.cond(a, "nuc"), [(3, 3)]),
    ("tensorinv", lambda L, a: L.linalg.tensorinv(a, ind=2), [(4, 3, 6, 2)]),
    ("tensorinv 1", lambda L, a: L.linalg.tensorinv(a, ind=1), [(6, 2, 3)]),
    ("tensorsolve", lambda L, a, b: L.linalg.tensorsolve(a, b), [(2, 3, 6), (2, 3)]),
    ("tensorsolve dims", lambda L, a, b: L.linalg.tensorsolve(a, b, dims=(0, 2)), [(6, 4, 4, 3, 2), (4, 3, 2)]),
]


def arrays_of(name, shapes):
    arrays = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    if name.startswith("cholesky"):
        arrays[0] = spd(shapes[0][-1], shapes[0][:-2])
    if name.startswith(("matrix_power -", "tensorinv", "tensorsolve", "cond")):
        arrays[0] = arrays[0] + (3 * np.eye(arrays[0].shape[-1]) if arrays[0].shape[-1] == arrays[0].shape[-2] else 0)
    return arrays


def check(case):
    name, fn, shapes = case
    arrays = arrays_of(name, shapes)
    grad = not name.startswith(("vander", "matrix_power 0"))
    if name.startswith("pdist"):  # torch's pdist has no second derivative: first ones only
        (v1, g1, _), (v2, g2, _) = run(tcore, fn, arrays, grad), run(torch, fn, arrays, False)
        t = [torch.tensor(a, requires_grad=True) for a in arrays]
        y = fn(torch, *t)
        g2 = [x.numpy() for x in torch.autograd.grad((y * torch.tensor(np.linspace(-1, 1, y.numel()))).sum(), t)]
        for a, b in zip(v1 + g1, v2 + g2):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)
        return
    (v1, g1, gg1), (v2, g2, gg2) = run(tcore, fn, arrays, grad), run(torch, fn, arrays, grad)
    for a, b in zip(v1, v2):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    if grad:
        for a, b in zip(g1, g2):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)
        for a, b in zip(gg1, gg2):
            if b is None:
                assert a is None or not np.any(a)
            else:
                np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_values_and_derivatives_as_torch(case):
    check(case)


@needs_lapack
@pytest.mark.parametrize("case", LAPACK_CASES, ids=lambda c: c[0])
def test_factorization_composites_as_torch(case):
    check(case)


def test_multi_dot_order_is_torch_bit_for_bit():
    """The matrix-chain order (and three matrices' cost rule) as torch's: the same products in the
    same order give the same float32 bits."""
    shapes = [(7, 3), (3, 9), (9, 2), (2, 6), (6, 4)]
    arrays = [rand(*s, seed=i).astype(np.float32) for i, s in enumerate(shapes)]
    ours = tcore.linalg.multi_dot([tcore.tensor(a) for a in arrays]).numpy()
    theirs = torch.linalg.multi_dot([torch.tensor(a) for a in arrays]).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_integer_and_bool_forms_as_torch():
    for fn in (lambda L: L.addmv(L.ones(2, dtype=L.int64), L.ones(2, 3, dtype=L.int64), L.arange(3), beta=2, alpha=3),
               lambda L: L.addr(L.ones(2, 3, dtype=L.bool), L.tensor([True, False]), L.tensor([False, True, True])),
               lambda L: L.addr(L.zeros(2, 3, dtype=L.bool), L.tensor([True, False]), L.tensor([False, True, True]),
                                beta=False, alpha=False),
               lambda L: L.addr(L.ones(2, 3), L.arange(2), L.ones(3)),
               lambda L: L.baddbmm(L.ones(1, 2, 2, dtype=L.int64), L.ones(1, 2, 2, dtype=L.int64),
                                   L.ones(1, 2, 2, dtype=L.int64), beta=3),
               lambda L: L.linalg.matrix_power(L.tensor([[1, 1], [1, 0]]), 10),
               lambda L: L.linalg.vander(L.tensor([1, 2, 3])),
               lambda L: L.tril_indices(4, 3, 1), lambda L: L.triu_indices(3, 5, -1, dtype=L.int32),
               lambda L: L.tril_indices(0, 3), lambda L: L.triu_indices(3, 3, 5),
               lambda L: L.cov(L.tensor([[1, 2, 4], [0, 5, 1]])),
               lambda L: L.cov(L.tensor([[1.0, 2, 4, 7], [0, 5, 1, 2]]), fweights=L.tensor([1, 2, 0, 3]),
                               aweights=L.tensor([0.5, 1.0, 2.0, 0.25])),
               lambda L: L.cov(L.tensor([[1.0, 2, 4], [0, 5, 1]]), correction=2, aweights=L.tensor([0.5, 1.0, 2.0])),
               lambda L: L.cov(L.tensor([[1.0, 2, 4], [0, 5, 1]]), correction=3),
               lambda L: L.corrcoef(L.tensor([1.0, 2.0, 3.0])), lambda L: L.corrcoef(L.tensor([2.0, 2.0])),
               lambda L: L.logcumsumexp(L.tensor([-1000.0, 0.0, 1.0, float("-inf")]), 0),
               lambda L: L.logcumsumexp(L.tensor([float("-inf"), float("-inf"), 1.0, float("inf"), 2.0]), 0),
               lambda L: L.logcumsumexp(L.tensor([1.0, float("nan"), 1.0]), 0),
               lambda L: L.logcumsumexp(L.tensor(2.5), 0), lambda L: L.logcumsumexp(L.zeros(0, 3), 1),
               lambda L: L.trapezoid(L.tensor([1, 2, 4])), lambda L: L.trapezoid(L.ones(2, 0), dim=1),
               lambda L: L.cumulative_trapezoid(L.ones(0)),
               lambda L: L.histc(L.tensor([1.0, 2, 1, 0.5, 3, 3.5, -1]), bins=4, min=0, max=3),
               lambda L: L.histc(L.tensor([1.0, 2, 1]), bins=4), lambda L: L.histc(L.tensor([1.0, 1.0]), bins=2),
               lambda L: L.histc(L.tensor([0.0, 0.1, 0.2, 0.3, 0.7, 0.9, 1.0], dtype=L.float64), bins=10),
               lambda L: L.histc(L.tensor([1.0, float("nan"), 2.0]), bins=3, min=0, max=3),
               lambda L: L.histc(L.zeros(0), bins=3),
               lambda L: L.pdist(L.ones(1, 3)), lambda L: L.pdist(L.tensor([[0.0, 0], [3, 4]]), p=0),
               lambda L: L.linalg.matrix_exp(L.zeros(2, 0, 0)), lambda L: L.matrix_exp(L.tensor([[2.0]])),
               lambda L: L.matrix_exp(L.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=L.float64) * 100)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, theirs = fn(tcore), fn(torch)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1].replace("long", "int64")
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6 if ours.dtype == tcore.float32 else 1e-12)


def error_of(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 - compared below
        return e
    return None


@pytest.mark.parametrize("fn", [
    lambda L: L.addmv(L.ones(3), L.ones(2, 2), L.ones(2)),
    lambda L: L.addmv(L.ones(2), L.ones(2, 2, 1), L.ones(2)),
    lambda L: L.addr(L.ones(3), L.ones(2, 1), L.ones(3)),
    lambda L: L.addr(L.ones(2, 3, dtype=L.int64), L.ones(2, dtype=L.int64), L.ones(3, dtype=L.int64), beta=2.5),
    lambda L: L.ger(L.ones(2), L.ones(3, 1)),
    lambda L: L.baddbmm(L.ones(2, 2, 3), L.ones(2, 2, 4), L.ones(3, 4, 3)),
    lambda L: L.addbmm(L.ones(2, 3), L.ones(5, 2, 4), L.ones(4, 4, 3)),
    lambda L: L.inner(L.ones(2, 3), L.ones(4, 2)),
    lambda L: L.vdot(L.ones(3), L.ones(2)),
    lambda L: L.linalg.multi_dot([L.ones(3)]),
    lambda L: L.linalg.multi_dot([L.ones(3, 2), L.ones(3, 2)]),
    lambda L: L.linalg.multi_dot([L.ones(3, 2, 1), L.ones(1, 2)]),
    lambda L: L.chain_matmul(),
    lambda L: L.linalg.matrix_power(L.ones(2, 3), 2),
    lambda L: L.linalg.cross(L.ones(2, 4), L.ones(2, 4)),
    lambda L: L.linalg.cross(L.ones(2, 3), L.ones(3)),
    lambda L: L.cross(L.ones(2, 2), L.ones(2, 2)),
    lambda L: L.diag_embed(L.ones(2, 3), dim1=0, dim2=0),
    lambda L: L.tril_indices(-1, 4),
    lambda L: L.cov(L.ones(2, 2, 2)),
    lambda L: L.cov(L.ones(2, 3), fweights=L.ones(3)),
    lambda L: L.cov(L.ones(2, 3), fweights=L.tensor([1, -1, 1])),
    lambda L: L.cov(L.ones(2, 3), aweights=L.ones(2)),
    lambda L: L.linalg.vander(L.tensor([1.0, 2.0]), N=1),
    lambda L: L.linalg.vander(L.tensor([True, False])),
    lambda L: L.logcumsumexp(L.tensor([1, 2]), 0),
    lambda L: L.trapezoid(L.ones(3), L.ones(2)),
    lambda L: L.trapezoid(L.ones(3), dx=1, dim=1),
    lambda L: L.cumulative_trapezoid(L.ones(3, dtype=L.bool)),
    lambda L: L.trapezoid(L.tensor(7.0)),  # (0-D: an IndexError; a crash found by the fuzz)
    lambda L: L.trapz(L.tensor(-1.0), L.ones(1, 1, 1, 1)),
    lambda L: L.cumulative_trapezoid(L.tensor(7.0)),
    lambda L: L.renorm(L.ones(2, 2), 2, 2, 1.0),
    lambda L: L.renorm(L.ones(2, 2), -1, 0, 2.5),
    lambda L: L.renorm(L.ones(2, 2), 2, 0, -1.0),
    lambda L: L.renorm(L.ones(2), 2, 0, 1.0),
    lambda L: L.histc(L.ones(3), bins=0),
    lambda L: L.histc(L.ones(3), bins=2, min=3, max=1),
    lambda L: L.histc(L.tensor([1.0, float("inf")]), bins=2),
    lambda L: L.histc(L.tensor([1, 2, 1]), bins=4),
    lambda L: L.pdist(L.ones(3)),
    lambda L: L.pdist(L.ones(3, 2), p=-1),
    lambda L: L.frobenius_norm(L.ones(2, 2, 2), [0, 1, 2]),
], ids=lambda f: f.__code__.co_firstlineno)
def test_errors_as_torch(fn):
    ours, theirs = error_of(lambda: fn(tcore)), error_of(lambda: fn(torch))
    assert ours is not None and theirs is not None, (ours, theirs)
    assert isinstance(ours, RuntimeError) == isinstance(theirs, RuntimeError)
    # (a 0-D input: torch words some of these errors by its internal step, slice() or select())
    if "dtype" not in str(theirs) and "type" not in str(theirs) and "has no dimensions" not in str(ours):
        # (dtype names: tcore's int64/bool where torch says Long/Bool)
        theirs_text = re.sub(r"\blong\b", "int64", str(theirs).split("\n")[0].lower())
        assert str(ours).split("\n")[0].lower() == theirs_text


@needs_lapack
@pytest.mark.parametrize("fn", [
    lambda L: L.cholesky_solve(L.ones(3, dtype=L.float64), L.eye(3, dtype=L.float64)),
    lambda L: L.cholesky_solve(L.ones(4, 2, dtype=L.float64), L.eye(3, dtype=L.float64)),
    lambda L: L.cholesky_inverse(L.ones(2, 3)),
    lambda L: L.cholesky_inverse(L.ones(3)),
    lambda L: L.linalg.cond(L.ones(2, 3), 1),
    lambda L: L.linalg.cond(L.eye(3), 3),
    lambda L: L.linalg.cond(L.eye(3), "abc"),
    lambda L: L.linalg.tensorinv(L.ones(4, 6, 8, 2), ind=2),
    lambda L: L.linalg.tensorinv(L.ones(2, 2), ind=0),
    lambda L: L.linalg.tensorsolve(L.ones(6, 4, 2, 3), L.ones(6, 4), dims=(0,)),
    lambda L: L.linalg.matrix_power(L.zeros(2, 2), -1),
    lambda L: L.linalg.matrix_exp(L.eye(2, dtype=L.int64)),
    lambda L: L.matrix_exp(L.ones(2, 3)),
    lambda L: L.matrix_exp(L.ones(3)),
], ids=lambda f: f.__code__.co_firstlineno)
def test_factorization_errors_as_torch(fn):
    test_errors_as_torch(fn)


@needs_lapack
def test_cond_of_singular_and_empty_matrices_as_torch():
    for fn in (lambda L: L.linalg.cond(L.zeros(2, 2), 1), lambda L: L.linalg.cond(L.zeros(2, 2)),
               lambda L: L.linalg.cond(L.zeros(3, 0, 0)), lambda L: L.linalg.cond(L.zeros(0, 0), "fro"),
               lambda L: L.linalg.cond(L.tensor([[4.0, 2.0], [1.0, 3.0]]), 1),
               lambda L: L.linalg.cond(L.tensor([[4.0, 2.0], [1.0, 3.0]]), float("inf")),
               lambda L: L.linalg.cond(L.tensor([[4.0, 2.0], [1.0, 3.0]]), "fro")):
        ours, theirs = fn(tcore).numpy(), fn(torch).numpy()
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    # a singular matrix's 'nuc' condition number goes through its singular values: the smallest is
    # rounding noise of the SVD (LAPACK's kernels differ by CPU: torch 4.7e7, tcore 7.6e7 on one
    # AVX-512 machine, the same on others), so only its size can be compared: past 1 / eps
    ours, theirs = (float(L.linalg.cond(L.tensor([[1.0, 2.0], [2.0, 4.0]]), "nuc")) for L in (tcore, torch))
    assert ours > 1 / np.finfo(np.float32).eps and theirs > 1 / np.finfo(np.float32).eps, (ours, theirs)


@needs_lapack
def test_svd_factors_and_out():
    a = rand(5, 3)
    for some in (True, False):
        u, s, v = tcore.svd(tcore.tensor(a), some=some)
        tu, ts, tv = torch.svd(torch.tensor(a), some=some)
        assert tuple(u.shape) == tuple(tu.shape) and tuple(v.shape) == tuple(tv.shape)
        np.testing.assert_allclose(np.abs(u.numpy()[:, :3]), np.abs(tu.numpy()[:, :3]), rtol=1e-10)
        np.testing.assert_allclose(np.abs(v.numpy()), np.abs(tv.numpy()), rtol=1e-10)
    u, s, v = tcore.svd(tcore.tensor(a), compute_uv=False)
    assert not u.numpy().any() and tuple(u.shape) == (5, 5) and tuple(v.shape) == (3, 3)
    outs = tuple(tcore.empty(0, dtype=tcore.float64) for _ in range(3))
    r = tcore.svd(tcore.tensor(a), out=outs)
    assert all(x is y for x, y in zip(r, outs))
    np.testing.assert_allclose(outs[1].numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-12)


def test_out_overloads():
    a, m, v = tcore.tensor(rand(3)), tcore.tensor(rand(3, 4)), tcore.tensor(rand(4))
    out = tcore.empty(0, dtype=tcore.float64)
    assert tcore.addmv(a, m, v, out=out) is out
    np.testing.assert_allclose(out.numpy(), torch.addmv(torch.tensor(rand(3)), torch.tensor(rand(3, 4)),
                                                        torch.tensor(rand(4))).numpy(), rtol=1e-12)
    out = tcore.empty(0, dtype=tcore.int64)
    assert tcore.tril_indices(3, 3, out=out) is out and out.tolist() == torch.tril_indices(3, 3).tolist()
    out = tcore.empty(0, dtype=tcore.float64)
    assert tcore.linalg.multi_dot([m.mT, m, v], out=out) is out
    with pytest.raises(RuntimeError):
        tcore.inner(a, a, out=tcore.empty(0, dtype=tcore.int64))


def test_cholesky_solve_gradient_in_the_factor_is_lower_triangular():
    """cholesky_solve reads the factor's lower triangle: its gradient there equals torch's, and is 0
    above it (torch's formula fills the whole matrix: the derivative of L L^T as if L were full)."""
    if tcore.backends.cpu.blas() != "openblas":
        pytest.skip("no LAPACK")
    s = spd(3)
    b = rand(3, 2)
    grads = []
    for lib in LIBS:
        factor = lib.linalg.cholesky(lib.tensor(s)).detach().requires_grad_(True)
        lib.cholesky_solve(lib.tensor(b), factor).sum().backward()
        grads.append(factor.grad.numpy())
    np.testing.assert_allclose(np.tril(grads[0]), np.tril(grads[1]), rtol=1e-10)
    assert not np.triu(grads[0], 1).any()


def test_logcumsumexp_tangent_where_a_prefix_is_far_below():
    """d y_0 = dx_0 for y_0 = x_0 however small x_0 is against what follows (torch's tangent takes
    e^(x - max) there and gives 0); the gradient is torch's."""
    import tcore.autograd.forward_ad as fwAD

    x = np.array([-1000.0, 0.0, 1.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(tcore.tensor(x), tcore.tensor(np.array([1.0, 0.0, 0.0])))
        tangent = fwAD.unpack_dual(tcore.logcumsumexp(d, 0)).tangent.numpy()
    np.testing.assert_allclose(tangent, [1.0, 0.0, 0.0], atol=1e-12)
    grads = []
    for lib in LIBS:
        t = lib.tensor(x, requires_grad=True)
        (lib.logcumsumexp(t, 0) * lib.tensor([1.0, -2.0, 0.5])).sum().backward()
        grads.append(t.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-300)


def test_logcumsumexp_tangents_as_torch():
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    x, t = rand(3, 5), rand(3, 5, seed=1)
    results = []
    for lib, ad in ((tcore, fwAD), (torch, tfwAD)):
        with ad.dual_level():
            d = ad.make_dual(lib.tensor(x), lib.tensor(t))
            results.append(ad.unpack_dual(lib.logcumsumexp(d, 1)).tangent.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10, atol=1e-12)
