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


def _required_non_tensor_args(f):
    return [a for a in f.func.arguments if a.default is None and not a.is_write
            and a.type != structured.BaseType("Tensor")]


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


def _function(f):
    """The Python function of an operator: tcore's, or its python_module's (tcore._C._nn.elu)."""
    return getattr(getattr(tcore._C, f"_{f.python_module}") if f.python_module else tcore, f.func.name.name)


@pytest.mark.parametrize("g,label,arrays", CASES, ids=[f"{c[0].out.func.name}-{c[1]}" for c in CASES])
def test_meta_matches_cpu(g, label, arrays):
    kinds = _names(g)
    name = kinds["functional"].func.name.name
    fn = _function(kinds["functional"])
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
        inplace = kinds["inplace"]
        if "method" in inplace.variants:
            cpu_r, cpu_err = _run(lambda: getattr(cpu_args[0], iname)(*cpu_args[1:]))
            meta_r, meta_err = _run(lambda: getattr(meta_args[0], iname)(*meta_args[1:]))
        else:  # a function only (tcore._C._nn.leaky_relu_)
            cpu_r, cpu_err = _run(lambda: _function(inplace)(*cpu_args))
            meta_r, meta_err = _run(lambda: _function(inplace)(*meta_args))
        _same_error(cpu_err, meta_err, f"{iname}{label}")
        if cpu_r is not None:
            _check_like(meta_r, cpu_r, f"{iname}{label}")
            assert meta_args[0]._version == v + 1

    # out= into an empty tensor of the functional result's dtype: resized without a warning
    # (where the out= overload needs no other argument: mean.out's dim, see the reductions below)
    if cpu is not None and not _required_non_tensor_args(g.out):
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
    assert tcore.exp(v).stride() == (1, 3)  # structured results keep v's layout, as on CPU (and torch)
    assert tcore.exp(v.contiguous()).stride() == (2, 1)
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


def test_warnings_name_the_callers_line():
    """A kernel's warning is attributed to the first frame outside the tcore package (the
    binding's argument check and tcore.nn.functional's wrappers are skipped), as torch's are."""
    import inspect

    a = tcore.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        tcore.exp(a, out=tcore.empty(2))
        tcore.max(tcore.ones(2, 3), 1, out=(tcore.empty(1), tcore.empty(1, dtype=tcore.int64)))
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)] + [(__file__, line + 1)] * 2  # values, indices


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


# ------------------------------------------------------------------ structured reductions

