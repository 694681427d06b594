"""Autograd on views and in-place operations, from one table of programs.

Each program takes float64 leaves, builds intermediates, writes into views of them in
place (every view operator tcore has, chains of views, base-then-view, view-then-base,
views that start to require grad), and returns a tensor. Its gradient must equal central
finite differences of the same program evaluated forward; where torch 2.13 is installed
it must also equal torch's gradient of the same program. Then PyTorch's errors (leaf,
view of a leaf, no_grad views, multi-output views, saved tensors modified in place),
view tracking (_base, _is_view, _version), hooks and the Python conversions."""
from __future__ import annotations

import numpy as np
import pytest

tcore = pytest.importorskip("tcore")
if not tcore._C._has_autograd:
    pytest.skip("built without autograd", allow_module_level=True)

try:
    import torch
except ImportError:  # torch is a test-only oracle
    torch = None


def _sq(lib, v):
    return v * v


# name: (input shapes, program(lib, *leaves) -> tensor). `lib` is tcore or torch; the
# leaves are never written, only intermediates computed from them.
PROGRAMS = {
    "t_mul_": ([(2, 2)], lambda lib, x: _sq(lib, (lambda b: (b.t().mul_(3), b)[1])(x * 1))),
    "slice_mul_": ([(3,)], lambda lib, x: (lambda b: (b[0:2].mul_(5), b)[1])(x * 1) * x),
    "slice_step_add_": ([(6,)], lambda lib, x, y: (lambda b: (b[::2].add_(y), b)[1])(x * 2) * x, [(3,)]),
    "transpose_add_": ([(2, 3)], lambda lib, x, y: (lambda b: (b.transpose(0, 1).add_(y), b)[1])(x * 2),
                       [(3, 2)]),
    "permute_mul_": ([(2, 3, 2)], lambda lib, x: (lambda b: (b.permute(2, 0, 1).mul_(x.permute(2, 0, 1)), b)[1])(
        x * 1)),
    "view_mul_": ([(2, 3)], lambda lib, x: (lambda b: (b.view(-1).mul_(2), b)[1])(x.sin()) * x),
    "reshape_view_mul_": ([(2, 3)], lambda lib, x: (lambda b: (b.reshape(3, 2).mul_(x.reshape(3, 2)), b)[1])(
        x * 1)),
    "flatten_add_": ([(2, 2)], lambda lib, x: (lambda b: (b.flatten().add_(1.5), b)[1])(x * x)),
    "select_mul_": ([(3, 2)], lambda lib, x: (lambda b: (b[1].mul_(x[2]), b)[1])(x * 1)),
    "select_dim1_add_": ([(2, 3)], lambda lib, x: (lambda b: (b.select(1, 2).add_(x[:, 0]), b)[1])(x * 2)),
    "narrow_mul_": ([(5,)], lambda lib, x: (lambda b: (b.narrow(0, 1, 3).mul_(x[0:3]), b)[1])(x * 1)),
    "diagonal_mul_": ([(3, 3)], lambda lib, x: (lambda b: (b.diagonal().mul_(x[0]), b)[1])(x * 1)),
    "diagonal_offset_add_": ([(3, 4)], lambda lib, x: (lambda b: (b.diagonal(1).add_(x[0, :3]), b)[1])(x * x)),
    "as_strided_mul_": ([(6,)], lambda lib, x: (lambda b: (b.as_strided([2, 2], [3, 1], 1).mul_(2), b)[1])(x * x)),
    "unfold_mul_": ([(6,)], lambda lib, x: (lambda b: (b.unfold(0, 2, 2).mul_(x[:2]), b)[1])(x * 1)),
    "unsqueeze_mul_": ([(3,)], lambda lib, x: (lambda b: (b.unsqueeze(0).mul_(x), b)[1])(x * 1)),
    "squeeze_mul_": ([(1, 3)], lambda lib, x: (lambda b: (b.squeeze(0).mul_(x[0]), b)[1])(x * 1)),
    "squeeze_all_add_": ([(3, 1)], lambda lib, x: (lambda b: (b.squeeze().add_(x.squeeze() ** 2), b)[1])(x * 1)),
    "expand_read_after_base_write": ([(3,)], lambda lib, x: (lambda b: (
        lambda e: (b.mul_(x), e * 1)[1])(b[0:1].expand(3)))(x * 1)),
    "chain_t_select": ([(2, 2)], lambda lib, x: (lambda b: (b.t()[0].mul_(3), b)[1])(x * 1) * x),
    "chain_view_select_slice": ([(2, 2)], lambda lib, x: (lambda b: (b.view(2, 2)[1][0:1].add_(x[0, 0]), b)[1])(
        x * 1)),
    "chain_three_views": ([(2, 3)], lambda lib, x: (lambda b: (b.t()[1:].transpose(0, 1)[0].mul_(x[1, 1:]), b)[1])(
        x * 2)),
    "base_then_view": ([(3,)], lambda lib, x: (lambda b: (lambda v: (b.mul_(x), v * v)[1])(b[1:]))(x * 1)),
    "view_then_base": ([(3,)], lambda lib, x: (lambda b: (lambda v: (v.mul_(2), b.mul_(x), v * b[0:2])[2])(b[0:2]))(
        x * 1)),
    "two_views_written": ([(4,)], lambda lib, x: (lambda b: (b[0:2].mul_(x[2:]), b[1:3].add_(x[0:2]), b)[2])(
        x * 1)),
    "overlapping_views_written": ([(4,)], lambda lib, x: (lambda b: (b[0:3].mul_(2), b[1:4].mul_(x[0:3]), b)[2])(
        x * 1)),
    "view_written_twice": ([(3,)], lambda lib, x: (lambda b: (lambda v: (v.mul_(x[:2]), v.add_(x[1:]), b)[2])(b[:2]))(
        x * 1)),
    "view_starts_requiring_grad": ([(2,)], lambda lib, x: (lambda z: (z[0:2].mul_(1).copy_(x * 2), z)[1])(
        lib.zeros(3, dtype=x.dtype))),
    "view_of_plain_mul_": ([(2,)], lambda lib, x: (lambda z: (z[1:].mul_(x), z * z)[1])(
        lib.ones(3, dtype=x.dtype))),
    "zeros_slice_copy_": ([(2, 2)], lambda lib, x: (lambda z: (z[:, 1:3].copy_(x), z.sin())[1])(
        lib.zeros(2, 4, dtype=x.dtype))),
    "setitem_tensor": ([(3,)], lambda lib, x: (lambda z: (z.__setitem__(1, x.sum()), z * 2)[1])(
        lib.zeros(3, dtype=x.dtype))),
    "setitem_slice": ([(2,)], lambda lib, x: (lambda z: (z.__setitem__(slice(0, 2), x.exp()), z)[1])(
        lib.ones(3, dtype=x.dtype))),
    "exp_on_view": ([(4,)], lambda lib, x: (lambda b: (b[1:3].exp_(), b)[1])(x * 1)),
    "tanh_on_view": ([(4,)], lambda lib, x: (lambda b: (b[::2].tanh_(), b * x)[1])(x * 1)),
    "sigmoid_on_view": ([(2, 2)], lambda lib, x: (lambda b: (b.t()[0].sigmoid_(), b)[1])(x * 3)),
    "relu_on_view": ([(4,)], lambda lib, x: (lambda b: (b[1:].relu_(), b)[1])(x * 1)),
    "pow_on_view": ([(3,)], lambda lib, x: (lambda b: (b[:2].pow_(3), b)[1])(x * 1)),
    "sqrt_on_view": ([(3,)], lambda lib, x: (lambda b: (b[1:].sqrt_(), b)[1])(x * x + 1)),
    "clamp_on_view": ([(4,)], lambda lib, x: (lambda b: (b[:3].clamp_(-0.5, 0.5), b)[1])(x * 1)),
    "sub_alpha_on_view": ([(3,)], lambda lib, x: (lambda b: (b[1:].sub_(x[:2], alpha=2), b)[1])(x * 2)),
    "div_on_view": ([(3,)], lambda lib, x: (lambda b: (b[:2].div_(x[1:] + 3), b)[1])(x * 1)),
    "fill_on_view": ([(3,)], lambda lib, x: (lambda b: (b[1:2].fill_(7.0), b * x)[1])(x * 1)),
    "zero_on_view": ([(3,)], lambda lib, x: (lambda b: (b[0:2].zero_(), b * x)[1])(x * 2)),
    "index_add_on_view": ([(2, 3)], lambda lib, x: (lambda b: (
        b[1].index_add_(0, lib.tensor([0, 2]), x[0, :2]), b)[1])(x * 1)),
    "scatter_add_on_view": ([(2, 3)], lambda lib, x: (lambda b: (
        b[0].scatter_add_(0, lib.tensor([2, 0]), x[1, :2]), b)[1])(x * 1)),
    "mm_after_transposed_write": ([(2, 2)], lambda lib, x: (lambda b: (b.t()[1].mul_(2), b @ x)[1])(x * 1)),
    "multi_step_training_like": ([(3,)], lambda lib, x: (lambda p: (p[0:2].sub_(x[0:2] * 0.1), p.sub_(x * 0.1), p * x)[2])(
        x * 1)),
    "inplace_on_view_under_no_grad_is_not_tracked": ([(3,)], lambda lib, x: (lambda b: (
        _no_grad(lib, lambda: b[0:2].mul_(5)), b * 1)[1])(x * 1)),
    # the in-place view operators: self restrided, then written through, then its base read
    "t__then_mul_": ([(2, 3)], lambda lib, x: (lambda b: (b.t_().mul_(x.t()), b * 1)[1])(x * 1)),
    "view_t__then_mul_": ([(2, 3)], lambda lib, x: (lambda b: (lambda v: (v.t_(), v.mul_(x[:, 1:].t()), b)[2])(
        b[:, 0:2]))(x * 2)),
    "view_unsqueeze__squeeze__written": ([(3,)], lambda lib, x: (lambda b: (lambda v: (
        v.unsqueeze_(0), v.mul_(x[:2].unsqueeze(0)), v.squeeze_(0), v.add_(x[1:]), b * x)[4])(b[1:]))(x * 1)),
    "squeeze__dims_mul_": ([(1, 3, 1)], lambda lib, x: (lambda b: (b.squeeze_([0, 2]).mul_(x.view(3)), b)[1])(
        x * 1)),
    "view_as_strided__mul_": ([(6,)], lambda lib, x: (lambda b: (lambda v: (
        v.as_strided_([2, 2], [2, 1], 1), v.mul_(3), b)[2])(b[1:]))(x * x)),
    "swapdims__add_": ([(2, 3)], lambda lib, x: (lambda b: (b.swapdims_(0, 1).add_(x.t() ** 2), b)[1])(x * 2)),
    "view_t__read_after_base_write": ([(2, 2)], lambda lib, x: (lambda b: (lambda v: (
        v.t_(), b.mul_(x), v * 1)[2])(b[0:2]))(x * 1)),
    # a base restrided in place under views made before: they keep their elements (replayed by
    # their geometry), read or written after
    "base_t__then_view_read": ([(2, 3)], lambda lib, x: (lambda y: (lambda v: (y.t_(), v * x[1])[1])(y[0]))(x * 1)),
    "base_unsqueeze__then_view_write": ([(2, 3)], lambda lib, x: (lambda y: (lambda v: (
        y.unsqueeze_(0), v.mul_(x[0]), y * 1)[2])(y[0]))(x * 1)),
    "base_swapdims__then_view_write": ([(2, 3)], lambda lib, x: (lambda y: (lambda v: (
        y.swapdims_(0, 1), v.add_(x[1] ** 2), y * x.t())[2])(y[1]))(x * 2)),
    "base_t__view_of_view_write": ([(3, 4)], lambda lib, x: (lambda y: (lambda v: (
        y.t_(), v[1:].mul_(x[0, :1]), y.sin())[2])(y[1:, 1]))(x * 1)),
    "view_as_strided__then_base_write": ([(3, 3)], lambda lib, x: (lambda y: (lambda v: (
        v.as_strided_((2, 2), (1, 3), 1), y.mul_(3), v * x[0:2, 0:2])[2])(y[1:3]))(x * 2)),
}


