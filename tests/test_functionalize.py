"""tcore.func.functionalize (issue 18, part 1 and 2): a table of programs with in-place
operations on views, views of views, writes to the base after a view was taken, out= and
input mutations. Each runs three ways on fresh copies of the same inputs, eager, functionalized
and traced-functionalized (the graph run on new copies), and the outputs and the inputs after
the call must agree; the traced graph holds no in-place or out= operator."""
from __future__ import annotations

import numpy as np
import pytest

tcore = pytest.importorskip("tcore")
from tcore import func  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(tcore._C, "_to_functional"), reason="built without functionalization")


def ar(*shape, dtype=None):
    n = int(np.prod(shape))
    return tcore.tensor((np.arange(n, dtype=np.float64).reshape(shape) * 0.5 - 1.0).tolist(),
                        dtype=dtype or tcore.float32)


def sgd_momentum(p, g, buf):
    buf.mul_(0.9).add_(g, alpha=0.1)
    p.add_(buf, alpha=-0.01)
    return p * 1


def _chunks(x):
    for c in x.chunk(3):
        c.mul_(2)
    return x * 1


def _set(x, y):
    x[1] = 7.0
    x[:, 2] = y[:, 0]
    return x + 0


def _zeros_plus(x):
    z = tcore.zeros(4)
    z.add_(x[0])
    return z


def _out_into_fresh(x, y):
    z = tcore.empty(3, 4)
    tcore.add(x, y, out=z)
    return z


def _two_views(x):
    a = x[0]
    b = x[:, 1]
    a.add_(10)
    return b * 1


def _base_after_view(x):
    v = x[1]
    x.mul_(3)
    return v + 0


def _transpose_inplace(x):
    y = x.clone()
    y.transpose_(0, 1)
    y.add_(1)
    return y * 1


def _split_add(x):
    a, b = x.split(1)
    a.add_(b)
    return x * 1


# name -> (function, input shapes); every input is ar(*shape), and the function's return is
# compared (a tensor or a tuple of them)
PROGRAMS = {
    "inplace_on_input": (lambda x: x.add_(1) * 1, [(3, 4)]),
    "view_mul": (lambda x: (x.view(-1).mul_(2), x * 1)[1], [(3, 4)]),
    "select_add": (lambda x: (x[0].add_(1), x.sum())[1], [(3, 4)]),
    "slice_mul": (lambda x: (x[1:3].mul_(3), x * 1)[1], [(4, 2)]),
    "slice_step": (lambda x: (x[::2].sub_(5), x * 1)[1], [(5, 2)]),
    "t_add": (lambda x, y: (x.t().add_(y), x * 1)[1], [(3, 4), (4, 3)]),
    "transpose_select_zero": (lambda x: (x.transpose(0, 1)[0].zero_(), x * 1)[1], [(3, 4)]),
    "view_of_view": (lambda x: (x.view(2, 6)[1].view(3, 2).add_(1), x * 1)[1], [(3, 4)]),
    "view_of_view_of_view": (lambda x: (x[1:][0][1:3].mul_(-1), x * 1)[1], [(3, 4)]),
    "diagonal_fill": (lambda x: (x.diagonal().fill_(0), x * 1)[1], [(4, 4)]),
    "diagonal_offset": (lambda x: (x.diagonal(1).add_(100), x * 1)[1], [(3, 4)]),
    "split_add": (_split_add, [(2, 3)]),
    "split_sizes": (lambda x: (x.split([1, 3], 1)[1].mul_(2), x * 1)[1], [(2, 4)]),
    "chunk_loop": (_chunks, [(6, 2)]),
    "unbind_add": (lambda x: (x.unbind(0)[1].add_(5), x * 1)[1], [(3, 2)]),
    "base_after_view": (_base_after_view, [(3, 4)]),
    "two_views": (_two_views, [(3, 4)]),
    "permute_add": (lambda x: (x.permute(2, 0, 1).add_(1), x * 1)[1], [(2, 3, 4)]),
    "permute_select": (lambda x: (x.permute(1, 0, 2)[2].mul_(0), x * 1)[1], [(2, 3, 4)]),
    "unsqueeze_mul": (lambda x: (x.unsqueeze(0).mul_(2), x * 1)[1], [(3,)]),
    "squeeze_mul": (lambda x: (x.squeeze(1).mul_(2), x * 1)[1], [(3, 1)]),
    "as_strided_add": (lambda x: (x.as_strided((2,), (3,)).add_(10), x * 1)[1], [(6,)]),
    "unfold_mul": (lambda x: (x.view(-1).unfold(0, 2, 2).mul_(2), x * 1)[1], [(2, 4)]),
    "narrow_sub": (lambda x: (x.narrow(1, 1, 2).sub_(1), x * 1)[1], [(3, 4)]),
    "reshape_view": (lambda x: (x.reshape(4, 3).add_(1), x * 1)[1], [(3, 4)]),
    "flatten_view": (lambda x: (x.flatten()[3:].mul_(0), x * 1)[1], [(3, 4)]),
    "copy_row": (lambda x, y: (x[0].copy_(y[0]), x * 1)[1], [(3, 4), (3, 4)]),
    "copy_broadcast": (lambda x, y: (x.copy_(y[0]), x * 1)[1], [(3, 4), (3, 4)]),
    "setitem": (_set, [(3, 4), (3, 4)]),
    "fresh_tensor": (_zeros_plus, [(3, 4)]),
    "out_fresh": (_out_into_fresh, [(3, 4), (3, 4)]),
    "out_into_input": (lambda x, y: tcore.mul(x, y, out=y) * 1, [(3, 4), (3, 4)]),
    "out_into_view": (lambda x, y: (tcore.add(x[0], y[0], out=y[1]), y * 1)[1], [(3, 4), (3, 4)]),
    "chained_inplace": (lambda x: x.mul_(2).add_(1).neg_() * 1, [(3,)]),
    "inplace_then_view_out": (lambda x: (x.add_(1), x[1])[1] * 1, [(3, 4)]),
    "transpose_inplace": (_transpose_inplace, [(3, 4)]),
    "sgd_momentum": (sgd_momentum, [(5,), (5,), (5,)]),
    "clamp_inplace_view": (lambda x: (x[:, 1:].clamp_(-0.5, 0.5), x * 1)[1], [(3, 4)]),
    "relu_inplace_on_view": (lambda x: (x.view(-1)[2:9].relu_(), x * 1)[1], [(3, 4)]),
    "multiple_outputs": (lambda x, y: (x.add_(y), y.mul_(2), x + y)[2], [(3,), (3,)]),
}


