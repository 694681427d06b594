"""Structured kernels and the Meta backend (codegen/structured.py, tcore/core/Structured.h).

Every structured operator and overload of tcore's native_functions.yaml runs on CPU and on
meta tensors over a table of inputs: the meta result has the CPU result's sizes, strides and
dtype, and where CPU raises, meta raises the same kind of error. The out= rules are PyTorch's
(compared with torch where it is installed)."""
from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pytest

import tcore
from codegen import structured
from codegen.load import load_operator_set

ROOT = Path(__file__).resolve().parents[1]
OPSET = load_operator_set(str(ROOT / "csrc/native/native_functions.yaml"), str(ROOT / "csrc/native/tags.yaml"))
GROUPS = [g for fs in OPSET.by_root().values() for g in structured.groups_of(fs)]

try:
    import torch
except ImportError:  # pragma: no cover - torch is a test requirement
    torch = None


def _tensor_arity(g) -> int:
    return sum(1 for a in structured.meta_args(g.out) if a.schema.type == structured.BaseType("Tensor"))


def _inputs(arity: int):
    """(label, arrays): dtypes and shapes the kernels must agree on, broadcasting included."""
    dtypes = [np.float32, np.float64, np.int64, np.int32, np.bool_]
    shapes = [(2, 3), (), (0, 3)] if arity == 1 else [((2, 3), (2, 3)), ((3, 1), (1, 4)), ((), (2,)), ((2,), (3,))]
    rng = np.random.default_rng(0)
    for shape in shapes:
        for dts in itertools.product(dtypes, repeat=arity):
            shp = (shape,) if arity == 1 else shape
            arrays = [np.asarray((rng.uniform(0.5, 2.0, s) * 3).astype(dt)) for s, dt in zip(shp, dts)]
            yield f"{shp}-{[np.dtype(d).name for d in dts]}", arrays


CASES = [(g, label, arrays) for g in GROUPS for label, arrays in _inputs(_tensor_arity(g))]


def _names(g):
    return {f.func.kind: f for f in g.members()}


def _run(fn):
    try:
        return fn(), None
    except Exception as e:  # the kind of error is compared
        return None, e


def _cpu(a: np.ndarray):
    """A contiguous CPU tensor with a's values (from_numpy keeps numpy's strides, which for
    empty arrays are not tcore's)."""
    src = tcore.from_numpy(a.copy())
    return tcore.empty(list(a.shape), dtype=src.dtype).copy_(src)


def _meta(a: np.ndarray):
    return tcore.empty(list(a.shape), dtype=tcore.from_numpy(a).dtype, device="meta")


def _same_error(cpu_err, meta_err, what):
    assert (cpu_err is None) == (meta_err is None), f"{what}: cpu {cpu_err!r}, meta {meta_err!r}"
    if cpu_err is not None:
        assert isinstance(meta_err, type(cpu_err)) or isinstance(cpu_err, type(meta_err)), (cpu_err, meta_err)


def _check_like(meta, cpu, what):
    assert meta.device.type == "meta", what
    assert tuple(meta.shape) == tuple(cpu.shape), what
    assert tuple(meta.stride()) == tuple(cpu.stride()), what
    assert meta.dtype == cpu.dtype, what


def test_every_structured_group_is_found():
    names = {str(g.out.func.name) for g in GROUPS}
    assert {"add.out", "mul.out", "exp.out", "neg.out", "abs.out", "div.out"} <= names
    for g in GROUPS:
        kinds = _names(g)
        assert "functional" in kinds and "out" in kinds, g.out.func.name


