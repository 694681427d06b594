"""Autograd: gradcheck of every differentiable operator against finite differences
(float64, broadcasting and non-contiguous inputs) from one table, gradgradcheck
through create_graph, the engine's rules, and an MLP trained with SGD."""
from __future__ import annotations

import math

import numpy as np
import pytest


@pytest.fixture(scope="module")
def tc(tcore):
    if not tcore._C._has_autograd:
        pytest.skip("built without autograd (TCORE_DISABLE_AUTOGRAD)")
    return tcore


def leaf(tc, arr, noncontig=False):
    arr = np.asarray(arr, dtype=np.float64)
    if noncontig and arr.ndim == 2:
        t = tc.tensor(np.ascontiguousarray(arr.T)).transpose(0, 1)
        t = t.detach().requires_grad_(True)
    else:
        t = tc.tensor(arr, requires_grad=True)
    return t


def numeric_grad(fn, arrays, i, eps=1e-6):
    """d(sum(fn(arrays) * weight))/d(arrays[i]) by central differences, weight fixed."""
    base = [a.copy() for a in arrays]
    out = np.asarray(fn(*base))
    weight = np.random.default_rng(0).standard_normal(out.shape)
    grad = np.zeros_like(base[i])
    it = np.nditer(base[i], flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        plus = [a.copy() for a in base]
        minus = [a.copy() for a in base]
        plus[i][idx] += eps
        minus[i][idx] -= eps
        grad[idx] = (np.sum(np.asarray(fn(*plus)) * weight) - np.sum(np.asarray(fn(*minus)) * weight)) / (2 * eps)
    return grad, weight


_MASK = np.array([[True, False, True], [False, False, True]])

# name: (tcore function, numpy reference, input shapes, positive inputs)
OPS = {
    "add": (lambda t, a, b: t.add(a, b, alpha=2.5), lambda a, b: a + 2.5 * b, [(3, 4), (4,)], False),
    "sub": (lambda t, a, b: t.sub(a, b), lambda a, b: a - b, [(2, 3), (2, 1)], False),
    "mul": (lambda t, a, b: t.mul(a, b), lambda a, b: a * b, [(3, 1), (1, 4)], False),
    "div": (lambda t, a, b: t.div(a, b), lambda a, b: a / b, [(3, 4), (3, 4)], True),
    "add_scalar": (lambda t, a: t.add(a, 3.0), lambda a: a + 3.0, [(3,)], False),
    "mul_scalar": (lambda t, a: a * 1.5, lambda a: a * 1.5, [(2, 3)], False),
    "div_scalar": (lambda t, a: a / 4.0, lambda a: a / 4.0, [(2, 3)], False),
    "neg": (lambda t, a: -a, lambda a: -a, [(3, 2)], False),
    "exp": (lambda t, a: t.exp(a), np.exp, [(2, 3)], False),
    "log": (lambda t, a: t.log(a), np.log, [(2, 3)], True),
    "relu": (lambda t, a: t.relu(a), lambda a: np.maximum(a, 0), [(4, 3)], False),
    "sum": (lambda t, a: a.sum(), np.sum, [(3, 4)], False),
    "sum_dim": (lambda t, a: a.sum(1), lambda a: a.sum(1), [(3, 4)], False),
    "sum_keepdim": (lambda t, a: a.sum([0], keepdim=True), lambda a: a.sum(0, keepdims=True), [(3, 4)], False),
    "mean": (lambda t, a: a.mean(), np.mean, [(3, 4)], False),
    "mean_dim": (lambda t, a: a.mean(0), lambda a: a.mean(0), [(3, 4)], False),
    "mm": (lambda t, a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4, 2)], False),
    "view": (lambda t, a: a.contiguous().view(6, 2) * 1.0, lambda a: a.reshape(6, 2), [(3, 4)], False),
    "transpose": (lambda t, a: a.transpose(0, 1) * 1.0, lambda a: a.T, [(3, 4)], False),
    "expand": (lambda t, a: a.expand(3, 4) * 1.0, lambda a: np.broadcast_to(a, (3, 4)), [(1, 4)], False),
    "clone": (lambda t, a: t.clone(a), lambda a: a.copy(), [(3,)], False),
    "contiguous": (lambda t, a: a.transpose(0, 1).contiguous(), lambda a: a.T.copy(), [(2, 3)], False),
    "sqrt": (lambda t, a: t.sqrt(a), np.sqrt, [(2, 3)], True),
    "rsqrt": (lambda t, a: a.rsqrt(), lambda a: 1 / np.sqrt(a), [(2, 3)], True),
    "sin": (lambda t, a: t.sin(a), np.sin, [(2, 3)], False),
    "cos": (lambda t, a: t.cos(a), np.cos, [(2, 3)], False),
    "tan": (lambda t, a: t.tan(a * 0.5), lambda a: np.tan(a * 0.5), [(2, 3)], False),
    "tanh": (lambda t, a: t.tanh(a), np.tanh, [(2, 3)], False),
    "asin": (lambda t, a: t.asin(a * 0.5), lambda a: np.arcsin(a * 0.5), [(2, 3)], True),
    "acos": (lambda t, a: t.acos(a * 0.5), lambda a: np.arccos(a * 0.5), [(2, 3)], True),
    "atan": (lambda t, a: t.atan(a), np.arctan, [(2, 3)], False),
    "sinh": (lambda t, a: t.sinh(a), np.sinh, [(2, 3)], False),
    "cosh": (lambda t, a: t.cosh(a), np.cosh, [(2, 3)], False),
    "sigmoid": (lambda t, a: t.sigmoid(a), lambda a: 1 / (1 + np.exp(-a)), [(2, 3)], False),
    "exp2": (lambda t, a: t.exp2(a), np.exp2, [(2, 3)], False),
    "log2": (lambda t, a: t.log2(a), np.log2, [(2, 3)], True),
    "log1p": (lambda t, a: t.log1p(a), np.log1p, [(2, 3)], True),
    "expm1": (lambda t, a: t.expm1(a), np.expm1, [(2, 3)], False),
    "erf": (lambda t, a: t.erf(a), np.vectorize(math.erf), [(2, 3)], False),
    "reciprocal": (lambda t, a: t.reciprocal(a), lambda a: 1 / a, [(2, 3)], True),
    "abs": (lambda t, a: t.abs(a), np.abs, [(2, 3)], False),
    "permute": (lambda t, a: a.permute([1, 2, 0]) * 1.0, lambda a: a.transpose(1, 2, 0), [(2, 3, 4)], False),
    "unsqueeze": (lambda t, a: a.unsqueeze(1) * 1.0, lambda a: a[:, None], [(3, 4)], False),
    "squeeze": (lambda t, a: a.squeeze() * 1.0, lambda a: a.squeeze(), [(3, 1, 4)], False),
    "squeeze_dim": (lambda t, a: a.squeeze(1) * 1.0, lambda a: a.squeeze(1), [(3, 1, 4)], False),
    "squeeze_dims": (lambda t, a: a.squeeze((0, 2, 3)) * 1.0, lambda a: a.squeeze((0, 2)), [(1, 3, 1, 4)], False),
    "select": (lambda t, a: a.select(1, -1) * 1.0, lambda a: a[:, -1], [(3, 4)], False),
    "slice": (lambda t, a: a[:, 1::2] * 1.0, lambda a: a[:, 1::2], [(3, 5)], False),
    "index": (lambda t, a: a[1, None, ..., :2] * 1.0, lambda a: a[1, None, ..., :2], [(3, 4, 3)], False),
    "diagonal": (lambda t, a: t.diagonal(a, 1) * 1.0, lambda a: np.diagonal(a, 1).copy(), [(4, 5)], False),
    "unfold": (lambda t, a: a.unfold(1, 3, 1) * 1.0,
               lambda a: np.lib.stride_tricks.sliding_window_view(a, 3, axis=1).copy(), [(2, 5)], False),
    "unfold_step": (lambda t, a: a.unfold(0, 2, 2) * 1.0,
                    lambda a: np.lib.stride_tricks.sliding_window_view(a, 2, axis=0)[::2].copy(), [(5, 3)], False),
    "reshape": (lambda t, a: a.transpose(0, 1).reshape(-1) * 1.0, lambda a: a.T.reshape(-1), [(3, 4)], False),
    "flatten": (lambda t, a: a.flatten() * 1.0, lambda a: a.reshape(-1), [(2, 3, 2)], False),
    "narrow": (lambda t, a: t.narrow(a, 0, 1, 2) * 1.0, lambda a: a[1:3], [(4, 3)], False),
    "t": (lambda t, a: a.t() * 1.0, lambda a: a.T, [(3, 4)], False),
    "amax": (lambda t, a: t.amax(a, [1]), lambda a: a.max(1), [(3, 4)], False),
    "amin_keepdim": (lambda t, a: t.amin(a, [0], True), lambda a: a.min(0, keepdims=True), [(3, 4)], False),
    "max_all": (lambda t, a: a.max(), np.max, [(3, 4)], False),
    "var": (lambda t, a: a.var([1]), lambda a: a.var(1, ddof=1), [(3, 4)], False),
    "std_keepdim": (lambda t, a: t.std(a, [0], correction=0, keepdim=True), lambda a: a.std(0, keepdims=True),
                    [(3, 4)], False),
    "var_all": (lambda t, a: a.var(), lambda a: a.var(ddof=1), [(3, 4)], False),
    "logsumexp": (lambda t, a: t.logsumexp(a, [1]), lambda a: np.log(np.exp(a).sum(1)), [(3, 4)], False),
    "cumsum": (lambda t, a: a.cumsum(1), lambda a: np.cumsum(a, 1), [(3, 4)], False),
    "softmax": (lambda t, a: a.softmax(1), lambda a: np.exp(a) / np.exp(a).sum(1, keepdims=True), [(3, 4)], False),
    "log_softmax": (lambda t, a: t.log_softmax(a, 0), lambda a: a - np.log(np.exp(a).sum(0, keepdims=True)), [(3, 4)],
                    False),
    "bmm": (lambda t, a, b: t.bmm(a, b), lambda a, b: a @ b, [(2, 3, 4), (2, 4, 2)], False),
    "matmul_batched": (lambda t, a, b: a @ b, np.matmul, [(2, 3, 4), (4, 2)], False),
    "matmul_vec": (lambda t, a, b: t.matmul(a, b), np.matmul, [(3, 4), (4,)], False),
    "linear": (lambda t, a, b: t._C._nn.linear(a, b), lambda a, b: a @ b.T, [(3, 4), (2, 4)], False),
    "clamp": (lambda t, a: a.clamp(-0.5, 0.7), lambda a: np.clip(a, -0.5, 0.7), [(3, 4)], False),
    "gelu": (lambda t, a: t._C._nn.gelu(a), lambda a: 0.5 * a * (1 + np.vectorize(math.erf)(a / 2 ** 0.5)), [(3, 4)], False),
    "gelu_tanh": (lambda t, a: t._C._nn.gelu(a, approximate="tanh"),
                  lambda a: 0.5 * a * (1 + np.tanh(0.7978845608028654 * (a + 0.044715 * a ** 3))), [(3, 4)], False),
    "silu": (lambda t, a: t._C._nn.silu(a), lambda a: a / (1 + np.exp(-a)), [(3, 4)], False),
    "mse_loss": (lambda t, a, b: t._C._nn.mse_loss(a, b), lambda a, b: np.mean((a - b) ** 2), [(3, 4), (3, 4)], False),
    "maximum": (lambda t, a, b: t.maximum(a, b), np.maximum, [(3, 4), (4,)], False),
    "minimum": (lambda t, a, b: t.minimum(a, b), np.minimum, [(3, 4), (3, 1)], False),
    "atan2": (lambda t, a, b: t.atan2(a, b), np.arctan2, [(2, 3), (2, 3)], False),
    "pow": (lambda t, a, b: t.pow(a, b), np.power, [(2, 3), (3,)], True),
    "pow_scalar": (lambda t, a: a ** 2.5, lambda a: a ** 2.5, [(2, 3)], True),
    "where": (lambda t, a, b: t.where(t.tensor(_MASK), a, b), lambda a, b: np.where(_MASK, a, b), [(2, 3), (3,)], False),
    "remainder": (lambda t, a, b: t.remainder(a * 3, b), lambda a, b: np.remainder(a * 3, b), [(2, 3), (3,)], True),
    "fmod": (lambda t, a, b: t.fmod(a * 3, b), lambda a, b: np.fmod(a * 3, b), [(2, 3), (2, 3)], True),
    "div_floor": (lambda t, a, b: t.div(a, b, rounding_mode="floor") + a, lambda a, b: np.floor_divide(a, b) + a,
                  [(2, 3), (2, 3)], True),
    "lerp": (lambda t, a, b: t.lerp(a, b, 0.3), lambda a, b: a + 0.3 * (b - a), [(2, 3), (3,)], False),
    "lerp_tensor": (lambda t, a, b, c: a.lerp(b, c), lambda a, b, c: np.where(c < 0.5, a + c * (b - a),
                                                                           b - (b - a) * (1 - c)),
                    [(2, 3), (3,), (2, 1)], False),
    "max_dim": (lambda t, a: a.max(1).values, lambda a: a.max(1), [(3, 4)], False),
    "min_dim_keepdim": (lambda t, a: t.min(a, 0, True)[0], lambda a: a.min(0, keepdims=True), [(3, 4)], False),
    "prod": (lambda t, a: a.prod(), np.prod, [(2, 3)], False),
    "prod_dim": (lambda t, a: a.prod(1), lambda a: a.prod(1), [(3, 4)], False),
    "cumprod": (lambda t, a: a.cumprod(1), lambda a: np.cumprod(a, 1), [(3, 4)], False),
    "cat": (lambda t, a, b: t.cat([a, b, a], 1), lambda a, b: np.concatenate([a, b, a], 1), [(2, 3), (2, 1)], False),
    "stack": (lambda t, a, b: t.stack([a, b], 0), lambda a, b: np.stack([a, b]), [(2, 3), (2, 3)], False),
    "split": (lambda t, a: a.split(2, 1)[1] * 2, lambda a: a[:, 2:4] * 2, [(2, 5)], False),
    "chunk": (lambda t, a: t.cat(list(reversed(a.chunk(3))), 0), lambda a: np.concatenate([a[4:], a[2:4], a[:2]]),
              [(5, 2)], False),
}


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("noncontig", [False, True], ids=["contiguous", "strided"])
def test_gradcheck(tc, name, noncontig):
    fn, ref, shapes, positive = OPS[name]
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    arrays = [rng.random(s) + 0.5 if positive else rng.standard_normal(s) for s in shapes]
    if name == "relu":
        arrays[0][np.abs(arrays[0]) < 0.1] = 0.3  # stay away from the kink
    if name == "clamp":
        for bound in (-0.5, 0.7):
            arrays[0][np.abs(arrays[0] - bound) < 0.05] = 0.1
    inputs = [leaf(tc, a, noncontig) for a in arrays]
    out = fn(tc, *inputs)
    np.testing.assert_allclose(out.detach().numpy(), ref(*arrays), rtol=1e-10, atol=1e-12)
    for i in range(len(arrays)):
        expected, weight = numeric_grad(ref, arrays, i)
        got, = tc.autograd.grad(fn(tc, *inputs), inputs[i], grad_outputs=tc.tensor(weight))
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-7, err_msg=f"input {i}")


