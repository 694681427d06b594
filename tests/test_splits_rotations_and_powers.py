"""tensor_split (its three overloads), hsplit/vsplit/dsplit, rot90, diagflat, dist, float_power (+
in place), ldexp (+ in place), is_same_size, is_nonzero and isreal against torch 2.13: values,
shapes, dtypes, which pieces are views, gradients, and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")
LIBS = (tcore, torch)


def arr(shape, seed=0, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def pieces(lib, fn, a, *args):
    return [p.numpy() for p in fn(lib, lib.tensor(a), *args)]


SPLITS = [
    ("sections", lambda L, x: L.tensor_split(x, 3), (7,)),
    ("sections dim", lambda L, x: L.tensor_split(x, 4, dim=1), (2, 6)),
    ("more sections than elements", lambda L, x: x.tensor_split(5, -1), (2, 3)),
    ("indices", lambda L, x: L.tensor_split(x, [1, 4]), (6, 2)),
    ("indices out of order and past the end", lambda L, x: L.tensor_split(x, [4, 2, 9], dim=1), (2, 6)),
    ("negative indices", lambda L, x: x.tensor_split([-2, -1]), (5,)),
    ("tensor sections", lambda L, x: L.tensor_split(x, L.tensor(2)), (5, 2)),
    ("tensor indices", lambda L, x: L.tensor_split(x, L.tensor([1, 3]), dim=1), (2, 5)),
    ("hsplit vector", lambda L, x: L.hsplit(x, 2), (6,)),
    ("hsplit", lambda L, x: x.hsplit([1, 2]), (2, 4, 3)),
    ("vsplit", lambda L, x: L.vsplit(x, 2), (4, 3)),
    ("vsplit indices", lambda L, x: x.vsplit([3]), (4, 3)),
    ("dsplit", lambda L, x: L.dsplit(x, 3), (2, 2, 6)),
    ("dsplit indices", lambda L, x: x.dsplit([0, 5]), (2, 2, 6)),
]


@pytest.mark.parametrize("case", SPLITS, ids=lambda c: c[0])
def test_splits_as_torch(case):
    _, fn, shape = case
    a = arr(shape)
    ours, theirs = pieces(tcore, fn, a), pieces(torch, fn, a)
    assert [p.shape for p in ours] == [p.shape for p in theirs]
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)
    x = tcore.tensor(a, requires_grad=True)  # the pieces are views: gradients reach x through each
    parts = fn(tcore, x)
    sum(((p * (i + 1)) ** 2).sum() for i, p in enumerate(parts)).backward()
    xt = torch.tensor(a, requires_grad=True)
    sum(((p * (i + 1)) ** 2).sum() for i, p in enumerate(fn(torch, xt))).backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    base = tcore.tensor(a)
    for p in fn(tcore, base):
        if p.numel():
            p.mul_(0)  # views of base
    assert not np.any(base.numpy())


SPLIT_ERRORS = [
    lambda L: L.tensor_split(L.tensor(1.0), 2),
    lambda L: L.tensor_split(L.ones(4), 0),
    lambda L: L.tensor_split(L.ones(4), L.tensor([1.0])),
    lambda L: L.tensor_split(L.ones(4), L.ones(1, 1, dtype=L.int64)),
    lambda L: L.hsplit(L.tensor(1.0), 1),
    lambda L: L.hsplit(L.ones(2, 5), 2),
    lambda L: L.vsplit(L.ones(4), 2),
    lambda L: L.vsplit(L.ones(3, 2), 0),
    lambda L: L.dsplit(L.ones(2, 2), [1]),
    lambda L: L.dsplit(L.ones(2, 2, 5), 2),
]


@pytest.mark.parametrize("i", range(len(SPLIT_ERRORS)))
def test_split_errors_as_torch(i):
    with pytest.raises(RuntimeError) as theirs:
        SPLIT_ERRORS[i](torch)
    with pytest.raises(RuntimeError) as ours:
        SPLIT_ERRORS[i](tcore)
    # (tcore names dtypes as Python does: float32 where torch's C++ message says Float)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0].replace("got Float", "got float32")


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 7])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (-1, 0), (0, 2), (2, -2)])
def test_rot90_as_torch(k, dims):
    a = arr((2, 3, 4), seed=1)
    got = [L.rot90(L.tensor(a), k, dims) for L in LIBS]
    assert got[0].shape == tuple(got[1].shape) and got[0].stride() == got[1].stride()
    np.testing.assert_array_equal(got[0].numpy(), got[1].numpy())
    np.testing.assert_array_equal(tcore.tensor(a).rot90(k, dims).numpy(), got[1].numpy())
    w = arr(got[1].shape, seed=2)
    grads = []
    for L in LIBS:
        x = L.tensor(a, requires_grad=True)
        (L.rot90(x, k, dims) * L.tensor(w)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


@pytest.mark.parametrize("call, error", [
    (lambda L: L.rot90(L.ones(2, 2), 1, [0]), RuntimeError), (lambda L: L.rot90(L.ones(3), 1), RuntimeError),
    (lambda L: L.rot90(L.ones(2, 2), 1, [0, 0]), RuntimeError), (lambda L: L.rot90(L.ones(2, 2), 1, [0, -2]), RuntimeError),
    (lambda L: L.rot90(L.ones(2, 2), 1, [0, 2]), IndexError), (lambda L: L.rot90(L.ones(2, 2), 1, [-3, 1]), IndexError)])
def test_rot90_errors_as_torch(call, error):
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as ours:
        call(tcore)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


@pytest.mark.parametrize("shape, offset", [((3,), 0), ((2, 2), 1), ((2, 3), -2), ((1,), 3), ((0,), 0)])
def test_diagflat_as_torch(shape, offset):
    a = arr(shape, seed=3)
    got = [L.diagflat(L.tensor(a), offset).numpy() for L in LIBS]
    np.testing.assert_array_equal(*got)
    np.testing.assert_array_equal(tcore.tensor(a).diagflat(offset).numpy(), got[1])


@pytest.mark.parametrize("p", [2, 1, 3.5, float("inf"), -float("inf")])
def test_dist_values_and_gradients_as_torch(p):
    a, b = arr((3, 4), seed=4), arr((4,), seed=5)
    b_same = a.copy()
    for x_arr, y_arr in ((a, b), (a, b_same)):  # (equal operands: a zero distance, torch's zero gradient)
        grads, values = [], []
        for L in LIBS:
            x, y = L.tensor(x_arr, requires_grad=True), L.tensor(y_arr, requires_grad=True)
            d = L.dist(x, y, p)
            d.backward()
            values.append(d.item())
            grads.append((x.grad.numpy(), y.grad.numpy()))
        np.testing.assert_allclose(values[0], values[1], rtol=1e-12)
        for o, t in zip(*grads):
            np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)
    assert tcore.tensor(a).dist(tcore.tensor(b)).item() == pytest.approx(torch.tensor(a).dist(torch.tensor(b)).item())


def test_dist_zero_norm_has_a_zero_gradient():
    """p = 0 counts the nonzero differences: its value is torch's and its gradient 0 (torch 2.13's
    DistBackward0 returns an undefined gradient there and its backward raises)."""
    a, b = arr((3, 4), seed=4), arr((4,), seed=5)
    x, y = tcore.tensor(a, requires_grad=True), tcore.tensor(b, requires_grad=True)
    d = tcore.dist(x, y, 0)
    assert d.item() == torch.dist(torch.tensor(a), torch.tensor(b), 0).item() == 12
    d.backward()
    assert not np.any(x.grad.numpy()) and not np.any(y.grad.numpy()) and y.grad.shape == (4,)


FLOAT_POWER = [
    ("tensor tensor", lambda L, x, y: L.float_power(x, y)),
    ("tensor scalar", lambda L, x, y: L.float_power(x, 2.5)),
    ("tensor int scalar", lambda L, x, y: x.float_power(3)),
    ("scalar tensor", lambda L, x, y: L.float_power(1.7, y)),
    ("int scalar tensor", lambda L, x, y: L.float_power(2, y)),
]


@pytest.mark.parametrize("case", FLOAT_POWER, ids=lambda c: c[0])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_float_power_as_torch(case, dtype):
    _, fn = case
    a = np.abs(arr((3, 4), seed=6)) + 0.5
    b = arr((4,), seed=7)
    if dtype == "int64":
        a, b = np.round(a * 3), np.round(b * 2)
    got = [fn(L, L.tensor(a, dtype=getattr(L, dtype)), L.tensor(b, dtype=getattr(L, dtype))) for L in LIBS]
    assert str(got[0].dtype).split(".")[-1] == str(got[1].dtype).split(".")[-1] == "float64"
    np.testing.assert_allclose(got[0].numpy(), got[1].numpy(), rtol=1e-14)
    if dtype != "int64":
        grads = []
        for L in LIBS:
            x = L.tensor(a, dtype=getattr(L, dtype), requires_grad=True)
            y = L.tensor(b, dtype=getattr(L, dtype), requires_grad=True)
            fn(L, x, y).sum().backward()
            grads.append([None if g is None else g.numpy() for g in (x.grad, y.grad)])
        for o, t in zip(*grads):
            assert (o is None) == (t is None)
            if t is not None:
                assert o.dtype == t.dtype
                np.testing.assert_allclose(o, t, rtol=1e-3 if dtype == "float16" else 1e-6)


def test_float_power_in_place_as_torch():
    a, b = np.abs(arr((2, 3), seed=8)) + 0.5, arr((3,), seed=9)
    for L in LIBS:
        x = L.tensor(a)
        assert x.float_power_(L.tensor(b)) is x
    got = []
    for L in LIBS:
        x = L.tensor(a)
        x.float_power_(2.5)
        got.append(x.numpy())
    np.testing.assert_allclose(*got, rtol=1e-15)
    for L in LIBS:
        x = L.tensor(a)
        x.float_power_(L.tensor(b))
        got.append(x.numpy())
    np.testing.assert_allclose(got[2], got[3], rtol=1e-15)
    messages = []
    for L in LIBS:
        with pytest.raises(RuntimeError) as e:
            L.ones(2, dtype=L.float32).float_power_(2)
        messages.append(str(e.value).split("\n")[0])
    assert messages[0] == messages[1].replace("dtype Float", "dtype float32")  # (tcore's dtype names: Python's)


@pytest.mark.parametrize("dtypes", [("float64", "int64"), ("float32", "float32"), ("int64", "int64"),
                                    ("float16", "int32"), ("int32", "float64")])
def test_ldexp_as_torch(dtypes):
    a = arr((3, 4), seed=10) * 5
    e = np.random.default_rng(11).integers(-6, 7, (4,))
    x_dt, e_dt = dtypes
    got = [L.ldexp(L.tensor(a, dtype=getattr(L, x_dt)), L.tensor(e, dtype=getattr(L, e_dt))) for L in LIBS]
    assert str(got[0].dtype).split(".")[-1] == str(got[1].dtype).split(".")[-1]
    np.testing.assert_array_equal(got[0].numpy(), got[1].numpy())
    if x_dt.startswith("float") and x_dt == str(got[1].dtype).split(".")[-1]:
        outs = []
        for L in LIBS:
            x = L.tensor(a, dtype=getattr(L, x_dt))
            assert x.ldexp_(L.tensor(e, dtype=getattr(L, e_dt))) is x
            outs.append(x.numpy())
        np.testing.assert_array_equal(*outs)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
def test_ldexp_rounds_once_at_the_ends_of_the_range(dtype):
    """self * 2^other as one rounding of the exact product: float32's 2^-150 is 0 and 2^300 inf,
    so 3 * 2^-150 gave 0 (the answer is 2^-148) and 0 * 2^300 NaN (the answer is 0); in place
    alike. The reference is the exact product rounded to the dtype."""
    import fractions
    import math
    x = [0.0, -0.0, 1.0, 1.5, 3.0, 3.0, 1.0, -2.5, 1.0, float("inf"), float("nan"), 5.0]
    e = [300, -300, 300, -149, -150, -152, 128, 100, -1100, -2000, 3, 0]
    if dtype == "float64":
        e = [2000, -2000, 1024, -1074, -1075, -1077, 1023, 900, -1200, -3000, 3, 0]
    got = tcore.ldexp(tcore.tensor(x, dtype=getattr(tcore, dtype)), tcore.tensor(e)).double().numpy()
    inplace = tcore.tensor(x, dtype=getattr(tcore, dtype))
    inplace.ldexp_(tcore.tensor(e))
    def exact(a, b):  # a * 2^b as Python's float of the exact fraction (inf past float64), then the dtype's rounding
        if not math.isfinite(a):
            return a
        try:
            v = float(fractions.Fraction(a) * fractions.Fraction(2) ** b)
        except OverflowError:
            v = math.copysign(math.inf, a)
        v = math.copysign(v, a) if v == 0 else v
        return float(torch.tensor(v, dtype=torch.float64).to(getattr(torch, dtype)).double())
    want = np.array([exact(a, b) for a, b in zip(x, e)])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(inplace.double().numpy(), want)
    assert np.signbit(got[1])


def test_ldexp_gradients_as_torch():
    a, e = arr((3,), seed=12), arr((3,), seed=13)
    grads = []
    for L in LIBS:
        x, y = L.tensor(a, requires_grad=True), L.tensor(e, requires_grad=True)
        (L.ldexp(x, y) * L.tensor([1.0, -2.0, 0.5], dtype=L.float64)).sum().backward()
        grads.append((x.grad.numpy(), y.grad.numpy()))
    for o, t in zip(*grads):
        np.testing.assert_allclose(o, t, rtol=1e-14)


def test_is_same_size_is_nonzero_and_isreal_as_torch():
    for L in LIBS:
        assert L.is_same_size(L.ones(2, 3), L.zeros(2, 3)) and not L.ones(2, 3).is_same_size(L.ones(3, 2))
        assert not L.is_same_size(L.ones(1), L.ones(()))
        assert L.is_nonzero(L.tensor([2.5])) and not L.tensor(0).is_nonzero() and L.tensor(float("nan")).is_nonzero()
        assert L.tensor([[True]]).is_nonzero() and not L.tensor(-0.0).is_nonzero()
        r = L.isreal(L.tensor([[1.0, float("nan")]]))
        assert r.dtype == L.bool and r.shape == (1, 2) and bool(r.all())
        assert L.ones(2, 3, dtype=L.int64).t().isreal().stride() == L.ones(2, 3).t().stride()
    for bad in (lambda L: L.is_nonzero(L.ones(0)), lambda L: L.is_nonzero(L.ones(2))):
        messages = []
        for L in LIBS:
            with pytest.raises(RuntimeError) as e:
                bad(L)
            messages.append(str(e.value).split("\n")[0])
        assert messages[0] == messages[1]


def test_out_overloads_as_torch():
    a, b = np.abs(arr((2, 3), seed=14)) + 0.5, arr((3,), seed=15)
    calls = [
        ("rot90.out", lambda L, x, y, out: L.rot90(x, 1, [0, 1], **({} if out is None else {"out": out})), "float64"),
        ("ldexp.out", lambda L, x, y, out: L.ldexp(x, y, out=out), "float64"),
        ("dist.out", lambda L, x, y, out: L.dist(x, y, 3, **({} if out is None else {"out": out})), "float64"),
        ("float_power.Tensor_Tensor_out", lambda L, x, y, out: L.float_power(x, y, out=out), "float64"),
        ("float_power.Tensor_Scalar_out", lambda L, x, y, out: L.float_power(x, 2, out=out), "float64"),
        ("float_power.Scalar_out", lambda L, x, y, out: L.float_power(3, y, out=out), "float64"),
    ]
    for name, call, dt in calls:
        got = []
        for L in LIBS:
            out = L.empty(0, dtype=getattr(L, dt))
            if L is torch and name in ("rot90.out", "dist.out"):  # (autogen outs: not in torch's Python API)
                got.append(call(L, L.tensor(a), L.tensor(b), None).numpy())
                continue
            assert call(L, L.tensor(a), L.tensor(b), out) is out, name
            got.append(out.numpy())
        assert got[0].shape == got[1].shape, name
        np.testing.assert_allclose(*got, rtol=1e-14, err_msg=name)
    for L in LIBS:  # float_power's out must be float64, as its result
        with pytest.raises(RuntimeError):
            L.float_power(L.tensor(a), 2, out=L.empty(0))
