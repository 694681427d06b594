"""Tensor methods torch has that tcore composes from its operators (tcore/_tensor_methods.py) and
the in-place forms of out-of-place operators (square_, cumsum_, ...): values, gradients through
the in-place write (the operator's saved input is not the overwritten one), attributes, torch's
errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402

X = np.array([[0.15, -0.45, 0.3], [0.6, 0.05, -0.2]])

IN_PLACE = [("square_", ()), ("frac_", ()), ("sgn_", ()), ("deg2rad_", ()), ("fix_", ()), ("logit_", (1e-3,)),
            ("sinc_", ()), ("floor_divide_", (0.07,)), ("cumsum_", (1,)), ("cumprod_", (0,))]


@pytest.mark.parametrize("name,args", IN_PLACE, ids=[n for n, _ in IN_PLACE])
def test_in_place_forms_as_torch(name, args):
    """(through a view of a tensor that requires grad: the gradient as torch's)"""
    results = []
    differentiable = name != "floor_divide_"  # (torch's has no derivative)
    for lib in (torch, tcore):
        x = lib.tensor(X, requires_grad=differentiable)
        y = x * 1.5
        view = y[:, 1:]
        getattr(view, name)(*args)
        if differentiable:
            (y * y).sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy() if differentiable else 0))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15, equal_nan=True)


@pytest.mark.parametrize("name,args", IN_PLACE[:5], ids=[n for n, _ in IN_PLACE[:5]])
def test_in_place_forms_on_a_leaf_under_no_grad(name, args):
    """(nothing is recorded: the leaf stays a leaf that requires grad, its value as torch's)"""
    results = []
    for lib in (torch, tcore):
        x = lib.tensor(X, requires_grad=True)
        with lib.no_grad():
            getattr(x, name)(*args)
        assert x.is_leaf and x.requires_grad and x.grad_fn is None
        results.append(x.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-13, atol=1e-15)


def test_in_place_forms_integer_and_errors():
    for lib in (torch, tcore):
        a = lib.tensor([1, 2, -3], dtype=lib.int32)
        assert a.bitwise_not_().tolist() == [-2, -3, 2]
        assert lib.tensor([7, -7]).floor_divide_(2).tolist() == [3, -4]
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            lib.tensor([1, 2]).sinc_()


def test_attributes_as_torch():
    for make in (lambda m: m.ones(2, 3), lambda m: m.zeros(4, dtype=m.uint8), lambda m: m.ones(2, dtype=m.float16)):
        t, c = make(torch), make(tcore)
        assert (c.is_cpu, c.nbytes, c.itemsize, c.is_signed(), c.is_complex(), c.get_device()) == \
            (t.is_cpu, t.nbytes, t.itemsize, t.is_signed(), t.is_complex(), t.get_device())
    assert tcore.ones(2).layout == tcore.strided


def test_fill_diagonal_as_torch():
    for shape, wrap, transpose in [((5, 3), True, False), ((7, 3), True, True), ((8, 3), True, False),
                                   ((8, 3), False, False), ((3, 5), True, False), ((3, 3, 3), False, False)]:
        t, c = torch.zeros(shape), tcore.zeros(*shape)
        if transpose:
            t, c = t.t(), c.t()
        t.fill_diagonal_(2.5, wrap=wrap)
        c.fill_diagonal_(2.5, wrap=wrap)
        np.testing.assert_array_equal(c.numpy(), t.numpy())
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
            lib.zeros(3).fill_diagonal_(1)
        with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
            lib.zeros(2, 3, 3).fill_diagonal_(1)


