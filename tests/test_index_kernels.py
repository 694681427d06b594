"""gather, index_select, index_add and scatter_add over the index and element dtypes torch 2.13
takes (int32 indices; bool, float16 and bfloat16 elements, with torch's accumulation), and
refusals that torch makes (bool searches and means, a bool alpha, threshold's numbers)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _run(lib, fn):
    r = fn(lib)
    return np.array(r.double().tolist()), str(r.dtype).split(".")[-1], tuple(r.shape)


def _x(lib, dtype="float64"):
    return lib.tensor([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]], dtype=getattr(lib, dtype))


VALUES = {
    "gather int32": lambda t: _x(t).gather(1, t.tensor([[2, 0, 0], [1, 1, 2]], dtype=t.int32)),
    "gather int32 out": lambda t: t.gather(_x(t), 0, t.tensor([[1, 0, 1]], dtype=t.int32),
                                           out=t.empty(0, dtype=t.float64)),
    "index_select int32": lambda t: _x(t).index_select(1, t.tensor([2, 0, 2], dtype=t.int32)),
    "index_select int32 0-dim": lambda t: _x(t).index_select(0, t.tensor(1, dtype=t.int32)),
    "index_add int32": lambda t: _x(t).index_add(1, t.tensor([2, 0], dtype=t.int32), t.ones(2, 2, dtype=t.float64)),
    "index_add alpha": lambda t: _x(t).index_add(0, t.tensor([1, 1]), _x(t), alpha=-2.5),
    "index_add_ int32": lambda t: _x(t).index_add_(0, t.tensor([0], dtype=t.int32), _x(t)[:1], alpha=3),
    "scatter_add int32": lambda t: _x(t).scatter_add(1, t.tensor([[0, 0, 2]], dtype=t.int32), _x(t)),
    "scatter_add_ int32": lambda t: _x(t).scatter_add_(0, t.tensor([[1, 0, 1]], dtype=t.int32), _x(t)),
    "index_add int8 alpha wraps": lambda t: t.tensor([100, 0], dtype=t.int8).index_add(
        0, t.tensor([0, 0]), t.tensor([20, 30], dtype=t.int8), alpha=2),
    "scatter_add int16": lambda t: t.tensor([30000, 0], dtype=t.int16).scatter_add(
        0, t.tensor([0, 0]), t.tensor([5000, 1], dtype=t.int16)),
}
for _dt in ("float16", "bfloat16"):
    VALUES[f"gather {_dt}"] = lambda t, _dt=_dt: _x(t, _dt).gather(1, t.tensor([[2, 0], [1, 1]], dtype=t.int32))
    VALUES[f"index_select {_dt}"] = lambda t, _dt=_dt: _x(t, _dt).index_select(1, t.tensor([2, 0, 2]))
    VALUES[f"index_add {_dt}"] = lambda t, _dt=_dt: _x(t, _dt).index_add(1, t.tensor([2, 2]), _x(t, _dt)[:, :2])
    VALUES[f"scatter_add {_dt}"] = lambda t, _dt=_dt: _x(t, _dt).scatter_add(
        0, t.tensor([[1, 0, 1], [1, 1, 0]]), _x(t, _dt))
    VALUES[f"index_add {_dt} alpha"] = lambda t, _dt=_dt: _x(t, _dt).index_add(0, t.tensor([0]), _x(t, _dt)[1:],
                                                                              alpha=0.1)
    # torch's CPU index_add adds in the element type (3000 ones give 2048); scatter_add widens
    VALUES[f"index_add {_dt} 3000 ones"] = lambda t, _dt=_dt: t.zeros(1, dtype=getattr(t, _dt)).index_add(
        0, t.zeros(3000, dtype=t.long), t.ones(3000, dtype=getattr(t, _dt)))
    VALUES[f"scatter_add {_dt} 3000 ones"] = lambda t, _dt=_dt: t.zeros(1, dtype=getattr(t, _dt)).scatter_add(
        0, t.zeros(3000, dtype=t.long), t.ones(3000, dtype=getattr(t, _dt)))
for _name, _fn in {
    "index_add": lambda t, s, i, v, **k: s.index_add(0, i, v, **k),
    "scatter_add": lambda t, s, i, v, **k: s.scatter_add(0, i, v),
}.items():
    VALUES[f"{_name} bool"] = lambda t, _fn=_fn: _fn(t, t.tensor([False, True, False]), t.tensor([0, 0, 2]),
                                                    t.tensor([True, False, False]))
VALUES["index_add 0-dim self"] = lambda t: t.tensor(1.0).index_add(0, t.tensor([0]), t.tensor(2.0), alpha=3)
VALUES["index_add_ 0-dim self and index"] = lambda t: t.tensor(1.0).index_add_(0, t.tensor(0), t.tensor(2.0))
VALUES["index_add bool alpha False"] = lambda t: t.tensor([False, True]).index_add(
    0, t.tensor([0, 1]), t.tensor([True, True]), alpha=False)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_as_torch(tcore, name):
    (ev, ed, es), (gv, gd, gs) = _run(torch, VALUES[name]), _run(tcore, VALUES[name])
    assert (gd, gs) == (ed, es)
    np.testing.assert_array_equal(gv, ev)


def test_int32_index_gradients_as_torch(tcore):
    def run(lib):
        x = _x(lib).requires_grad_()
        i32 = lib.tensor([[2, 0, 0], [1, 1, 2]], dtype=lib.int32)
        y = x.gather(1, i32) * 2 + x.index_select(1, i32[0]) + x.scatter_add(1, i32, x * x)
        y.sum().backward()
        return x.grad.tolist()

    assert run(tcore) == run(torch)


ERRORS = {
    "gather float index": (lambda t: _x(t).gather(0, t.tensor([[0.0]])), RuntimeError, "int32/int64"),
    "gather int16 index": (lambda t: _x(t).gather(0, t.tensor([[0]], dtype=t.int16)), RuntimeError, "int32/int64"),
    "index_select float index": (lambda t: _x(t).index_select(0, t.tensor([0.0])), RuntimeError, "int32"),
    "index_add float index": (lambda t: _x(t).index_add(0, t.tensor([0.0]), _x(t)[:1]), RuntimeError, "int32/int64"),
    "scatter_add float index": (lambda t: _x(t).scatter_add(0, t.tensor([[0.0]]), _x(t)), RuntimeError, "int32/int64"),
    "index_add float16 alpha overflows": (
        lambda t: _x(t, "float16").index_add(0, t.tensor([0]), _x(t, "float16")[:1], alpha=1e5), RuntimeError,
        "cannot be converted to type"),
    "index_add source dtype": (lambda t: t.ones(2).index_add(0, t.tensor([0]), t.ones(1, dtype=t.float64)),
                               RuntimeError, "must have the same scalar type"),
    "index_add 0-dim self, 1-D source": (lambda t: t.tensor(1.0).index_add(0, t.tensor([0]), t.tensor([2.0])),
                                         RuntimeError, "source tensor shape must match self tensor shape"),
    "index_add int32 out of range": (
        lambda t: _x(t).index_add(0, t.tensor([2], dtype=t.int32), _x(t)[:1]), IndexError, "out of"),
    "searchsorted bool": (lambda t: t.searchsorted(t.tensor([False, True]), t.tensor([True])), NotImplementedError,
                          "not implemented for 'Bool'"),
    "searchsorted bool number": (lambda t: t.searchsorted(t.tensor([False, True]), True), NotImplementedError,
                                 "not implemented for 'Bool'"),
    "bucketize bool": (lambda t: t.bucketize(t.tensor([True]), t.tensor([False, True])), NotImplementedError,
                       "not implemented for 'Bool'"),
    "scatter_reduce bool mean": (
        lambda t: t.tensor([False, True]).scatter_reduce(0, t.tensor([0, 0]), t.tensor([True, True]), "mean"),
        NotImplementedError, "not implemented for 'Bool'"),
    "add int8 alpha True": (lambda t: t.ones(2, dtype=t.int8).add(t.ones(2, dtype=t.int8), alpha=True),
                            RuntimeError, "Boolean alpha only supported for Boolean results"),
    "add float alpha True": (lambda t: t.ones(2).add(t.ones(2), alpha=True), RuntimeError,
                             "Boolean alpha only supported"),
    "threshold float16 value": (
        lambda t: t.nn.functional.threshold(t.ones(2, dtype=t.float16), 0.5, 1e5), RuntimeError,
        "cannot be converted to type"),
    "threshold uint8 threshold": (
        lambda t: t.nn.functional.threshold(t.tensor([0, 1], dtype=t.uint8), -0.5, 7), RuntimeError,
        "cannot be converted to type"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(tcore, name):
    fn, kind, words = ERRORS[name]
    import tcore.nn.functional  # noqa: F401  (t.nn.functional below)
    for lib in (torch, tcore):
        with pytest.raises(kind, match=words):
            fn(lib)


THRESHOLD = {
    "int64 truncates both": lambda t: t.nn.functional.threshold(t.tensor([0, 1, 2]), -0.5, 7.9),
    "int64": lambda t: t.nn.functional.threshold(t.tensor([1, 2, 3]), 1.5, 7.9),
    "int8 large threshold": lambda t: t.nn.functional.threshold(t.tensor([0, 1, 2], dtype=t.int8), 100, 7),
    "float16 value rounds": lambda t: t.nn.functional.threshold(t.tensor([1.0, 2, 3], dtype=t.float16), 1.5, 7.9),
    "float16 huge threshold": lambda t: t.nn.functional.threshold(t.tensor([1.0, 2], dtype=t.float16), 1e5, 7.9),
    "float32 in place": lambda t: t.nn.functional.threshold(t.tensor([1.0, 2, -3]), 1.0, -1.0, inplace=True),
}


@pytest.mark.parametrize("name", sorted(THRESHOLD))
def test_threshold_as_torch(tcore, name):
    import tcore.nn.functional  # noqa: F401
    (ev, ed, es), (gv, gd, gs) = _run(torch, THRESHOLD[name]), _run(tcore, THRESHOLD[name])
    assert (gd, gs) == (ed, es)
    np.testing.assert_array_equal(gv, ev)


LAYOUTS = {
    "index_fill transposed": lambda t: t.zeros(3, 4).t().index_fill(0, t.tensor([1]), 2.0),
    "index_fill tensor value transposed": lambda t: t.zeros(3, 4).t().index_fill(1, t.tensor([0, 2]), t.tensor(5.0)),
    "index_fill sliced": lambda t: t.zeros(4, 6)[:, ::2].index_fill(1, t.tensor([1]), -1.0),
    "masked_fill transposed": lambda t: t.zeros(3, 4).t().masked_fill(t.ones(4, 3, dtype=t.bool), 1.0),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_result_layout_as_torch(tcore, name):
    def run(lib):
        r = LAYOUTS[name](lib)
        return r.tolist(), r.stride()

    assert run(tcore) == run(torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_arange_bounds_in_float32_range_for_16_bit_floats(tcore, dtype):
    """torch computes a float16/bfloat16 arange in float32: bounds beyond its range are refused (a
    float32 arange rounds them to inf; float64 holds them)."""
    def run(lib):
        try:
            return lib.arange(0, 1e39, 5e38, dtype=getattr(lib, dtype)).double().tolist()
        except RuntimeError as e:
            return str(e)

    assert run(tcore) == run(torch)
