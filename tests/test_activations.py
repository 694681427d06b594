"""The nn activations leaky_relu, silu, softplus and elu (native/cpu/Activation.cpp, their
backwards in native/composite/BackwardOps.cpp) against PyTorch: values over the whole float range
(infinities, NaN, signed zeros, subnormals, the overflow edges of e^x) for every floating dtype and
layout, in place and out=, their errors, first and second derivatives, forward-mode tangents, and
each CPU capability's vector code. torch is a test-only oracle."""
from __future__ import annotations

import numpy as np
import pytest

from test_cpu_capability import program_json

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# name -> keyword arguments of tcore.nn.functional / torch.nn.functional
CASES = {
    "leaky_relu": {}, "leaky_relu_slope": {"negative_slope": 0.2}, "leaky_relu_negative": {"negative_slope": -1.5},
    "silu": {}, "softplus": {}, "softplus_beta": {"beta": 2.5, "threshold": 3.0},
    "softplus_negative_beta": {"beta": -1.0}, "elu": {}, "elu_alpha": {"alpha": 0.3},
}


def fn_name(case: str) -> str:
    return next(n for n in ("leaky_relu", "silu", "softplus", "elu") if case.startswith(n))


def values(dtype: str, n: int = 3001) -> np.ndarray:
    """Random values from tiny to huge of either sign, and the special ones."""
    r = np.random.default_rng(n)
    fin = np.finfo(np.float64 if dtype == "float64" else np.float32)
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, fin.tiny, -fin.tiny, fin.tiny / 8, -fin.tiny / 8, fin.max, -fin.max,
               1e-8, -1e-8, 20.0, 20.000002, 19.999998, 88.7, -88.7, 89.5, -104.0, -103.0, 709.0, -745.0, 710.0]
    body = np.sign(r.standard_normal(n)) * np.exp(r.uniform(-12, 6, n))
    x = np.concatenate([special, body, r.standard_normal(n) * 3])
    return x.astype(dtype) if dtype in ("float32", "float64") else x.astype(np.float32)


def to_tcore(tcore, x: np.ndarray, dtype: str):
    t = tcore.from_numpy(x.copy())
    return t.to(getattr(tcore, dtype)) if dtype in ("float16", "bfloat16") else t


def to_torch(x: np.ndarray, dtype: str):
    return torch.from_numpy(x.copy()).to(getattr(torch, dtype))


def assert_close(got, want, dtype: str):
    g, w = got.float().numpy() if dtype in ("float16", "bfloat16") else got.numpy(), want.float().numpy()
    if dtype == "float64":
        w = want.numpy()
    rtol = {"float32": 4e-7, "float64": 1e-15, "float16": 0, "bfloat16": 0}[dtype]
    tiny = np.finfo(np.float32).tiny if dtype != "float64" else np.finfo(np.float64).tiny
    np.testing.assert_allclose(g, w, rtol=rtol, atol=tiny)
    np.testing.assert_array_equal(np.signbit(g[g == 0]), np.signbit(w[g == 0]))  # signed zeros as torch's


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_against_torch(tcore, case, dtype):
    name, kw = fn_name(case), CASES[case]
    x = values(dtype)
    got = getattr(tcore.nn.functional, name)(to_tcore(tcore, x, dtype), **kw)
    want = getattr(TF, name)(to_torch(x, dtype), **kw)
    assert str(got.dtype).split(".")[-1] == dtype
    assert_close(got, want, dtype)