def _inputs(shapes):
    return [ar(*s) for s in shapes]


def _np(out):
    if isinstance(out, (tuple, list)):
        return [o.numpy() for o in out]
    return [out.numpy()]


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_functionalized_matches_eager(name):
    fn, shapes = PROGRAMS[name]
    eager_in = _inputs(shapes)
    eager_out = _np(fn(*eager_in))
    fun_in = _inputs(shapes)
    fun_out = _np(func.functionalize(fn)(*fun_in))
    _same(eager_out, fun_out)
    _same([t.numpy() for t in eager_in], [t.numpy() for t in fun_in])


def _mutating(op: str) -> bool:
    base = op.split(".")[0]
    return (base.endswith("_") and not base.endswith("__")) or op.endswith(".out") or ".out" in op


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_traced_functionalized_graph_is_pure_and_matches_eager(name):
    fn, shapes = PROGRAMS[name]
    eager_in = _inputs(shapes)
    eager_out = _np(fn(*eager_in))
    trace_in = _inputs(shapes)
    graph = tcore.jit.trace(func.functionalize(fn), trace_in)
    ops = graph.operators()
    assert not [op for op in ops if _mutating(op)], graph.code
    _same([t.numpy() for t in eager_in], [t.numpy() for t in trace_in])  # the trace ran fn once
    run_in = _inputs(shapes)
    _same(eager_out, _np(graph(*run_in)))
    _same([t.numpy() for t in eager_in], [t.numpy() for t in run_in])


def test_plain_trace_of_the_same_program_records_mutations():
    """The contrast: without functionalize the trace holds the in-place operators."""
    graph = tcore.jit.trace(lambda x: (x[0].add_(1), x * 1)[1], [ar(3, 4)])
    assert any(_mutating(op) for op in graph.operators())
    pure = tcore.jit.trace(func.functionalize(lambda x: (x[0].add_(1), x * 1)[1]), [ar(3, 4)])
    assert "select_scatter.default" in pure.operators() or "select_scatter" in pure.operators()


