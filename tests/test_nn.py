"""The nn operators and the indexing operators they are built from, against numpy
references written here (explicit loops for convolution and pooling): values for a
table of configurations, gradients against finite differences of the forward, and the
errors bad arguments raise."""
from __future__ import annotations

import math

import numpy as np
import pytest

from test_autograd import numeric_grad


# ------------------------------------------------------------------ numpy references
def np_pad(x, ph, pw, value=0.0, extra_h=0, extra_w=0):
    return np.pad(x, ((0, 0), (0, 0), (ph, ph + extra_h), (pw, pw + extra_w)), constant_values=value)


def np_conv2d(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    xp = np_pad(x, *padding)
    n, c, h, wd = xp.shape
    o, cg, kh, kw = w.shape
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * stride[0]:i * stride[0] + dilation[0] * (kh - 1) + 1:dilation[0],
                           j * stride[1]:j * stride[1] + dilation[1] * (kw - 1) + 1:dilation[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    if b is not None:
        out += b[None, :, None, None]
    return out


def _pool_size(n, k, p, s, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def np_pool(x, kind, k, s, p, d=(1, 1), ceil=False, count_include_pad=True, divisor=None):
    n, c, h, w = x.shape
    oh, ow = _pool_size(h, k[0], p[0], s[0], d[0], ceil), _pool_size(w, k[1], p[1], s[1], d[1], ceil)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = [i * s[0] - p[0] + a * d[0] for a in range(k[0])]
            cols = [j * s[1] - p[1] + b * d[1] for b in range(k[1])]
            inside = [(r, q) for r in rows for q in cols if 0 <= r < h and 0 <= q < w]
            vals = np.stack([x[:, :, r, q] for r, q in inside], -1)
            if kind == "max":
                out[:, :, i, j] = vals.max(-1)
            else:
                if divisor:
                    den = divisor
                elif count_include_pad:  # the window clipped to the padded input (not ceil_mode's extra)
                    r0, r1 = i * s[0] - p[0], min(i * s[0] - p[0] + k[0], h + p[0])
                    c0, c1 = j * s[1] - p[1], min(j * s[1] - p[1] + k[1], w + p[1])
                    den = (r1 - r0) * (c1 - c0)
                else:
                    den = len(inside)
                out[:, :, i, j] = vals.sum(-1) / den
    return out


def np_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def np_cross_entropy(x, t, weight=None, reduction="mean", ignore_index=-100, smoothing=0.0):
    lp = np_log_softmax(x, 1)
    c = x.shape[1]
    lp2 = np.moveaxis(lp, 1, -1).reshape(-1, c)
    t2 = t.reshape(-1)
    w = np.ones(c) if weight is None else weight
    valid = t2 != ignore_index
    safe = np.where(valid, t2, 0)
    wt = w[safe] * valid
    nll = -lp2[np.arange(len(t2)), safe] * wt
    smooth = -(lp2 * w).sum(1) * valid
    if reduction == "none":
        return ((1 - smoothing) * nll + smoothing / c * smooth).reshape(t.shape)
    if reduction == "sum":
        return (1 - smoothing) * nll.sum() + smoothing / c * smooth.sum()
    return ((1 - smoothing) * nll.sum() + smoothing / c * smooth.sum()) / wt.sum()


REDUCTION = {"none": 0, "mean": 1, "sum": 2}


# ------------------------------------------------------------------ convolution and pooling
CONV = [
    dict(x=(2, 3, 7, 6), w=(4, 3, 3, 2), bias=True, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=1),
    dict(x=(1, 4, 5, 5), w=(6, 2, 3, 3), bias=False, stride=(1, 1), padding=(1, 1), dilation=(1, 1), groups=2),
    dict(x=(2, 1, 8, 8), w=(3, 1, 5, 5), bias=True, stride=(3, 3), padding=(2, 2), dilation=(1, 1), groups=1),
    dict(x=(6, 6, 6), w=(6, 1, 3, 3), bias=True, stride=(1, 1), padding=(0, 0), dilation=(2, 2), groups=6),
]


@pytest.mark.parametrize("cfg", CONV, ids=lambda c: f"x{c['x']}-w{c['w']}-g{c['groups']}")
def test_conv2d_like_numpy(tcore, cfg):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(cfg["x"]), rng.standard_normal(cfg["w"])
    b = rng.standard_normal(cfg["w"][0]) if cfg["bias"] else None
    batched = x if x.ndim == 4 else x[None]
    expected = np_conv2d(batched, w, b, cfg["stride"], cfg["padding"], cfg["dilation"], cfg["groups"])
    if x.ndim == 3:
        expected = expected[0]
    got = tcore.conv2d(tcore.tensor(x), tcore.tensor(w), tcore.tensor(b) if b is not None else None,
                       stride=list(cfg["stride"]), padding=list(cfg["padding"]), dilation=list(cfg["dilation"]),
                       groups=cfg["groups"])
    assert got.shape == expected.shape and got.is_contiguous()
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    # float32, and one int standing for both dims
    got32 = tcore.conv2d(tcore.tensor(x.astype(np.float32)), tcore.tensor(w.astype(np.float32)),
                         stride=cfg["stride"][0], padding=cfg["padding"][0], dilation=cfg["dilation"][0],
                         groups=cfg["groups"])
    if cfg["stride"][0] == cfg["stride"][1] and cfg["padding"][0] == cfg["padding"][1] and \
            cfg["dilation"][0] == cfg["dilation"][1]:
        ref = expected - (b[:, None, None] if b is not None else 0)
        np.testing.assert_allclose(got32.numpy(), ref, rtol=1e-4, atol=1e-4)


POOLS = [
    dict(k=(3, 3), s=(2, 2), p=(1, 1), d=(1, 1), ceil=True, include=True, divisor=None),
    dict(k=(2, 3), s=(1, 2), p=(0, 0), d=(2, 1), ceil=False, include=True, divisor=None),
    dict(k=(3, 3), s=(2, 2), p=(1, 1), d=(1, 1), ceil=True, include=False, divisor=None),
    dict(k=(2, 2), s=(2, 2), p=(0, 0), d=(1, 1), ceil=False, include=True, divisor=3),
    dict(k=(3, 2), s=(3, 3), p=(1, 1), d=(1, 1), ceil=True, include=True, divisor=None),
]


@pytest.mark.parametrize("cfg", POOLS, ids=str)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pools_like_numpy(tcore, cfg, kind):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 7, 8))
    if kind == "max":
        got = tcore.max_pool2d(tcore.tensor(x), list(cfg["k"]), list(cfg["s"]), list(cfg["p"]), list(cfg["d"]),
                               ceil_mode=cfg["ceil"])
        expected = np_pool(x, "max", cfg["k"], cfg["s"], cfg["p"], cfg["d"], cfg["ceil"])
    else:
        if cfg["d"] != (1, 1):
            pytest.skip("avg_pool2d has no dilation")
        got = tcore._C._nn.avg_pool2d(tcore.tensor(x), list(cfg["k"]), list(cfg["s"]), list(cfg["p"]), ceil_mode=cfg["ceil"],
                               count_include_pad=cfg["include"], divisor_override=cfg["divisor"])
        expected = np_pool(x, "avg", cfg["k"], cfg["s"], cfg["p"], (1, 1), cfg["ceil"], cfg["include"], cfg["divisor"])
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-12)
    unbatched = (tcore.max_pool2d if kind == "max" else tcore._C._nn.avg_pool2d)(tcore.tensor(x[0]), 2)
    assert unbatched.shape == (3, 3, 4)