@pytest.mark.parametrize("g,label,arrays", CASES, ids=[f"{c[0].out.func.name}-{c[1]}" for c in CASES])
def test_meta_matches_cpu(g, label, arrays):
    kinds = _names(g)
    name = kinds["functional"].func.name.name
    fn = getattr(tcore, name)
    cpu_args = [_cpu(a) for a in arrays]
    meta_args = [_meta(a) for a in arrays]

    cpu, cpu_err = _run(lambda: fn(*cpu_args))
    meta, meta_err = _run(lambda: fn(*meta_args))
    _same_error(cpu_err, meta_err, f"{name}{label}")
    if cpu is not None:
        _check_like(meta, cpu, f"{name}{label}")

    if "inplace" in kinds:
        iname = kinds["inplace"].func.name.name
        cpu_args = [_cpu(a) for a in arrays]
        meta_args = [_meta(a) for a in arrays]
        v = meta_args[0]._version
        cpu_r, cpu_err = _run(lambda: getattr(cpu_args[0], iname)(*cpu_args[1:]))
        meta_r, meta_err = _run(lambda: getattr(meta_args[0], iname)(*meta_args[1:]))
        _same_error(cpu_err, meta_err, f"{iname}{label}")
        if cpu_r is not None:
            _check_like(meta_r, cpu_r, f"{iname}{label}")
            assert meta_args[0]._version == v + 1

    # out= into an empty tensor of the functional result's dtype: resized without a warning
    if cpu is not None:
        cpu_args = [_cpu(a) for a in arrays]
        meta_args = [_meta(a) for a in arrays]
        cpu_out = tcore.empty(0, dtype=cpu.dtype)
        meta_out = tcore.empty(0, dtype=cpu.dtype, device="meta")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fn(*cpu_args, out=cpu_out)
            fn(*meta_args, out=meta_out)
        _check_like(meta_out, cpu_out, f"{name}.out{label}")


# ------------------------------------------------------------------ the Meta backend itself

def test_empty_on_meta():
    t = tcore.empty(2, 3, device="meta")
    assert t.device.type == "meta" and t.is_meta and tuple(t.shape) == (2, 3) and t.stride() == (3, 1)
    assert t.dtype == tcore.float32
    assert repr(t) == "tensor(..., device='meta', size=(2, 3))"
    d = tcore.empty(4, dtype=tcore.float64, device="meta")
    assert repr(d) == "tensor(..., device='meta', size=(4,), dtype=tcore.float64)"
    assert str(tcore.device("meta")) == "meta"


def test_factories_views_and_composites_on_meta():
    z = tcore.zeros(2, 3, device="meta")
    o = tcore.ones(3, device="meta")
    r = (z + o) * 2 - 1
    assert r.is_meta and tuple(r.shape) == (2, 3)
    v = r.t()
    assert v.is_meta and tuple(v.shape) == (3, 2) and v.stride() == (1, 3)
    e = o.expand(4, 3)
    assert e.stride() == (0, 1)
    s = r[1:, ::2]
    assert tuple(s.shape) == (1, 2)
    assert tcore.exp(v).stride() == (2, 1)  # structured results are contiguous, as on CPU
    assert (r + 1.5).dtype == tcore.float32  # a Python number joins a meta tensor
    assert (tcore.empty(3, dtype=tcore.int64, device="meta") / 2).dtype == tcore.float32


def test_meta_data_is_never_read():
    t = tcore.empty(2, 3, device="meta")
    for f in (lambda: t.numpy(), lambda: t.tolist(), lambda: t.to("cpu"), lambda: float(t[0, 0]),
              lambda: np.asarray(t)):
        with pytest.raises(RuntimeError, match="meta"):
            f()
    with pytest.raises(NotImplementedError, match="meta"):
        repr(tcore.empty(2, 3).copy_(t))


def test_devices_must_agree():
    m = tcore.empty(2, 3, device="meta")
    c = tcore.ones(2, 3)
    with pytest.raises(RuntimeError, match="same device"):
        tcore.add(m, c)
    with pytest.raises(RuntimeError, match="same device"):
        tcore.add(c, m)
    with pytest.raises(RuntimeError, match="device"):
        tcore.exp(c, out=tcore.empty(0, device="meta"))
    # a CPU 0-dim tensor is a scalar operand on any device
    assert tcore.add(m, tcore.tensor(2.0)).is_meta


