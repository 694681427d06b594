"""interpolate's one-dimensional resampling operator (_resample): values and gradients of the CPU
kernel against the composition it replaced (index_select times weights, summed), every floating
dtype, strided inputs and every dim, and its argument checks."""
import numpy as np
import pytest


def _reference(tcore, x, dim, idx, w):
    out = None
    shape = [-1] + [1] * (x.ndim - dim - 1)
    xs = x.float() if x.dtype in (tcore.float16, tcore.bfloat16) else x
    for k, row in enumerate(idx):
        t = xs.index_select(dim, tcore.tensor(row))
        if w is not None:
            t = t * tcore.tensor(w[k], dtype=xs.dtype).reshape(shape)
        out = t if out is None else out + t
    return out.to(x.dtype)


CASES = [
    ("last dim, 2 taps", (2, 3, 5), 2, [[0, 0, 1, 2, 3, 4, 4], [1, 1, 2, 3, 4, 4, 4]],
     [[1.0, 0.6, 0.2, 0.8, 0.4, 0.0, 1.0], [0.0, 0.4, 0.8, 0.2, 0.6, 1.0, 0.0]]),
    ("middle dim, 4 taps", (2, 6, 3), 1, [[0, 0, 1, 2], [0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5]],
     [[-0.1, 0.0, 0.2, -0.05], [0.6, 1.0, 0.5, 0.3], [0.6, 0.0, 0.4, 0.8], [-0.1, 0.0, -0.1, -0.05]]),
    ("first dim, nearest", (4, 3), 0, [[0, 0, 1, 1, 2, 3, 3]], None),
    ("shrinking", (3, 9), 1, [[0, 4, 8], [1, 5, 8]], [[0.5, 0.5, 1.0], [0.5, 0.5, 0.0]]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_kernel_matches_the_composition(tcore, case, dtype):
    _, shape, dim, idx, w = case
    rng = np.random.default_rng(3)
    x = tcore.tensor(rng.standard_normal(shape), dtype=getattr(tcore, dtype))
    got = tcore._C._resample(x, dim, tcore.tensor(idx), None if w is None else tcore.tensor(w, dtype=tcore.float64))
    want = _reference(tcore, x, dim, idx, w)
    assert got.dtype == x.dtype and got.shape == want.shape
    tol = {"float64": 1e-15, "float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}[dtype]
    np.testing.assert_allclose(np.array(got.double().tolist()), np.array(want.double().tolist()), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradients_are_the_adjoint(tcore, case):
    _, shape, dim, idx, w = case
    rng = np.random.default_rng(4)
    x = tcore.tensor(rng.standard_normal(shape), requires_grad=True)
    xr = tcore.tensor(x.detach().tolist(), dtype=tcore.float64, requires_grad=True)
    weights = None if w is None else tcore.tensor(w, dtype=tcore.float64)
    y = tcore._C._resample(x, dim, tcore.tensor(idx), weights)
    g = tcore.tensor(rng.standard_normal(tuple(y.shape)), requires_grad=True)
    (gx,) = tcore.autograd.grad(y, x, g, create_graph=True)
    (want,) = tcore.autograd.grad(_reference(tcore, xr, dim, idx, w), xr, g.detach())
    np.testing.assert_allclose(np.array(gx.tolist()), np.array(want.tolist()), rtol=1e-13, atol=1e-13)
    # the backward's own gradient is the forward again (double backward through interpolate)
    h = tcore.tensor(rng.standard_normal(shape))
    (gg,) = tcore.autograd.grad(gx, g, h)
    np.testing.assert_allclose(np.array(gg.tolist()),
                               np.array(tcore._C._resample(h, dim, tcore.tensor(idx), weights).tolist()), rtol=1e-13)


def test_integers_without_weights_are_copied(tcore):
    x = tcore.tensor([[0, 7, 255], [1, 2, 3]], dtype=tcore.uint8)
    got = tcore._C._resample(x, 1, tcore.tensor([[2, 2, 0, 1]]), None)
    assert got.dtype == tcore.uint8 and got.tolist() == [[255, 255, 0, 7], [3, 3, 1, 2]]


def test_bool_takes_one_tap(tcore):
    x = tcore.tensor([[True, False, False]])
    assert tcore._C._resample(x, 1, tcore.tensor([[1, 0, 0, 2]]), None).tolist() == [[False, True, True, False]]


def test_strided_input(tcore):
    x = tcore.arange(24.0).reshape(4, 6).t()  # (6, 4), strides (1, 6)
    idx, w = [[0, 1, 1], [1, 2, 3]], [[0.5, 1.0, 0.25], [0.5, 0.0, 0.75]]
    got = tcore._C._resample(x, 1, tcore.tensor(idx), tcore.tensor(w, dtype=tcore.float64))
    assert got.tolist() == _reference(tcore, x.contiguous(), 1, idx, w).tolist()


@pytest.mark.parametrize("bad, words", [
    (lambda t, x: t._C._resample(x, 1, t.tensor([[0, 3]]), None), "out of bounds"),
    (lambda t, x: t._C._resample(x, 1, t.tensor([[-1, 0]]), None), "out of bounds"),
    (lambda t, x: t._C._resample(x, 1, t.tensor([0, 1]), None), "2-D int64"),
    (lambda t, x: t._C._resample(x, 1, t.tensor([[0, 1]]), t.ones(2, 2)), "must have the shape of indices"),
    (lambda t, x: t._C._resample(x.long(), 1, t.tensor([[0, 1]]), t.ones(1, 2)), "expected a floating tensor"),
    (lambda t, x: t._C._resample(x.bool(), 1, t.tensor([[0, 1], [1, 2]]), None), "expected a floating tensor"),
    (lambda t, x: t._C._resample_backward(x, 1, [3, 5], t.tensor([[0, 1, 2]]), None), "must match grad"),
])
def test_bad_arguments(tcore, bad, words):
    with pytest.raises((RuntimeError, IndexError, TypeError), match=words):
        bad(tcore, tcore.ones(2, 3))