def test_pool_defaults_and_errors(tcore):
    x = tcore.tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    assert tcore.max_pool2d(x, 2).tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]  # stride defaults to the kernel
    assert tcore._C._nn.avg_pool2d(x, [2, 2]).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    with pytest.raises(ValueError, match="pad should be at most half of effective kernel size"):
        tcore.max_pool2d(x, 2, 1, 2)
    with pytest.raises(ValueError, match="Output size is too small"):
        tcore.max_pool2d(x, 5)
    with pytest.raises(ValueError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input"):
        tcore._C._nn.avg_pool2d(tcore.ones(4, 4), 2)
    with pytest.raises(TypeError, match="floating point"):
        tcore.max_pool2d(tcore.ones(1, 1, 4, 4, dtype=tcore.int64), 2)
    with pytest.raises(ValueError, match="kernel_size must be a single int or a pair of ints"):
        tcore.max_pool2d(x, [2, 2, 2])


def test_conv2d_errors(tcore):
    x, w = tcore.ones(1, 3, 5, 5), tcore.ones(4, 3, 3, 3)
    with pytest.raises(ValueError, match=r"Given groups=1, weight of size \[4, 3, 3, 3\], expected input\[1, 2, 5, 5\] "
                                         r"to have 3 channels, but got 2 channels instead"):
        tcore.conv2d(tcore.ones(1, 2, 5, 5), w)
    with pytest.raises(ValueError, match="Kernel size can't be greater than actual input size"):
        tcore.conv2d(tcore.ones(1, 3, 2, 2), w)
    with pytest.raises(ValueError, match="expected bias to be 1-dimensional with 4 elements"):
        tcore.conv2d(x, w, tcore.ones(3))
    with pytest.raises(ValueError, match="non-positive stride is not supported"):
        tcore.conv2d(x, w, stride=0)
    with pytest.raises(ValueError, match="weight should be 4-D"):
        tcore.conv2d(x, tcore.ones(4, 3, 3))


# ------------------------------------------------------------------ losses, embedding, normalization
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4, 2), (4,)], ids=str)
def test_cross_entropy_and_nll_like_numpy(tcore, reduction, weighted, smoothing, shape):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    c = shape[1] if len(shape) > 1 else shape[0]
    t = rng.integers(0, c, (shape[0],) + shape[2:]) if len(shape) > 1 else np.array(c - 1)
    if t.ndim:
        t.reshape(-1)[1] = -100  # one ignored sample
    weight = rng.random(c) + 0.5 if weighted else None
    xb, tb = (x, t) if len(shape) > 1 else (x[None], t[None])
    expected = np_cross_entropy(xb, tb, weight, reduction, smoothing=smoothing)
    if len(shape) == 1 and reduction == "none":
        expected = expected[0]
    W = tcore.tensor(weight) if weighted else None
    got = tcore.cross_entropy(tcore.tensor(x), tcore.tensor(t), W, REDUCTION[reduction], label_smoothing=smoothing)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    if smoothing == 0.0:
        nll = tcore._C._nn.nll_loss(tcore.log_softmax(tcore.tensor(x), 1 if len(shape) > 1 else 0), tcore.tensor(t), W,
                             REDUCTION[reduction])
        np.testing.assert_allclose(nll.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_cross_entropy_probability_targets(tcore):
    rng = np.random.default_rng(4)
    x, p = rng.standard_normal((5, 4)), rng.random((5, 4))
    p /= p.sum(1, keepdims=True)
    lp = np_log_softmax(x, 1)
    for smoothing in (0.0, 0.1):
        q = p * (1 - smoothing) + smoothing / 4
        np.testing.assert_allclose(tcore.cross_entropy(tcore.tensor(x), tcore.tensor(p), label_smoothing=smoothing).item(),
                                   -(q * lp).sum(1).mean(), rtol=1e-12)
    np.testing.assert_allclose(tcore.cross_entropy(tcore.tensor(x), tcore.tensor(p), reduction=0).numpy(),
                               -(p * lp).sum(1), rtol=1e-12)


def test_loss_errors(tcore):
    x = tcore.randn(3, 4)
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        tcore.cross_entropy(x, tcore.tensor([0, 7, 1]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"):
        tcore._C._nn.nll_loss(x, tcore.tensor([0, 1]))
    with pytest.raises(TypeError, match="expected target of dtype int64"):
        tcore._C._nn.nll_loss(x, tcore.tensor([0.0, 1.0, 2.0]).int())
    with pytest.raises(ValueError, match="weight tensor should be defined either for all 4 classes"):
        tcore.cross_entropy(x, tcore.tensor([0, 1, 2]), tcore.ones(3))
    with pytest.raises(ValueError, match="label_smoothing must be between 0.0 and 1.0"):
        tcore.cross_entropy(x, tcore.tensor([0, 1, 2]), label_smoothing=1.5)
    with pytest.raises(ValueError, match="reduction must be 0 \\(none\\), 1 \\(mean\\) or 2 \\(sum\\)"):
        tcore._C._nn.nll_loss(x, tcore.tensor([0, 1, 2]), reduction=5)


def test_embedding(tcore):
    rng = np.random.default_rng(5)
    w = rng.standard_normal((10, 3))
    idx = np.array([[1, 2, 0], [9, 0, 0]])
    got = tcore.embedding(tcore.tensor(w), tcore.tensor(idx))
    np.testing.assert_array_equal(got.numpy(), w[idx])
    np.testing.assert_array_equal(tcore.embedding(tcore.tensor(w), tcore.tensor(idx).int()).numpy(), w[idx])
    W = tcore.tensor(w, requires_grad=True)
    g = rng.standard_normal((2, 3, 3))
    W.grad is None
    tcore.embedding(W, tcore.tensor(idx), padding_idx=0).backward(tcore.tensor(g))
    expected = np.zeros_like(w)
    np.add.at(expected, idx.reshape(-1), g.reshape(-1, 3))
    expected[0] = 0  # padding_idx gets no gradient
    np.testing.assert_allclose(W.grad.numpy(), expected, rtol=1e-12)
    W2 = tcore.tensor(w, requires_grad=True)
    tcore.embedding(W2, tcore.tensor(idx), scale_grad_by_freq=True).backward(tcore.tensor(g))
    counts = np.bincount(idx.reshape(-1), minlength=10)
    scaled = np.zeros_like(w)
    np.add.at(scaled, idx.reshape(-1), g.reshape(-1, 3) / counts[idx.reshape(-1)][:, None])
    np.testing.assert_allclose(W2.grad.numpy(), scaled, rtol=1e-12)
    with pytest.raises(IndexError, match="index 10 is out of bounds for dimension 0 with size 10"):
        tcore.embedding(tcore.tensor(w), tcore.tensor([10]))
    with pytest.raises(TypeError, match="'indices' to have one of the following scalar types: Long, Int"):
        tcore.embedding(tcore.tensor(w), tcore.tensor([1.0]))


@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm(tcore, affine):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 4, 5))
    w, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    mean = x.mean(axis=(2, 3), keepdims=True)
    var = x.var(axis=(2, 3), keepdims=True)
    expected = (x - mean) / np.sqrt(var + 1e-5)
    if affine:
        expected = expected * w + b
    got = tcore.layer_norm(tcore.tensor(x), [4, 5], tcore.tensor(w) if affine else None,
                           tcore.tensor(b) if affine else None)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match=r"Given normalized_shape=\[3\], expected input with shape \[\*, 3\], but got "
                                         r"input of size\[2, 3, 4, 5\]"):
        tcore.layer_norm(tcore.tensor(x), [3])


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("shape,normalized", [((4, 7), [7]), ((2, 3, 5), [3, 5]), ((6,), [6])], ids=str)
def test_rms_norm_like_torch(tcore, dtype, shape, normalized):
    """nn.functional.rms_norm and nn.RMSNorm against torch's: values, gradients of input and
    weight, the default eps (the compute type's epsilon), float16/bfloat16 in float32, the errors;
    and float32 rows past 1.8e19, where torch's gives 0 and float64 gives the answer."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape))
    x, w, g = rng.standard_normal(shape), rng.standard_normal(normalized), rng.standard_normal(shape)
    x[..., 0] = 0 if len(shape) == 1 else x[..., 0]
    tol = {"float64": 1e-12, "float32": 1e-5, "bfloat16": 2.0**-7, "float16": 2.0**-10}[dtype]
    for eps in (None, 0.1):
        for weight in (False, True):
            tx = tcore.tensor(x).to(getattr(tcore, dtype)).requires_grad_()
            tw = tcore.tensor(w).to(getattr(tcore, dtype)).requires_grad_()
            px = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
            pw = torch.tensor(w).to(getattr(torch, dtype)).requires_grad_()
            got = tcore.nn.functional.rms_norm(tx, normalized, tw if weight else None, eps)
            want = torch.nn.functional.rms_norm(px, normalized, pw if weight else None, eps)
            assert str(got.dtype).endswith(dtype)
            np.testing.assert_allclose(got.double().detach().numpy(), want.double().detach().numpy(),
                                       rtol=tol, atol=tol)
            got.backward(tcore.tensor(g).to(got.dtype))
            want.backward(torch.tensor(g).to(want.dtype))
            np.testing.assert_allclose(tx.grad.double().numpy(), px.grad.double().numpy(), rtol=4 * tol, atol=4 * tol)
            if weight:
                np.testing.assert_allclose(tw.grad.double().numpy(), pw.grad.double().numpy(),
                                           rtol=4 * tol, atol=4 * tol)
    m = tcore.nn.RMSNorm(normalized, dtype=getattr(tcore, dtype))
    assert repr(m) == repr(torch.nn.RMSNorm(normalized)) and m.weight.tolist() == np.ones(normalized).tolist()
    want = torch.nn.functional.rms_norm(torch.tensor(x).to(getattr(torch, dtype)), normalized)
    np.testing.assert_allclose(m(tcore.tensor(x).to(getattr(tcore, dtype))).double().detach().numpy(),
                               want.double().numpy(), rtol=tol, atol=tol)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[2\], expected input with shape \[\*2\], but got "
                                           r"input of size\[" + ", ".join(map(str, shape)) + r"\]"):
        tcore.nn.functional.rms_norm(tcore.tensor(x), [2])
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape as normalized_shape"):
        tcore.nn.functional.rms_norm(tcore.tensor(x), normalized, tcore.ones(normalized[0] + 1))
    if dtype == "float32":
        big = tcore.tensor([[1e30, 2e30, -1e30]])
        want = torch.nn.functional.rms_norm(torch.tensor([[1e30, 2e30, -1e30]], dtype=torch.float64), [3])
        np.testing.assert_allclose(tcore.nn.functional.rms_norm(big, [3]).numpy(), want.numpy(), rtol=1e-6)


def test_kl_div_like_torch_off_the_simplex(tcore):
    """kl_div is torch's xlogy(target, target) - target * input: NaN where a target is negative or
    NaN, or 0 beside an infinite input (it gave 0 there), the same values elsewhere."""
    torch = pytest.importorskip("torch")
    inp = [-1.0, float("-inf"), -2.0, float("nan"), -0.5, -3.0]
    tgt = [0.2, 0.0, -0.1, 0.3, float("nan"), 0.0]
    for log_target in (False, True):
        for reduction in ("none", "sum", "batchmean"):
            kw = {"reduction": reduction, "log_target": log_target}
            got = tcore.nn.functional.kl_div(tcore.tensor([inp]), tcore.tensor([tgt]), **kw)
            want = torch.nn.functional.kl_div(torch.tensor([inp]), torch.tensor([tgt]), **kw)
            np.testing.assert_allclose(np.array(got.tolist(), dtype=float), np.array(want.tolist(), dtype=float),
                                       rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
@pytest.mark.parametrize("n", [3, 65])
def test_layer_norm_of_values_whose_squares_overflow(tcore, dtype, n):
    """Deviations past 1.8e19 (float32) square past the dtype's range; the normalized row is
    finite: the squares are summed scaled (it gave inf variance and an output of 0; torch's is
    NaN). group_norm goes through it."""
    rng = np.random.default_rng(n)
    big = 1e200 if dtype == "float64" else 1e30
    x = rng.standard_normal((2, n)) * big
    x[1] = x[1] / big  # an ordinary row beside it
    t = tcore.tensor(x).to(getattr(tcore, dtype))
    x = t.double().numpy().astype(np.longdouble)  # the values as the dtype holds them (x86's 80-bit: 1e400)
    want = ((x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)).astype(np.float64)
    rel = {"float32": 1e-5, "bfloat16": 2.0**-7, "float64": 1e-10}[dtype]
    np.testing.assert_allclose(tcore.layer_norm(t, [n]).double().numpy(), want, rtol=rel, atol=rel)
    np.testing.assert_allclose(tcore.nn.functional.group_norm(t.reshape([1, 2, n]), 2).double().numpy().reshape(2, n),
                               want, rtol=rel, atol=rel)
    # an infinite element stays as torch has it: NaN across its row
    t = tcore.tensor([[1e30, float("inf"), 2e30]]).to(getattr(tcore, dtype))
    assert all(math.isnan(v) for v in tcore.layer_norm(t, [3]).double().tolist()[0])


def test_dropout(tcore):
    x = tcore.ones(200, 100)
    tcore.manual_seed(0)
    y = tcore.dropout(x, 0.3, True)
    kept = (y != 0).float().mean().item()
    assert abs(kept - 0.7) < 0.02
    np.testing.assert_allclose(y.numpy()[y.numpy() != 0], 1 / 0.7, rtol=1e-6)  # survivors are scaled
    assert tcore.dropout(x, 0.3, False)._is_same(x) and tcore.dropout(x, 0.0, True)._is_same(x)
    assert tcore.dropout(x, 1.0, True).sum().item() == 0
    tcore.manual_seed(0)
    assert tcore.dropout(x, 0.3, True).tolist() == y.tolist()  # seeded
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        tcore.dropout(x, 1.5, True)


@pytest.mark.parametrize("p", [2, 1, 3, 0, float("inf"), float("-inf")])
@pytest.mark.parametrize("dim,keepdim", [(None, False), ([1], False), ([0, 2], True)], ids=str)
def test_norm_like_numpy(tcore, p, dim, keepdim):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 4, 5))
    axis = None if dim is None else tuple(dim)
    a = np.abs(x)
    if p == float("inf"):
        expected = a.max(axis=axis, keepdims=keepdim)
    elif p == float("-inf"):
        expected = a.min(axis=axis, keepdims=keepdim)
    elif p == 0:
        expected = (x != 0).sum(axis=axis, keepdims=keepdim).astype(np.float64)
    else:
        expected = (a ** p).sum(axis=axis, keepdims=keepdim) ** (1 / p)
    t = tcore.tensor(x)
    got = tcore.norm(t, p) if dim is None else t.norm(p, dim, keepdim)
    np.testing.assert_allclose(got.numpy(), expected if dim is not None or not keepdim else expected, rtol=1e-12)
    with pytest.raises(TypeError, match="Expected a floating point tensor as input. Got int64"):
        tcore.norm(tcore.tensor([1, 2]))


@pytest.mark.parametrize("p", [2, 3, 0.5])
def test_norm_where_the_powers_overflow(tcore, p):
    """float32 |x|^p past float32's range (1e30 squared) while the norm is within it: computed
    again as s * ||x / s|| (it gave inf, as torch's and numpy's float32 norms do), per slice; zero,
    inf and NaN slices as before. normalize and cosine_similarity go through it."""
    scale = 1e30
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 6))
    x[0] *= scale
    x[2] = 0
    x64 = x.astype(np.float32).astype(np.longdouble)  # the float32 values (80-bit: no overflow)
    want = ((np.abs(x64) ** p).sum(1) ** (1 / p)).astype(np.float64)
    t = tcore.tensor(x.astype(np.float32))
    np.testing.assert_allclose(tcore.linalg.vector_norm(t, p, dim=1).double().numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(float(tcore.linalg.vector_norm(t[0], p)), want[0], rtol=1e-5)
    if p == 2:
        unit = (x64 / np.maximum(want[:, None], 1e-12)).astype(np.float64)
        np.testing.assert_allclose(tcore.nn.functional.normalize(t, dim=1).double().numpy(), unit, rtol=1e-5, atol=1e-7)
        cos = tcore.nn.functional.cosine_similarity(t, t[0], dim=1).double().numpy()  # (norms below eps count as eps)
        np.testing.assert_allclose(cos[[0, 2]], [1.0, 0.0], atol=1e-5)
        g = tcore.tensor(x.astype(np.float32)[0], requires_grad=True)
        tcore.linalg.vector_norm(g).backward()
        np.testing.assert_allclose(g.grad.double().numpy(), (x64[0] / want[0]).astype(np.float64), rtol=1e-5, atol=1e-7)
    bad = tcore.tensor([[np.inf, 1.0], [np.nan, 1.0]])
    got = tcore.linalg.vector_norm(bad, p, dim=1).tolist()
    assert got[0] == float("inf") and math.isnan(got[1])


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("shape,dim,keepdim", [((1000,), None, False), ((37, 129), (1,), False),
                                               ((37, 129), (0,), True), ((5, 6, 7), (0, 2), False),
                                               ((40000,), None, True), ((0, 5), (1,), False)], ids=str)
def test_two_norm_one_pass_as_torch(tcore, dtype, shape, dim, keepdim):
    """The CPU 2-norm sums squares in one pass (_square_sum; float16/bfloat16 squares in float32
    lanes, as torch's): values, dtype and shape as torch's, contiguous and transposed."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    t, c = torch.tensor(x).to(getattr(torch, dtype)), tcore.tensor(x).to(getattr(tcore, dtype))
    want, got = torch.linalg.vector_norm(t, 2, dim, keepdim), tcore.linalg.vector_norm(c, 2, dim, keepdim)
    assert str(got.dtype).split(".")[-1] == dtype and tuple(got.shape) == tuple(want.shape)
    tol = {"float32": 2e-6, "float64": 1e-14}.get(dtype, 0)  # (the reduced types' one rounding: the same bits)
    np.testing.assert_allclose(got.double().numpy(), want.double().numpy(), rtol=tol, atol=0)
    if len(shape) == 2:
        np.testing.assert_allclose(tcore.linalg.vector_norm(c.t(), 2, dim, keepdim).double().numpy(),
                                   torch.linalg.vector_norm(t.t(), 2, dim, keepdim).double().numpy(), rtol=tol, atol=0)


def test_two_norm_gradients_and_tangents_as_torch(tcore):
    torch = pytest.importorskip("torch")
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    rng = np.random.default_rng(4)
    x, xt = rng.standard_normal((6, 9)), rng.standard_normal((6, 9))
    a, b = tcore.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    tcore.linalg.vector_norm(a, 2, (1,)).sum().backward()
    torch.linalg.vector_norm(b, 2, (1,)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-13)
    with fwAD.dual_level():
        got = fwAD.unpack_dual(tcore.linalg.vector_norm(fwAD.make_dual(tcore.tensor(x), tcore.tensor(xt)), 2, (0,))).tangent
    with tfwAD.dual_level():
        want = tfwAD.unpack_dual(torch.linalg.vector_norm(tfwAD.make_dual(torch.tensor(x), torch.tensor(xt)), 2, (0,))).tangent
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13)
    # the one-pass sum of squares itself, called directly: 2x times the incoming gradient
    s = tcore.tensor(x, requires_grad=True)
    tcore.ops._square_sum(s, [1]).sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), 2 * x, rtol=1e-15)


