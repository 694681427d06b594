"""Forward-mode AD (tcore.autograd.forward_ad, tcore.autograd.functional): the tangent of
every operator with a `result:` formula against central finite differences and against
reverse mode (u . (J v) == (J^T u) . v), the in-place/view programs of test_views_inplace,
forward over reverse (Hessian-vector products), the API and its errors."""
from __future__ import annotations

import numpy as np
import pytest

tcore = pytest.importorskip("tcore")
if not tcore._C._has_autograd:
    pytest.skip("built without autograd", allow_module_level=True)

import tcore.autograd.forward_ad as fwAD  # noqa: E402
from tcore.autograd import functional as F  # noqa: E402
from test_autograd import OPS  # noqa: E402
from test_views_inplace import PROGRAMS, _arrays  # noqa: E402

# operators added for the torch API, with their own inputs: name -> (fn(t, *xs), shapes)
MORE = {
    "sort_values": (lambda t, a: a.sort(1).values, [(3, 4)]),
    "sort_descending": (lambda t, a: t.sort(a, 0, descending=True)[0], [(3, 4)]),
    "topk": (lambda t, a: a.topk(2, 1).values, [(3, 4)]),
    "kthvalue": (lambda t, a: a.kthvalue(2, 1).values, [(3, 4)]),
    "median_dim": (lambda t, a: a.median(1).values, [(3, 5)]),
    "median_all": (lambda t, a: a.median(), [(3, 5)]),
    "cummax": (lambda t, a: a.cummax(1).values, [(3, 4)]),
    "cummin": (lambda t, a: a.cummin(0).values, [(3, 4)]),
    "flip": (lambda t, a: a.flip([0, 1]), [(3, 4)]),
    "tril": (lambda t, a: a.tril(), [(4, 4)]),
    "triu": (lambda t, a: a.triu(1), [(4, 4)]),
    "index_tensor": (lambda t, a: a[t.tensor([2, 0, 2])], [(3, 4)]),
    "index_mask": (lambda t, a: a[a > 0], [(3, 4)]),
    "index_put": (lambda t, a, b: t.index_put(a, [t.tensor([0, 2])], b, True), [(3, 4), (2, 4)]),
    "masked_fill": (lambda t, a: a.masked_fill(a > 0, 1.5), [(3, 4)]),
    "conv2d": (lambda t, a, w: t.nn.functional.conv2d(a, w, padding=1), [(1, 2, 5, 5), (3, 2, 3, 3)]),
    "max_pool2d": (lambda t, a: t.nn.functional.max_pool2d(a, 2), [(1, 2, 4, 4)]),
    "cumprod_with_zeros": (lambda t, a: (a * t.tensor([1.0, 0.0, 1.0, 0.0, 1.0], dtype=a.dtype)).cumprod(0), [(5,)]),
    "clamp_tensor_bounds": (lambda t, a, lo, hi: t.clamp(a, lo, hi), [(3, 4), (4,), (3, 1)]),
    "clamp_tensor_min": (lambda t, a, lo: a.clamp(min=lo), [(3, 4), (3, 4)]),
    "clamp_tensor_max": (lambda t, a, hi: a.clamp(max=hi), [(3, 4), (1, 4)]),
    "inplace_mul_": (lambda t, a, b: (a * 1).mul_(b), [(3,), (3,)]),
    "inplace_exp_": (lambda t, a: (a * 1).exp_(), [(3,)]),
    "inplace_copy_": (lambda t, a: t.zeros(2, 3, dtype=a.dtype).copy_(a), [(3,)]),
}


def _inputs(name, shapes, positive=False):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    xs = [rng.uniform(0.3, 1.3, s) if positive else rng.uniform(-1.2, 1.2, s) for s in shapes]
    vs = [rng.standard_normal(s) for s in shapes]
    return xs, vs


def _t(a):
    return tcore.tensor(np.asarray(a, dtype=np.float64), dtype=tcore.float64)


def _jvp(fn, xs, vs):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(_t(x), _t(v)) for x, v in zip(xs, vs)]
        out = fn(tcore, *duals)
        primal, tangent = fwAD.unpack_dual(out)
        assert tangent is not None, "no tangent reached the output"
        return primal.numpy(), tangent.numpy()


