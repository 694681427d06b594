"""scatter (a tensor or a number, with add/multiply), scatter_reduce (sum, prod, mean, amax, amin,
with and without self) and their in-place forms, against torch: values, dtypes, errors, float64
gradients (repeated indices, zeros in prod, ties in amax/amin) and forward-mode tangents."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]


def _inputs(lib, dtype="float64"):
    dt = getattr(lib, dtype)
    self = lib.tensor([[1.0, -2.0, 3.0, 0.0], [4.0, 5.0, -6.0, 2.0], [0.5, 0.0, 8.0, -1.0]], dtype=dt)
    index = lib.tensor([[0, 1, 0, 2], [2, 0, 0, 2]])
    src = lib.tensor([[2.0, 0.0, 3.0, -1.0], [4.0, 3.0, 3.0, 0.0]], dtype=dt)
    return self, index, src


VALUES = {
    "scatter src dim 0": lambda t, s, i, r: s.scatter(0, i, r),
    "scatter src dim 1": lambda t, s, i, r: s.scatter(1, i.remainder(4), r),
    "scatter src dim -1": lambda t, s, i, r: t.scatter(s, -1, i, r),
    "scatter value": lambda t, s, i, r: s.scatter(0, i, 7.5),
    "scatter value int": lambda t, s, i, r: s.long().scatter(1, i, 3),
    "scatter_ src": lambda t, s, i, r: s.clone().scatter_(0, i, r),
    "scatter_ value": lambda t, s, i, r: s.clone().scatter_(1, i, -1.0),
    "scatter add": lambda t, s, i, r: s.scatter(0, i, r, reduce="add"),
    "scatter multiply": lambda t, s, i, r: s.scatter(0, i, r, reduce="multiply"),
    "scatter value add": lambda t, s, i, r: s.scatter(0, i, 2.0, reduce="add"),
    "scatter value multiply": lambda t, s, i, r: s.clone().scatter_(1, i, 3.0, reduce="multiply"),
    "index smaller than src": lambda t, s, i, r: s.scatter(0, i[:1, :2], r),
    "int32 index": lambda t, s, i, r: s.scatter(0, i.int(), r),
    "empty index": lambda t, s, i, r: s.scatter(0, i[:0], r),
    "transposed self": lambda t, s, i, r: s.t().scatter(1, i, r),
    "0-dim": lambda t, s, i, r: s[0, 0].scatter(0, t.tensor(0), t.tensor(9.0, dtype=s.dtype)),
    "bool": lambda t, s, i, r: (s > 0).scatter(0, i, r > 0),
    "float16": lambda t, s, i, r: s.half().scatter_reduce(0, i, r.half(), "mean"),
    "int64 mean floors": lambda t, s, i, r: (s * 3).long().scatter_reduce(0, i, (r * 3 - 4).long(), "mean"),
    "int64 prod": lambda t, s, i, r: s.long().scatter_reduce(0, i, r.long(), "prod", include_self=False),
    "int64 amax without self": lambda t, s, i, r: s.long().scatter_reduce(0, i, r.long(), "amax", include_self=False),
    "int8 amin without self": lambda t, s, i, r: s.to(t.int8).scatter_reduce(0, i, r.to(t.int8), "amin",
                                                                                include_self=False),
    "amax with NaN": lambda t, s, i, r: s.scatter_reduce(0, i, r.masked_fill(r == 3, float("nan")), "amax"),
    "amin with NaN self": lambda t, s, i, r: s.masked_fill(s == 1, float("nan")).scatter_reduce(0, i, r, "amin"),
}
for _r in REDUCTIONS:
    for _inc in (True, False):
        VALUES[f"scatter_reduce {_r} include_self={_inc}"] = (
            lambda t, s, i, r, _r=_r, _inc=_inc: s.scatter_reduce(0, i, r, _r, include_self=_inc))
        VALUES[f"scatter_reduce_ {_r} include_self={_inc} dim 1"] = (
            lambda t, s, i, r, _r=_r, _inc=_inc: s.clone().scatter_reduce_(1, i.remainder(4), r, _r,
                                                                          include_self=_inc))


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_as_torch(tcore, name):
    def run(lib):
        r = VALUES[name](lib, *_inputs(lib))
        return np.array(r.double().tolist()), str(r.dtype).split(".")[-1], tuple(r.shape)

    (ev, ed, es), (gv, gd, gs) = run(torch), run(tcore)
    assert (gd, gs) == (ed, es)
    np.testing.assert_allclose(gv, ev, rtol=1e-3 if ed == "float16" else 1e-15, equal_nan=True)


ERRORS = {
    "bad reduce": lambda t, s, i, r: s.scatter(0, i, r, reduce="max"),
    "bad reduce two": lambda t, s, i, r: s.scatter_reduce(0, i, r, "add"),
    "src dtype": lambda t, s, i, r: s.scatter(0, i, r.float()),
    "reduce src dtype": lambda t, s, i, r: s.scatter_reduce(0, i, r.float(), "sum"),
    "index dtype": lambda t, s, i, r: s.scatter(0, i.double(), r),
    "out of range": lambda t, s, i, r: s.scatter(0, i + 1, r),
    "negative": lambda t, s, i, r: s.scatter(0, i - 1, r),
    "index larger than src": lambda t, s, i, r: s.scatter(0, t.cat([i, i]), r),
    "index dims": lambda t, s, i, r: s.scatter(0, i[0], r),
    "dim out of range": lambda t, s, i, r: s.scatter(2, i, r),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(tcore, name):
    for lib in (torch, tcore):
        with pytest.raises((RuntimeError, IndexError)):
            ERRORS[name](lib, *_inputs(lib))


@pytest.mark.parametrize("reduce,include_self", [(r, inc) for r in REDUCTIONS for inc in (True, False)]
                         + [("scatter", True), ("scatter value", True)])
def test_gradients_as_torch(tcore, reduce, include_self):
    """Repeated indices, zeros among prod's factors (one and several at a position), ties in amax/amin."""

    def run(lib):
        s, i, r = _inputs(lib)
        s.requires_grad_()
        r.requires_grad_()
        w = lib.arange(12.0, dtype=lib.float64).reshape(3, 4) - 5
        if reduce == "scatter":
            out = s.scatter(0, i, r)
        elif reduce == "scatter value":
            out = s.scatter(1, i, 2.0)
        else:
            out = s.scatter_reduce(0, i, r, reduce, include_self=include_self)
        (out * w).sum().backward()
        return s.grad.tolist(), r.grad.tolist() if r.grad is not None else None

    (es, er), (gs, gr) = run(torch), run(tcore)
    np.testing.assert_allclose(gs, es, rtol=1e-14)
    if er is None:
        assert gr is None or not np.any(gr)
    else:
        np.testing.assert_allclose(gr, er, rtol=1e-14)


