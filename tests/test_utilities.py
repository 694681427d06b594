"""torch's top-level non-operator functions in tcore: type queries, the default dtype (factories,
tensor(), promotion and repr follow it), finfo/iinfo, broadcast_shapes, the random state,
inference_mode, as_tensor/asarray, print options, aliases; against torch where it defines them."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_finfo_as_torch(name):
    assert repr(tcore.finfo(getattr(tcore, name))) == repr(torch.finfo(getattr(torch, name)))
    f, g = tcore.finfo(getattr(tcore, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(f, attr) == getattr(g, attr), attr


@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "int32", "int64"])
def test_iinfo_as_torch(name):
    assert repr(tcore.iinfo(getattr(tcore, name))) == repr(torch.iinfo(getattr(torch, name)))
    assert tcore.iinfo(getattr(tcore, name)).bits == torch.iinfo(getattr(torch, name)).bits


def test_info_errors():
    with pytest.raises(TypeError, match="requires an integer input type"):
        tcore.iinfo(tcore.float32)
    with pytest.raises(TypeError, match="requires a floating point input type"):
        tcore.finfo(tcore.int32)


def test_default_dtype_reaches_tensor_factories_promotion_and_repr():
    assert tcore.get_default_dtype() == tcore.float32
    try:
        tcore.set_default_dtype(tcore.float64)
        assert tcore.get_default_dtype() == tcore.float64
        assert tcore.tensor([1.5, 2]).dtype == tcore.float64
        assert tcore.zeros(2).dtype == tcore.float64 and tcore.rand(2).dtype == tcore.float64
        assert (tcore.arange(3) / 2).dtype == tcore.float64  # (integer division: the default dtype)
        assert tcore.tensor([1, 2]).dtype == tcore.int64
        assert repr(tcore.tensor([1.5])) == "tensor([1.5000])"
        assert repr(tcore.tensor([1.5], dtype=tcore.float32)) == "tensor([1.5000], dtype=tcore.float32)"
        assert (tcore.tensor([1, 2]) * 0.5).dtype == tcore.float64
    finally:
        tcore.set_default_dtype(tcore.float32)
    assert tcore.tensor([1.5]).dtype == tcore.float32
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        tcore.set_default_dtype(tcore.int32)


def test_type_queries():
    x = tcore.zeros(2, 3)
    assert tcore.is_tensor(x) and not tcore.is_tensor(np.zeros(2))
    assert tcore.is_floating_point(x) and not tcore.is_floating_point(tcore.zeros(2, dtype=tcore.int64))
    assert not tcore.is_complex(x) and tcore.numel(x) == 6
    assert tcore.is_nonzero(tcore.tensor([2.0])) and not tcore.is_nonzero(tcore.tensor(0))
    for bad, message in ((tcore.tensor([]), "no values"), (tcore.tensor([1, 2]), "more than one value")):
        with pytest.raises(RuntimeError, match=f"Boolean value of Tensor with {message} is ambiguous"):
            tcore.is_nonzero(bad)


def test_broadcast_shapes_as_torch():
    for shapes in [(2, (3, 1), [1, 1, 2]), ((5, 1, 4), (3, 1)), ((),), ((0, 1), (3,))]:
        assert tcore.broadcast_shapes(*shapes) == tuple(torch.broadcast_shapes(*shapes))
    with pytest.raises(RuntimeError) as got:
        tcore.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError) as want:
        torch.broadcast_shapes((2,), (3,))
    assert str(got.value) == str(want.value)


def test_rng_state_round_trip():
    tcore.manual_seed(5)
    assert tcore.initial_seed() == 5
    state = tcore.get_rng_state()
    assert state.dtype == tcore.uint8 and state.ndim == 1
    a = tcore.rand(4).tolist() + tcore.randn(3).tolist() + tcore.randint(0, 100, (3,)).tolist()
    tcore.set_rng_state(state)
    assert tcore.rand(4).tolist() + tcore.randn(3).tolist() + tcore.randint(0, 100, (3,)).tolist() == a
    g = tcore.Generator().manual_seed(1)
    s = g.get_state()
    first = tcore.rand(3, generator=g).tolist()
    g.set_state(s)
    assert tcore.rand(3, generator=g).tolist() == first
    with pytest.raises(RuntimeError, match="is not one that get_state"):
        tcore.set_rng_state(tcore.zeros(10, dtype=tcore.uint8))
    with pytest.raises(TypeError, match="expected a 1-D uint8 CPU tensor"):
        tcore.set_rng_state(tcore.zeros(10))
    assert tcore.initial_seed() == 5  # (the bad states changed nothing)


def test_inference_mode_records_nothing():
    w = tcore.ones(2, requires_grad=True)
    with tcore.inference_mode():
        y = w * 2
    assert not y.requires_grad and tcore.is_grad_enabled()

    @tcore.inference_mode()
    def f(x):
        return x * 3

    assert not f(w).requires_grad

    @tcore.inference_mode()
    def g(x):  # (a generator: each resumption in the mode, as torch's)
        yield (x * 3).requires_grad
        yield tcore.is_grad_enabled()

    assert list(g(w)) == [False, False] and tcore.is_grad_enabled()
    with tcore.inference_mode(False):
        assert (w * 2).requires_grad


def test_as_tensor_and_asarray_share_where_they_can():
    a = np.arange(6.0)
    t = tcore.as_tensor(a)
    a[0] = 42.0
    assert t[0].item() == 42.0 and t.dtype == tcore.float64  # (numpy's memory, as torch's)
    assert tcore.as_tensor(t) is t
    assert tcore.as_tensor([1.5, 2.0]).dtype == tcore.float32
    assert tcore.as_tensor(a, dtype=tcore.float32).dtype == tcore.float32
    c = tcore.asarray(a, copy=True)
    a[1] = -1.0
    assert c[1].item() == 1.0
    with pytest.raises(ValueError, match="copy=False"):
        tcore.asarray([1, 2], copy=False)
    assert tcore.asarray([1.0, 2.0], requires_grad=True).requires_grad


def test_aliases_detach_rsub_and_printoptions():
    x = tcore.tensor([[1.0, 2.0]])
    assert tcore.concat([x, x]).shape == (2, 2) and tcore.concatenate([x, x], 1).shape == (1, 4)
    assert tcore.row_stack([x, x]).shape == (2, 2)
    assert tcore.rsub(tcore.tensor([1.0, 2.0]), 5, alpha=2).tolist() == torch.rsub(torch.tensor([1.0, 2.0]), 5,
                                                                                       alpha=2).tolist()
    assert not tcore.detach(tcore.ones(1, requires_grad=True)).requires_grad
    try:
        tcore.set_printoptions(precision=2)
        assert repr(tcore.tensor([1.23456, 2.5])) == "tensor([1.23, 2.50])"
        tcore.set_printoptions(sci_mode=True, precision=4)
        assert repr(tcore.tensor([1.23456, 2.5])) == "tensor([1.2346e+00, 2.5000e+00])"
        tcore.set_printoptions(threshold=5, edgeitems=2)
        assert "..." in repr(tcore.arange(10))
    finally:
        tcore.set_printoptions(profile="default")
    assert repr(tcore.tensor([1.23456, 2.5])) == "tensor([1.2346, 2.5000])"
    assert tcore.get_printoptions()["precision"] == 4
