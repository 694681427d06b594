"""isclose/allclose/equal, randperm/multinomial, repeat/repeat_interleave, unbind, flip,
roll, tril/triu, einsum, clamp with tensor bounds and the two-tensor max/min: against
numpy, and their gradients against finite differences."""
from __future__ import annotations

import numpy as np
import pytest

from test_sorting import check_grad

RNG = np.random.default_rng(5)


# ------------------------------------------------------------------ closeness
def test_isclose_allclose_equal(tcore):
    a = np.array([1.0, np.inf, np.nan, -np.inf, 1.0, 0.0], dtype=np.float32)
    b = np.array([1.0 + 1e-6, np.inf, np.nan, np.inf, 1.1, 1e-9], dtype=np.float32)
    for equal_nan in (False, True):
        got = tcore.isclose(tcore.tensor(a), tcore.tensor(b), equal_nan=equal_nan)
        np.testing.assert_array_equal(got.numpy(), np.isclose(a, b, equal_nan=equal_nan))
    got = tcore.tensor(a).isclose(tcore.tensor(b), rtol=0.2, atol=0.0)
    np.testing.assert_array_equal(got.numpy(), np.isclose(a, b, rtol=0.2, atol=0.0))
    assert tcore.allclose(tcore.tensor(a[:2]), tcore.tensor(b[:2]))
    assert not tcore.allclose(tcore.tensor(a), tcore.tensor(b))
    assert tcore.allclose(tcore.tensor(a), tcore.tensor(a), equal_nan=True)
    assert tcore.isclose(tcore.tensor([1, 2]), tcore.tensor([1, 3])).tolist() == [True, False]
    assert tcore.isclose(tcore.tensor([True]), tcore.tensor([True])).tolist() == [True]
    assert tcore.equal(tcore.tensor([1.0, 2.0]), tcore.tensor([1.0, 2.0]))
    assert not tcore.equal(tcore.ones(2), tcore.ones(1))
    assert not tcore.equal(tcore.tensor([np.nan]), tcore.tensor([np.nan]))
    assert tcore.tensor([1, 2]).equal(tcore.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="float32 did not match float64"):
        tcore.isclose(tcore.ones(1), tcore.ones(1, dtype=tcore.float64))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        tcore.allclose(tcore.ones(1), tcore.ones(1), rtol=-1.0)


# ------------------------------------------------------------------ random
def test_randperm(tcore):
    for n in (0, 1, 2, 10, 1000):
        p = tcore.randperm(n)
        assert p.dtype == tcore.int64 and sorted(p.tolist()) == list(range(n))
    g = tcore.Generator().manual_seed(3)
    first = tcore.randperm(50, generator=g).tolist()
    assert tcore.randperm(50, generator=tcore.Generator().manual_seed(3)).tolist() == first
    assert tcore.randperm(50, generator=g).tolist() != first  # the generator moved on
    assert tcore.randperm(5, dtype=tcore.float32).dtype == tcore.float32
    with pytest.raises(RuntimeError, match="n must be non-negative"):
        tcore.randperm(-1)
    with pytest.raises(RuntimeError, match="n cannot be greater than 256"):
        tcore.randperm(300, dtype=tcore.uint8)


