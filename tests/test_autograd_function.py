"""Custom autograd functions (tcore.autograd.Function) against torch's: the same classes, written
once over the library, give the same values, gradients (first and second order), tangents,
views, in-place rebasing and errors."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

X = np.array([[0.3, -1.2, 0.7], [1.5, 0.2, -0.4]])
G = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])


def make(lib):
    """The test's Functions over lib (torch or tcore)."""
    Function = lib.autograd.Function

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    class ScaledMul(Function):  # (a non-tensor argument, two tensor arguments)
        @staticmethod
        def forward(ctx, x, k, w):
            ctx.save_for_backward(x, w)
            ctx.k = k
            return x * w * k

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            ctx.seen = ctx.needs_input_grad
            return grad * w * ctx.k, None, grad * x * ctx.k

    class TwoOut(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sin(), x * 3, None, 7

        @staticmethod
        def backward(ctx, g1, g2, g3, g4):
            ctx.got = (g1 is None, g2 is None, g3, g4)
            return (g1 if g1 is not None else 0) + (g2 * 3 if g2 is not None else 0)

    class TwoOutLazy(TwoOut):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.sin(), x * 3, None, 7

    class MaxAndIndex(Function):
        @staticmethod
        def forward(ctx, x):
            values, indices = x.max(1)
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            ctx.shape = x.shape
            return values, indices

        @staticmethod
        def backward(ctx, grad, grad_indices):
            (indices,) = ctx.saved_tensors
            out = lib.zeros(ctx.shape, dtype=grad.dtype)
            return out.scatter(1, indices.unsqueeze(1), grad.unsqueeze(1))

    class DoubleInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Same(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    class FirstRow(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.shape = x.shape
            return x[0]

        @staticmethod
        def backward(ctx, grad):
            out = lib.zeros(ctx.shape, dtype=grad.dtype)
            out[0] = grad
            return out

    class Cube(Function):  # (setup_context style; a keyword argument)
        generate_vmap_rule = True  # (torch vmaps it so; tcore's vmap is a loop)

        @staticmethod
        def forward(x, scale=1.0):
            return x ** 3 * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, scale = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)  # (torch's jvp sees no save_for_backward where nothing required grad)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2 * ctx.scale, None

        @staticmethod
        def jvp(ctx, tx, tscale):
            (x,) = ctx.saved_tensors
            return tx * 3 * x ** 2 * ctx.scale

    class Tanh(Function):  # (jvp from saved_for_forward; a tangent-less tensor argument)
        @staticmethod
        def forward(ctx, x, b):
            y = (x + b).tanh()
            ctx.save_for_forward(y)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            g = grad * (1 - y * y)
            return g, g

        @staticmethod
        def jvp(ctx, tx, tb):
            (y,) = ctx.saved_tensors
            return (tx + tb) * (1 - y * y)

    class Once(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    return {k: v for k, v in locals().items() if isinstance(v, type)}


def both(fn):
    """fn(lib, classes) for torch and for tcore."""
    return [fn(lib, make(lib)) for lib in (torch, tcore)]


def close(got, want, rtol=1e-12):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for a, b in zip(got, want):
            close(a, b, rtol)
        return
    if want is None:
        assert got is None
        return
    if isinstance(want, torch.Tensor):
        want = want.detach().numpy()
    if isinstance(got, tcore.Tensor):
        got = got.detach().numpy()
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-14)


def test_values_gradients_and_second_order_as_torch():
    def run(lib, f):
        x = lib.tensor(X, requires_grad=True)
        y = f["Exp"].apply(x)
        g, = lib.autograd.grad(y, x, lib.tensor(G), create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), x)
        return y, g, gg, y.grad_fn.name(), y.requires_grad
    want, got = both(run)
    close(got[:3], want[:3])
    assert got[3:] == want[3:] == ("ExpBackward", True)


def test_non_tensor_arguments_and_needs_input_grad_as_torch():
    def run(lib, f):
        x, w = lib.tensor(X, requires_grad=True), lib.tensor(G)
        y = f["ScaledMul"].apply(x, 2.5, w)
        y.sum().backward()
        return y, x.grad, y.grad_fn.seen, y.grad_fn.k, w.grad
    want, got = both(run)
    close(got[:2], want[:2])
    assert got[2:] == want[2:] == ((True, False, False), 2.5, None)


def test_materialized_and_missing_output_gradients_as_torch():
    def run(lib, f):
        out = []
        for name in ("TwoOut", "TwoOutLazy"):
            x = lib.tensor(X, requires_grad=True)
            y = f[name].apply(x)
            y[0].sum().backward()
            out.append((x.grad, y[0].grad_fn.got, y[2], y[3]))
        return out
    want, got = both(run)
    for g, w in zip(got, want):
        close(g[0], w[0])
        assert g[1:] == w[1:]
    assert got[0][1] == (False, False, None, None) and got[1][1] == (False, True, None, None)


def test_mark_non_differentiable_as_torch():
    def run(lib, f):
        x = lib.tensor(X, requires_grad=True)
        values, indices = f["MaxAndIndex"].apply(x)
        (values * lib.tensor([2.0, -1.0])).sum().backward()
        return values, x.grad, indices.requires_grad, values.requires_grad, indices.tolist()
    want, got = both(run)
    close(got[:2], want[:2])
    assert got[2:] == want[2:]


def test_mark_dirty_rebases_history_as_torch():
    def run(lib, f):
        x = lib.tensor(X, requires_grad=True)
        y = x * 1.5
        z = f["DoubleInPlace"].apply(y)
        assert z is y and y.grad_fn.name() == "DoubleInPlaceBackward"
        (z * z).sum().backward()
        v = lib.tensor(X, requires_grad=True).clone()  # a view written in place
        row = v[1]
        f["DoubleInPlace"].apply(row)
        (v * lib.tensor(G)).sum().backward()
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            f["DoubleInPlace"].apply(lib.tensor(X, requires_grad=True))
        return z, x.grad, v
    want, got = both(run)
    close(got, want)


def test_inputs_returned_and_views_as_torch():
    def run(lib, f):
        x = lib.tensor(X, requires_grad=True)
        a = x * 1.0
        same = f["Same"].apply(a)
        assert same is not a and same._base is a
        same.sum().backward()
        row = f["FirstRow"].apply(a)
        assert row._is_view() and row._base is a
        with pytest.raises(RuntimeError) as inplace:
            row.add_(1)
        a.mul_(2)
        with pytest.raises(RuntimeError) as through_base:
            row.grad_fn
        return x.grad, str(inplace.value), str(through_base.value)
    want, got = both(run)
    close(got[0], want[0])
    assert got[1:] == want[1:]
    assert "This view was created inside a custom Function" in got[1]


def test_saved_tensor_checks_as_torch():
    for lib in (torch, tcore):
        f = make(lib)
        x = lib.tensor(X, requires_grad=True)
        y = f["Exp"].apply(x)
        y.mul_(2)
        with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been "
                                               "modified by an inplace operation"):
            y.sum().backward()
        y = f["Exp"].apply(x)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.sum().backward()