@pytest.mark.parametrize("case", sorted(CASES))
def test_layouts_in_place_and_out(tcore, case):
    """Strided (the scalar loop) and contiguous (the vector loop, every tail length) inputs, in place
    on a view, out= (its dtype must be the input's, as in torch)."""
    name, kw = fn_name(case), CASES[case]
    r = np.random.default_rng(3)
    x = (r.standard_normal((37, 29)) * 4).astype(np.float32)
    want = getattr(TF, name)(torch.from_numpy(x), **kw).numpy()
    f = getattr(tcore.nn.functional, name)
    t = tcore.from_numpy(x.copy())
    np.testing.assert_allclose(f(t.t(), **kw).numpy(), want.T, rtol=4e-7, atol=1e-30)
    np.testing.assert_allclose(f(t[:, ::3], **kw).numpy(), want[:, ::3], rtol=4e-7, atol=1e-30)
    for n in range(1, 40):  # every tail of a 16-lane vector, twice over
        np.testing.assert_allclose(f(tcore.from_numpy(x[0, :n].copy()), **kw).numpy(), want[0, :n], rtol=4e-7, atol=1e-30)
    if name != "softplus":  # torch has no softplus_
        buf = tcore.from_numpy(x.copy())
        view = buf[:, 1::2]
        out = f(view, inplace=True, **kw)
        assert out.data_ptr() == view.data_ptr()
        want_buf = x.copy()
        want_buf[:, 1::2] = want[:, 1::2]
        np.testing.assert_allclose(buf.numpy(), want_buf, rtol=4e-7, atol=1e-30)
    op = getattr(tcore._C._nn, name)
    out = tcore.empty(0)
    args = [kw[k] for k in kw]
    op(tcore.from_numpy(x[:2, :5].copy()), *args, out=out)  # resized, as torch's out= is
    np.testing.assert_allclose(out.numpy(), want[:2, :5], rtol=4e-7, atol=1e-30)
    with pytest.raises(TypeError, match="Found dtype float64 but expected float32"):
        op(tcore.from_numpy(x.copy()), *args, out=tcore.empty(37, 29, dtype=tcore.float64))