def _no_grad(lib, fn):
    with lib.no_grad():
        return fn()


def _shapes(entry):
    if len(entry) == 3:
        return entry[0] + entry[2]
    return entry[0]


def _leaves(lib, arrays):
    if lib is tcore:
        return [tcore.tensor(a, dtype=tcore.float64).requires_grad_(True) for a in arrays]
    return [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]


def _arrays(name):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    return [rng.uniform(0.2, 1.5, s) * rng.choice([-1.0, 1.0], s) for s in _shapes(PROGRAMS[name])]


def _value(lib, name, arrays):
    fn = PROGRAMS[name][1]
    return fn(lib, *_leaves(lib, arrays))


def _numeric(name, arrays, weight, eps=1e-6):
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for k in range(a.size):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i].flat[k] += eps
            minus[i].flat[k] -= eps
            with tcore.no_grad():
                fp = _value(tcore, name, plus).numpy()
                fm = _value(tcore, name, minus).numpy()
            g.flat[k] = (np.sum(fp * weight) - np.sum(fm * weight)) / (2 * eps)
        grads.append(g)
    return grads


# A write made under no_grad is part of the value but not of the gradient (as in torch):
# finite differences see it, autograd does not by design. torch is the oracle for these.
NOT_DIFFERENTIATED = {"inplace_on_view_under_no_grad_is_not_tracked"}


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - NOT_DIFFERENTIATED))
def test_gradients_match_finite_differences(name):
    arrays = _arrays(name)
    leaves = _leaves(tcore, arrays)
    out = PROGRAMS[name][1](tcore, *leaves)
    weight = np.random.default_rng(1).standard_normal(tuple(out.shape))
    out.backward(tcore.tensor(weight, dtype=tcore.float64))
    expected = _numeric(name, arrays, weight)
    for leaf, want in zip(leaves, expected):
        got = leaf.grad.numpy() if leaf.grad is not None else np.zeros_like(want)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(torch is None, reason="torch (a test-only oracle) is not installed")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_and_gradients_match_torch(name):
    arrays = _arrays(name)
    ours, theirs = _leaves(tcore, arrays), _leaves(torch, arrays)
    out, ref = PROGRAMS[name][1](tcore, *ours), PROGRAMS[name][1](torch, *theirs)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    weight = np.random.default_rng(1).standard_normal(tuple(out.shape))
    out.backward(tcore.tensor(weight, dtype=tcore.float64))
    ref.backward(torch.tensor(weight, dtype=torch.float64))
    for a, b in zip(ours, theirs):
        want = b.grad.numpy() if b.grad is not None else None
        got = a.grad.numpy() if a.grad is not None else None
        if want is None:
            assert got is None or not np.any(got)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# gradcheck and gradgradcheck (double backward through CopySlices) on a sample