def test_norm_gradient_is_zero_at_zero(tcore):
    z = tcore.zeros(3, dtype=tcore.float64, requires_grad=True)
    tcore.norm(z).backward()
    assert z.grad.tolist() == [0.0, 0.0, 0.0]


# ------------------------------------------------------------------ indexing
def test_gather_scatter_add_like_numpy(tcore):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 5))
    for dim in (0, 1, -1):
        idx = rng.integers(0, x.shape[dim], (3, 4) if dim == 0 else (4, 3))
        got = tcore.gather(tcore.tensor(x), dim, tcore.tensor(idx))
        np.testing.assert_array_equal(got.numpy(), np.take_along_axis(x[:, :4] if dim == 0 else x, idx, dim))
        src = rng.standard_normal(idx.shape)
        expected = x.copy()
        for pos in np.ndindex(idx.shape):
            target = list(pos)
            target[dim] = idx[pos]
            expected[tuple(target)] += src[pos]
        np.testing.assert_allclose(tcore.tensor(x).scatter_add(dim, tcore.tensor(idx), tcore.tensor(src)).numpy(),
                                   expected, rtol=1e-12)
    t = tcore.tensor(x).transpose(0, 1)  # non-contiguous input and out=
    out = tcore.empty([0], dtype=tcore.float64)
    tcore.gather(t, 1, tcore.tensor([[3, 0], [1, 1]]), out=out)
    np.testing.assert_array_equal(out.numpy(), np.take_along_axis(x.T[:2], np.array([[3, 0], [1, 1]]), 1))
    # negative indices refused, as torch's; a RuntimeError from gather, as there
    with pytest.raises(RuntimeError, match="index -1 is out of bounds"):
        tcore.gather(t, 1, tcore.tensor([[-1]]))
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 0 with size 4"):
        tcore.gather(tcore.tensor(x), 0, tcore.tensor([[4]]))
    with pytest.raises(TypeError, match="Expected dtype int32/int64 for index"):
        tcore.gather(tcore.tensor(x), 0, tcore.tensor([[1.0]]))
    with pytest.raises(ValueError, match="Index tensor must have the same number of dimensions"):
        tcore.gather(tcore.tensor(x), 0, tcore.tensor([1]))