@pytest.mark.parametrize("op", ["prod", "prod_dim", "cumprod"])
def test_product_gradients_with_zeros(tc, op):
    """One and two zeros in a row: no division by zero, the exact products of the others."""
    a = np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 3.0, 0.0, 2.0], [1.0, 2.0, 3.0, 4.0]])
    fns = {"prod": (lambda x: x.prod(), np.prod), "prod_dim": (lambda x: x.prod(1), lambda x: x.prod(1)),
           "cumprod": (lambda x: x.cumprod(1), lambda x: np.cumprod(x, 1))}
    fn, ref = fns[op]
    x = leaf(tc, a)
    expected, weight = numeric_grad(ref, [a], 0)
    got, = tc.autograd.grad(fn(x), x, grad_outputs=tc.tensor(weight))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_max_dim_indices_do_not_require_grad(tc):
    x = tc.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
    values, indices = x.max(1)
    assert values.requires_grad and not indices.requires_grad and values.grad_fn.name().startswith("MaxBackward")
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_dtype_conversion_gradient(tc):
    """to(dtype) is differentiable: the gradient comes back in the input's dtype."""
    x = tc.tensor([1.0, 2.0, 3.0], dtype=tc.float64, requires_grad=True)
    y = (x.float() * tc.tensor([1.0, 2.0, 4.0])).sum()
    y.backward()
    assert x.grad.dtype == tc.float64 and x.grad.tolist() == [1.0, 2.0, 4.0]
    assert x.long().requires_grad is False  # an integer result is not differentiable