@pytest.mark.parametrize("name", ["t_mul_", "slice_mul_", "select_mul_", "diagonal_mul_", "chain_three_views",
                                  "view_then_base", "two_views_written", "tanh_on_view", "pow_on_view",
                                  "view_starts_requiring_grad", "unfold_mul_", "as_strided_mul_",
                                  "view_t__then_mul_", "view_unsqueeze__squeeze__written", "view_as_strided__mul_",
                                  "base_t__then_view_read", "base_unsqueeze__then_view_write",
                                  "view_as_strided__then_base_write"])
def test_gradcheck_and_gradgradcheck(name):
    leaves = _leaves(tcore, _arrays(name))
    fn = lambda *xs: PROGRAMS[name][1](tcore, *xs)  # noqa: E731
    assert tcore.autograd.gradcheck(fn, leaves)
    assert tcore.autograd.gradgradcheck(fn, leaves)


# ----------------------------------------------------------------------------- errors

def _leaf(*shape):
    return tcore.ones(*shape, dtype=tcore.float64).requires_grad_(True)


def test_inplace_on_a_leaf_that_requires_grad_raises():
    w = _leaf(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        w.mul_(2)
    assert w.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("view", [lambda w: w[0:1], lambda w: w.view(3), lambda w: w[1], lambda w: w.unsqueeze(0),
                                  lambda w: w.as_strided([2], [1])])
def test_inplace_on_a_view_of_a_leaf_raises(view):
    w = _leaf(3)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        view(w).mul_(2)
    assert w.tolist() == [1.0, 1.0, 1.0]


def test_inplace_on_a_leaf_under_no_grad_is_allowed():
    w = _leaf(3)
    with tcore.no_grad():
        w[0:1].mul_(2)
        w.add_(1)
    assert w.tolist() == [3.0, 2.0, 2.0] and w.is_leaf and w.requires_grad


def test_view_made_in_no_grad_mode_then_written_with_grad_raises():
    w = _leaf(3)
    with tcore.no_grad():
        v = w[0:2]
    assert v.requires_grad and v.grad_fn is None and v._is_view()
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace"):
        v.mul_(2)


def test_view_made_in_no_grad_mode_whose_base_is_written_raises_on_use():
    b = _leaf(3) * 1
    with tcore.no_grad():
        v = b[0:2]
    b.mul_(2)
    with pytest.raises(RuntimeError, match="its base or another view of its base has been modified inplace"):
        v.grad_fn  # noqa: B018


@pytest.mark.parametrize("split", [lambda t: t.split(2), lambda t: t.split([1, 3]), lambda t: t.chunk(2)])
def test_outputs_of_multi_output_views_may_not_be_written(split):
    parts = split(_leaf(4) * 1)
    with pytest.raises(RuntimeError, match="This view is the output of a function that returns multiple views"):
        parts[0].mul_(2)
    # without autograd the write is fine, as in torch
    plain = split(tcore.ones(4))
    plain[0].mul_(2)


def test_multi_output_views_backward():
    x = _leaf(5)
    a, b = (x * tcore.arange(5.0, dtype=tcore.float64)).split([2, 3])
    (a.sum() * 2 + (b * b).sum()).backward()
    assert x.grad.tolist() == [0.0, 2.0, 8.0, 18.0, 32.0]


def test_saved_tensor_modified_in_place_names_operator_and_versions():
    x = _leaf(4)
    y = x * 1
    z = y.sin()
    y.mul_(2)
    with pytest.raises(RuntimeError) as e:
        z.backward(tcore.ones(4, dtype=tcore.float64))
    msg = str(e.value)
    assert "modified by an inplace operation" in msg
    assert "SinBackward0" in msg and "MulBackward" in msg
    assert f"is at version {y._version}; expected version {y._version - 1}" in msg


def test_saved_output_modified_in_place_raises():
    y = _leaf(3).exp()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="which is output 0 of ExpBackward0"):
        y.sum().backward()