def test_index_select_index_add_like_numpy(tcore):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 5, 3))
    for dim in (0, 1, 2):
        idx = rng.integers(0, x.shape[dim], 6)
        np.testing.assert_array_equal(tcore.index_select(tcore.tensor(x), dim, tcore.tensor(idx)).numpy(),
                                      np.take(x, idx, axis=dim))
        src_shape = list(x.shape)
        src_shape[dim] = 6
        src = rng.standard_normal(src_shape)
        expected = x.copy()
        np.add.at(np.moveaxis(expected, dim, 0), idx, 2.0 * np.moveaxis(src, dim, 0))
        got = tcore.tensor(x).index_add(dim, tcore.tensor(idx), tcore.tensor(src), alpha=2.0)
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)
    y = tcore.tensor(x[:, 0, 0].copy())
    y.index_add_(0, tcore.tensor([0, 0]), tcore.tensor([1.0, 2.0], dtype=tcore.float64))  # (torch: dtypes equal)
    assert y.tolist()[0] == pytest.approx(x[0, 0, 0] + 3.0)
    assert tcore.index_select(tcore.tensor(x), 0, tcore.tensor([], dtype=tcore.int64)).shape == (0, 5, 3)
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        tcore.index_select(tcore.tensor(x), 0, tcore.tensor([[0]]))
    with pytest.raises(ValueError, match=r"Number of indices \(2\) should be equal to source.size\(dim\) \(1\)"):
        tcore.tensor(x).index_add(0, tcore.tensor([0, 1]), tcore.ones(1, 5, 3, dtype=tcore.float64))