def test_multinomial(tcore):
    tcore.manual_seed(0)
    p = tcore.tensor([0.1, 0.0, 0.6, 0.3])
    draws = tcore.multinomial(p, 20000, replacement=True)
    freq = np.bincount(draws.numpy(), minlength=4) / 20000
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.02)
    rows = tcore.multinomial(tcore.tensor([[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]]), 2)
    assert tuple(rows.shape) == (2, 2)
    assert sorted(rows[0].tolist()) == [0, 1]  # without replacement: distinct, nonzero ones first
    assert rows[1, 0].item() == 2
    counts = np.zeros(3)
    for _ in range(3000):  # without replacement: the first draw follows the probabilities
        counts[tcore.multinomial(tcore.tensor([0.2, 0.5, 0.3]), 1).item()] += 1
    np.testing.assert_allclose(counts / 3000, [0.2, 0.5, 0.3], atol=0.04)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        tcore.multinomial(tcore.ones(3), 4)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        tcore.multinomial(tcore.tensor([1.0, -1.0]), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        tcore.multinomial(tcore.zeros(3), 1)
    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        tcore.multinomial(tcore.ones(2, 2, 2), 1)


# ------------------------------------------------------------------ shapes
def test_repeat(tcore):
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    for reps in [(2, 1), (1, 3), (2, 2, 2), (0, 1), (3, 1, 1)]:
        np.testing.assert_array_equal(tcore.tensor(a).repeat(*reps).numpy(), np.tile(a, reps))
    np.testing.assert_array_equal(tcore.tensor(a).repeat([2, 2]).numpy(), np.tile(a, (2, 2)))
    with pytest.raises(RuntimeError, match="can not be smaller than number of dimensions"):
        tcore.tensor(a).repeat(2)


def test_repeat_interleave(tcore):
    a = np.arange(6).reshape(2, 3)
    t = tcore.tensor(a)
    np.testing.assert_array_equal(t.repeat_interleave(2).numpy(), np.repeat(a, 2))
    np.testing.assert_array_equal(tcore.repeat_interleave(t, 2, dim=1).numpy(), np.repeat(a, 2, axis=1))
    np.testing.assert_array_equal(t.repeat_interleave(tcore.tensor([1, 3]), dim=0).numpy(),
                                  np.repeat(a, [1, 3], axis=0))
    assert tcore.repeat_interleave(tcore.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    with pytest.raises(RuntimeError, match="repeats must have the same size as input along dim"):
        t.repeat_interleave(tcore.tensor([1, 2, 3]), dim=0)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        tcore.repeat_interleave(tcore.tensor([1, -1]))


def test_unbind_flip_roll(tcore):
    a = np.arange(24).reshape(2, 3, 4)
    t = tcore.tensor(a)
    parts = t.unbind(1)
    assert isinstance(parts, tuple) and len(parts) == 3
    for i, p in enumerate(parts):
        np.testing.assert_array_equal(p.numpy(), a[:, i])
    for dims in [(0,), (1, 2), (-1,), (0, 1, 2)]:
        np.testing.assert_array_equal(t.flip(dims).numpy(), np.flip(a, dims))
    np.testing.assert_array_equal(t.flip(1).numpy(), np.flip(a, 1))
    np.testing.assert_array_equal(tcore.fliplr(t).numpy(), np.fliplr(a))
    np.testing.assert_array_equal(tcore.flipud(t).numpy(), np.flipud(a))
    np.testing.assert_array_equal(t.transpose(0, 2).flip(0).numpy(), np.flip(a.transpose(2, 1, 0), 0))
    for shifts, dims in [(1, 0), (-2, 2), ((1, 2), (0, 2)), (7, 1), (5, None)]:
        got = t.roll(shifts) if dims is None else t.roll(shifts, dims)
        np.testing.assert_array_equal(got.numpy(), np.roll(a, shifts, dims))
    rolled = t.roll(0, 0)
    rolled[0, 0, 0] = 100
    assert t[0, 0, 0].item() == 0  # a new tensor, never a view
    with pytest.raises(RuntimeError, match="dims has duplicates"):
        t.flip((0, 0))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        t.roll((1, 2), (0,))


@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
def test_tril_triu(tcore, diagonal):
    a = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    np.testing.assert_array_equal(tcore.tensor(a).tril(diagonal).numpy(), np.tril(a, diagonal))
    np.testing.assert_array_equal(tcore.triu(tcore.tensor(a), diagonal).numpy(), np.triu(a, diagonal))
    t = tcore.tensor(a)
    t.tril_(diagonal)
    np.testing.assert_array_equal(t.numpy(), np.tril(a, diagonal))
    t = tcore.tensor(a).transpose(1, 2)  # in place through a view
    t.triu_(diagonal)
    np.testing.assert_array_equal(t.numpy(), np.triu(a.transpose(0, 2, 1), diagonal))
    assert tcore.ones(2, 2, dtype=tcore.bool).tril().tolist() == [[True, False], [True, True]]
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tcore.ones(3).tril()


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (1, 4, 5)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ijk->kj", [(2, 3, 4)]),
    ("...ij,...jk", [(5, 2, 3), (3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("abc,cd,be->ade", [(2, 3, 4), (4, 5), (3, 6)]),
    ("iij->j", [(3, 3, 2)]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]),
    (" i j , j k -> i k ", [(2, 3), (3, 2)]),
]


@pytest.mark.parametrize("equation, shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_numpy(tcore, equation, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    got = tcore.einsum(equation, *[tcore.tensor(a) for a in arrays])
    expected = np.einsum(equation.replace(" ", ""), *arrays)
    assert tuple(got.shape) == expected.shape
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    listed = tcore.einsum(equation, [tcore.tensor(a) for a in arrays])
    np.testing.assert_allclose(listed.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_einsum_sums_an_ellipsis_left_out_of_the_output(tcore):
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 3, 4))
    got = tcore.einsum("b...,b...->b", tcore.tensor(a), tcore.tensor(b))  # numpy refuses; PyTorch sums
    np.testing.assert_allclose(got.numpy(), (a * b).sum((1, 2)), rtol=1e-12)


def test_einsum_integers_and_errors(tcore):
    a = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(tcore.einsum("ij,kj->ik", tcore.tensor(a), tcore.tensor(a)).numpy(),
                                  np.einsum("ij,kj->ik", a, a))
    x = tcore.ones(2, 3)
    for eq, args, message in [
        ("ij,jk", [x], "fewer operands were provided"),
        ("ij", [x, x], "more operands were provided"),
        ("i", [x], r"number of subscripts in the equation \(1\) does not match the number of dimensions \(2\)"),
        ("ij->k", [x], "output subscript k does not appear"),
        ("ij->ii", [x], "output subscript i appears more than once"),
        ("i1", [x], "invalid subscript given at index 1"),
        ("ij,jk", [x, tcore.ones(2, 2)], "operands do not broadcast"),
        ("ii", [x], "subscript i is repeated for operand 0 but the sizes don't match, 2 != 3"),
        ("i.j", [x], "found '.' for operand 0 that is not part of any ellipsis"),
    ]:
        with pytest.raises(RuntimeError, match=message):
            tcore.einsum(eq, *args)


def test_clamp_with_tensors_and_two_tensor_max_min(tcore):
    x = np.array([1.0, 5.0, np.nan, 3.0, -2.0], dtype=np.float32)
    lo = np.array([2.0, 2.0, 2.0, 3.0, np.nan], dtype=np.float32)
    hi = np.float32(4.0)
    got = tcore.clamp(tcore.tensor(x), min=tcore.tensor(lo), max=tcore.tensor(hi))
    np.testing.assert_array_equal(got.numpy(), np.minimum(np.maximum(x, lo), hi))
    np.testing.assert_array_equal(tcore.tensor(x).clamp(max=tcore.tensor(lo)).numpy(), np.minimum(x, lo))
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3,))
    np.testing.assert_array_equal(tcore.max(tcore.tensor(a), tcore.tensor(b)).numpy(), np.maximum(a, b))
    np.testing.assert_array_equal(tcore.tensor(a).min(tcore.tensor(b)).numpy(), np.minimum(a, b))
    assert tcore.max(tcore.tensor(a)).item() == a.max()  # the other overloads still work
    assert tcore.tensor(a).max(1).indices.tolist() == a.argmax(1).tolist()
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        tcore.clamp(tcore.tensor(x), min=None, max=None)


# ------------------------------------------------------------------ gradients
GRADS = {  # name: (tcore function of (tcore, x), numpy function of x)
    "flip": (lambda tc, t: t.flip(1), lambda a: np.flip(a, 1)),
    "roll": (lambda tc, t: t.roll((1, -1), (0, 1)), lambda a: np.roll(a, (1, -1), (0, 1))),
    "tril": (lambda tc, t: t.tril(), np.tril),
    "triu": (lambda tc, t: t.triu(1), lambda a: np.triu(a, 1)),
    "repeat": (lambda tc, t: t.repeat(2, 1, 2), lambda a: np.tile(a, (2, 1, 2))),
    "repeat_interleave": (lambda tc, t: t.repeat_interleave(3, dim=1), lambda a: np.repeat(a, 3, axis=1)),
    "unbind": (lambda tc, t: t.unbind(0)[1] * 3, lambda a: a[1] * 3),
    "einsum": (lambda tc, t: tc.einsum("ij,kj->ik", t, t), lambda a: a @ a.T),
    "einsum_trace": (lambda tc, t: tc.einsum("ii", t[:, :3]), lambda a: np.trace(a[:, :3])),
    "clamp_tensor": (lambda tc, t: t.clamp(min=tc.tensor([0.0, 0.1, -0.2, 0.3], dtype=t.dtype)),
                     lambda a: np.maximum(a, [0.0, 0.1, -0.2, 0.3])),
    "max_other": (lambda tc, t: tc.max(t, t.flip(0)), lambda a: np.maximum(a, np.flip(a, 0))),
    "index": (lambda tc, t: t[[2, 0, 2], 1:], lambda a: a[[2, 0, 2], 1:]),
    "masked_select": (lambda tc, t: t.masked_select(t > 0.1), lambda a: a[a > 0.1]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(tcore, name):
    tfn, nfn = GRADS[name]
    x = np.random.default_rng(3).permutation(12).reshape(3, 4).astype(np.float64) * 0.31 - 1.5
    check_grad(tcore, lambda t: tfn(tcore, t), nfn, x)


def test_clamp_tensor_gradient_at_ties_goes_to_self(tcore):
    x = tcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    lo = tcore.tensor([1.0, 2.5, 0.0], requires_grad=True)
    tcore.clamp(x, min=lo).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0] and lo.grad.tolist() == [0.0, 1.0, 0.0]


# ------------------------------------------------------------------ conv2d's patch matrix
def _numpy_im2col(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    rows = []
    for i in range(n):
        for oy in range(oh):
            for ox in range(ow):
                win = xp[i, :, oy * s[0]:oy * s[0] + d[0] * (k[0] - 1) + 1:d[0],
                         ox * s[1]:ox * s[1] + d[1] * (k[1] - 1) + 1:d[1]]
                rows.append(win.reshape(-1))
    return np.array(rows)


@pytest.mark.parametrize("k, d, p, s", [([3, 3], [1, 1], [1, 1], [1, 1]), ([2, 3], [2, 1], [1, 0], [2, 1]),
                                        ([1, 1], [1, 1], [0, 0], [3, 2]), ([3, 2], [1, 2], [1, 1], [1, 3])])
def test_im2col_col2im(tcore, k, d, p, s):
    x = RNG.standard_normal((2, 3, 7, 6))
    t = tcore.tensor(x).transpose(2, 3).contiguous().transpose(2, 3)  # non-contiguous input
    cols = tcore._C._im2col(t, k, d, p, s)
    np.testing.assert_array_equal(cols.numpy(), _numpy_im2col(x, k, d, p, s))
    y = RNG.standard_normal(tuple(cols.shape))
    back = tcore._C._col2im(tcore.tensor(y), list(x.shape), k, d, p, s)
    # adjoint: <im2col(x), y> == <x, col2im(y)>
    np.testing.assert_allclose((cols.numpy() * y).sum(), (x * back.numpy()).sum(), rtol=1e-10)
    with pytest.raises(RuntimeError, match="does not fit the padded input"):
        tcore._C._im2col(tcore.ones(1, 1, 2, 2), [3, 3], [1, 1], [0, 0], [1, 1])


def test_python_floats_into_an_explicit_dtype_are_rounded_once(tcore):
    """tcore.tensor([0.1], dtype=float64) holds 0.1 as torch does, not 0.1 rounded through float32."""
    assert tcore.tensor([0.1, 1 / 3], dtype=tcore.float64).tolist() == [0.1, 1 / 3]
    assert tcore.tensor([[0.1]], dtype=tcore.float64).numpy()[0, 0] == 0.1
    assert tcore.tensor(0.1, dtype=tcore.float64).item() == 0.1
    assert tcore.tensor([0.1]).dtype == tcore.float32 and tcore.tensor([0.1]).item() == np.float32(0.1)
    assert tcore.tensor([65519.0], dtype=tcore.float16).numpy()[0] == np.float16(65519.0)  # one rounding


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float64, np.bool_, np.float16])
@pytest.mark.parametrize("shape", [(5, 7), (7, 5), (3, 4, 6), (0, 3), (3, 0), (2, 1, 1), (64, 64)])
def test_tril_triu_and_flip_like_numpy(tcore, shape, dtype):
    """tril/triu by rows (a kept run and a filled one): every diagonal offset, in place, on a
    transposed input (written back through it); flip of the last dim for each element size."""
    a = (np.random.default_rng(len(shape)).standard_normal(shape) * 5).astype(dtype)
    for d in (-10, -2, -1, 0, 1, 3, 10):
        for name, npf in (("tril", np.tril), ("triu", np.triu)):
            np.testing.assert_array_equal(getattr(tcore.from_numpy(a.copy()), name)(d).numpy(), npf(a, d))
            u = tcore.from_numpy(a.copy())
            getattr(u, name + "_")(d)
            np.testing.assert_array_equal(u.numpy(), npf(a, d))
            if shape[-1] > 1:
                v = tcore.from_numpy(a.swapaxes(-1, -2).copy()).transpose(-1, -2)
                np.testing.assert_array_equal(getattr(v, name)(d).numpy(), npf(a, d))
                getattr(v, name + "_")(d)
                np.testing.assert_array_equal(v.numpy(), npf(a, d))
    if all(s > 0 for s in shape):
        for dims in ((0,), (-1,), (0, -1)):
            np.testing.assert_array_equal(tcore.from_numpy(a.copy()).flip(dims).numpy(), np.flip(a, dims))
