"""Random tensors shaped like a tensor that requires grad (randn_like(std) in a VAE) and torch.normal's
tensor forms, as torch's: no gradient flows through the draws (normal's is zero), the shapes
broadcast, the statistics hold, torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")


def test_like_factories_of_a_tensor_that_requires_grad_as_torch():
    for lib in (torch, tcore):
        x = lib.full([3], 0.5, requires_grad=True)
        assert [f(x).requires_grad for f in (lib.rand_like, lib.randn_like)] == [False, False]
        assert not lib.randint_like(x, 5).requires_grad and not lib.randint_like(x, 2, 5).requires_grad
        mu, log_var = x * 2, x * 0.1
        z = mu + lib.randn_like(mu) * (0.5 * log_var).exp()  # (the reparameterization trick)
        z.sum().backward()
        assert x.grad is not None and x.grad.shape == (3,)


def test_normal_tensor_forms_as_torch():
    for lib in (torch, tcore):
        x = lib.full([3], 0.5, requires_grad=True)
        y = lib.normal(x, 2.0)
        assert y.requires_grad
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
        assert tuple(lib.normal(lib.zeros(2, 1), lib.ones(1, 3)).shape) == (2, 3)
        assert tuple(lib.normal(0.0, lib.ones(4)).shape) == (4,)
        assert tuple(lib.normal(1.0, 2.0, (2, 5)).shape) == (2, 5)
        with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
            lib.normal(x, -1.0)
        with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
            lib.normal(x, -lib.ones(3))
    tcore.manual_seed(0)
    draws = tcore.normal(tcore.full([200000], 3.0, dtype=tcore.float64), 2.0).numpy()
    assert abs(draws.mean() - 3.0) < 6 * 2.0 / np.sqrt(draws.size) and abs(draws.std() - 2.0) < 0.02
    spread = tcore.normal(tcore.zeros(100000, dtype=tcore.float64), tcore.tensor([0.5]).double()).numpy()
    assert abs(spread.std() - 0.5) < 0.01


def test_random__overloads_bounds_and_errors_as_torch():
    """random_(), random_(to), random_(from, to), random_(from, None): every draw within torch's
    bounds for each dtype (an integral dtype's range; a floating one's [-(2^digits), 2^digits],
    beyond which torch warns; float16's finite range), torch's errors and warnings."""
    import warnings

    def run(lib):
        out = []
        for args in [(), (10,), (-3, 3), (5, None), (0, 300), (-200, 0), (3, 1), (0,), (2**60,), (2**62, None)]:
            for dt in ("int8", "uint8", "int32", "int64", "bool", "float16", "bfloat16", "float32", "float64"):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        x = lib.empty(4000, dtype=getattr(lib, dt)).random_(*args)
                        lo = args[0] if len(args) == 2 else 0
                        hi = args[-1] - 1 if args and args[-1] is not None else None
                        ok = bool((x >= lo).all()) and (hi is None or bool((x.double() <= hi).all()))
                        spread = len(set(x.tolist())) > 1 if (hi is None or hi > lo) else True
                        result = ("ok", ok, spread)
                    except (RuntimeError, ValueError, TypeError) as e:
                        result = ("error", str(e).split(" for ")[0])
                warned = [str(w.message).split(". Due")[0] for w in caught]
                if warned and result[0] == "ok":  # (beyond the exact integers: how draws round is torch's detail)
                    result = ("ok", None, None)
                out.append((args, dt, result, warned))
        return out

    assert run(tcore) == run(torch)