@pytest.mark.parametrize("pad", [[1, 2], [0, 1, 2, 0], [-1, 1], [1, -2, -1, 1], [2, 2, 1, 1, 1, 0]], ids=str)
def test_constant_pad_nd(tcore, pad):
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    widths = [(0, 0)] * 3
    for i in range(len(pad) // 2):
        widths[2 - i] = (pad[2 * i], pad[2 * i + 1])
    expected = x
    for d, (left, right) in enumerate(widths):  # np.pad cannot crop: negative amounts slice
        sl = [slice(None)] * 3
        sl[d] = slice(max(-left, 0), x.shape[d] - max(-right, 0))
        expected = expected[tuple(sl)]
    expected = np.pad(expected, [(max(a, 0), max(b, 0)) for a, b in widths], constant_values=-1)
    np.testing.assert_array_equal(tcore.constant_pad_nd(tcore.tensor(x), pad, -1).numpy(), expected)
    with pytest.raises(ValueError, match="Length of pad must be even"):
        tcore.constant_pad_nd(tcore.tensor(x), [1])


# ------------------------------------------------------------------ gradients
def _tcore_forward(tcore, fn):
    def forward(*arrays):
        return fn(*[tcore.tensor(a) for a in arrays]).numpy()
    return forward


_T = np.array([1, 0, 2, -100])
GRAD = {
    "conv2d": (lambda t, x, w, b: t.conv2d(x, w, b, stride=[2, 1], padding=1, dilation=[1, 2]), [(1, 2, 5, 6), (3, 2, 2, 2), (3,)]),
    "conv2d_groups": (lambda t, x, w: t.conv2d(x, w, groups=2, padding=1), [(1, 4, 4, 4), (4, 2, 3, 3)]),
    "max_pool2d": (lambda t, x: t.max_pool2d(x, 3, 2, 1, ceil_mode=True), [(1, 2, 5, 6)]),
    "avg_pool2d": (lambda t, x: t._C._nn.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [(1, 2, 5, 6)]),
    "cross_entropy": (lambda t, x, w: t.cross_entropy(x, t.tensor(_T), w, label_smoothing=0.1), [(4, 3), (3,)]),
    "nll_loss": (lambda t, x: t._C._nn.nll_loss(x, t.tensor(_T), reduction=2), [(4, 3)]),
    "layer_norm": (lambda t, x, w, b: t.layer_norm(x, [4], w, b), [(3, 4), (4,), (4,)]),
    "norm3": (lambda t, x: t.norm(x, 3, [1]), [(3, 4)]),
    "norm2": (lambda t, x: t.norm(x), [(3, 4)]),
    "gather": (lambda t, x: t.gather(x, 1, t.tensor([[0, 0, 2], [1, 3, 3], [2, 2, 2]])), [(3, 4)]),
    "scatter_add": (lambda t, x, s: t.scatter_add(x, 0, t.tensor([[0, 1], [0, 0]]), s), [(2, 2), (2, 2)]),
    "index_select": (lambda t, x: t.index_select(x, 1, t.tensor([3, 0, 3])), [(2, 4)]),
    "index_add": (lambda t, x, s: t.index_add(x, 0, t.tensor([1, 1, 0]), s, alpha=0.5), [(2, 3), (3, 3)]),
    "constant_pad_nd": (lambda t, x: t.constant_pad_nd(x, [1, -1, 2, 0], 3.0), [(3, 4)]),
}


@pytest.mark.parametrize("name", GRAD)
def test_nn_gradients(tcore, name):
    fn, shapes = GRAD[name]
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    arrays = [rng.standard_normal(s) for s in shapes]
    forward = _tcore_forward(tcore, lambda *ts: fn(tcore, *ts))
    inputs = [tcore.tensor(a, requires_grad=True) for a in arrays]
    for i in range(len(arrays)):
        expected, weight = numeric_grad(forward, arrays, i)
        got, = tcore.autograd.grad(fn(tcore, *inputs), inputs[i], grad_outputs=tcore.tensor(weight))
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-7, err_msg=f"input {i}")