def test_in_place_gradients_as_torch(tcore):
    def run(lib, modify_after):
        s, i, r = _inputs(lib)
        s.requires_grad_()
        r.requires_grad_()
        y = s * 1
        y.scatter_(1, i, 0.5)
        y.scatter_reduce_(0, i, r, "amax", include_self=False)
        if modify_after:  # amax saved its result: writing over it makes the backward an error, as torch's
            y.scatter_(1, i, 0.25)
        try:
            (y * y).sum().backward()
        except RuntimeError as e:
            return "modified by an inplace operation" in str(e)
        return s.grad.tolist(), r.grad.tolist()

    assert run(tcore, False) == run(torch, False)
    assert run(tcore, True) is True and run(torch, True) is True


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "amax without self", "amin without self",
                                    "scatter", "scatter value"])
def test_forward_mode_as_torch(tcore, reduce):
    def run(lib):
        fwAD = lib.autograd.forward_ad
        s, i, r = _inputs(lib)
        with fwAD.dual_level():
            ds = fwAD.make_dual(s, lib.ones_like(s) * 2)
            dr = fwAD.make_dual(r, lib.arange(8.0, dtype=lib.float64).reshape(2, 4))
            if reduce == "scatter":
                out = ds.scatter(0, i, dr)
            elif reduce == "scatter value":
                out = ds.scatter(0, i, 3.0)
            else:  # (amax without self: a tie with self where self takes no part is no tie)
                name = reduce.split()[0]
                out = ds.scatter_reduce(0, i, dr, name, include_self=reduce in ("sum", "amax", "amin"))
            return fwAD.unpack_dual(out).tangent.tolist()

    np.testing.assert_allclose(run(tcore), run(torch), rtol=1e-14)


