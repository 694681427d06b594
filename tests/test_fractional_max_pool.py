"""fractional_max_pool2d/3d and FractionalMaxPool2d/3d against torch, given the same random
samples: outputs, indices and gradients bit for bit (windows overlapping, NaN, unbatched, float32),
and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

CASES = [  # (k, input shape, kernel, output_size, output_ratio)
    (2, (2, 3, 9, 11), 3, (4, 5), None), (2, (1, 2, 7, 7), (2, 3), None, (0.5, 0.6)), (2, (3, 8, 8), 2, 3, None),
    (3, (1, 2, 6, 7, 8), 2, (3, 3, 4), None), (2, (1, 1, 5, 5), 5, 1, None), (2, (1, 1, 6, 6), 2, 5, None),
]


@pytest.mark.parametrize("k,shape,kernel,size,ratio", CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fractional_max_pool_as_torch(k, shape, kernel, size, ratio, dtype):
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[::7] = x.reshape(-1)[3]  # (ties)
    x.reshape(-1)[5] = np.nan
    batch = shape[0] if len(shape) == k + 2 else 1
    samples = rng.random((batch, shape[-k - 1], k)).astype(dtype)
    results = []
    for lib in (torch, tcore):
        a = lib.tensor(x, requires_grad=True)
        pool = getattr(lib.nn.functional, f"fractional_max_pool{k}d")
        out, idx = pool(a, kernel, output_size=size, output_ratio=ratio, return_indices=True,
                        _random_samples=lib.tensor(samples))
        out.backward(lib.ones(tuple(out.shape), dtype=out.dtype))
        results.append((out.detach().numpy(), idx.numpy(), a.grad.numpy()))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)


def test_fractional_max_pool_modules_and_errors_as_torch():
    messages = []
    for lib in (torch, tcore):
        m = lib.nn.FractionalMaxPool3d(2, output_size=(2, 3, 3), return_indices=True)
        shapes = [tuple(t.shape) for t in m(lib.ones(2, 3, 4, 5, 6))]
        errors = []
        for call in (lambda: lib.nn.FractionalMaxPool2d(3),
                     lambda: lib.nn.FractionalMaxPool2d(3, output_size=2, output_ratio=0.5),
                     lambda: lib.nn.FractionalMaxPool2d(3, output_ratio=1.5),
                     lambda: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 7, 7), 3),
                     lambda: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 7, 7), 3, output_size=7),
                     lambda: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 7, 7), 3, output_size=2,
                                                                      _random_samples=lib.rand(1, 3, 2))):
            with pytest.raises(Exception) as e:
                call()
            errors.append((type(e.value).__name__, str(e.value)))
        messages.append((shapes, repr(lib.nn.FractionalMaxPool2d(2, output_size=3)).split(".")[-1], errors))
    assert messages[1] == messages[0]