def test_put_and_index_reduce_as_torch():
    for accumulate in (False, True):
        results = []
        for lib in (torch, tcore):
            base = lib.arange(6.0).reshape(2, 3).t()  # (not contiguous)
            out = base.put(lib.tensor([0, 5, -1, 2]), lib.tensor([1.0, 2.0, 3.0, 4.0]), accumulate=accumulate)
            base.put_(lib.tensor([1]), lib.tensor([9.0]))
            results.append((out.numpy(), base.numpy()))
        for got, want in zip(results[1], results[0]):
            np.testing.assert_array_equal(got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (torch's "index_reduce() is in beta")
        for reduce in ("prod", "mean", "amax", "amin"):
            for include_self in (True, False):
                for dim in (0, 1, -1):
                    shape = (5, 3) if dim == 0 else (3, 5)
                    source = np.arange(12.0).reshape((4, 3) if dim == 0 else (3, 4)) - 5
                    index = np.array([0, 4, 2, 0])
                    want = torch.ones(shape).index_reduce(dim, torch.tensor(index), torch.tensor(source).float(),
                                                          reduce, include_self=include_self)
                    got = tcore.ones(*shape).index_reduce(dim, tcore.tensor(index), tcore.tensor(source).float(),
                                                          reduce, include_self=include_self)
                    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    for lib in (torch, tcore):
        with pytest.raises(IndexError, match="Expected source and index to have the same number of elements"):
            lib.zeros(3).put_(lib.tensor([0]), lib.tensor([1.0, 2.0]))


def test_shape_methods_as_torch():
    assert tuple(tcore.ones(2, 3, 4).sum_to_size(3, 1).shape) == tuple(torch.ones(2, 3, 4).sum_to_size(3, 1).shape)
    np.testing.assert_array_equal(tcore.arange(24.0).reshape(2, 3, 4).sum_to_size([1, 4]).numpy(),
                                  torch.arange(24.0).reshape(2, 3, 4).sum_to_size([1, 4]).numpy())
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match=r"size \{\[2, 5\]\} is not expandable to size \{\[2, 3\]\}."):
            lib.ones(2, 3).sum_to_size(2, 5)
    assert tcore.ones(2, 3).new_empty_strided((2, 2), (1, 2)).stride() == (1, 2)
    copy = tcore.arange(12.0).reshape(4, 3).narrow_copy(0, 1, 2)
    assert copy.is_contiguous() and copy.tolist() == [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]
    assert [t.tolist() for t in tcore.arange(5).unsafe_split(2)] == [[0, 1], [2, 3], [4]]
    np.testing.assert_array_equal(tcore.tensor([-1.0, 0.2, 0.7]).hardshrink().numpy(),
                                  torch.tensor([-1.0, 0.2, 0.7]).hardshrink().numpy())


def test_to_other_and_type_as_torch():
    for lib in (torch, tcore):
        x, y = lib.ones(2), lib.ones(2, dtype=lib.float64)
        assert x.to(y).dtype == lib.float64 and x.to(x) is x and x.to(y, copy=True) is not y
        assert x.type(lib.float32) is x and x.type(lib.float64).dtype == lib.float64
        assert x.type("torch.LongTensor").dtype == lib.int64
        assert x.type().split(".")[-1] == "FloatTensor" and y.int().type().endswith(".IntTensor")
        with pytest.raises(ValueError, match="invalid type: 'torch.Foo'"):
            x.type("torch.Foo")


def test_size_as_torch():
    for lib in (torch, tcore):
        s = lib.ones(2, 3, 4).shape
        assert isinstance(s, lib.Size) and isinstance(s, tuple) and s == (2, 3, 4) and s.numel() == 24
        assert isinstance(s[1:], lib.Size) and s[1:] == (3, 4) and isinstance(s[0], int)
        assert isinstance(s + (5,), lib.Size) and s + (5,) == (2, 3, 4, 5)
        assert lib.ones(2, 3).size() == lib.Size([2, 3]) and repr(lib.Size([2, 3])).endswith("Size([2, 3])")
        assert lib.zeros(s).shape == s and lib.Size([]).numel() == 1
        with pytest.raises(TypeError, match="takes an iterable of 'int' \\(item 0 is 'float'\\)"):
            lib.Size([2.0])