@pytest.mark.parametrize("fn, shapes, error", [
    (lambda x: x.expand(3, 4).add_(1), [(1, 4)], "single memory location"),
    (lambda x: x[0].add_(tcore.ones(3, 4)), [(3, 4)], "doesn't match the broadcast shape"),
])
def test_errors_are_eager_errors(fn, shapes, error):
    with pytest.raises(RuntimeError, match=error):
        fn(*_inputs(shapes))
    x = _inputs(shapes)
    before = [t.numpy().copy() for t in x]
    with pytest.raises(RuntimeError, match=error):
        func.functionalize(fn)(*x)
    _same(before, [t.numpy() for t in x])  # nothing written back


def test_integer_inplace_with_a_float_result_is_refused():
    x = tcore.tensor([1, 2, 3])
    with pytest.raises((RuntimeError, TypeError), match="can't be cast"):
        x.add_(1.5)
    with pytest.raises((RuntimeError, TypeError), match="can't be cast"):
        func.functionalize(lambda t: t.add_(1.5))(tcore.tensor([1, 2, 3]))


def test_writing_a_captured_tensor_is_an_error():
    captured = tcore.zeros(3)
    with pytest.raises(RuntimeError, match="not functional"):
        func.functionalize(lambda x: captured.add_(x))(tcore.ones(3))
    assert captured.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("fn", [
    lambda x: (x.uniform_(-2, 3), x * 1)[1],
    lambda x: (x[1:].normal_(1.0, 0.5), x * 1)[1],
    lambda x: (x.t().random_(0, 7), x * 1)[1],
    lambda x: tcore.nn.functional.dropout(x, 0.5, training=True) * 1,
    lambda x: (tcore.zeros([3, 4], out=x), tcore.ones([4], out=x[0]), x * 1)[2],
    lambda x: (tcore.full([3, 4], 2.5, out=x), x * 1)[1],
    lambda x: (x.zero_(), x * 1)[1],
    lambda x: (x.exponential_(2.0), x * 1)[1],
    lambda x: (x[1:].bernoulli_(0.3), x * 1)[1],
    lambda x: (x.t().bernoulli_(tcore.full([4, 3], 0.5)), x * 1)[1],
    lambda x: (x.geometric_(0.25), x.log_normal_(0.0, 0.5), x[0].cauchy_(), x * 1)[3],
], ids=["uniform_", "normal_on_a_view", "random_on_a_transpose", "dropout", "zeros_ones_out", "full_out", "zero_",
        "exponential_", "bernoulli_on_a_view", "bernoulli_tensor_on_a_transpose", "geometric_log_normal_cauchy"])
def test_random_and_factory_writes_functionalize_with_the_same_draws(fn):
    """The random in-place operators run as their functional counterparts (uniform,
    normal_functional, random.from), drawing the same numbers from the same generator state."""
    tcore.manual_seed(7)
    eager_in = [ar(3, 4)]
    eager_out = _np(fn(*eager_in))
    tcore.manual_seed(7)
    fun_in = [ar(3, 4)]
    _same(eager_out, _np(func.functionalize(fn)(*fun_in)))
    _same([eager_in[0].numpy()], [fun_in[0].numpy()])
    graph = tcore.jit.trace(func.functionalize(fn), [ar(3, 4)])
    assert not [op for op in graph.operators() if _mutating(op)], graph.code


def test_fused_adam_step_functionalizes():
    def step(p, g, m, v):
        tcore._C._fused_adam_(p, g, m, v, 0.1, 0.9, 0.999, 1e-8, 0.01, 3.0, True, False)
        return p * 1

    shapes = [(4,), (4,), (4,), (4,)]
    eager_in = [ar(*s) + i for i, s in enumerate(shapes)]
    eager_out = _np(step(*eager_in))
    fun_in = [ar(*s) + i for i, s in enumerate(shapes)]
    graph = tcore.jit.trace(func.functionalize(step), fun_in)
    assert graph.operators() == ["_fused_adam", "mul.Scalar"], graph.code
    _same([t.numpy() for t in eager_in], [t.numpy() for t in fun_in])
    run_in = [ar(*s) + i for i, s in enumerate(shapes)]
    _same(eager_out, _np(graph(*run_in)))
    _same([t.numpy() for t in eager_in], [t.numpy() for t in run_in])