def test_small_cnn_trains(tcore):
    """conv2d -> relu -> max_pool2d -> linear -> cross_entropy: SGD lowers the loss."""
    rng = np.random.default_rng(10)
    x = tcore.tensor(rng.standard_normal((16, 1, 8, 8)).astype(np.float32))
    y = tcore.tensor(rng.integers(0, 3, 16))
    w1 = tcore.tensor((rng.standard_normal((4, 1, 3, 3)) * 0.3).astype(np.float32), requires_grad=True)
    w2 = tcore.tensor((rng.standard_normal((3, 36)) * 0.3).astype(np.float32), requires_grad=True)
    losses = []
    for _ in range(30):
        h = tcore.max_pool2d(tcore.relu(tcore.conv2d(x, w1, padding=1)), 2)
        h = tcore.dropout(h.flatten(1), 0.0, True)
        h = tcore.layer_norm(h.reshape(16, 4, 16), [16]).reshape(16, 64)[:, :36]
        loss = tcore.cross_entropy(tcore._C._nn.linear(h, w2), y)
        losses.append(loss.item())
        g1, g2 = tcore.autograd.grad(loss, [w1, w2])
        with tcore.no_grad():
            w1.sub_(g1 * 0.5)
            w2.sub_(g2 * 0.5)
    assert losses[-1] < 0.6 * losses[0]


# conv2d's product and its backward kernel (native/cpu/Im2Col.cpp: images a chunk at a time, one per
# thread) against torch: batches that do not divide by the threads, stride/padding/dilation/groups,
# a kernel wider than the padded row's edge, non-contiguous inputs, float32/float64/bfloat16; the
# gradients by the kernel (no create_graph) and through the differentiable path (create_graph: a
# gradient penalty's second derivatives), and forward-mode tangents.
CONV_TORCH = [
    dict(x=(5, 3, 9, 7), w=(4, 3, 3, 3), stride=1, padding=1, dilation=1, groups=1),
    dict(x=(3, 4, 10, 11), w=(6, 2, 3, 2), stride=(2, 3), padding=(2, 0), dilation=(1, 2), groups=2),
    dict(x=(1, 2, 6, 6), w=(3, 2, 5, 5), stride=1, padding=3, dilation=1, groups=1),
    dict(x=(4, 3, 8, 8), w=(2, 3, 1, 1), stride=2, padding=0, dilation=1, groups=1),
    # one image in groups: each group's input, weight and gradient are contiguous views inside
    # their tensors (an offset the kernels must add)
    dict(x=(1, 4, 6, 5), w=(4, 2, 3, 3), stride=1, padding=1, dilation=1, groups=2),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("cfg", CONV_TORCH, ids=lambda c: f"x{c['x']}-w{c['w']}")
def test_conv2d_against_torch(tcore, cfg, threads):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(sum(cfg["x"]))
    x = rng.standard_normal(cfg["x"])
    w = rng.standard_normal(cfg["w"]) * 0.3
    b = rng.standard_normal(cfg["w"][0])
    kw = {k: cfg[k] for k in ("stride", "padding", "dilation", "groups")}
    old = tcore.get_num_threads()
    tcore.set_num_threads(threads)
    try:
        # float64 (and a transposed view of the input: strides the patches read as they are)
        xs = tcore.from_numpy(np.ascontiguousarray(np.swapaxes(x, 2, 3))).transpose(2, 3)
        got = tcore.nn.functional.conv2d(xs, tcore.tensor(w), tcore.tensor(b), **kw)
        want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), **kw)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
        for dt, tol in (("float32", 2e-5), ("bfloat16", 3e-2)):
            g = tcore.nn.functional.conv2d(tcore.tensor(x).to(getattr(tcore, dt)), tcore.tensor(w).to(getattr(tcore, dt)), **kw)
            t = torch.nn.functional.conv2d(torch.tensor(x).to(getattr(torch, dt)), torch.tensor(w).to(getattr(torch, dt)), **kw)
            assert str(g.dtype).endswith(dt)
            np.testing.assert_allclose(g.float().numpy(), t.float().numpy(), rtol=tol, atol=tol * 3)
        # first derivatives (the backward kernel) and second ones (create_graph: a gradient penalty)
        up = rng.standard_normal(want.shape)
        results = []
        for lib in (tcore, torch):
            tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
            y = lib.nn.functional.conv2d(tx, tw, tb, **kw)
            gx, gw, gb = lib.autograd.grad((y * lib.tensor(up)).sum(), (tx, tw, tb))
            tx2, tw2 = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
            y2 = lib.nn.functional.conv2d(tx2, tw2, **kw)
            gx2, = lib.autograd.grad((y2 * y2).sum(), tx2, create_graph=True)
            px, pw = lib.autograd.grad((gx2 * gx2).sum(), (tx2, tw2))
            results.append([a.detach().numpy() for a in (gx, gw, gb, px, pw)])
        for name, a, t in zip(("input", "weight", "bias", "penalty input", "penalty weight"), *results):
            np.testing.assert_allclose(a, t, rtol=1e-10, atol=1e-10, err_msg=name)
    finally:
        tcore.set_num_threads(old)


def test_conv2d_forward_mode_against_torch(tcore):
    torch = pytest.importorskip("torch")
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    rng = np.random.default_rng(4)
    x, xt = rng.standard_normal((2, 2, 5, 6)), rng.standard_normal((2, 2, 5, 6))
    w, wt = rng.standard_normal((3, 2, 3, 3)), rng.standard_normal((3, 2, 3, 3))
    with fwAD.dual_level():
        y = tcore.nn.functional.conv2d(fwAD.make_dual(tcore.tensor(x), tcore.tensor(xt)),
                                       fwAD.make_dual(tcore.tensor(w), tcore.tensor(wt)), padding=1, stride=(1, 2))
        got = fwAD.unpack_dual(y).tangent.numpy()
    with tfwAD.dual_level():
        y = torch.nn.functional.conv2d(tfwAD.make_dual(torch.tensor(x), torch.tensor(xt)),
                                       tfwAD.make_dual(torch.tensor(w), torch.tensor(wt)), padding=1, stride=(1, 2))
        want = tfwAD.unpack_dual(y).tangent.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_conv2d_forward_over_reverse(tcore):
    # a tangent on the weight through the input gradient: the backward must run in differentiable
    # operators (the kernel would drop the tangent); central differences as the reference
    import tcore.autograd.forward_ad as fwAD

    rng = np.random.default_rng(5)
    x, w, up, wt = (rng.standard_normal(s) for s in ((2, 2, 5, 5), (3, 2, 3, 3), (2, 3, 5, 5), (3, 2, 3, 3)))

    def input_grad(weight):
        tx = tcore.tensor(x, requires_grad=True)
        y = tcore.nn.functional.conv2d(tx, weight, padding=1)
        return tcore.autograd.grad((y * tcore.tensor(up)).sum(), tx)[0]
    with fwAD.dual_level():
        got = fwAD.unpack_dual(input_grad(fwAD.make_dual(tcore.tensor(w), tcore.tensor(wt)))).tangent.numpy()
    h = 1e-6
    want = (input_grad(tcore.tensor(w + h * wt)).numpy() - input_grad(tcore.tensor(w - h * wt)).numpy()) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# avg_pool2d's kernel and backward (native/cpu/Pooling.cpp) against torch: every divisor rule