def test_view_of_saved_tensor_written_raises():
    x = _leaf(3)
    y = x * 1
    z = y * y
    y[0:1].mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# ----------------------------------------------------------------------------- tracking

def test_base_and_version_are_tracked():
    x = tcore.arange(6.0)
    v = x.view(2, 3)
    w = v.t()[1:]
    assert v._is_view() and w._is_view() and not x._is_view()
    assert x._base is None and v._base._is_same(x) and w._base._is_same(x)  # the root, never a view
    assert tcore.arange(5)[1:3]._base is not None  # integer views are tracked too
    assert not x.detach()._is_view()
    before = x._version
    w.add_(1)
    assert x._version == v._version == w._version == before + 1


def test_reshape_that_copies_is_not_a_view():
    x = tcore.arange(6.0).view(2, 3).t()
    assert not x.reshape(6)._is_view() or x.reshape(6)._base._is_same(x._base)


def test_view_grad_fn_is_regenerated_after_base_write():
    b = _leaf(3) * 1
    v = b[1:]
    assert v.grad_fn.name() == "SliceBackward0"
    b.mul_(2)
    fn = v.grad_fn
    assert fn.name() == "SliceBackward0" and fn.next_functions[0][0].name().startswith("MulBackward")
    b2 = tcore.zeros(3, dtype=tcore.float64)
    v2 = b2[0:2]
    v2.mul_(_leaf(2))
    assert v2.requires_grad and b2.requires_grad and b2.grad_fn.name() == "CopySlices"