def test_every_operator_has_a_functionalize_kernel_or_decomposes():
    from pathlib import Path

    from codegen import gen_functionalization
    from codegen.load import load_operator_set

    root = Path(__file__).resolve().parent.parent
    ops = load_operator_set(str(root / "csrc/native/native_functions.yaml"), str(root / "csrc/native/tags.yaml"))
    have = gen_functionalization.have_roots(ops.by_root())
    missing = [str(f.func.name) for fs in ops.by_root().values() for f in fs
               if not f.is_composite_implicit and gen_functionalization.kernel(f, fs, have) is None]
    # resize_ may replace a tensor's storage: torch functionalizes it by hand (the wrapper's value
    # replaced when it grows, an as_strided view when it shrinks); tcore refuses it, clearly
    assert missing == ["resize_"]


def test_resize_under_functionalize_is_a_clear_error():
    with pytest.raises(RuntimeError, match="resize_ has no functionalization"):
        func.functionalize(lambda x: (x * 1).resize_(2) * 2)(ar(6))


def test_functionalize_is_reentrant_and_restores_the_mode():
    inner = func.functionalize(lambda x: x.mul_(2) * 1)
    outer = func.functionalize(lambda x: inner(x[0]) + 0)
    x = ar(3, 4)
    expected = ar(3, 4)
    expected[0].mul_(2)
    out = outer(x)
    np.testing.assert_allclose(x.numpy(), expected.numpy())
    np.testing.assert_allclose(out.numpy(), expected[0].numpy())
    assert not tcore._C._functionalize_active()
    y = tcore.ones(2)
    y.add_(1)  # eager again
    assert y.tolist() == [2.0, 2.0]


def test_gradients_flow_through_a_functionalized_function():
    def f(x):
        y = x * 1
        y[0].mul_(3)
        return y.sum()

    x = tcore.ones(2, 2, requires_grad=True)
    f(x).backward()
    eager = x.grad.numpy().copy()
    x2 = tcore.ones(2, 2, requires_grad=True)
    func.functionalize(f)(x2).backward()
    np.testing.assert_allclose(x2.grad.numpy(), eager)
    np.testing.assert_allclose(eager, [[3, 3], [1, 1]])


@pytest.mark.parametrize("op, args", [
    ("select_scatter", lambda a, s: (a, s[0], 0, 1)),
    ("slice_scatter", lambda a, s: (a, s[:2], 0, 1, 3)),
    ("diagonal_scatter", lambda a, s: (a, s.diagonal(), 0)),
    ("as_strided_scatter", lambda a, s: (a, s[0, :2], (2,), (3,), 1)),
])
def test_scatter_operators_match_torch(op, args):
    torch = pytest.importorskip("torch")
    a, s = ar(3, 3), ar(3, 3) * 10
    ta, ts = torch.tensor(a.numpy()), torch.tensor(s.numpy())
    got = getattr(tcore, op)(*args(a, s))
    want = getattr(torch, op)(*args(ta, ts))
    np.testing.assert_allclose(got.numpy(), want.numpy())
    np.testing.assert_allclose(a.numpy(), ta.numpy())  # self unchanged


@pytest.mark.parametrize("op, make", [
    ("select_scatter", lambda a, s: tcore.select_scatter(a, s, 0, 1)),
    ("slice_scatter", lambda a, s: tcore.slice_scatter(a, s, 1, 0, 3, 2)),
    ("diagonal_scatter", lambda a, s: tcore.diagonal_scatter(a, s, 0)),
    ("as_strided_scatter", lambda a, s: tcore.as_strided_scatter(a, s, (3,), (4,), 0)),
])
def test_scatter_operators_gradcheck(op, make):
    a = tcore.tensor(np.random.default_rng(0).standard_normal((3, 4)).tolist(), dtype=tcore.float64, requires_grad=True)
    shape = {"select_scatter": (4,), "slice_scatter": (3, 2), "diagonal_scatter": (3,), "as_strided_scatter": (3,)}[op]
    s = tcore.tensor(np.random.default_rng(1).standard_normal(shape).tolist(), dtype=tcore.float64, requires_grad=True)
    assert tcore.autograd.gradcheck(make, (a, s))


