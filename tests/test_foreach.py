"""Foreach operators (tcore._foreach_*, torch._foreach_*): values, reverse mode (out-of-place,
in-place on non-leaves and on views, one node per element), forward mode element by element,
errors, and functionalization of the in-place forms. torch 2.13 is the oracle where installed;
gradcheck (central differences) and hand-derived values everywhere."""
from __future__ import annotations

import numpy as np
import pytest

tcore = pytest.importorskip("tcore")
from tcore import func  # noqa: E402
from tcore.autograd import forward_ad as fwad  # noqa: E402

needs_autograd = pytest.mark.skipif(not tcore._C._has_autograd, reason="built without autograd")


def arrays(n=3, shape=(2, 3), seed=0, lo=0.5):
    rng = np.random.default_rng(seed)
    return [(rng.random(shape) + lo).astype(np.float64) for _ in range(n)]


def tc(xs, requires_grad=False):
    return [tcore.tensor(x.tolist(), dtype=tcore.float64, requires_grad=requires_grad) for x in xs]


def np_of(ts):
    return [t.detach().numpy() for t in ts]


# name -> (tcore call, numpy reference) on lists a, b
OUT_OF_PLACE = {
    "add": (lambda a, b: tcore._foreach_add(a, b), lambda a, b: [x + y for x, y in zip(a, b)]),
    "add_alpha": (lambda a, b: tcore._foreach_add(a, b, alpha=-2.5), lambda a, b: [x - 2.5 * y for x, y in zip(a, b)]),
    "mul_scalar": (lambda a, b: tcore._foreach_mul(a, 3.0), lambda a, b: [x * 3.0 for x in a]),
    "div": (lambda a, b: tcore._foreach_div(a, b), lambda a, b: [x / y for x, y in zip(a, b)]),
}
IN_PLACE = {
    "add_": (lambda a, b: tcore._foreach_add_(a, b, alpha=0.5), lambda a, b: [x + 0.5 * y for x, y in zip(a, b)]),
    "mul_": (lambda a, b: tcore._foreach_mul_(a, -1.5), lambda a, b: [x * -1.5 for x in a]),
    "div_": (lambda a, b: tcore._foreach_div_(a, b), lambda a, b: [x / y for x, y in zip(a, b)]),
}