def test_inplace_view_ops_keep_the_replay_right():
    x = _leaf(2, 3)
    b = x * 1
    v = b[0:2]
    v.transpose_(0, 1)
    v[0].mul_(5)
    b.sum().backward()
    assert x.grad.tolist() == [[5.0, 1.0, 1.0], [5.0, 1.0, 1.0]]


# ----------------------------------------------------------------------------- hooks

def test_hook_on_a_leaf_runs_and_is_removable():
    x = _leaf(2)
    h = x.register_hook(lambda g: g * 2)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    h.remove()  # twice is harmless


def test_leaf_hooks_run_in_order_before_accumulation():
    x = _leaf(2)
    x.register_hook(lambda g: g * 2)
    x.register_hook(lambda g: g + 1)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    (x * 1).sum().backward()
    assert seen == [[3.0, 3.0]] and x.grad.tolist() == [10.0, 10.0]  # returning None keeps the gradient


def test_hooks_on_non_leaves_and_in_place():
    x = _leaf(2)
    y = x * 1
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.mul_(2)
    y.sum().backward()
    assert seen == [[2.0, 2.0]] and x.grad.tolist() == [2.0, 2.0]  # the value it had when registered, as torch
    h = (x * 2).register_hook(lambda g: g * 100)
    h.remove()