def test_meta_errors_are_the_cpu_errors():
    with pytest.raises(TypeError, match="bool"):
        tcore.neg(tcore.empty(3, dtype=tcore.bool, device="meta"))
    with pytest.raises(RuntimeError, match="broadcast"):
        tcore.empty(3, device="meta").add_(tcore.empty(2, 3, device="meta"))
    with pytest.raises(RuntimeError, match="can't be cast"):
        tcore.empty(3, dtype=tcore.int64, device="meta").exp_()
    with pytest.raises(RuntimeError, match="alpha"):
        tcore.add(tcore.empty(3, dtype=tcore.int64, device="meta"), tcore.empty(3, dtype=tcore.int64, device="meta"),
                  alpha=1.5)


# ------------------------------------------------------------------ out= rules (PyTorch's)

def test_out_resize_warns_unless_empty():
    a = tcore.ones(3)
    out = tcore.empty(2)
    with pytest.warns(UserWarning, match="resized"):
        tcore.exp(a, out=out)
    assert tuple(out.shape) == (3,)
    np.testing.assert_allclose(out.numpy(), np.exp(np.ones(3, np.float32)), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        empty = tcore.empty(0)
        tcore.exp(a, out=empty)  # an empty out is resized silently
        same = tcore.empty(3)
        tcore.exp(a, out=same)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the warnings filter turns the warning into an error
        with pytest.raises(UserWarning):
            tcore.exp(a, out=tcore.empty(5))


def test_out_dtype_rules_match_torch():
    cases = [
        ("exp", [np.array([1, 2], np.int64)], np.int64),        # float result into int64: error
        ("exp", [np.array([1, 2], np.int64)], np.float64),      # into a wider float: fine
        ("add", [np.array([1, 2], np.int64)] * 2, np.float32),  # int result into float: fine
        ("add", [np.array([1.5, 2], np.float32)] * 2, np.int64),
        ("mul", [np.array([True, False])] * 2, np.bool_),
        ("div", [np.array([1, 2], np.int64)] * 2, np.int64),
        ("neg", [np.array([-1, 2], np.int32)], np.int64),
        ("neg", [np.array([1.0, 2.0], np.float64)], np.float32),  # a narrower float is a cast: fine
    ]
    for name, arrays, out_dtype in cases:
        out = tcore.from_numpy(np.zeros(2, out_dtype))
        got, err = _run(lambda: getattr(tcore, name)(*[tcore.from_numpy(a) for a in arrays], out=out))
        if torch is not None:
            tout = torch.from_numpy(np.zeros(2, out_dtype))
            want, terr = _run(lambda: getattr(torch, name)(*[torch.from_numpy(a) for a in arrays], out=tout))
            assert (err is None) == (terr is None), (name, out_dtype, err, terr)
            if err is None:
                np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-6)


def test_inplace_and_out_keep_identity_and_version():
    x = tcore.ones(2, 3)
    v = x._version
    r = x.mul_(tcore.full([3], 2.0))
    assert r._storage_ptr() == x._storage_ptr() and x._version == v + 1
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 2.0, np.float32))
    out = tcore.empty(2, 3)
    r = tcore.add(x, x, alpha=2, out=out)
    assert r._storage_ptr() == out._storage_ptr()
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), 6.0, np.float32))
    # out aliasing an input: the result is still right
    tcore.add(x, x.t().t(), out=x)
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 4.0, np.float32))


def test_structured_ops_still_differentiate():
    x = tcore.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = (tcore.exp(x) * x + x.sigmoid()).sum()
    y.backward()
    xs = np.array([0.5, 1.0, 2.0])
    s = 1 / (1 + np.exp(-xs))
    np.testing.assert_allclose(x.grad.numpy(), np.exp(xs) * (xs + 1) + s * (1 - s), rtol=1e-5)