def _finite_difference(fn, xs, vs, eps=1e-6):
    with tcore.no_grad():
        plus = fn(tcore, *[_t(x + eps * v) for x, v in zip(xs, vs)]).numpy()
        minus = fn(tcore, *[_t(x - eps * v) for x, v in zip(xs, vs)]).numpy()
    return (plus - minus) / (2 * eps)


def _reverse(fn, xs, u):
    leaves = [_t(x).requires_grad_(True) for x in xs]
    out = fn(tcore, *leaves)
    grads = tcore.autograd.grad([out], leaves, [_t(u)], allow_unused=True)
    return [g.numpy() if g is not None else np.zeros_like(x) for g, x in zip(grads, xs)]


def _check(fn, xs, vs, rtol=1e-5, atol=1e-6):
    primal, tangent = _jvp(fn, xs, vs)
    with tcore.no_grad():
        np.testing.assert_allclose(primal, fn(tcore, *[_t(x) for x in xs]).numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent, _finite_difference(fn, xs, vs), rtol=rtol, atol=atol)
    u = np.random.default_rng(3).standard_normal(tangent.shape)
    vjps = _reverse(fn, xs, u)
    lhs = float(np.sum(u * tangent))
    rhs = float(sum(np.sum(g * v) for g, v in zip(vjps, vs)))
    assert abs(lhs - rhs) <= 1e-8 * max(1.0, abs(lhs)), (lhs, rhs)


@pytest.mark.parametrize("name", sorted(OPS))
def test_jvp_of_every_operator(name):
    fn, _, shapes, positive = OPS[name]
    xs, vs = _inputs(name, shapes, positive)
    _check(lambda t, *a: fn(t, *a), xs, vs)


@pytest.mark.parametrize("name", sorted(MORE))
def test_jvp_of_the_torch_api_operators(name):
    fn, shapes = MORE[name]
    xs, vs = _inputs(name, shapes)
    _check(fn, xs, vs)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jvp_through_views_and_in_place_writes(name):
    xs = _arrays(name)
    vs = [np.random.default_rng(7).standard_normal(x.shape) for x in xs]
    fn = PROGRAMS[name][1]
    primal, tangent = _jvp(fn, xs, vs)
    np.testing.assert_allclose(tangent, _finite_difference(fn, xs, vs), rtol=1e-5, atol=1e-6)