def test_retain_grad_follows_in_place_and_views():
    x = _leaf(2)
    y = x * 1
    y.retain_grad()
    y.mul_(2)
    (y * 3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0] and x.grad.tolist() == [6.0, 6.0]
    x2 = _leaf(3)
    v = (x2 * 1)[:2]
    v.retain_grad()
    (v * 2).sum().backward()
    assert v.grad.tolist() == [2.0, 2.0] and x2.grad.tolist() == [2.0, 2.0, 0.0]


def test_grad_fn_hooks():
    x = _leaf(2)
    y = x * 2
    log = []
    y.grad_fn.register_prehook(lambda go: log.append(("pre", [g.tolist() for g in go])))
    h = y.grad_fn.register_hook(lambda gi, go: log.append(("post", [g.tolist() if g is not None else None for g in gi])))
    y.sum().backward()
    assert log[0] == ("pre", [[1.0, 1.0]]) and log[1][0] == "post" and log[1][1][0] == [2.0, 2.0]
    h.remove()
    z = _leaf(2) * 2
    z.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    z.sum().backward()
    with pytest.raises(RuntimeError, match="incorrect number of values"):
        w = _leaf(2) * 2
        w.grad_fn.register_hook(lambda gi, go: tuple(gi) + (None,))
        w.sum().backward()


def test_hook_errors():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tcore.ones(2).register_hook(lambda g: g)


# ----------------------------------------------------------------------------- Python side

def test_saved_attributes_and_names():
    x = _leaf(3)
    y = x.exp()
    assert y.grad_fn.name() == "ExpBackward0"
    np.testing.assert_allclose(y.grad_fn._saved_result.detach().numpy(), np.exp(np.ones(3)))
    assert x.mul(2).grad_fn._saved_other == 2
    assert x.sum().grad_fn._saved_self_sizes == [3]
    with pytest.raises(AttributeError):
        y.grad_fn._saved_nothing  # noqa: B018
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_result  # noqa: B018


def test_python_number_conversions_like_torch():
    import operator

    x = _leaf(2)
    assert float((x * 2).sum()) == 4.0
    assert int(tcore.tensor(2.7)) == 2 and int(tcore.ones(1)) == 1
    assert bool(tcore.tensor(0.0)) is False and bool(tcore.tensor([3]))
    assert format(tcore.tensor(2.5), ".3f") == "2.500"
    assert operator.index(tcore.tensor(3)) == 3 and [10, 20, 30][tcore.tensor(1)] == 20
    assert ("yes" if tcore.tensor(1.0) else "no") == "yes"
    with pytest.raises(ValueError, match="only one element tensors"):
        float(tcore.ones(2))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(tcore.ones(2))
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        operator.index(tcore.tensor(3.0))
    with pytest.raises(TypeError, match="unsupported format string"):
        format(tcore.ones(2), ".3f")
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]