def test_every_view_operator_has_its_write_back():
    from pathlib import Path

    from codegen import gen_autograd, gen_functionalization
    from codegen.load import load_operator_set

    root = Path(__file__).resolve().parent.parent
    ops = load_operator_set(str(root / "csrc/native/native_functions.yaml"), str(root / "csrc/native/tags.yaml"))
    listed = {str(f.func.name) for fs in ops.by_root().values() for f in fs if gen_autograd.is_view_op(f)}
    assert listed <= set(gen_functionalization.REVERSE), listed - set(gen_functionalization.REVERSE)


# operators whose output may alias an input (views; reshape and contiguous when they view)
_ALIASING = {"view", "transpose.int", "expand", "permute", "unsqueeze", "squeeze", "squeeze.dim", "select.int",
             "slice.Tensor", "diagonal", "as_strided", "unfold", "split.Tensor", "split.sizes", "narrow", "t",
             "reshape", "flatten.using_ints", "unbind.int", "chunk", "contiguous", "to.dtype", "to.device"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_removing_views_too_leaves_no_aliasing_operator(name):
    fn, shapes = PROGRAMS[name]
    eager_in = _inputs(shapes)
    eager_out = _np(fn(*eager_in))
    fun_in = _inputs(shapes)
    _same(eager_out, _np(func.functionalize(fn, remove="mutations_and_views")(*fun_in)))
    _same([t.numpy() for t in eager_in], [t.numpy() for t in fun_in])
    graph = tcore.jit.trace(func.functionalize(fn, remove="mutations_and_views"), _inputs(shapes))
    ops = graph.operators()
    assert not [op for op in ops if _mutating(op) or op in _ALIASING], graph.code
    run_in = _inputs(shapes)
    _same(eager_out, _np(graph(*run_in)))
    _same([t.numpy() for t in eager_in], [t.numpy() for t in run_in])


def test_remove_is_checked():
    with pytest.raises(ValueError, match="mutations_and_views"):
        func.functionalize(lambda x: x, remove="views")


@pytest.mark.parametrize("op, view, args", [
    ("select_copy", "select", (0, 1)), ("slice_copy", "slice", (1, 0, 2)), ("diagonal_copy", "diagonal", ()),
    ("transpose_copy", "transpose", (0, 1)), ("permute_copy", "permute", ([1, 0],)), ("view_copy", "view", ([9],)),
    ("unsqueeze_copy", "unsqueeze", (1,)), ("as_strided_copy", "as_strided", ([2], [4])),
    ("expand_copy", "expand", ([2, 3, 3],)), ("unfold_copy", "unfold", (0, 2, 1)),
])
def test_view_copy_operators_copy_the_view(op, view, args):
    x = ar(3, 3)
    got = getattr(tcore, op)(x, *args)
    want = getattr(x, view)(*args)
    np.testing.assert_allclose(got.numpy(), want.numpy())
    assert got.is_contiguous() and got._base is None
    got.add_(1)
    np.testing.assert_allclose(x.numpy(), ar(3, 3).numpy())  # no aliasing


@pytest.mark.parametrize("name", ["split_add", "split_sizes", "chunk_loop", "slice_mul", "two_views", "unbind_add"])
@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_traced_graph_runs_on_inputs_of_another_layout(name, remove):
    """A graph traced on contiguous inputs, run on transposed ones: its operators are logical
    (slices, selections, scatters), not the storage geometry of the trace's inputs."""
    fn, shapes = PROGRAMS[name]
    graph = tcore.jit.trace(func.functionalize(fn, remove=remove), _inputs(shapes))

    def transposed():
        return [ar(*reversed(s)).t() if len(s) == 2 else ar(*s) for s in shapes]

    eager_in, run_in = transposed(), transposed()
    assert not run_in[0].is_contiguous()
    _same(_np(fn(*eager_in)), _np(graph(*run_in)))
    _same([t.numpy() for t in eager_in], [t.numpy() for t in run_in])


def test_an_empty_out_argument_is_resized_back():
    # out= into an empty input: the function resizes it, and so does the write-back (torch.func's)
    def f(x, out):
        tcore.add(x, x, out=out)
        return out

    out = tcore.empty(0)
    result = func.functionalize(f)(ar(2, 3), out)
    assert tuple(out.shape) == (2, 3)
    np.testing.assert_allclose(out.numpy(), 2 * ar(2, 3).numpy())
    np.testing.assert_allclose(result.numpy(), out.numpy())