SECOND_ORDER = ["mul", "div", "exp", "log", "mm", "sum_dim", "mean", "add", "neg", "expand", "sin", "tanh", "sigmoid",
                "sqrt", "atan", "erf", "atan2", "pow", "pow_scalar", "maximum", "var",
                "std_keepdim", "logsumexp", "softmax", "log_softmax", "gelu", "gelu_tanh", "silu",
                "mse_loss", "cat", "lerp_tensor", "prod_dim", "cumprod"]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradgradcheck(tc, name):
    """d/dx of <grad_x(f), v> through create_graph, against finite differences of grad_x."""
    fn, _, shapes, positive = OPS[name]
    rng = np.random.default_rng(7)
    arrays = [rng.random(s) + 0.5 if positive else rng.standard_normal(s) for s in shapes]
    v = [rng.standard_normal(s) for s in shapes]
    w = None

    def first_grads(*arrs):
        nonlocal w
        xs = [leaf(tc, a) for a in arrs]
        out = fn(tc, *xs)
        if w is None:
            w = np.random.default_rng(1).standard_normal(out.shape)
        gs = tc.autograd.grad(out, xs, grad_outputs=tc.tensor(w), create_graph=True, allow_unused=True)
        return xs, gs

    xs, gs = first_grads(*arrays)
    total = None
    for g, vi in zip(gs, v):
        if g is not None:
            term = (g * tc.tensor(vi)).sum()
            total = term if total is None else total + term
    if total is None or total.grad_fn is None:
        pytest.skip("second derivative is zero")
    second = tc.autograd.grad(total, xs, allow_unused=True)
    for i in range(len(arrays)):
        def scalar(*arrs):
            _, gs2 = first_grads(*arrs)
            return sum(float((g.detach().numpy() * vi).sum()) for g, vi in zip(gs2, v) if g is not None)
        eps = 1e-6
        expected = np.zeros_like(arrays[i])
        for idx in np.ndindex(arrays[i].shape):
            p = [a.copy() for a in arrays]
            m = [a.copy() for a in arrays]
            p[i][idx] += eps
            m[i][idx] -= eps
            expected[idx] = (scalar(*p) - scalar(*m)) / (2 * eps)
        got = np.zeros_like(arrays[i]) if second[i] is None else second[i].numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)