def test_hvp_is_forward_over_reverse_and_matches_the_hessian():
    rng = np.random.default_rng(0)
    w1, x = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    v = rng.standard_normal((4, 3))

    def loss(w):
        h = (_t(x) @ w.t()).tanh()
        return (h * h).sum() + (w * w * w).sum()

    value, hv = F.hvp(loss, _t(w1), _t(v))
    hess = F.hessian(loss, _t(w1)).numpy().reshape(12, 12)
    np.testing.assert_allclose(hv.numpy().ravel(), hess @ v.ravel(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(hess, hess.T, atol=1e-10)
    eps = 1e-6

    def grad_at(w):
        leaf = _t(w).requires_grad_(True)
        (g,) = tcore.autograd.grad([loss(leaf)], [leaf])
        return g.numpy()
    fd = (grad_at(w1 + eps * v) - grad_at(w1 - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hv.numpy(), fd, rtol=1e-5, atol=1e-6)


def test_functional_jvp_vjp_against_each_other_and_torch():
    rng = np.random.default_rng(1)
    a, b, v, u = (rng.standard_normal(s) for s in [(3, 4), (4, 2), (3, 4), (3, 2)])

    def f(x, y):
        return (x @ y).sin() * 2

    out, jv = F.jvp(f, (_t(a), _t(b)), (_t(v), _t(np.zeros((4, 2)))))
    _, (ga, gb) = F.vjp(f, (_t(a), _t(b)), _t(u))
    assert abs(float((jv * _t(u)).sum()) - float((ga * _t(v)).sum())) < 1e-10
    torch = pytest.importorskip("torch")
    tout, tjv = torch.func.jvp(lambda x, y: (x @ y).sin() * 2, (torch.tensor(a), torch.tensor(b)),
                               (torch.tensor(v), torch.zeros(4, 2, dtype=torch.float64)))
    np.testing.assert_allclose(jv.numpy(), tjv.numpy(), rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-12)


def test_dual_api_and_errors():
    x = _t([1.0, 2.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, _t([1.0, 0.0]))
        assert fwAD.unpack_dual(d).tangent.tolist() == [1.0, 0.0]
        assert fwAD.unpack_dual(x).tangent is None  # the primal itself is untouched
        p = fwAD.unpack_dual(d * 3).primal
        assert fwAD.unpack_dual(p).tangent is None and p.tolist() == [3.0, 6.0]
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(x, _t([1.0]))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        y = d.exp()
        with tcore.no_grad():  # forward mode does not depend on grad mode
            z = d.sin()
        assert fwAD.unpack_dual(z).tangent is not None
    assert fwAD.unpack_dual(y).tangent is None  # leaving the level drops every tangent
    with pytest.raises(RuntimeError, match="active forward AD level"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, _t([1.0, 1.0]))
        with pytest.raises(RuntimeError, match="automatic differentiation"):
            tcore.add(d, d, out=tcore.empty(2, dtype=tcore.float64))


def test_forward_and_reverse_together():
    w = _t([0.5, -1.0]).requires_grad_(True)
    with fwAD.dual_level():
        d = fwAD.make_dual(w, _t([1.0, 2.0]))
        y = (d * d).sum()
        assert fwAD.unpack_dual(y).tangent.item() == pytest.approx(2 * 0.5 * 1 + 2 * -1.0 * 2)
        y.backward()
    assert w.grad.tolist() == [1.0, -2.0]


def test_an_operator_without_a_forward_formula_raises_naming_it():
    from pathlib import Path

    from codegen import gen_forward_ad
    from codegen.derivatives import parse_derivative
    from codegen.load import load_operator_set
    from codegen.yaml_source import split_entries

    root = Path(__file__).resolve().parent.parent
    opset = load_operator_set(str(root / "csrc/native/native_functions.yaml"), str(root / "csrc/native/tags.yaml"))
    text = "- name: sin(Tensor self) -> Tensor\n  self: mul(grad, cos(self))\n"
    (entry,) = split_entries("x.yaml", text)
    d = parse_derivative(entry)
    f = next(f for f in opset.functions if str(f.func.name) == "sin")
    code = gen_forward_ad.forward_code(f, d, False)
    assert code["body"] == ['fw_not_implemented("sin");']


def test_clamp_with_tensor_bounds_like_torch():
    """Ties, crossing bounds (min > max: max wins), broadcast bounds: gradients of self and of both
    bounds, and the tangent, as torch's clamp.Tensor formulas give them."""
    torch = pytest.importorskip("torch")
    x = np.array([[0.0, 1.0, 2.0, 3.0], [5.0, -1.0, 1.5, 0.5]])
    lo = np.array([1.0, 1.0, 2.5, 0.0])
    hi = np.array([[2.0], [1.0]])
    g = np.arange(8.0).reshape(2, 4) + 1
    v = [np.full(x.shape, 0.5), np.full(lo.shape, 2.0), np.full(hi.shape, -3.0)]
    got = [_t(a).requires_grad_(True) for a in (x, lo, hi)]
    want = [torch.tensor(a, requires_grad=True) for a in (x, lo, hi)]
    tcore.clamp(*got).backward(_t(g))
    torch.clamp(*want).backward(torch.tensor(g))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
    _, tangent = _jvp(lambda t, *a: t.clamp(*a), [x, lo, hi], v)
    _, torch_tangent = torch.func.jvp(torch.clamp, tuple(torch.tensor(a) for a in (x, lo, hi)),
                                      tuple(torch.tensor(a) for a in v))
    np.testing.assert_array_equal(tangent, torch_tangent.numpy())


def test_outputs_get_tangents_of_their_own_as_torch():
    """An identity-like formula (x + c, copy_, nextafter) gives the output a copy of the input's
    tangent: writing the output in place (or resizing it) leaves the input's tangent alone."""
    torch = pytest.importorskip("torch")
    seen = {}
    for lib in (torch, tcore):
        fw = lib.autograd.forward_ad
        out = []
        with fw.dual_level():
            x = fw.make_dual(lib.tensor([1.0, 2.0]), lib.ones(2))
            y = x + 0.25
            y.mul_(3)
            z = lib.zeros(2)
            z.copy_(x)
            z.mul_(3)
            w = x + lib.ones(2)
            w.unsqueeze_(0)
            v = lib.nextafter(x, lib.zeros(2))
            v.mul_(2)
            for t in (x, y, z, w, v):
                out.append(fw.unpack_dual(t).tangent.tolist())
        seen[lib.__name__] = out
    assert seen["tcore"] == seen["torch"]