def _bad_classes(lib):
    Function = lib.autograd.Function

    class TooFew(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g

    class NotNone(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g[:1, :2]

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class NoJvp(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    return TooFew, NotNone, WrongShape, NoBackward, NoJvp


@pytest.mark.parametrize("case", range(6))
def test_errors_as_torch(case):
    messages = []
    for lib in (torch, tcore):
        too_few, not_none, wrong_shape, no_backward, no_jvp = _bad_classes(lib)
        x = lib.tensor(X, requires_grad=True)
        calls = [lambda: too_few.apply(x, 2).sum().backward(),
                 lambda: not_none.apply(x, 2).sum().backward(),
                 lambda: wrong_shape.apply(x).sum().backward(),
                 lambda: no_backward.apply(x).sum().backward(),
                 lambda: lib.autograd.Function.apply(x),
                 lambda: _dual(lib, lambda d: no_jvp.apply(d))]
        with pytest.raises(Exception) as err:
            calls[case]()
        messages.append((type(err.value).__name__, str(err.value)))
    assert messages[1] == messages[0]


def _dual(lib, fn):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        out = fn(fw.make_dual(lib.tensor(X), lib.tensor(G)))
        return fw.unpack_dual(out).tangent


def test_setup_context_keywords_and_forward_mode_as_torch():
    def run(lib, f):
        x = lib.tensor(X, requires_grad=True)
        y = f["Cube"].apply(x, scale=0.5)
        y.sum().backward()
        tangent = _dual(lib, lambda d: f["Cube"].apply(d, 0.5))
        b = lib.tensor(G[0])
        tangent2 = _dual(lib, lambda d: f["Tanh"].apply(d, b))
        fw = lib.autograd.forward_ad
        with fw.dual_level():  # (a tangent on the second argument only)
            tangent3 = fw.unpack_dual(f["Tanh"].apply(lib.tensor(X), fw.make_dual(b, lib.ones(3, dtype=lib.float64)))).tangent
        return y, x.grad, tangent, tangent2, tangent3
    want, got = both(run)
    close(got, want)


def test_once_differentiable_and_reverse_over_custom_as_torch():
    def run(lib, f):
        x = lib.tensor(X, requires_grad=True)
        g, = lib.autograd.grad(f["Once"].apply(x).sum(), x, create_graph=True)
        # (torch's transforms take Functions with setup_context only)
        hess = lib.func.jacrev(lib.func.grad(lambda v: f["Cube"].apply(v, 0.5).sum()))(lib.tensor(X[0]))
        per_sample = lib.func.vmap(lib.func.grad(lambda v: (f["Cube"].apply(v, 2.0) * v).sum()))(lib.tensor(X))
        check = lib.autograd.gradcheck(f["Cube"].apply, (lib.tensor(X, requires_grad=True), 0.5))
        return g, g.requires_grad, hess, per_sample, check
    want, got = both(run)
    close(got[0], want[0])
    close(got[2:4], want[2:4])
    assert got[1] == want[1] is False and got[4] == want[4] is True


def test_reentrant_backward_and_hooks_as_torch():
    def run(lib, _):
        class Recompute(lib.autograd.Function):  # backward runs autograd itself (checkpointing's way)
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return (x.sin() * x).detach()

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                with lib.enable_grad():
                    inner = x.detach().requires_grad_()
                    out = inner.sin() * inner
                    g, = lib.autograd.grad(out, inner, grad)
                return g

        x = lib.tensor(X, requires_grad=True)
        y = Recompute.apply(x)
        seen = []
        y.register_hook(lambda g: seen.append(g.sum().item()) or g * 2)
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(len(grad_inputs)))
        (y * lib.tensor(G)).sum().backward()
        return x.grad, seen
    want, got = both(run)
    close(got[0], want[0])
    assert got[1] == pytest.approx(want[1])


def test_context_is_freed_with_its_graph():
    refs = []

    class Keep(tcore.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            refs.append(weakref.ref(ctx))
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = tcore.tensor(X, requires_grad=True)
    y = Keep.apply(x)
    y.sum().backward()
    assert refs[0]() is not None  # (y's grad_fn holds it)
    del y
    gc.collect()
    assert refs[0]() is None
    with tcore.no_grad():  # (nothing recorded: no node)
        assert not Keep.apply(x).requires_grad


def test_context_keeping_its_output_is_collected_as_torch():
    """ctx.out = y: context -> output -> node -> context, a cycle the collector must see (the node
    holds the context in C++); kept while something else holds the node, as torch's."""
    for lib in (torch, tcore):
        refs = []

        class KeepOutput(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y, z = x * 2, x * 3
                ctx.out = y
                refs.append(weakref.ref(ctx))
                return y, z

            @staticmethod
            def backward(ctx, gy, gz):
                return gy * 2 + gz * 3

        x = lib.tensor(X, requires_grad=True)
        y, z = KeepOutput.apply(x)
        del y, z
        gc.collect()
        assert refs[0]() is None, lib.__name__
        y, z = KeepOutput.apply(x)
        (y + z).sum().backward()
        node = y.grad_fn
        del y, z
        gc.collect()
        assert refs[1]() is not None, lib.__name__  # (node held here)
        assert node.out is not None
        del node
        gc.collect()
        assert refs[1]() is None, lib.__name__
        np.testing.assert_allclose(x.grad.numpy(), np.full(X.shape, 5.0))