def test_accumulation_hooks_and_retain_grad(tc):
    x = tc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    z = (y * y).sum()
    z.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [8, 16, 24])
    np.testing.assert_allclose(y.grad.numpy(), [4, 8, 12])
    z.backward()  # accumulates
    np.testing.assert_allclose(x.grad.numpy(), [16, 32, 48])
    assert len(seen) == 2
    x.register_hook(lambda g: g * 0)
    (x * 1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [16, 32, 48])


def test_graph_metadata(tc):
    x = tc.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    assert y.grad_fn.name() == "SumBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    assert "grad_fn=<SumBackward0>" in repr(y)
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    with tc.no_grad():
        assert not (x * 2).requires_grad

    @tc.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad and tc.is_grad_enabled()
    with tc.no_grad():
        with tc.enable_grad():
            assert (x * 2).requires_grad


def test_errors(tc):
    x = tc.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y.sum()
    y.add_(1)  # modifies a tensor saved by ExpBackward0 (its result)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    w = (x * x).sum()
    w.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        w.backward()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        tc.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="implicitly created only for scalar"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        tc.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match="out=.*don't support automatic differentiation"):
        tc.add(x, x, out=tc.empty([2]))


def test_inplace_on_non_leaf(tc):
    x = tc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.mul_(x)  # y = x * x, through an in-place op
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 4, 6])


