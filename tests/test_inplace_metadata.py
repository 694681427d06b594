"""The operators that change a tensor's geometry in place, against torch 2.13: the in-place views
(t_, transpose_, swapdims_, swapaxes_, unsqueeze_, squeeze_ in its three forms, as_strided_) and
resize_/resize_as_: sizes, strides, offsets, the version counter, the base of a view, errors,
saved tensors restrided before backward, forward-mode tangents; resize_ growing a storage shared
by views (bytes kept), refusing borrowed memory and tensors that require grad, hostile sizes. Also
that every out= write bumps its output's version, as torch's."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def both(tcore, fn):
    """fn(lib) run on torch and tcore: (torch's result or error, tcore's)."""
    out = []
    for lib in (torch, tcore):
        try:
            out.append(fn(lib))
        except (RuntimeError, IndexError, ValueError, TypeError) as e:
            out.append(("error", type(e).__mro__[1:].__contains__(RuntimeError) or type(e) is RuntimeError))
    return out


def geometry(t):
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


INPLACE_VIEWS = {
    "t_ 2-D": ((2, 3), lambda x: x.t_()),
    "t_ 1-D": ((4,), lambda x: x.t_()),
    "t_ 0-D": ((), lambda x: x.t_()),
    "t_ 3-D": ((2, 3, 4), lambda x: x.t_()),
    "transpose_": ((2, 3, 4), lambda x: x.transpose_(0, 2)),
    "transpose_ negative": ((2, 3, 4), lambda x: x.transpose_(-1, 0)),
    "transpose_ out of range": ((2, 3), lambda x: x.transpose_(0, 2)),
    "swapdims_": ((2, 3, 4), lambda x: x.swapdims_(1, 2)),
    "swapaxes_": ((2, 3, 4), lambda x: x.swapaxes_(0, -1)),
    "unsqueeze_ front": ((2, 3), lambda x: x.unsqueeze_(0)),
    "unsqueeze_ back": ((2, 3), lambda x: x.unsqueeze_(-1)),
    "unsqueeze_ middle of a slice": ((4, 6), lambda x: x[:, ::2].unsqueeze_(1)),
    "unsqueeze_ out of range": ((2, 3), lambda x: x.unsqueeze_(4)),
    "unsqueeze_ 0-D": ((), lambda x: x.unsqueeze_(0)),
    "squeeze_ all": ((1, 3, 1, 2), lambda x: x.squeeze_()),
    "squeeze_ dim": ((1, 3, 1), lambda x: x.squeeze_(2)),
    "squeeze_ dim not 1": ((2, 3), lambda x: x.squeeze_(0)),
    "squeeze_ dims": ((1, 3, 1, 1), lambda x: x.squeeze_([0, 3])),
    "squeeze_ dims repeated": ((1, 3, 1), lambda x: x.squeeze_([0, 0])),
    "squeeze_ 0-D": ((), lambda x: x.squeeze_(0)),
    "as_strided_": ((3, 4), lambda x: x.as_strided_((2, 2), (1, 4), 1)),
    "as_strided_ keeps offset": ((3, 4), lambda x: x[1:].as_strided_((2, 3), (3, 1))),
    "as_strided_ beyond storage": ((3, 4), lambda x: x.as_strided_((4, 4), (4, 1), 1)),
}


@pytest.mark.parametrize("name", sorted(INPLACE_VIEWS))
def test_inplace_views_as_torch(tcore, name):
    shape, op = INPLACE_VIEWS[name]

    def run(lib):
        base = lib.arange(float(np.prod(shape) or 1)).reshape(shape) if shape else lib.tensor(3.0)
        x = base * 1
        before = x._version
        target = op(x)
        is_self = target is x or target._base is x
        return geometry(target), target._version - before, is_self, target.tolist() if hasattr(target, "tolist") else None

    want, got = both(tcore, run)
    assert got == want


@pytest.mark.parametrize("name", [n for n in sorted(INPLACE_VIEWS) if "range" not in n and "not 1" not in n])
def test_retained_gradient_stays_before_the_inplace_view_as_torch(tcore, name):
    """y.retain_grad(); y.t_(): y.grad is the gradient of y before the in-place view, of its old
    shape (torch moves the retain_grad hook on in-place writes, not on in-place views)."""
    shape, op = INPLACE_VIEWS[name]

    def run(lib):
        x = (lib.arange(float(np.prod(shape) or 1)).reshape(shape) if shape else lib.tensor(3.0)).requires_grad_()
        y = x * 2
        y.retain_grad()
        z = op(y)
        (z * lib.arange(float(z.numel())).reshape(z.shape)).sum().backward()
        return y.grad.tolist(), tuple(y.grad.shape), x.grad.tolist()

    want, got = both(tcore, run)
    assert got == want


def test_a_view_restrided_in_place_stays_a_view_of_its_base(tcore):
    for lib in (torch, tcore):
        b = lib.arange(12.0).reshape(3, 4) * 1
        v = b[1:]
        v.t_()
        assert v._base is b and geometry(v) == ((4, 2), (1, 4), 4)
        v[0].fill_(-1)  # writes go to the base's memory
        assert b[1:, 0].tolist() == [-1.0, -1.0]
        v.unsqueeze_(0).squeeze_(0)
        assert v._base is b and geometry(v) == ((4, 2), (1, 4), 4)


@pytest.mark.parametrize("op", ["t_", "transpose_", "unsqueeze_", "squeeze_", "as_strided_"])
def test_restriding_a_saved_tensor_fails_backward_as_torch(tcore, op):
    calls = {"t_": lambda y: y.t_(), "transpose_": lambda y: y.transpose_(0, 1), "unsqueeze_": lambda y: y.unsqueeze_(0),
             "squeeze_": lambda y: y.squeeze_(), "as_strided_": lambda y: y.as_strided_((3, 2), (1, 3))}
    for lib in (torch, tcore):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        y = x.exp()  # saves its result
        calls[op](y)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_restriding_a_leaf_that_requires_grad_is_refused(tcore):
    x = tcore.ones(2, 3).requires_grad_()
    for op in (lambda t: t.t_(), lambda t: t.unsqueeze_(0), lambda t: t.squeeze_(), lambda t: t.swapdims_(0, 1)):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            op(x)
    with tcore.no_grad():
        x.t_()
    assert tuple(x.shape) == (3, 2)


def test_tangents_follow_the_in_place_views(tcore):
    results = []
    for lib in (torch, tcore):
        fwd = lib.autograd.forward_ad
        with fwd.dual_level():
            p = fwd.make_dual(lib.arange(6.0).reshape(2, 3), lib.arange(6.0).reshape(2, 3) * 10)
            q = p * 1
            q.t_()
            q.unsqueeze_(0)
            q.squeeze_(0)
            q.swapaxes_(0, 1).as_strided_((3, 2), (1, 3))
            tangent = fwd.unpack_dual(q).tangent
            results.append((geometry(q), q.tolist(), tangent.tolist()))
    assert results[0] == results[1]


# --------------------------------------------------------------------------------- resize_

def test_resize_keeps_bytes_and_grows_the_storage_its_views_share(tcore):
    for lib in (torch, tcore):
        x = lib.arange(6.0)
        v = x._version
        assert x.resize_(2, 2) is x and x.tolist() == [[0.0, 1.0], [2.0, 3.0]] and x._version == v + 1
        x.resize_(3, 3)
        assert geometry(x) == ((3, 3), (3, 1), 0) and x.flatten()[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        base = lib.arange(6.0)
        view = base[1:3]
        view.resize_(4)  # fits: the base's elements
        assert view.tolist() == [1.0, 2.0, 3.0, 4.0]
        view.resize_(10)  # grows the storage both share
        view[0] = 42.0
        assert base[1].item() == 42.0 and base.tolist()[2:] == [2.0, 3.0, 4.0, 5.0]
        assert geometry(view) == ((10,), (1,), 1)
        x.resize_(0)
        assert tuple(x.shape) == (0,)
        x.resize_(2)
        assert x.tolist() == [0.0, 1.0]  # shrinking kept the storage


def test_resize_formats_and_resize_as(tcore):
    for lib in (torch, tcore):
        a = lib.zeros(2, 3, 4, 5)
        a.resize_(2, 3, 4, 5, memory_format=lib.channels_last)
        assert tuple(a.stride()) == (60, 1, 15, 3)
        b = lib.zeros(2, 3)
        assert b.resize_as_(lib.zeros(4, 5)) is b and tuple(b.shape) == (4, 5)
        c = lib.zeros(1)
        c.resize_as_(lib.zeros(2, 3, 4, 5).to(memory_format=lib.channels_last), memory_format=lib.preserve_format)
        assert tuple(c.stride()) == (60, 1, 15, 3)
        with pytest.raises(RuntimeError):
            lib.zeros(2).resize_(2, 3, memory_format=lib.channels_last)


def test_resize_refusals_as_torch(tcore):
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            lib.zeros(2, requires_grad=True).resize_(3)
        with lib.no_grad():
            with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
                lib.zeros(2, requires_grad=True).resize_(3)
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            (lib.zeros(2, requires_grad=True) * 2).resize_(2)
        borrowed = lib.from_numpy(np.arange(4.0))
        borrowed.resize_(2, 2)  # fits: allowed
        with pytest.raises(RuntimeError, match="not resizable"):
            borrowed.resize_(10)
        with pytest.raises(RuntimeError):
            lib.zeros(2).resize_(-1)


def test_resize_refuses_memory_a_numpy_array_reads(tcore):
    for lib in (torch, tcore):
        t = lib.zeros(1000)
        a = t.numpy()
        with pytest.raises(RuntimeError, match="not resizable"):
            t.resize_(100000)
        a[:] = 5  # still the tensor's memory
        assert t[:3].tolist() == [5.0, 5.0, 5.0]
        t.resize_(10)  # shrinking is allowed
        s = lib.zeros(8)
        _ = s[2:].numpy()
        with pytest.raises(RuntimeError, match="not resizable"):
            s.resize_(100)


def test_resize_of_tensors_made_by_tensor_and_to_the_same_sizes(tcore):
    for lib in (torch, tcore):
        t = lib.tensor([1.0, 2.0])
        t.resize_(4)
        assert t[:2].tolist() == [1.0, 2.0]
        x = lib.arange(6.0).reshape(2, 3).t()
        v = x._version
        assert x.resize_(3, 2) is x and tuple(x.stride()) == (1, 3) and x._version == v
        assert x.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    fwd = tcore.autograd.forward_ad
    with fwd.dual_level():
        d = fwd.make_dual(tcore.ones(3), tcore.ones(3))
        with pytest.raises(RuntimeError, match="forward grad"):
            d.resize_(5)


def test_out_that_must_grow_grows_the_storage_its_views_share(tcore):
    import warnings
    for lib in (torch, tcore):
        o = lib.zeros(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.mm(lib.ones(2, 2), lib.ones(2, 2), out=o[:])
        assert o.tolist() == [2.0, 2.0, 2.0]
        with pytest.raises(RuntimeError, match="not resizable"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.mm(lib.ones(2, 2), lib.ones(2, 2), out=lib.from_numpy(np.zeros(3, dtype=np.float32)))


def test_a_gradient_of_another_shape_is_an_error_not_a_reshape(tcore):
    for lib in (torch, tcore):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        w = lib.arange(6.0).reshape(3, 2)
        y = x * 1
        with lib.no_grad():
            y.t_()
        with pytest.raises(RuntimeError, match="invalid gradient"):
            (y * w).sum().backward()


def test_linear_of_a_0d_input_is_an_error(tcore):
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match="at least 1D"):
            lib.nn.functional.linear(lib.ones(()), lib.ones(3, 1), lib.ones(3))


@pytest.mark.parametrize("size", [(2**62,), (2**40, 2**40), (2**31, 2**31, 4)])
def test_resize_hostile_sizes_raise(tcore, size):
    x = tcore.zeros(3)
    with pytest.raises((RuntimeError, MemoryError)):
        x.resize_(*size)
    assert tuple(x.shape) == (3,) and x.tolist() == [0.0, 0.0, 0.0]


def test_resize_on_meta(tcore):
    m = tcore.empty(2, 3, device="meta")
    m.resize_(4, 5)
    assert tuple(m.shape) == (4, 5) and str(m.device) == "meta"


# ----------------------------------------------------------------------- out= and versions

@pytest.mark.parametrize("layout", ["contiguous", "transposed", "wrong size"])
def test_out_writes_bump_the_version_once_as_torch(tcore, layout):
    def run(lib):
        a, b = lib.ones(3, 3), lib.ones(3, 3)
        out = {"contiguous": lib.zeros(3, 3), "transposed": lib.zeros(3, 3).t(), "wrong size": lib.zeros(0)}[layout]
        steps = []
        for call in (lambda o: lib.mm(a, b, out=o), lambda o: lib.addmm(a, a, b, out=o),
                     lambda o: lib.sum(a, 0, keepdim=True, out=o[:1] if o.dim() == 2 else o),
                     lambda o: lib.add(a, b, out=o)):
            before = out._version
            call(out)
            steps.append(out._version - before)
        wide = lib.zeros(3, 3, dtype=lib.float64)  # computed in float32, cast on the way out
        before = wide._version
        lib.add(a, b, out=wide)
        steps.append(wide._version - before)
        return steps

    want, got = both(tcore, run)
    assert got == want