def _reduction_cases():
    """(label, fn(module) -> tensor): sum, mean, amax/amin, argmax/argmin with dims, keepdim,
    dtype= and out= (PyTorch's dtype rules: dtype= first, then out's, then the input's)."""
    f = lambda m: m.tensor([[1.5, -2.0, 3.0], [0.25, 5.0, -1.0]])
    i = lambda m: m.tensor([[1, 7, 3], [4, 2, 9]], dtype=m.int32)
    b = lambda m: m.tensor([[True, False, True], [True, True, False]])
    e = lambda m: m.ones(0, 3)
    s = lambda m: m.tensor(2.5)
    out = lambda m, dt: m.empty(0, dtype=getattr(m, dt))
    return [
        ("sum-float-dim0", lambda m: m.sum(f(m), [0])),
        ("sum-float-neg-keepdim", lambda m: m.sum(f(m), [-1], keepdim=True)),
        ("sum-int-promotes", lambda m: m.sum(i(m), [1])),
        ("sum-bool-promotes", lambda m: m.sum(b(m), [0])),
        ("sum-all-none", lambda m: m.sum(f(m), None, keepdim=True)),
        ("sum-all-empty-list", lambda m: m.sum(i(m), [])),
        ("sum-full", lambda m: m.sum(i(m))),
        ("sum-dtype", lambda m: m.sum(i(m), [0], dtype=m.float64)),
        ("sum-dtype-bool", lambda m: m.sum(f(m), [0], dtype=m.bool)),
        ("sum-out-int-from-float", lambda m: m.sum(f(m), [0], out=out(m, "int64"))),
        ("sum-out-float-from-int", lambda m: m.sum(i(m), [0], out=out(m, "float32"))),
        ("sum-out-dtype-mismatch", lambda m: m.sum(i(m), [0], dtype=m.float64, out=out(m, "float32"))),
        ("sum-repeated-dim", lambda m: m.sum(f(m), [0, 0])),
        ("sum-dim-out-of-range", lambda m: m.sum(f(m), [2])),
        ("sum-0dim", lambda m: m.sum(s(m), [0])),
        ("sum-0dim-keepdim", lambda m: m.sum(s(m), [-1], keepdim=True)),
        ("sum-empty", lambda m: m.sum(e(m), [0])),
        ("mean-float", lambda m: m.mean(f(m), [1])),
        ("mean-full", lambda m: m.mean(f(m))),
        ("mean-int", lambda m: m.mean(i(m), [0])),
        ("mean-int-dtype", lambda m: m.mean(i(m), [0], dtype=m.float64)),
        ("mean-int-dtype-int", lambda m: m.mean(i(m), [0], dtype=m.int64)),
        ("mean-int-out-float", lambda m: m.mean(i(m), [0], out=out(m, "float32"))),
        ("mean-out-int", lambda m: m.mean(f(m), [0], out=out(m, "int64"))),
        ("mean-out-wider", lambda m: m.mean(f(m), [0], out=out(m, "float64"))),
        ("mean-out-narrower", lambda m: m.mean(f(m).double(), [0], out=out(m, "float32"))),
        ("mean-dtype-out-mismatch", lambda m: m.mean(f(m), [0], dtype=m.float64, out=out(m, "float32"))),
        ("mean-empty", lambda m: m.mean(e(m), [0])),
        ("mean-half", lambda m: m.mean(f(m).to(m.float16), [0])),
        ("amax", lambda m: m.amax(f(m), [0])),
        ("amax-all", lambda m: m.amax(i(m))),
        ("amin-keepdim", lambda m: m.amin(i(m), [0, 1], keepdim=True)),
        ("amax-bool", lambda m: m.amax(b(m), [1])),
        ("amax-out", lambda m: m.amax(f(m), [1], out=out(m, "float32"))),
        ("amax-out-dtype", lambda m: m.amax(f(m), [0], out=out(m, "float64"))),
        ("amax-empty-dim", lambda m: m.amax(e(m), [0])),
        ("amax-empty-other-dim", lambda m: m.amax(e(m), [1])),
        ("amax-empty-all", lambda m: m.amax(e(m))),
        ("amin-half", lambda m: m.amin(f(m).to(m.bfloat16), [1])),
        ("argmax", lambda m: m.argmax(f(m), 1)),
        ("argmax-all", lambda m: m.argmax(f(m))),
        ("argmax-all-keepdim", lambda m: m.argmax(f(m), keepdim=True)),
        ("argmin-keepdim", lambda m: m.argmin(i(m), 0, keepdim=True)),
        ("argmax-out", lambda m: m.argmax(f(m), None, out=out(m, "int64"))),
        ("argmax-out-float", lambda m: m.argmax(f(m), 0, out=out(m, "float32"))),
        ("argmax-out-int32", lambda m: m.argmax(f(m), 0, out=out(m, "int32"))),
        ("argmax-bool", lambda m: m.argmax(b(m), 1)),
        ("argmax-empty", lambda m: m.argmax(e(m))),
        ("argmax-empty-dim", lambda m: m.argmax(e(m), 0)),
        ("argmax-empty-other-dim", lambda m: m.argmax(e(m), 1)),
        ("argmin-0dim", lambda m: m.argmin(s(m), 0)),
        ("argmin-0dim-keepdim", lambda m: m.argmin(s(m), -1, keepdim=True)),
        ("cumsum", lambda m: m.cumsum(f(m), 1)),
        ("cumsum-int-promotes", lambda m: m.cumsum(i(m), 0)),
        ("cumsum-bool-promotes", lambda m: m.cumsum(b(m), -1)),
        ("cumsum-dtype", lambda m: m.cumsum(i(m), 1, dtype=m.float64)),
        ("cumsum-out", lambda m: m.cumsum(f(m), 0, out=out(m, "float32"))),
        ("cumsum-out-int-from-float", lambda m: m.cumsum(f(m), 1, out=out(m, "int64"))),
        ("cumsum-out-dtype-mismatch", lambda m: m.cumsum(f(m), 1, dtype=m.float64, out=out(m, "float32"))),
        ("cumsum-0dim", lambda m: m.cumsum(s(m), 0)),
        ("cumsum-empty", lambda m: m.cumsum(e(m), 0)),
        ("cumsum-dim-out-of-range", lambda m: m.cumsum(f(m), 2)),
        ("cumsum-half", lambda m: m.cumsum(f(m).to(m.float16), 1)),
        ("cumprod", lambda m: m.cumprod(f(m), 1)),
        ("cumprod-int", lambda m: m.cumprod(i(m), 0, out=out(m, "int64"))),
        ("cumprod-bfloat16", lambda m: m.cumprod(f(m).to(m.bfloat16), 0)),
        ("softmax", lambda m: m.softmax(f(m), 1)),
        ("softmax-dim0", lambda m: m.softmax(f(m), 0)),
        ("softmax-dtype", lambda m: m.softmax(f(m), -1, dtype=m.float64)),
        ("softmax-out", lambda m: m.softmax(f(m), 1, out=out(m, "float32"))),
        ("softmax-out-dtype-mismatch", lambda m: m.softmax(f(m), 1, out=out(m, "float64"))),
        ("softmax-0dim", lambda m: m.softmax(s(m), 0)),
        ("softmax-empty", lambda m: m.softmax(e(m), 1)),
        ("softmax-half", lambda m: m.softmax(f(m).to(m.float16), 1)),
        ("log_softmax", lambda m: m.log_softmax(f(m), 1)),
        ("log_softmax-dim0-out", lambda m: m.log_softmax(f(m), 0, out=out(m, "float32"))),
        ("log_softmax-dim-out-of-range", lambda m: m.log_softmax(f(m), -3)),
        ("prod-dim", lambda m: m.prod(f(m), 1)),
        ("prod-dim-keepdim", lambda m: m.prod(f(m), 0, keepdim=True)),
        ("prod-int-promotes", lambda m: m.prod(i(m), 1)),
        ("prod-bool-promotes", lambda m: m.prod(b(m), 0)),
        ("prod-dtype", lambda m: m.prod(i(m), 0, dtype=m.float64)),
        ("prod-out", lambda m: m.prod(f(m), 1, out=out(m, "float32"))),
        ("prod-out-int-from-float", lambda m: m.prod(f(m), 1, out=out(m, "int64"))),
        ("prod-0dim", lambda m: m.prod(s(m), 0)),
        ("prod-empty", lambda m: m.prod(e(m), 0)),
        ("prod-dim-out-of-range", lambda m: m.prod(f(m), 3)),
        ("prod-half", lambda m: m.prod(f(m).to(m.float16), 1)),
        ("all", lambda m: m.all(f(m))),
        ("all-dim", lambda m: m.all(i(m), 1)),
        ("all-dim-keepdim", lambda m: m.all(b(m), 0, keepdim=True)),
        ("all-uint8", lambda m: m.all(i(m).to(m.uint8), 1)),
        ("all-uint8-full", lambda m: m.all(i(m).to(m.uint8))),
        ("all-out-uint8", lambda m: m.all(f(m), 0, out=out(m, "uint8"))),
        ("all-out-float", lambda m: m.all(f(m), 0, out=out(m, "float32"))),
        ("all-empty", lambda m: m.all(e(m), 0)),
        ("all-empty-full", lambda m: m.all(e(m))),
        ("all-0dim", lambda m: m.all(s(m), 0)),
        ("any", lambda m: m.any(b(m))),
        ("any-dim", lambda m: m.any(f(m), -1)),
        ("any-uint8", lambda m: m.any(i(m).to(m.uint8), 0)),
        ("any-out-bool", lambda m: m.any(i(m), 1, out=out(m, "bool"))),
        ("any-empty", lambda m: m.any(e(m), 1)),
        ("any-dim-out-of-range", lambda m: m.any(f(m), -3)),
    ]


