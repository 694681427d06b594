"""Adaptive average and max pools of any output size (windows [floor(i n / o), ceil((i + 1) n / o))),
1-D, 2-D and 3-D, and the 1-D max/avg pools, against torch's: values, max indices (ties included:
the first in row-major order; NaNs), gradients (a max pool's to its one chosen element), layouts,
modules' reprs and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402

CASES = [
    ("adaptive_avg_pool2d", (2, 3, 13, 11), ((5, 7),), {}),
    ("adaptive_avg_pool2d", (3, 13, 11), ((None, 4),), {}),
    ("adaptive_avg_pool2d", (2, 3, 14, 14), (7,), {}),
    ("adaptive_avg_pool2d", (2, 3, 5, 5), (8,), {}),  # (more outputs than inputs: windows overlap)
    ("adaptive_avg_pool2d", (2, 3, 6, 6), (0,), {}),
    ("adaptive_avg_pool1d", (2, 3, 13), (5,), {}),
    ("adaptive_avg_pool3d", (2, 3, 7, 6, 5), ((3, 4, 2),), {}),
    ("adaptive_max_pool2d", (2, 3, 13, 11), ((5, 7),), dict(return_indices=True)),
    ("adaptive_max_pool2d", (3, 9, 8), (4,), dict(return_indices=True)),
    ("adaptive_max_pool2d", (2, 3, 5, 5), (8,), dict(return_indices=True)),
    ("adaptive_max_pool2d", (2, 3, 6, 7), (1,), {}),
    ("adaptive_max_pool1d", (2, 3, 13), (5,), dict(return_indices=True)),
    ("adaptive_max_pool3d", (2, 2, 7, 6, 5), ((3, 4, 2),), dict(return_indices=True)),
    ("max_pool1d", (2, 3, 13), (3, 2, 1), dict(return_indices=True)),
    ("max_pool1d", (3, 13), (3,), dict(ceil_mode=True)),
    ("avg_pool1d", (2, 3, 13), (3, 2, 1), {}),
    ("avg_pool1d", (3, 13), (4,), dict(ceil_mode=True, count_include_pad=False)),
]


@pytest.mark.parametrize("name,shape,args,kw", CASES, ids=lambda v: str(v).replace(" ", ""))
@pytest.mark.parametrize("values", ["distinct", "ties", "nans"])
def test_pools_as_torch(name, shape, args, kw, values):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    if values != "distinct":
        x = np.round(x * 2)  # (few values: many equal maxima in a window)
    if values == "nans":  # (a NaN is a window's maximum: torch's adaptive index is its last NaN's)
        x[rng.random(shape) < 0.2] = np.nan
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    want = getattr(torch.nn.functional, name)(xt, *args, **kw)
    got = getattr(tcore.nn.functional, name)(xc, *args, **kw)
    if isinstance(want, tuple):
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
        assert str(got[1].dtype) == "tcore.int64"
        want, got = want[0], got[0]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-14, atol=1e-15)
    if want.numel() == 0:
        return  # (torch's backward refuses an empty grad_output)
    up = rng.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(up))
    got.backward(tcore.tensor(up))
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ["adaptive_avg_pool2d", "adaptive_max_pool2d"])
@pytest.mark.parametrize("out", [2, 3, (4, 5)])
def test_adaptive_pools_of_channels_last_stay_channels_last(name, out):
    x = np.random.default_rng(2).standard_normal((2, 5, 9, 7)).astype(np.float32)
    got = getattr(tcore.nn.functional, name)(tcore.tensor(x).contiguous(memory_format=tcore.channels_last), out)
    want = getattr(torch.nn.functional, name)(torch.tensor(x).contiguous(memory_format=torch.channels_last), out)
    assert tuple(got.stride()) == tuple(want.stride())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


MODULES = [
    lambda m: m.nn.MaxPool1d(3, 2, 1), lambda m: m.nn.AvgPool1d(3), lambda m: m.nn.AvgPool1d(3, 2, 1, True),
    lambda m: m.nn.AdaptiveAvgPool1d(5), lambda m: m.nn.AdaptiveAvgPool3d((2, None, 3)),
    lambda m: m.nn.AdaptiveMaxPool2d((5, 7), True), lambda m: m.nn.AdaptiveMaxPool1d(3),
    lambda m: m.nn.AdaptiveMaxPool3d(2),
]


@pytest.mark.parametrize("i", range(len(MODULES)))
def test_pool_modules_as_torch(i):
    tm, cm = MODULES[i](torch), MODULES[i](tcore)
    assert repr(cm) == repr(tm)
    ndim = 5 if "3d" in repr(tm) else 3
    x = np.random.default_rng(i).standard_normal((2, 3, 8, 7, 6)[:ndim])
    want, got = tm(torch.tensor(x)), cm(tcore.tensor(x))
    want, got = (want[0], got[0]) if isinstance(want, tuple) else (want, got)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)


ERRORS = [
    lambda m: m.nn.functional.adaptive_avg_pool2d(m.zeros(2, 3), 3),
    lambda m: m.nn.functional.adaptive_avg_pool2d(m.zeros(2, 0, 3), 3),
    lambda m: m.nn.functional.adaptive_max_pool2d(m.zeros(2, 3), 3),
    lambda m: m.nn.functional.adaptive_avg_pool1d(m.zeros(3), 3),
    lambda m: m.nn.functional.adaptive_max_pool1d(m.zeros(2, 3, 4, 5), 3),
    lambda m: m.nn.functional.adaptive_avg_pool3d(m.zeros(2, 3), 3),
    lambda m: m.nn.functional.adaptive_avg_pool2d(m.zeros(1, 3, 4), (2, -1)),
    lambda m: m.nn.functional.max_pool1d(m.zeros(2, 3, 4, 5), 2),
    lambda m: m.nn.functional.avg_pool1d(m.zeros(4), 2),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_pool_errors_as_torch(i):
    with pytest.raises(RuntimeError) as want:
        ERRORS[i](torch)
    with pytest.raises(RuntimeError) as got:
        ERRORS[i](tcore)
    assert str(got.value) == str(want.value)


POOL3D = [
    ("max_pool3d", (2, 3, 6, 7, 5), dict(kernel_size=2)),
    ("max_pool3d", (2, 3, 6, 7, 5), dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
    ("max_pool3d", (3, 7, 6, 5), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), dilation=(2, 1, 2), ceil_mode=True,
                                      return_indices=True)),
    ("max_pool3d", (1, 2, 5, 5, 5), dict(kernel_size=2, stride=2, padding=1, ceil_mode=True, return_indices=True)),
    ("avg_pool3d", (2, 3, 6, 7, 5), dict(kernel_size=2)),
    ("avg_pool3d", (2, 3, 6, 7, 5), dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool3d", (2, 3, 6, 7, 5), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ("avg_pool3d", (1, 2, 5, 5, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool3d", (1, 2, 5, 5, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool3d", (2, 5, 6, 4), dict(kernel_size=2, divisor_override=3)),
    ("lp_pool3d", (1, 2, 4, 6, 4), dict(norm_type=2.0, kernel_size=2)),
]


@pytest.mark.parametrize("name,shape,kw", POOL3D, ids=lambda v: str(v).replace(" ", ""))
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_3d_pools_as_torch(name, shape, kw, ties):
    """(torch's kernels against tcore's windows of unfold views: values, the first maximum's flat
    index, gradients to that one element or spread over the window)"""
    x = np.random.default_rng(1).standard_normal(shape)
    x = np.round(x) if ties else x
    x = np.abs(x) + 0.5 if name == "lp_pool3d" else x
    xt, xc = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    want, got = getattr(torch.nn.functional, name)(xt, **kw), getattr(tcore.nn.functional, name)(xc, **kw)
    if isinstance(want, tuple):
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
        want, got = want[0], got[0]
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-13, atol=1e-15)
    up = np.random.default_rng(2).standard_normal(tuple(want.shape))
    want.backward(torch.tensor(up))
    got.backward(tcore.tensor(up))
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_3d_pool_modules_and_errors_as_torch():
    for make in (lambda m: m.nn.MaxPool3d(2), lambda m: m.nn.AvgPool3d(2),
                 lambda m: m.nn.AvgPool3d((1, 2, 2), 1, 0, True, False, 2), lambda m: m.nn.MaxUnpool3d(2),
                 lambda m: m.nn.LPPool3d(2, 2)):
        assert repr(make(tcore)) == repr(make(torch))
    x = np.random.default_rng(3).standard_normal((1, 2, 4, 6, 4))
    vt, it = torch.nn.functional.max_pool3d(torch.tensor(x), 2, return_indices=True)
    vc, ic = tcore.nn.MaxPool3d(2, return_indices=True)(tcore.tensor(x))
    np.testing.assert_array_equal(tcore.nn.MaxUnpool3d(2)(vc, ic).numpy(),
                                  torch.nn.functional.max_unpool3d(vt, it, 2).numpy())
    for call in (lambda m: m.nn.functional.max_pool3d(m.zeros(2, 3, 4), 2),
                 lambda m: m.nn.functional.max_pool3d(m.zeros(1, 1, 4, 4, 4), 2, padding=2)):
        with pytest.raises(RuntimeError) as want:
            call(torch)
        with pytest.raises(RuntimeError) as got:
            call(tcore)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name,shape", [("adaptive_max_pool2d", (0, 3, 4, 4)), ("adaptive_max_pool2d", (0, 4, 4)),
                                        ("adaptive_max_pool1d", (0, 3, 4)), ("adaptive_max_pool3d", (0, 2, 4, 4, 4)),
                                        ("adaptive_avg_pool2d", (0, 4, 4))])
def test_empty_leading_dim_as_torch(name, shape):
    """(dim 0 may be empty, batched or not; the others may not)"""
    want = getattr(torch.nn.functional, name)(torch.zeros(shape), 2)
    got = getattr(tcore.nn.functional, name)(tcore.zeros(*shape), 2)
    assert tuple(got.shape) == tuple(want.shape)