@pytest.mark.parametrize("name", ["leaky_relu", "silu", "softplus", "elu"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_integer_and_bool_inputs_are_errors(tcore, name, dtype):
    with pytest.raises(TypeError, match=f'"{name}" not implemented for'):
        getattr(tcore.nn.functional, name)(tcore.from_numpy(np.array([1, 0, 1]).astype(dtype)))


def grads(lib, name, kw, x: np.ndarray, inplace: bool = False):
    """First and second derivatives through autograd: d sum(w * f(x)) / dx, then d sum(v * that) / dx."""
    t = lib.tensor(x.tolist(), dtype=lib.float64, requires_grad=True)
    w = lib.tensor(np.linspace(-1.5, 2, x.size).tolist(), dtype=lib.float64)
    v = lib.tensor(np.linspace(0.5, -1, x.size).tolist(), dtype=lib.float64)
    f = getattr(lib.nn.functional, name)
    y = f(t * 1, inplace=True, **kw) if inplace else f(t, **kw)  # in place on a non-leaf
    g, = lib.autograd.grad((y * w).sum(), t, create_graph=True)
    if not g.requires_grad:  # tcore: leaky_relu's gradient is w picked by x's sign, no function of x
        return g.numpy(), np.zeros_like(x)
    gg, = lib.autograd.grad((g * v).sum(), t)
    return g.detach().numpy(), gg.numpy()


GRAD_X = np.array([-30.0, -3.0, -1.0, -0.5, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.9, 3.1, 19.5, 20.5, 30.0])


def exact_second_derivative(name, kw):
    """v * w * f''(x) at GRAD_X, to 50 digits (the weights of grads())."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    w = np.linspace(-1.5, 2, GRAD_X.size)
    v = np.linspace(0.5, -1, GRAD_X.size)
    out = []
    for x, wi, vi in zip(GRAD_X, w, v):
        x = mpmath.mpf(float(x))
        if name == "silu":
            s = 1 / (1 + mpmath.exp(-x))
            d2 = s * (1 - s) * (2 + x * (1 - 2 * s))
        else:
            b, th = mpmath.mpf(kw.get("beta", 1.0)), kw.get("threshold", 20.0)
            s = 1 / (1 + mpmath.exp(-x * b))
            d2 = b * s * (1 - s) if x * b < th else 0
        out.append(float(d2 * mpmath.mpf(float(wi)) * mpmath.mpf(float(vi))))
    return np.array(out)


@pytest.mark.parametrize("case", sorted(CASES))
def test_first_and_second_derivatives_against_torch(tcore, case):
    name, kw = fn_name(case), CASES[case]
    g, gg = grads(tcore, name, kw, GRAD_X)
    tg, tgg = grads(torch, name, kw, GRAD_X)
    np.testing.assert_allclose(g, tg, rtol=1e-13, atol=1e-300)
    if name in ("silu", "softplus"):
        # torch's second derivatives of these take s (1 - s) with s = sigmoid(z), whose 1 - s cancels
        # for large z (1e-3 off at z = 30); tcore's take sigmoid(z) sigmoid(-z): torch's figures where
        # z is small, 50-digit ones (mpmath) everywhere
        z = GRAD_X * kw.get("beta", 1.0)
        small = np.abs(z) <= 10
        np.testing.assert_allclose(gg[small], tgg[small], rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(gg, exact_second_derivative(name, kw), rtol=1e-13, atol=1e-300)
    else:
        np.testing.assert_allclose(gg, tgg, rtol=1e-12, atol=1e-300)
    if name != "softplus" and not (name == "leaky_relu" and kw.get("negative_slope", 0) < 0):
        g, _ = grads(tcore, name, kw, GRAD_X, inplace=True)
        np.testing.assert_allclose(g, tg, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("case", sorted(CASES))
def test_forward_mode_tangents_against_torch(tcore, case):
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    name, kw = fn_name(case), CASES[case]
    tangent = np.linspace(2, -1, GRAD_X.size)
    with fwAD.dual_level():
        d = fwAD.make_dual(tcore.tensor(GRAD_X.tolist(), dtype=tcore.float64), tcore.tensor(tangent.tolist(), dtype=tcore.float64))
        got = fwAD.unpack_dual(getattr(tcore.nn.functional, name)(d, **kw)).tangent.numpy()
    with tfwAD.dual_level():
        d = tfwAD.make_dual(torch.tensor(GRAD_X, dtype=torch.float64), torch.tensor(tangent, dtype=torch.float64))
        want = tfwAD.unpack_dual(getattr(TF, name)(d, **kw)).tangent.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)


def test_backward_operators_and_their_errors(tcore):
    """The backward operators by name (torch.ops.aten's), with torch's errors for the in-place
    forms' negative slopes."""
    x = np.array([-2.0, -0.0, 0.0, 1.5, np.nan])
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    tx, tg, px, pg = tcore.from_numpy(x), tcore.from_numpy(g), torch.from_numpy(x), torch.from_numpy(g)
    pairs = [
        (tcore._C._nn.leaky_relu_backward(tg, tx, 0.1, False), torch.ops.aten.leaky_relu_backward(pg, px, 0.1, False)),
        (tcore._C._nn.silu_backward(tg, tx), torch.ops.aten.silu_backward(pg, px)),
        (tcore._C._nn.softplus_backward(tg, tx, 2.0, 1.0), torch.ops.aten.softplus_backward(pg, px, 2.0, 1.0)),
        (tcore._C._nn.elu_backward(tg, 0.5, 2.0, 3.0, False, tx), torch.ops.aten.elu_backward(pg, 0.5, 2.0, 3.0, False, px)),
        (tcore._C._nn.elu_backward(tg, 0.5, 2.0, 3.0, True, tx), torch.ops.aten.elu_backward(pg, 0.5, 2.0, 3.0, True, px)),
    ]
    for got, want in pairs:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-15)
    with pytest.raises(ValueError, match="In-place leakyReLu backward calculation is triggered with a negative slope"):
        tcore._C._nn.leaky_relu_backward(tg, tx, -0.1, True)
    with pytest.raises(ValueError, match="In-place elu backward calculation is triggered with a negative slope"):
        tcore._C._nn.elu_backward(tg, -0.5, 1.0, 1.0, True, tx)


CAPABILITY_PROGRAM = r"""
import json, numpy as np, torch, tcore
from test_activations import CASES, fn_name, values
worst = {}
for dtype in ("float32", "float64"):
    x = values(dtype, 20011)
    for case, kw in CASES.items():
        name = fn_name(case)
        got = getattr(tcore.nn.functional, name)(tcore.from_numpy(x.copy()), **kw).numpy()
        want = getattr(torch.nn.functional, name)(torch.from_numpy(x.copy()), **kw).numpy()
        inf = np.isinf(want)
        same_nan = bool((np.isnan(got) == np.isnan(want)).all() and (got[inf] == want[inf]).all())
        ok = np.isfinite(want) & (want != 0)
        ulps = float(np.max(np.abs(got[ok] - want[ok]) / np.spacing(np.abs(want[ok])))) if ok.any() else 0.0
        # zeros: signed as torch's; where torch's e^x underflows to 0 (softplus(-103) in float32) tcore
        # may keep the smallest subnormal, the value rounded right (e^-103 is 0.99 of it)
        zeros = want == 0
        smallest = np.nextafter(np.array(0, dtype), np.array(1, dtype))
        signed = (got[zeros] != 0) | (np.signbit(got[zeros]) == np.signbit(want[zeros]))
        worst[f"{case} {dtype}"] = [ulps, same_nan, bool((np.abs(got[zeros]) <= smallest).all() and signed.all())]
print(json.dumps({"capability": tcore.backends.cpu.get_cpu_capability(), "worst": worst}))
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_vector_code_at_every_capability(tcore, capability):
    """Each capability's vector code (SLEEF at 4, 8 or 16 lanes) against torch: within 2 ulp
    (subnormals' ulp included), NaN and infinities where torch's are, signed zeros as torch's."""
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    out = program_json("import sys; sys.path.insert(0, %r)\n" % here + CAPABILITY_PROGRAM, capability)
    for key, (ulps, same_nan, zeros) in out["worst"].items():
        assert same_nan and zeros, (key, out["capability"])
        assert ulps <= 2, (key, ulps, out["capability"])
    del sys


BACKWARDS = {  # name -> (scalar arguments before the tensor x, after it), as torch.ops.aten's
    "leaky_relu_backward": ((), (0.2, False)), "silu_backward": ((), ()),
    "softplus_backward": ((), (1.5, 2.0)),
    "elu_backward": ((0.5, 2.0, 3.0, False), ()), "elu_backward_result": ((0.5, 2.0, 3.0, True), ()),
}


def call_backward(lib, key, g, x, **kw):
    name = key.replace("_result", "")
    before, after = BACKWARDS[key]
    op = getattr(lib._C._nn, name) if lib is not torch else getattr(torch.ops.aten, name)
    if lib is torch and kw:
        op = op.grad_input
    return op(g, *before, x, *after, **kw) if name == "elu_backward" else op(g, x, *after, **kw)


@pytest.mark.parametrize("key", sorted(BACKWARDS))
def test_backward_operators_grad_input_and_tangents(tcore, key):
    """The backward operators' grad_input= forms, and their forward-mode tangents (forward over
    reverse: d/dt of a gradient) in both arguments, against torch."""
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    x = np.array([-3.0, -0.7, -0.0, 0.4, 2.5, 25.0])
    g = np.array([0.5, -1.0, 2.0, 1.5, -0.25, 3.0])
    xt, gt = np.linspace(1, -1, x.size), np.linspace(-0.5, 2, x.size)
    out = tcore.empty(0, dtype=tcore.float64)
    got = call_backward(tcore, key, tcore.from_numpy(g), tcore.from_numpy(x), grad_input=out)
    want = call_backward(torch, key, torch.from_numpy(g), torch.from_numpy(x), grad_input=torch.empty(0, dtype=torch.float64))
    assert got.data_ptr() == out.data_ptr()
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-15)
    with fwAD.dual_level():
        r = call_backward(tcore, key, fwAD.make_dual(tcore.from_numpy(g), tcore.from_numpy(gt)),
                          fwAD.make_dual(tcore.from_numpy(x), tcore.from_numpy(xt)))
        tangent = fwAD.unpack_dual(r).tangent.numpy()
    if key == "silu_backward":  # torch has no forward formula for it: the derivative by hand
        sg = 1 / (1 + np.exp(-x))
        want = gt * sg * (1 + x * (1 - sg)) + g * xt * sg * (1 - sg) * (2 + x * (1 - 2 * sg))
    else:
        with tfwAD.dual_level():
            r = call_backward(torch, key, tfwAD.make_dual(torch.from_numpy(g), torch.from_numpy(gt)),
                              tfwAD.make_dual(torch.from_numpy(x), torch.from_numpy(xt)))
            want = tfwAD.unpack_dual(r).tangent.numpy()
    np.testing.assert_allclose(tangent, want, rtol=1e-12, atol=1e-300)


# ------------------------------------------------------------------ gelu's backward kernel
def _gelu_reference(x, approximate):
    """(gelu'(x), the sum of its terms' magnitudes) to 40 digits."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    x = mpmath.mpf(float(x))
    if approximate == "none":
        a, b = mpmath.ncdf(x), x * mpmath.npdf(x)
    else:
        beta, kappa = mpmath.sqrt(2 / mpmath.pi), mpmath.mpf(0.044715)
        t = mpmath.tanh(beta * (x + kappa * x ** 3))
        a, b = (1 + t) / 2, x * (1 - t * t) * beta * (1 + 3 * kappa * x * x) / 2
    return float(a + b), float(abs(a) + abs(b))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gelu_backward_values(tcore, dtype, approximate):
    # against 40 digits, within 64 ulp of the terms' size (float32: e^(-x^2/2) of a rounded x^2 in
    # the tail); torch's exact form takes Phi as 1 + erf(x / sqrt 2), whose cancellation loses every
    # digit below x = -6 (gelu'(-8) comes out 0, -4e-14 in float64, 100% off): tcore's Phi is erfc's
    x = np.concatenate([np.linspace(-12, 12, 1201), [-0.0, 1e-30, -5.0, -7.5, 5.42]]).astype(dtype)
    g = tcore.ops.gelu_backward(tcore.ones(x.size, dtype=getattr(tcore, dtype)), tcore.from_numpy(x.copy()),
                                approximate=approximate).numpy()
    ref = np.array([_gelu_reference(v, approximate) for v in x])
    # the tanh form's 1 + tanh(u) cancels where tanh(u) rounds to -1 (as torch's): an absolute bound there
    scale = ref[:, 1] if approximate == "none" else np.maximum(ref[:, 1], 1.0)
    err = np.abs(g - ref[:, 0]) / np.maximum(scale, np.finfo(dtype).tiny)
    assert err.max() <= 64 * np.finfo(dtype).eps, (x[err.argmax()], g[err.argmax()], ref[err.argmax()])
    if approximate == "none":
        tail = (x < -6) & (x > -10)
        np.testing.assert_allclose(g[tail], ref[tail, 0], rtol=64 * np.finfo(dtype).eps)
    # NaN, infinities and signed zeros as torch's
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 40.0, -40.0], dtype)
    got = tcore.ops.gelu_backward(tcore.ones(7, dtype=getattr(tcore, dtype)), tcore.from_numpy(special.copy()),
                                  approximate=approximate).numpy()
    want = torch.ops.aten.gelu_backward(torch.ones(7, dtype=getattr(torch, dtype)), torch.from_numpy(special.copy()),
                                        approximate=approximate).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gelu_backward_reduced_floats(tcore, dtype, approximate):
    # computed in float32, rounded once: within one of the dtype's ulps of torch's (torch's erf
    # form rounds differently below -3)
    x = np.concatenate([np.linspace(-3, 8, 2001), [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)
    g = np.linspace(-2, 2, x.size).astype(np.float32)
    got = tcore.ops.gelu_backward(tcore.from_numpy(g).to(getattr(tcore, dtype)),
                                  tcore.from_numpy(x.copy()).to(getattr(tcore, dtype)), approximate=approximate)
    want = torch.ops.aten.gelu_backward(torch.from_numpy(g).to(getattr(torch, dtype)),
                                        torch.from_numpy(x.copy()).to(getattr(torch, dtype)), approximate=approximate)
    assert str(got.dtype).endswith(dtype)
    got, want = got.float().numpy(), want.float().numpy()
    step = 2.0 ** (-7 if dtype == "bfloat16" else -10)
    np.testing.assert_allclose(got, want, rtol=step, atol=1e-6)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_derivatives_and_tangents(tcore, approximate):
    # first derivatives through the kernel, second ones through gelu_double_backward (create_graph),
    # forward over reverse through gelu_backward's tangent formula, and grad_input=; against torch
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    x = np.array([-5.0, -3.0, -1.0, -0.5, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.9, 7.0])
    v, w = np.linspace(0.5, -1, x.size), np.linspace(-1.5, 2, x.size)
    results = []
    for lib in (tcore, torch):
        tx = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.gelu(tx, approximate=approximate)
        g, = lib.autograd.grad((y * lib.tensor(w)).sum(), tx, create_graph=True)
        gg, = lib.autograd.grad((g * lib.tensor(v)).sum(), tx)
        results.append((g.detach().numpy(), gg.numpy()))
    if approximate == "none":
        # torch's Phi as 1 + erf(x / sqrt 2) is 2e-12 off at x = -5 (cancellation): 40 digits there
        exact = np.array([_gelu_reference(xi, approximate)[0] for xi in x]) * w
        np.testing.assert_allclose(results[0][0], exact, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(results[0][0][1:], results[1][0][1:], rtol=1e-13, atol=1e-300)
    else:  # the tanh form's own cancellation (1 + tanh(u) near -1, torch's too): an absolute bound
        np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-13, atol=1e-14)
    # second derivatives: the tanh form's 1 - tanh(u)^2 cancels in the tails (both libraries' tanh
    # differ in the last bit there): an absolute bound for it
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-300 if approximate == "none" else 1e-14)
    gt, xt = np.linspace(-0.5, 2, x.size), np.linspace(1, -1, x.size)
    tangents = []
    for lib, ad in ((tcore, fwAD), (torch, tfwAD)):
        op = lib.ops.gelu_backward if lib is tcore else torch.ops.aten.gelu_backward
        with ad.dual_level():
            r = op(ad.make_dual(lib.tensor(w), lib.tensor(gt)), ad.make_dual(lib.tensor(x), lib.tensor(xt)),
                   approximate=approximate)
            tangents.append(ad.unpack_dual(r).tangent.numpy())
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-12, atol=1e-300 if approximate == "none" else 1e-14)
    out = tcore.empty(0, dtype=tcore.float64)
    tcore._C._nn.gelu_backward(tcore.tensor(w), tcore.tensor(x), approximate=approximate, grad_input=out)
    np.testing.assert_array_equal(out.numpy(), tcore._C._nn.gelu_backward(tcore.tensor(w), tcore.tensor(x),
                                                                          approximate=approximate).numpy())


def test_gelu_backward_errors(tcore):
    with pytest.raises(ValueError, match="approximate argument must be either none or tanh"):
        tcore.ops.gelu_backward(tcore.ones(2), tcore.ones(2), approximate="erf")
    with pytest.raises(TypeError):
        tcore.ops.gelu_backward(tcore.ones(2, dtype=tcore.int64), tcore.ones(2, dtype=tcore.int64))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_out_as_torch(tcore, dtype, approximate):
    """gelu's out= writes the functional's values into out (its own kernel: generated, it computed a
    new tensor and copied, twice the time); another dtype refused with torch's message, before any
    resize; an out of other sizes resized, one that overlaps self taken."""
    x = np.random.default_rng(3).standard_normal((5, 7)).astype(np.float32)
    t = tcore.tensor(x).to(getattr(tcore, dtype))
    out = tcore.empty(0, dtype=t.dtype)
    assert tcore._C._nn.gelu(t, approximate=approximate, out=out) is out
    want = tcore._C._nn.gelu(t, approximate=approximate)
    np.testing.assert_array_equal(out.float().numpy(), want.float().numpy())
    u = torch.tensor(x).to(getattr(torch, dtype))
    # (torch's float32 gelu cancels for negative x: test_gelu_backward_values)
    tol = dict(rtol=1e-6, atol=1e-6) if dtype in ("float32", "float64") else dict(rtol=1e-2, atol=1e-3)
    np.testing.assert_allclose(out.float().numpy(), TF.gelu(u, approximate=approximate).float().numpy(), **tol)
    strided = tcore.empty(7, 5, dtype=t.dtype).t()  # a transposed out keeps its strides (the scalar
    tcore._C._nn.gelu(t, approximate=approximate, out=strided)  # path: in double, rounded once)
    assert strided.stride() == (1, 5)
    np.testing.assert_allclose(strided.float().numpy(), want.float().numpy(), rtol=4e-7, atol=1e-30)
    inplace = t.clone()
    tcore._C._nn.gelu(inplace, approximate=approximate, out=inplace)
    np.testing.assert_array_equal(inplace.float().numpy(), want.float().numpy())
    other = "float64" if dtype != "float64" else "float32"
    for o_t, o_u in ((tcore.empty(3, dtype=getattr(tcore, other)), torch.empty(3, dtype=getattr(torch, other))),
                     (tcore.empty(3, dtype=tcore.int32), torch.empty(3, dtype=torch.int32))):
        with pytest.raises(RuntimeError) as theirs:
            torch._C._nn.gelu(u, approximate=approximate, out=o_u)
        with pytest.raises(RuntimeError, match="Found dtype .* but expected") as ours:
            tcore._C._nn.gelu(t, approximate=approximate, out=o_t)
        assert "Found dtype" in str(theirs.value)
        assert o_t.shape == (3,)  # refused before the resize
    with pytest.raises(ValueError, match="approximate argument must be either none or tanh"):
        tcore._C._nn.gelu(t, approximate="erf", out=out)


@pytest.mark.parametrize("name", ["gelu", "silu", "leaky_relu", "elu", "softplus"])
def test_backward_of_a_sum_takes_the_vector_path(tcore, name):
    # sum()'s gradient is one value expanded (stride 0): the backward kernels' vector runs take a
    # broadcast grad_output too (they fell back to libm element by element: gelu's 6.6x torch's time)
    x = np.random.default_rng(7).standard_normal(1003)
    for dtype in ("float64", "float32"):
        t = tcore.tensor(x.astype(dtype), requires_grad=True)
        getattr(tcore.nn.functional, name)(t).sum().backward()
        # the same bits as with a contiguous upstream gradient of ones (the vector code both ways)
        c = tcore.tensor(x.astype(dtype), requires_grad=True)
        getattr(tcore.nn.functional, name)(c).backward(tcore.ones(1003, dtype=getattr(tcore, dtype)))
        np.testing.assert_array_equal(t.grad.numpy(), c.grad.numpy())
        if name != "gelu":  # torch's gelu backward cancels for negative x (test_gelu_backward_values)
            u = torch.tensor(x.astype(dtype), requires_grad=True)
            getattr(TF, name)(u).sum().backward()
            # SLEEF at every capability against torch's best; silu's derivative crosses 0 near -1.28
            f32 = dtype == "float32"
            np.testing.assert_allclose(t.grad.numpy(), u.grad.numpy(), rtol=1e-6 if f32 else 1e-13,
                                       atol=1e-7 if f32 else 1e-15)
    # and a broadcast first operand of a kernel with vector runs (div's rounding modes)
    got = tcore.div(tcore.tensor(2.5).expand(1003), tcore.tensor(x), rounding_mode="floor")
    want = torch.div(torch.tensor(2.5).expand(1003), torch.tensor(x), rounding_mode="floor")
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16", "int64", "uint8"])
def test_threshold_operator_as_torch(tcore, dtype):
    """torch.threshold (an operator: value where x <= threshold), its in-place form and out=, for
    each dtype (an integer's threshold converted to it, 16-bit floats compared in float32)."""
    torch = pytest.importorskip("torch")
    vals = [0.0, 0.2999, 0.3, 0.31, 2.0, -1.0] if dtype[0] in "fb" else [0, 1, 2, 3]
    th, value = (0.3, -1.0) if dtype[0] in "fb" else (1.5, 7)
    for lib_fn in (lambda lib, x: lib.threshold(x, th, value), lambda lib, x: lib.threshold_(x * 1, th, value)):
        got = lib_fn(tcore, tcore.tensor(vals, dtype=getattr(tcore, dtype)))
        want = lib_fn(torch, torch.tensor(vals, dtype=getattr(torch, dtype)))
        assert got.tolist() == want.tolist() and str(got.dtype)[6:] == str(want.dtype)[6:]


def test_threshold_and_relu_pass_the_gradient_of_nan_as_torch(tcore):
    """threshold_backward: 0 where x <= threshold, the gradient elsewhere, NaN included (it compared
    x > threshold, which dropped NaN's gradient: relu's too)."""
    torch = pytest.importorskip("torch")
    vals = [float("nan"), -1.0, 0.5, 2.0]
    grads = []
    for lib in (torch, tcore):
        x = lib.tensor(vals, requires_grad=True)
        y = lib.tensor(vals, requires_grad=True)
        (lib.threshold(x, 0.5, 9.0).sum() + lib.relu(y).sum()).backward()
        grads.append((x.grad.tolist(), y.grad.tolist()))
    assert grads[0] == grads[1] == ([1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0])
    for lib in (torch, tcore):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            lib.threshold(lib.tensor([True]), 0, 1)
        with pytest.raises(RuntimeError, match="without overflow"):
            lib.threshold(lib.tensor([1.0]), 1e40, 0.0)
        assert lib.threshold(lib.tensor([1.0], dtype=lib.float16), 7e4, 0.0).tolist() == [0.0]  # fits float32