def test_mlp_trains(tc):
    """linear + relu + cross-entropy (built from the core's ops), plain SGD."""
    rng = np.random.default_rng(0)
    n, d, h, k = 128, 4, 16, 3
    centers = rng.standard_normal((k, d)) * 3
    labels = rng.integers(0, k, n)
    data = centers[labels] + rng.standard_normal((n, d)) * 0.5
    onehot = np.eye(k)[labels]
    X, Y = tc.tensor(data), tc.tensor(onehot)
    W1 = tc.tensor(rng.standard_normal((d, h)) * 0.3, requires_grad=True)
    W2 = tc.tensor(rng.standard_normal((h, k)) * 0.3, requires_grad=True)

    def loss_fn():
        logits = (X @ W1).relu() @ W2
        # cross entropy with a numerically safe log-softmax: logits are small here
        log_z = logits.exp().sum(1, keepdim=True).log()
        return -((logits - log_z) * Y).sum() / n

    first = loss_fn().item()
    for _ in range(150):
        loss = loss_fn()
        W1.grad = None
        W2.grad = None
        loss.backward()
        with tc.no_grad():
            W1.sub_(W1.grad * 0.5)
            W2.sub_(W2.grad * 0.5)
    final = loss_fn().item()
    assert final < 0.15 < first, (first, final)


