"""log10, acosh, asinh, atanh, erfc, erfinv (native/cpu/UnaryOps.cpp; CUDA kernels beside the
others) against torch 2.13: values over their domains and edges (float32 and float64, integers
promoted), the in-place and out= forms, first and second derivatives, tangents."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

DOMAINS = {
    "log10": np.concatenate([np.logspace(-300, 300, 601), [0.0, -1.0, np.inf, np.nan, 1e-320]]),
    "acosh": np.concatenate([1 + np.logspace(-12, 6, 400), [1.0, 0.5, -2.0, np.inf, np.nan]]),
    "asinh": np.concatenate([np.linspace(-1e6, 1e6, 401), np.linspace(-1, 1, 401), [0.0, -0.0, np.inf, -np.inf, np.nan]]),
    "atanh": np.concatenate([np.linspace(-0.999999, 0.999999, 801), [1.0, -1.0, 2.0, 0.0, -0.0, np.nan]]),
    "erfc": np.concatenate([np.linspace(-30, 30, 1201), [np.inf, -np.inf, np.nan, 0.0]]),
    "erfinv": np.concatenate([np.linspace(-0.999999, 0.999999, 2001), 1 - np.logspace(-16, -1, 200),
                              -1 + np.logspace(-16, -1, 50), [1.0, -1.0, 1.5, -2.0, 0.0, -0.0, np.nan, 1e-300]]),
}
NAMES = sorted(DOMAINS)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", NAMES)
def test_values_as_torch(name, dtype):
    x = DOMAINS[name]
    ours = getattr(tcore, name)(tcore.tensor(x, dtype=getattr(tcore, dtype))).numpy()
    theirs = getattr(torch, name)(torch.tensor(x, dtype=getattr(torch, dtype))).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    finite = np.isfinite(theirs)
    np.testing.assert_array_equal(ours[~finite & ~np.isnan(theirs)], theirs[~finite & ~np.isnan(theirs)])
    zero = theirs == 0  # signed zeros as torch's (erfinv(-0) was +0)
    np.testing.assert_array_equal(np.signbit(ours[zero]), np.signbit(theirs[zero]), err_msg=name)
    # within 2 ulp of torch's (float32: its own float32 libm or SLEEF; float64: libm)
    spacing = np.spacing(np.abs(theirs[finite]).astype(ours.dtype))
    spacing[spacing == 0] = np.finfo(ours.dtype).smallest_subnormal
    assert np.max(np.abs(ours[finite] - theirs[finite]) / spacing) <= 2, name


@pytest.mark.parametrize("name", NAMES)
def test_integers_promote_and_in_place_and_out_as_torch(name):
    ints = [0, 1, 2] if name not in ("acosh",) else [1, 2, 3]
    assert getattr(tcore, name)(tcore.tensor(ints)).dtype == tcore.float32
    x = DOMAINS[name][:50].copy()
    t = tcore.tensor(x)
    expected = getattr(tcore, name)(t).numpy()
    assert getattr(t, name + "_")() is t
    np.testing.assert_array_equal(t.numpy(), expected)
    out = tcore.empty(0, dtype=tcore.float64)
    assert getattr(tcore, name)(tcore.tensor(x), out=out) is out
    np.testing.assert_array_equal(out.numpy(), expected)
    with pytest.raises(RuntimeError):
        getattr(tcore, name)(tcore.tensor(x), out=tcore.empty(0, dtype=tcore.int64))


INTERIOR = {"log10": (0.5, 3.0), "acosh": (1.5, 4.0), "asinh": (-3.0, 3.0), "atanh": (-0.9, 0.9),
            "erfc": (-2.0, 2.0), "erfinv": (-0.95, 0.95)}


@pytest.mark.parametrize("name", NAMES)
def test_derivatives_and_tangents_as_torch(name):
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    lo, hi = INTERIOR[name]
    x = np.linspace(lo, hi, 11)
    w = np.linspace(-1, 1, 11)
    results = []
    for lib, ad in ((tcore, fwAD), (torch, tfwAD)):
        t = lib.tensor(x, requires_grad=True)
        g, = lib.autograd.grad((getattr(lib, name)(t) * lib.tensor(w)).sum(), t, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), t)
        with ad.dual_level():
            d = ad.make_dual(lib.tensor(x), lib.tensor(w))
            tangent = ad.unpack_dual(getattr(lib, name)(d)).tangent
        results.append((g.detach().numpy(), gg.numpy(), tangent.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