# (count_include_pad either way, divisor_override, ceil_mode's extra cells never counted), windows
# over the padding and past the edge, strides apart from the kernel, a strided input, bfloat16;
# gradients, the backward's own gradient (create_graph) and forward-mode tangents.
AVG = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=True),
    dict(kernel_size=(3, 2), stride=(1, 3), padding=(1, 0), divisor_override=5),
    dict(kernel_size=4, stride=3, padding=2, ceil_mode=True),
]


@pytest.mark.parametrize("kw", AVG, ids=lambda k: "-".join(f"{a}{b}" for a, b in k.items()))
def test_avg_pool2d_against_torch(tcore, kw):
    torch = pytest.importorskip("torch")
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    rng = np.random.default_rng(len(kw))
    x = rng.standard_normal((3, 2, 9, 8))
    xs = tcore.from_numpy(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)  # strided
    want = torch.nn.functional.avg_pool2d(torch.tensor(x), **kw)
    np.testing.assert_allclose(tcore.nn.functional.avg_pool2d(xs, **kw).numpy(), want.numpy(), rtol=1e-14, atol=1e-15)
    got16 = tcore.nn.functional.avg_pool2d(tcore.tensor(x).to(tcore.bfloat16), **kw)
    want16 = torch.nn.functional.avg_pool2d(torch.tensor(x).to(torch.bfloat16), **kw)
    np.testing.assert_allclose(got16.float().numpy(), want16.float().numpy(), rtol=1e-2, atol=1e-2)
    up = rng.standard_normal(want.shape)
    results = []
    for lib in (tcore, torch):
        # the gradient, and the gradient of the gradient w.r.t. the upstream gradient (the backward's
        # own backward: the pool again)
        t, u = lib.tensor(x, requires_grad=True), lib.tensor(up, requires_grad=True)
        g, = lib.autograd.grad((lib.nn.functional.avg_pool2d(t, **kw) * u).sum(), t, create_graph=True)
        gu, = lib.autograd.grad((g * lib.tensor(x)).sum(), u)
        results.append((g.detach().numpy(), gu.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    tangent = rng.standard_normal(x.shape)
    with fwAD.dual_level():
        got = fwAD.unpack_dual(tcore.nn.functional.avg_pool2d(fwAD.make_dual(tcore.tensor(x), tcore.tensor(tangent)), **kw)).tangent
    with tfwAD.dual_level():
        want_t = tfwAD.unpack_dual(torch.nn.functional.avg_pool2d(tfwAD.make_dual(torch.tensor(x), torch.tensor(tangent)), **kw)).tangent
    np.testing.assert_allclose(got.numpy(), want_t.numpy(), rtol=1e-14, atol=1e-15)


# max_pool2d's kernel (native/cpu/Pooling.cpp: windows whose columns are inside go a row of outputs
# at a time, tap by tap; those at the edges skip the taps over the padding) against torch's
# max_pool2d_with_indices: values and the flat indices, so ties keep the first maximum, a NaN wins
# (the last one, torch's rule; tcore kept the first before), -inf counts; dilation, ceil_mode,
# padding, rows with few or no windows inside, float64 and float32; the gradient goes where
# torch's goes.
MAXPOOL = [
    dict(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False),
    dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True),
    dict(kernel_size=(2, 3), stride=(1, 2), padding=0, dilation=(2, 1), ceil_mode=False),
    dict(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=True),
    dict(kernel_size=(3, 7), stride=1, padding=(1, 3), dilation=1, ceil_mode=False),  # few columns inside
    dict(kernel_size=(2, 5), stride=(2, 1), padding=(1, 2), dilation=(1, 3), ceil_mode=True),  # none inside
]


@pytest.mark.parametrize("kw", MAXPOOL, ids=lambda k: "-".join(f"{a}{b}" for a, b in k.items()))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool2d_indices_against_torch(tcore, kw, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = rng.integers(-3, 4, (2, 3, 11, 10)).astype(dtype)  # few values: many ties
    x[0, 0, 1:4, 2:6] = np.nan
    x[0, 1, ::3, ::2] = -np.inf
    x[1, 2] = -np.inf
    want, want_idx = torch.ops.aten.max_pool2d_with_indices(torch.from_numpy(x), *(
        [v] if isinstance(v, int) else list(v) for v in (kw["kernel_size"], kw["stride"], kw["padding"], kw["dilation"])),
        kw["ceil_mode"])
    pair = lambda v: [v, v] if isinstance(v, int) else list(v)  # noqa: E731
    got, got_idx = tcore._C._max_pool2d_indices(tcore.from_numpy(x), pair(kw["kernel_size"]), pair(kw["stride"]),
                                                pair(kw["padding"]), pair(kw["dilation"]), list(want.shape[2:]))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(got_idx.numpy(), want_idx.numpy())
    up = rng.standard_normal(want.shape)
    grads = []
    for lib in (tcore, torch):
        t = lib.tensor(np.nan_to_num(x, nan=5.0), requires_grad=True)
        y = lib.nn.functional.max_pool2d(t, **kw)
        grads.append(lib.autograd.grad((y * lib.tensor(up)).sum(), t)[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-15)


# return_indices=True (max_pool2d_with_indices: the values and the flat index h * W + w of each
# window's maximum in its plane) against torch: padding, dilation, ceil_mode, an unbatched input,
# ties and a NaN (torch's picks), the values' gradient, the out= form and nn.MaxPool2d.
@pytest.mark.parametrize("cfg", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                 dict(kernel_size=(2, 3), stride=(1, 2), dilation=(2, 1), ceil_mode=True)],
                         ids=["2x2", "3x3s2p1", "dilated-ceil"])
def test_max_pool2d_return_indices_against_torch(tcore, cfg):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    x = np.round(rng.standard_normal((2, 3, 7, 8)), 1)  # ties
    x[0, 1, 2, 3] = np.nan
    up = rng.standard_normal(torch.nn.functional.max_pool2d(torch.tensor(x), **cfg).shape)
    results = []
    for lib in (tcore, torch):
        tx = lib.tensor(x, requires_grad=True)
        values, indices = lib.nn.functional.max_pool2d(tx, return_indices=True, **cfg)
        assert str(indices.dtype).endswith("int64") and not indices.requires_grad
        (values * lib.tensor(up)).sum().backward()  # NaN where the window's maximum is the NaN
        unbatched = lib.nn.functional.max_pool2d(lib.tensor(x[0]), return_indices=True, **cfg)
        module = lib.nn.MaxPool2d(return_indices=True, **cfg)(lib.tensor(x))
        results.append([values.detach().numpy(), indices.numpy(), tx.grad.numpy(), unbatched[0].numpy(),
                        unbatched[1].numpy(), module[1].numpy()])
    for name, g, t in zip(("values", "indices", "gradient", "unbatched values", "unbatched indices", "module indices"),
                          *results):
        np.testing.assert_array_equal(g, t, err_msg=name)
    out, idx = tcore.empty(0, dtype=tcore.float64), tcore.empty(0, dtype=tcore.int64)
    tcore._C._nn.max_pool2d_with_indices(tcore.tensor(x), **{k: list(v) if isinstance(v, tuple) else v
                                                             for k, v in cfg.items()}, out=(out, idx))
    np.testing.assert_array_equal(out.numpy(), results[1][0])
    np.testing.assert_array_equal(idx.numpy(), results[1][1])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multi_margin_and_multilabel_soft_margin_losses_like_torch(tcore, reduction):
    """multi_margin_loss (p 1 and 2, margins, class weights, 1-D and 2-D input) and
    multilabel_soft_margin_loss (weights, large logits), their modules and input gradients, against
    torch's; binary_cross_entropy's range errors (NaN included) and triplet_margin_loss beside
    distances near 1e30 (the margin kept)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(21)
    x, w = rng.standard_normal((5, 4)) * 3, rng.random(4) + 0.5
    y, ml = rng.integers(0, 4, 5), (rng.random((5, 4)) > 0.5).astype(np.float64)
    x[0, 0] = 60.0  # logits whose sigmoid saturates
    cases = [("multi_margin_loss", lambda F, L, xx: F.multi_margin_loss(xx, L.tensor(y), reduction=reduction)),
             ("p2 weighted", lambda F, L, xx: F.multi_margin_loss(xx, L.tensor(y), p=2, margin=0.7, weight=L.tensor(w),
                                                                   reduction=reduction)),
             ("1-D", lambda F, L, xx: F.multi_margin_loss(xx[1], L.tensor(y[1]), reduction=reduction)),
             ("multilabel", lambda F, L, xx: F.multilabel_soft_margin_loss(xx, L.tensor(ml), reduction=reduction)),
             ("multilabel weighted", lambda F, L, xx: F.multilabel_soft_margin_loss(xx, L.tensor(ml), weight=L.tensor(w),
                                                                                     reduction=reduction))]
    for name, f in cases:
        tx, px = tcore.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        got, want = f(tcore.nn.functional, tcore, tx), f(torch.nn.functional, torch, px)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12, err_msg=name)
        got.sum().backward()
        want.sum().backward()
        np.testing.assert_allclose(tx.grad.numpy(), px.grad.numpy(), rtol=1e-12, atol=1e-12, err_msg=name)
    m = tcore.nn.MultiMarginLoss(p=2, margin=0.5, weight=tcore.tensor(w), reduction=reduction)
    pm = torch.nn.MultiMarginLoss(p=2, margin=0.5, weight=torch.tensor(w), reduction=reduction)
    np.testing.assert_allclose(m(tcore.tensor(x), tcore.tensor(y)).numpy(), pm(torch.tensor(x), torch.tensor(y)).numpy(),
                               rtol=1e-12)
    m2 = tcore.nn.MultiLabelSoftMarginLoss(reduction=reduction)
    pm2 = torch.nn.MultiLabelSoftMarginLoss(reduction=reduction)
    np.testing.assert_allclose(m2(tcore.tensor(x), tcore.tensor(ml)).numpy(),
                               pm2(torch.tensor(x), torch.tensor(ml)).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        tcore.nn.functional.multi_margin_loss(tcore.tensor(x), tcore.tensor(y), p=3)
    with pytest.raises(RuntimeError, match="target out of range"):
        tcore.nn.functional.multi_margin_loss(tcore.tensor(x), tcore.tensor([0, 1, 2, 3, 4]))
    for inp, tgt, what in (([1.5], [1.0], "input"), ([0.5], [1.5], "target"), ([float("nan")], [1.0], "input"),
                           ([0.5], [-0.1], "target")):
        with pytest.raises(RuntimeError, match=f"all elements of {what} should be between 0 and 1"):
            tcore.nn.functional.binary_cross_entropy(tcore.tensor(inp), tcore.tensor(tgt))
    a, pos = tcore.tensor([[1e30, -1e30, 2.0]]), tcore.tensor([[1.0, 0.0, 0.5]])
    assert tcore.nn.functional.triplet_margin_loss(a, pos, -pos).item() == 1.0  # (torch's float32: NaN)


def test_in_place_activations_and_more_modules_like_torch(tcore):
    """torch.nn.functional's in-place forms (relu_, hardtanh_, leaky_relu_, elu_, selu_, celu_:
    the same tensor back, its values, version and gradient as torch's), and the Hardtanh, Softmin
    and KLDivLoss modules (repr, values, errors)."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(31).standard_normal((3, 5)) * 3
    calls = [("relu_", ()), ("hardtanh_", (-2.0, 1.5)), ("leaky_relu_", (0.2,)), ("elu_", (0.7,)), ("selu_", ()),
             ("celu_", (1.3,))]
    for name, args in calls:
        got, want = [], []
        for L, out in ((tcore, got), (torch, want)):
            leaf = L.tensor(x, requires_grad=True)
            y = leaf * 1
            r = getattr(L.nn.functional, name)(y, *args)
            assert r is y
            (r * L.tensor(x)).sum().backward()
            out += [r.detach().numpy(), leaf.grad.numpy()]
        # (celu_'s gradient: torch's in-place backward works from the result, its out-of-place one
        # scales by 1 / float32(alpha), which tcore's follows for both: 3e-8 apart in float64)
        for a, b, rtol in zip(got, want, (1e-12, 1e-7 if name == "celu_" else 1e-12)):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-15, err_msg=name)
    for make in (lambda L: L.nn.Hardtanh(), lambda L: L.nn.Hardtanh(-2, 3, True), lambda L: L.nn.Softmin(1),
                 lambda L: L.nn.KLDivLoss(reduction="batchmean", log_target=True)):
        m, pm = make(tcore), make(torch)
        assert repr(m) == repr(pm)
        args = (x,) if not isinstance(pm, torch.nn.KLDivLoss) else (x, -np.abs(x))
        got = m(*(tcore.tensor(a) for a in args)).numpy()
        want = pm(*(torch.tensor(a) for a in args)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(AssertionError, match=r"max_val \(1\) must be greater than min_val \(2\)"):
        tcore.nn.Hardtanh(2, 1)