def test_forward_mode_of_prod_is_refused(tcore):
    fwAD = tcore.autograd.forward_ad
    s, i, r = _inputs(tcore)
    with fwAD.dual_level():
        d = fwAD.make_dual(s, tcore.ones_like(s))
        with pytest.raises(NotImplementedError, match="reduce='prod'"):
            d.scatter_reduce(0, i, r, "prod")


def test_forward_mode_tie_with_unused_self(tcore):
    def run(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            s = fwAD.make_dual(lib.tensor([4.0], dtype=lib.float64), lib.tensor([1.0], dtype=lib.float64))
            r = fwAD.make_dual(lib.tensor([4.0], dtype=lib.float64), lib.tensor([10.0], dtype=lib.float64))
            out = s.scatter_reduce(0, lib.tensor([0]), r, "amax", include_self=False)
            return fwAD.unpack_dual(out).tangent.tolist()

    assert run(tcore) == run(torch) == [10.0]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean"])
def test_reduced_floats_accumulate_in_float32(tcore, dtype, reduce):
    """A float16 sum of 3000 ones was 2048 (each step rounded); torch accumulates in float32."""
    def run(lib):
        dt = getattr(lib, dtype)
        src = lib.full((3000,), 1.001 if reduce == "prod" else 1.0, dtype=dt)
        idx = lib.zeros(3000, dtype=lib.long)
        a = lib.ones(1, dtype=dt).scatter_reduce(0, idx, src, reduce).double().tolist()
        b = lib.ones(1, dtype=dt).scatter(0, idx, src, reduce="multiply" if reduce == "prod" else "add")
        return a, b.double().tolist()

    assert run(tcore) == run(torch)


def test_overlapping_operands_are_refused_as_torch(tcore):
    def run(lib, case):
        x = lib.tensor([1.0, 0.0, 2.0])
        i = lib.tensor([0, 0, 1])
        try:
            if case == 0:
                x.scatter_(0, i, x)
            elif case == 1:
                x.scatter_reduce_(0, i, x.view(-1), "sum")
            elif case == 2:
                y = lib.tensor([0, 1, 2])
                y.scatter_(0, y[:2], 5)
            else:
                y = lib.tensor([0, 1, 2])
                y.index_fill_(0, y[1:], 7)
        except RuntimeError as e:
            return "single memory location" in str(e)
        return x.tolist()

    for case in range(4):
        assert run(tcore, case) == run(torch, case) is True, case
    # disjoint parts of one storage are fine
    for lib in (torch, tcore):
        x = lib.arange(6.0)
        x[:3].scatter_(0, lib.tensor([0, 2]), x[3:5])
        assert x.tolist() == [3.0, 1.0, 4.0, 3.0, 4.0, 5.0]


def test_empty_index_checks_nothing_and_bumps_the_version(tcore):
    for lib in (torch, tcore):
        x = lib.zeros(3)
        v = x._version
        x.scatter_(0, lib.tensor([], dtype=lib.float32), 1.0)
        x.scatter_(0, lib.zeros(0, 2, dtype=lib.long), lib.ones(2))
        assert x._version == v + 2 and x.tolist() == [0.0, 0.0, 0.0]