def test_deprecated_signature_warns_and_maps(tc):
    """deprecated.yaml: add(Tensor self, Scalar alpha, Tensor other) still works, with a warning."""
    x, y = tc.ones(2), tc.full([2], 2.0)
    with pytest.warns(DeprecationWarning, match="deprecated"):
        r = tc.add(x, 3, y)
    np.testing.assert_allclose(r.numpy(), [7.0, 7.0])
    with pytest.warns(DeprecationWarning):
        np.testing.assert_allclose(tc.sub(x, 2, y).numpy(), [-3.0, -3.0])


def test_comparisons_are_not_differentiable(tc):
    x = tc.tensor([1.0, -2.0, 3.0], requires_grad=True)
    mask = x > 0
    assert mask.dtype == tc.bool and not mask.requires_grad and mask.grad_fn is None
    out = tc.empty([0], dtype=tc.bool)
    tc.gt(x, tc.zeros(3), out=out)  # out= of a non-differentiable operator takes inputs that require grad
    assert out.numpy().tolist() == [True, False, True]
    y = tc.where(mask, x, x * 2)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1, 2, 1])


@pytest.mark.parametrize("view", ["select", "slice", "diagonal", "unfold"])
def test_view_backward_is_differentiable(tc, view):
    """The backward of a view is an operator whose own derivative is the view again: the
    gradient of <d(view(x))/dx applied to g, v> with respect to g is view(v)."""
    fn = {"select": lambda x: x.select(0, 1), "slice": lambda x: x[:, 1::2],
          "diagonal": lambda x: tc.diagonal(x, 0), "unfold": lambda x: x.unfold(1, 2, 1)}[view]
    x = tc.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    y = fn(x)
    g = tc.tensor(np.random.default_rng(1).standard_normal(y.shape), requires_grad=True)
    gx, = tc.autograd.grad(y, x, grad_outputs=g, create_graph=True)
    v = np.random.default_rng(2).standard_normal((3, 4))
    gg, = tc.autograd.grad((gx * tc.tensor(v)).sum(), g)
    np.testing.assert_allclose(gg.numpy(), fn(tc.tensor(v)).numpy(), rtol=1e-12)


def test_grad_of_a_leaf_with_respect_to_itself_is_the_grad_output(tc):
    """torch.autograd.grad(x, x, g) is g, also for a leaf (its accumulator is the root and the input)."""
    x = tc.ones(3, requires_grad=True)
    (g,) = tc.autograd.grad([x], [x], [tc.full([3], 2.0)])
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0, 2.0])
    y = x * 3
    gx, gy = tc.autograd.grad([y, x], [x, y], [tc.ones(3), tc.ones(3)])
    np.testing.assert_array_equal(gx.numpy(), [4.0, 4.0, 4.0])  # through y, plus x itself
    np.testing.assert_array_equal(gy.numpy(), [1.0, 1.0, 1.0])


def test_backward_operators_match_torchs(tc):
    """gelu_backward, value_selecting_reduction_backward and cumprod_backward are operators, as in
    PyTorch (torch.ops.aten.*), with the same values; and double backward goes through them."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x, g = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    x[1, 2] = 0.0  # cumprod's gradient at a zero
    for approximate in ("none", "tanh"):
        np.testing.assert_allclose(
            tc._C._nn.gelu_backward(tc.tensor(g, dtype=tc.float64), tc.tensor(x, dtype=tc.float64), approximate=approximate).numpy(),
            torch.ops.aten.gelu_backward(torch.tensor(g), torch.tensor(x), approximate=approximate).numpy(), rtol=1e-12)
    out = torch.cumprod(torch.tensor(x), 1)
    np.testing.assert_allclose(
        tc.cumprod_backward(tc.tensor(g, dtype=tc.float64), tc.tensor(x, dtype=tc.float64), 1,
                            tc.tensor(out.numpy(), dtype=tc.float64)).numpy(),
        torch.ops.aten.cumprod_backward(torch.tensor(g), torch.tensor(x), 1, out).numpy(), rtol=1e-10)
    idx = rng.integers(0, 5, (4,))
    np.testing.assert_allclose(
        tc.value_selecting_reduction_backward(tc.tensor(g[:, 0], dtype=tc.float64), 1, tc.tensor(idx), [4, 5], False).numpy(),
        torch.ops.aten.value_selecting_reduction_backward(torch.tensor(g[:, 0]), 1, torch.tensor(idx), [4, 5], False).numpy())
    xs = tc.tensor(x, dtype=tc.float64, requires_grad=True)
    assert tc.autograd.gradgradcheck(lambda t: tc.nn.functional.gelu(t, approximate="tanh"), [xs])