@pytest.mark.parametrize("name", sorted(OUT_OF_PLACE))
def test_out_of_place_values(name):
    op, ref = OUT_OF_PLACE[name]
    a, b = arrays(seed=1), arrays(seed=2)
    out = op(tc(a), tc(b))
    assert isinstance(out, list) and len(out) == 3
    for got, want in zip(np_of(out), ref(a, b)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_values_write_every_element(name):
    op, ref = IN_PLACE[name]
    a, b = arrays(seed=3), arrays(seed=4)
    ta = tc(a)
    before = [t.data_ptr() for t in ta]
    assert op(ta, tc(b)) is None
    assert [t.data_ptr() for t in ta] == before
    for got, want in zip(np_of(ta), ref(a, b)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_empty_lists_and_mismatched_lengths():
    assert tcore._foreach_mul([], 2.0) == []
    with pytest.raises(RuntimeError, match="same number of tensors"):
        tcore._foreach_add(tc(arrays(2)), tc(arrays(3)))
    a = tc(arrays(2))
    with pytest.raises(RuntimeError, match="same number of tensors"):
        tcore._foreach_div_(a, tc(arrays(1)))


@needs_autograd
@pytest.mark.parametrize("name", sorted(OUT_OF_PLACE))
def test_out_of_place_gradcheck(name):
    op, _ = OUT_OF_PLACE[name]
    a, b = tc(arrays(2, (3,), seed=5), True), tc(arrays(2, (3,), seed=6), True)
    # weights per element: each output's gradient reaches its own inputs only
    assert tcore.autograd.gradcheck(lambda *xs: [o * (k + 1) for k, o in enumerate(op(list(xs[:2]), list(xs[2:])))],
                                    a + b)
    assert tcore.autograd.gradgradcheck(lambda *xs: op(list(xs[:2]), list(xs[2:])), a + b)


@needs_autograd
def test_div_gradients_by_hand_and_an_unused_output():
    a, b = arrays(2, (4,), seed=7), arrays(2, (4,), seed=8)
    ta, tb = tc(a, True), tc(b, True)
    out = tcore._foreach_div(ta, tb)
    (out[1] * 2).sum().backward()  # out[0] unused: its inputs get no gradient
    assert ta[0].grad is None and tb[0].grad is None
    np.testing.assert_allclose(ta[1].grad.numpy(), 2 / b[1], rtol=1e-12)
    np.testing.assert_allclose(tb[1].grad.numpy(), -2 * a[1] / b[1] ** 2, rtol=1e-12)


@needs_autograd
def test_in_place_on_non_leaves_chains_one_node_per_element():
    a, b = arrays(3, (4,), seed=9), arrays(3, (4,), seed=10)
    w, o = tc(a, True), tc(b, True)
    xs = [t * 1 for t in w]
    tcore._foreach_mul_(xs, 3.0)
    tcore._foreach_div_(xs, o)
    tcore._foreach_add_(xs, o, alpha=2.0)
    fns = [x.grad_fn for x in xs]  # held, so that their ids are distinct objects' ids
    assert [fn.name() for fn in fns] == ["ForeachAddBackward0"] * 3
    assert len({id(fn) for fn in fns}) == 3 and all(len(fn.next_functions) == 2 for fn in fns)  # one per element
    sum(x.sum() * (k + 1) for k, x in enumerate(xs)).backward()
    for k in range(3):  # x = 3 w / o + 2 o
        np.testing.assert_allclose(w[k].grad.numpy(), (k + 1) * 3 / b[k], rtol=1e-12)
        np.testing.assert_allclose(o[k].grad.numpy(), (k + 1) * (-3 * a[k] / b[k] ** 2 + 2), rtol=1e-12)


@needs_autograd
def test_in_place_on_a_view_reaches_the_base():
    w = tcore.tensor(np.arange(1.0, 7.0).tolist(), dtype=tcore.float64, requires_grad=True)
    base = w * 1
    views = [base[0:2], base[4:6]]
    tcore._foreach_mul_(views, 5.0)
    base.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [5, 5, 1, 1, 5, 5])


@needs_autograd
def test_in_place_errors_as_torch():
    leaves = tc(arrays(2), True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        tcore._foreach_mul_(leaves, 2.0)
    x = tc(arrays(1), True)[0]
    y = x * 1
    z = y * y  # saves y
    tcore._foreach_mul_([y], 2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@needs_autograd
def test_forward_mode_element_by_element():
    a, b = arrays(2, (3,), seed=11), arrays(2, (3,), seed=12)
    ta_, tb_ = arrays(2, (3,), seed=13), arrays(2, (3,), seed=14)
    with fwad.dual_level():
        xs = [fwad.make_dual(p, t) for p, t in zip(tc(a), tc(ta_))]
        ys = [fwad.make_dual(p, t) for p, t in zip(tc(b), tc(tb_))]
        out = tcore._foreach_div(xs, ys)
        tangents = [fwad.unpack_dual(o).tangent.numpy() for o in out]
        added = [fwad.unpack_dual(o).tangent.numpy() for o in tcore._foreach_add(xs, ys, alpha=3.0)]
        zs = [x * 1 for x in xs]
        tcore._foreach_div_(zs, ys)
        inplace = [fwad.unpack_dual(z).tangent.numpy() for z in zs]
    for k in range(2):  # d(x / y) = (dx - dy x / y) / y
        want = (ta_[k] - tb_[k] * a[k] / b[k]) / b[k]
        np.testing.assert_allclose(tangents[k], want, rtol=1e-12)
        np.testing.assert_allclose(inplace[k], want, rtol=1e-12)
        np.testing.assert_allclose(added[k], ta_[k] + 3 * tb_[k], rtol=1e-12)


def _sgd_foreach(p0, p1, g0, g1):
    params = [p0, p1]
    tcore._foreach_add_(params, [g0, g1], alpha=-0.1)
    tcore._foreach_mul_(params, 0.5)
    return p0 + p1


def test_functionalized_in_place_foreach_matches_eager_and_traces_pure():
    def inputs():
        return tc(arrays(4, (3,), seed=15))
    eager_in = inputs()
    eager_out = _sgd_foreach(*eager_in).numpy()
    fun_in = inputs()
    np.testing.assert_allclose(func.functionalize(_sgd_foreach)(*fun_in).numpy(), eager_out, rtol=1e-12)
    for got, want in zip(np_of(fun_in), np_of(eager_in)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    trace_in = inputs()
    graph = tcore.jit.trace(func.functionalize(_sgd_foreach), trace_in)
    ops = graph.operators()  # the foreach operators, or what their kernels run per element
    assert set(ops) <= {"_foreach_add.List", "_foreach_mul.Scalar", "add.Tensor", "mul.Scalar"}, graph.code
    run_in = inputs()
    np.testing.assert_allclose(graph(*run_in).numpy(), eager_out, rtol=1e-12)
    for got, want in zip(np_of(run_in), np_of(eager_in)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@needs_autograd
def test_matches_torch():
    torch = pytest.importorskip("torch")
    a, b = arrays(3, (2, 3), seed=16), arrays(3, (2, 3), seed=17)
    w, o = tc(a, True), tc(b, True)
    tw = [torch.tensor(x, requires_grad=True) for x in a]
    to = [torch.tensor(x, requires_grad=True) for x in b]
    for lib, ws, os_ in ((tcore, w, o), (torch, tw, to)):
        xs = [t * 1 for t in ws]
        lib._foreach_add_(xs, os_, alpha=-0.5)
        ys = lib._foreach_div(xs, os_)
        lib._foreach_mul_(ys, 2.0)
        sum((y * y).sum() for y in lib._foreach_mul(ys, 1.5)).backward()
    for mine, theirs in zip(w + o, tw + to):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)


@needs_autograd
def test_integer_elements_keep_the_float_elements_gradients_in_place():
    """An integer element of a list result has no gradient, but output i is still element i."""
    x, y = tc(arrays(2, (3,), seed=18), True)
    a, b = tcore.tensor([1, 2, 3]), tcore.tensor([4, 5, 6])
    out = tcore._foreach_add([a, x], [b, y])
    assert not out[0].requires_grad and out[1].requires_grad
    (out[1] * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 2])
    np.testing.assert_array_equal(y.grad.numpy(), [2, 2, 2])


@needs_autograd
def test_in_place_records_only_the_elements_that_need_a_gradient():
    w = tc(arrays(1, (3,), seed=19), True)[0]
    buf, y = tcore.zeros(3, dtype=tcore.float64), w * 1
    c, d = tc(arrays(2, (3,), seed=20))
    tcore._foreach_add_([buf, y], [c, d])
    assert not buf.requires_grad and buf.grad_fn is None and buf.is_leaf  # as torch: it stays a leaf
    assert y.grad_fn.name() == "ForeachAddBackward0"
    # an element that starts to require grad through the other list gets a node
    z = tcore.zeros(3, dtype=tcore.float64)
    tcore._foreach_mul_([z], 2.0)
    tcore._foreach_add_([z], [w])
    z.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1, 1, 1])  # z = 2 * 0 + w


@needs_autograd
def test_mismatched_lengths_with_grad_and_a_second_backward():
    xs = [t * 1 for t in tc(arrays(2), True)]
    with pytest.raises(RuntimeError, match="same number of tensors"):
        tcore._foreach_div_(xs, tc(arrays(1)))
    a, b = tc(arrays(2, (3,), seed=21), True), tc(arrays(2, (3,), seed=22), True)
    loss = sum(o.sum() for o in tcore._foreach_div(a, b))
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    loss = sum(o.sum() for o in tcore._foreach_div(a, b))
    loss.backward(retain_graph=True)
    loss.backward()  # kept: no error, the gradients add up
    np.testing.assert_allclose(a[0].grad.numpy(), 3 / b[0].detach().numpy(), rtol=1e-12)