REDUCTIONS = _reduction_cases()


@pytest.mark.skipif(torch is None, reason="torch is the oracle")
@pytest.mark.parametrize("label,fn", REDUCTIONS, ids=[c[0] for c in REDUCTIONS])
def test_structured_reductions_match_torch(label, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got, err = _run(lambda: fn(tcore))
        want, terr = _run(lambda: fn(torch))
    assert (err is None) == (terr is None), (label, err, terr)
    if err is not None:
        assert isinstance(err, type(terr)), (label, err, terr)  # tcore's errors subclass torch's kinds
        return
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], label
    assert tuple(got.shape) == tuple(want.shape), label
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=1e-3)


def _on_meta(m):
    """A module-like view of tcore whose factories make meta tensors (tensor() keeps shape and dtype only)."""
    class Meta:
        def __getattr__(self, name):
            return getattr(tcore, name)

        @staticmethod
        def tensor(data, dtype=None):
            t = tcore.tensor(data, dtype=dtype)
            return tcore.empty(list(t.shape), dtype=t.dtype, device="meta")

        @staticmethod
        def ones(*sizes, dtype=None):
            return tcore.empty(list(sizes), dtype=dtype or tcore.float32, device="meta")

        @staticmethod
        def empty(*sizes, dtype=None):
            return tcore.empty(list(sizes), dtype=dtype or tcore.float32, device="meta")
    return Meta()


@pytest.mark.parametrize("label,fn", REDUCTIONS, ids=[c[0] for c in REDUCTIONS])
def test_structured_reductions_on_meta(label, fn):
    cpu, cpu_err = _run(lambda: fn(tcore))
    meta, meta_err = _run(lambda: fn(_on_meta(tcore)))
    if label.endswith(("-half", "-bfloat16")):  # .to(dtype) of a meta tensor: no data to convert
        return
    _same_error(cpu_err, meta_err, label)
    if cpu is not None:
        _check_like(meta, cpu, label)


def test_reduction_out_aliasing_and_strided_out():
    x = tcore.arange(12, dtype=tcore.float32).reshape(3, 4)
    out = tcore.zeros(4, 2).t()  # a strided (2, 4) out
    tcore.sum(x[:2], [0], out=out[0])
    np.testing.assert_array_equal(out.numpy()[0], [4, 6, 8, 10])
    y = tcore.arange(6, dtype=tcore.float32)
    tcore.sum(y.reshape(2, 3), [1], out=y[:2])  # out aliases the input: read before written
    np.testing.assert_array_equal(y.numpy()[:2], [3, 12])
    v = tcore.empty(0, dtype=tcore.int64)
    before = v._version
    r = tcore.argmax(x, 1, out=v)
    assert r._storage_ptr() == v._storage_ptr() and v._version > before
    np.testing.assert_array_equal(v.numpy(), [3, 3, 3])
