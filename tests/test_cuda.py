"""The CUDA backend. Everywhere: how the build reports it, the kernels registered for the
CUDA key, and clear errors when no device can be used. On a machine with an NVIDIA GPU
(tests marked `gpu`): every CUDA kernel against the CPU kernels and numpy, copies between
host and device, autograd across devices, the caching allocator and seeded random fills."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

CUDA_KERNELS = ["empty.memory_format", "fill_.Scalar", "copy_", "add.Tensor", "add_.Tensor", "add.out", "sub.Tensor",
                "mul.Tensor", "div.Tensor", "div.out", "neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu",
                "sum.dim_IntList", "sum.IntList_out", "mean.dim", "mean.out", "mm", "mm.out", "uniform_", "normal_", "abs", "abs_", "rsqrt",
                "sin", "cos.out", "log1p", "expm1_", "reciprocal", "eq.Tensor", "ne.Tensor", "lt.Tensor_out",
                "le.Tensor", "gt.Tensor", "ge.Tensor_out", "maximum", "minimum.out", "arange.start_step", "linspace",
                "eye.m", "tan.out", "erf", "floor", "round", "sign", "logical_and", "logical_not", "bitwise_xor.Tensor",
                "bitwise_not", "pow.Tensor_Tensor", "atan2", "remainder.Tensor", "fmod.Tensor_out", "where.self",
                "clamp", "gelu", "isnan", "threshold_backward", "masked_fill_.Scalar", "prod.int_out", "amax.out",
                "max.dim", "argmax.out", "all.out", "any.all_out", "var.correction", "logsumexp", "cumsum.out",
                "softmax.int_out", "log_softmax.int", "cat", "gather", "scatter_add_", "index_select", "index_add_",
                "index.Tensor", "index_put_", "nonzero", "flip", "tril", "triu_", "div.Tensor_mode",
                "native_layer_norm", "bmm", "bmm.out"]


def _expect_cuda_build() -> bool:
    wanted = os.environ.get("USE_CUDA", "")
    return shutil.which("nvcc") is not None and wanted.upper() not in ("0", "OFF", "FALSE", "NO")


def test_the_build_reports_the_backend(tcore):
    assert tcore.cuda.is_built() == _expect_cuda_build()
    # the main build is CUDA or none; tests/test_rocm_pipeline.py builds and checks ROCm ("HIP 5.2")
    assert tcore.cuda.runtime().startswith("CUDA ") if tcore.cuda.is_built() else tcore.cuda.runtime() == ""
    if not tcore.cuda.is_available():
        assert tcore.cuda.unavailable_reason() and tcore.cuda.device_count() == 0


def test_cuda_kernels_are_registered(tcore):
    if not tcore.cuda.is_built():
        pytest.skip("built without CUDA")
    for name in CUDA_KERNELS:
        assert "CUDA" in tcore._C._registered_keys(name), name
    assert "CUDA" not in tcore._C._registered_keys("sort")  # no CUDA kernel: a clear error on a device


def test_no_device_is_a_clear_error(tcore):
    if tcore.cuda.is_available():
        pytest.skip("a CUDA device is available here")
    x = tcore.ones(2)
    for call in (lambda: x.cuda(), lambda: tcore.zeros(2, device="cuda"), lambda: x.to("cuda:0"),
                 lambda: tcore.cuda.current_device(), lambda: tcore.cuda.synchronize(), lambda: tcore.cuda.Stream(),
                 lambda: tcore.cuda.current_stream(), lambda: tcore.arange(3, device="cuda")):
        with pytest.raises(RuntimeError, match="CUDA is not available|built without CUDA"):
            call()
    assert tcore.cuda.memory_allocated() == 0 and not x.is_cuda
    assert x.cpu()._is_same(x) and x.to("cpu")._is_same(x)  # nothing to move


# ----------------------------------------------------------------- on a GPU
@pytest.fixture
def gpu(tcore):
    if not tcore.cuda.is_available():
        pytest.skip(f"no usable CUDA device here ({tcore.cuda.unavailable_reason()})")
    return tcore


def _rand(shape, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    if dtype in ("int64", "int32"):
        return rng.integers(-5, 6, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.gpu
def test_factories_and_copies(gpu):
    tc = gpu
    z = tc.zeros(3, 4, device="cuda")
    assert z.is_cuda and str(z.device) == "cuda:0" and z.cpu().tolist() == [[0.0] * 4] * 3
    assert tc.full([2], 2.5, device="cuda").tolist() == [2.5, 2.5]
    for args in ((7,), (2, 11, 3), (1.0, 2.0, 0.25), (5, -4, -2)):  # the range factories on the device
        got, want = tc.arange(*args, device="cuda"), tc.arange(*args)
        assert got.is_cuda and got.dtype == want.dtype and got.cpu().tolist() == want.tolist(), args
    assert tc.arange(4, dtype=tc.float16, device="cuda").cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    np.testing.assert_array_equal(tc.linspace(-1, 1, 9, device="cuda").cpu().numpy(), tc.linspace(-1, 1, 9).numpy())
    np.testing.assert_array_equal(tc.eye(3, 4, device="cuda").cpu().numpy(), np.eye(3, 4, dtype=np.float32))
    assert tc.eye(2, dtype=tc.bool, device="cuda").cpu().tolist() == [[True, False], [False, True]]
    a = _rand((5, 6))
    t = tc.tensor(a)
    d = t.cuda()
    np.testing.assert_array_equal(d.cpu().numpy(), a)
    np.testing.assert_array_equal(t.transpose(0, 1).cuda().cpu().numpy(), a.T)  # strided host -> device
    np.testing.assert_array_equal(d.transpose(0, 1).cpu().numpy(), a.T)  # strided device -> host
    np.testing.assert_array_equal(d.to(tc.float64).cpu().numpy(), a.astype(np.float64))  # conversion on the device
    np.testing.assert_array_equal(t.to("cuda", tc.int64).cpu().numpy(), a.astype(np.int64))
    e = tc.empty([6, 5], device="cuda")
    e.copy_(d.t())  # device -> device, strided
    np.testing.assert_array_equal(e.cpu().numpy(), a.T)
    host = tc.empty([5, 6])
    host.copy_(d)
    np.testing.assert_array_equal(host.numpy(), a)
    assert d[1, 2].item() == pytest.approx(float(a[1, 2]))
    assert "device='cuda:0'" in repr(d)
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy\. Use Tensor\.cpu\(\)"):
        d.numpy()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_elementwise_like_cpu(gpu, dtype):
    tc = gpu
    a, b = _rand((4, 5), dtype, 1), _rand((5,), dtype, 2)
    if dtype == "int64":
        b[b == 0] = 3
    x, y = tc.tensor(a).cuda(), tc.tensor(b).cuda()
    for op in ("add", "sub", "mul", "div"):
        got = getattr(tc, op)(x, y).cpu()
        want = getattr(tc, op)(tc.tensor(a), tc.tensor(b))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    np.testing.assert_allclose((x + 2).cpu().numpy(), a + 2)  # a Python number joins as a scalar
    np.testing.assert_allclose(tc.add(x, y, alpha=3).cpu().numpy(), a + 3 * b, rtol=1e-6)
    out = tc.empty([0], dtype=getattr(tc, dtype), device="cuda")
    tc.mul(x, y, out=out)
    np.testing.assert_allclose(out.cpu().numpy(), a * b, rtol=1e-6)
    z = tc.tensor(a).cuda()
    z.add_(y)
    np.testing.assert_allclose(z.cpu().numpy(), a + b, rtol=1e-6)
    floating = ("exp", "tanh", "sigmoid", "sin", "cos", "expm1", "reciprocal")  # integers compute in float32
    for op in ("neg", "relu", "abs") + floating:
        got, want = getattr(tc, op)(x), getattr(tc, op)(tc.tensor(a))
        assert got.is_cuda and got.dtype == want.dtype, op
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    pos = tc.tensor(np.abs(a) + 1).cuda()
    for op in ("sqrt", "rsqrt", "log", "log1p"):
        np.testing.assert_allclose(getattr(tc, op)(pos).cpu().numpy(), getattr(tc, op)(pos.cpu()).numpy(), rtol=1e-5)
    for op in ("eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum"):  # broadcasting, promotion, scalars
        got, want = getattr(tc, op)(x, y), getattr(tc, op)(tc.tensor(a), tc.tensor(b))
        assert got.dtype == want.dtype, op
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    np.testing.assert_array_equal((x > 0).cpu().numpy(), a > 0)
    mask = tc.empty([0], dtype=tc.bool, device="cuda")
    tc.lt(x, y, out=mask)
    np.testing.assert_array_equal(mask.cpu().numpy(), a < b)
    z = tc.tensor(a).cuda()
    z.abs_()
    np.testing.assert_array_equal(z.cpu().numpy(), np.abs(a))


@pytest.mark.gpu
def test_reductions_and_mm(gpu):
    tc = gpu
    a = _rand((3, 70, 5), "float64", 3)
    x = tc.tensor(a).cuda()
    np.testing.assert_allclose(x.sum().item(), a.sum(), rtol=1e-12)
    np.testing.assert_allclose(x.sum([1]).cpu().numpy(), a.sum(1), rtol=1e-12)
    np.testing.assert_allclose(x.mean([0, 2], keepdim=True).cpu().numpy(), a.mean((0, 2), keepdims=True), rtol=1e-12)
    assert tc.tensor([[1, 2], [3, 4]]).cuda().sum().item() == 10
    for n, k, m in ((1, 1, 1), (17, 33, 9), (64, 128, 48), (100, 3, 70)):
        p, q = _rand((n, k), "float64", n), _rand((k, m), "float64", m)
        np.testing.assert_allclose((tc.tensor(p).cuda() @ tc.tensor(q).cuda()).cpu().numpy(), p @ q, rtol=1e-10)
    with pytest.raises(RuntimeError, match="same device"):  # torch's error and type
        tc.add(tc.ones(2, 2).cuda(), tc.ones(2, 2))


@pytest.mark.gpu
def test_autograd_across_devices(gpu):
    tc = gpu
    w = tc.tensor(_rand((4, 3), "float64", 4), requires_grad=True)
    x = tc.tensor(_rand((5, 4), "float64", 5)).cuda()
    loss = (x @ w.cuda()).sigmoid().sum()
    loss.backward()
    assert w.grad.device.type == "cpu" and w.grad.shape == (4, 3)
    wc = tc.tensor(w.detach().numpy(), requires_grad=True)
    (tc.tensor(x.cpu().numpy()) @ wc).sigmoid().sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), wc.grad.numpy(), rtol=1e-10)


@pytest.mark.gpu
def test_caching_allocator_and_random(gpu):
    tc = gpu
    tc.cuda.synchronize()
    before = tc.cuda.memory_allocated()
    t = tc.empty([1 << 20], device="cuda")
    assert tc.cuda.memory_allocated() >= before + (4 << 20)
    reserved = tc.cuda.memory_reserved()
    del t
    assert tc.cuda.memory_allocated() == before and tc.cuda.memory_reserved() == reserved  # kept in the cache
    t2 = tc.empty([1 << 20], device="cuda")  # served from the cache
    assert tc.cuda.memory_reserved() == reserved
    del t2
    tc.cuda.empty_cache()
    assert tc.cuda.memory_reserved() <= reserved
    g = tc.Generator().manual_seed(3)
    u = tc.rand(10000, generator=g, device="cuda")
    g.manual_seed(3)
    assert tc.rand(10000, generator=g, device="cuda").tolist() == u.tolist()
    assert 0 <= u.cpu().numpy().min() and u.cpu().numpy().max() < 1 and abs(u.mean().item() - 0.5) < 0.02
    n = tc.randn(20000, device="cuda", dtype=tc.float64)
    assert abs(n.mean().item()) < 0.03 and abs(n.cpu().numpy().std() - 1) < 0.03


@pytest.mark.gpu
def test_streams(gpu):
    tc = gpu
    default = tc.cuda.current_stream()
    assert default == tc.cuda.default_stream() and default.cuda_stream == 0
    s = tc.cuda.Stream()
    assert s.cuda_stream != 0 and s != default
    a = _rand((256, 256))
    x = tc.tensor(a).cuda()
    with tc.cuda.stream(s):
        assert tc.cuda.current_stream() == s
        y = tc.mm(x, x) + 1  # queued on s
    assert tc.cuda.current_stream() == default
    s.synchronize()
    assert s.query()
    np.testing.assert_allclose(y.cpu().numpy(), a @ a + 1, rtol=1e-4, atol=1e-3)
    # the caching allocator hands a block back to the stream it was allocated on only
    with tc.cuda.stream(s):
        t = tc.empty(4096, device="cuda")
        p = t.data_ptr()
        del t
    other = tc.empty(4096, device="cuda")  # the default stream: not the block s may still use
    assert other.data_ptr() != p
    with tc.cuda.stream(s):
        assert tc.empty(4096, device="cuda").data_ptr() == p  # s itself reuses it


@pytest.mark.gpu
def test_second_device(gpu):
    tc = gpu
    if tc.cuda.device_count() < 2:
        pytest.skip("one CUDA device here")
    a = _rand((3, 4))
    x0 = tc.tensor(a).cuda()
    x1 = x0.to("cuda:1")  # a peer copy
    assert str(x1.device) == "cuda:1" and tc.cuda.current_device() == 0
    y1 = (x1 * 2).exp()  # launched on device 1 while device 0 is current
    assert str(y1.device) == "cuda:1" and tc.cuda.current_device() == 0
    np.testing.assert_allclose(y1.cpu().numpy(), np.exp(a * 2), rtol=1e-5)
    back = tc.empty([3, 4], dtype=tc.float64, device="cuda:0")
    back.copy_(x1)  # device 1 -> device 0 with a conversion
    np.testing.assert_allclose(back.cpu().numpy(), a.astype(np.float64))


# ------------------------------------------------- on a GPU, off the happy path
@pytest.mark.gpu
def test_more_than_2_to_the_31_elements(gpu):
    """64-bit indexing: an elementwise kernel and a fill over 2**31 + 17 bytes reach the last one."""
    tc = gpu
    n = (1 << 31) + 17
    x = tc.ones(n, dtype=tc.uint8, device="cuda")
    y = x + x
    assert y.numel() == n and y[n - 1].item() == 2 and y[(1 << 31) + 3].item() == 2 and y[0].item() == 2
    y.fill_(5)
    assert y[n - 1].item() == 5
    del x, y
    tc.cuda.empty_cache()


@pytest.mark.gpu
def test_hostile_sizes_are_errors_not_crashes(gpu):
    tc = gpu
    for size in ([1 << 62], [1 << 40, 1 << 10], [(1 << 62) // 3, 2]):
        with pytest.raises((RuntimeError, ValueError, MemoryError)):
            tc.zeros(size, device="cuda")
    with pytest.raises((RuntimeError, ValueError, MemoryError)):
        tc.empty([1 << 50], dtype=tc.uint8, device="cuda")  # 1 PiB: the driver's out of memory
    with pytest.raises((RuntimeError, ValueError)):
        tc.zeros([-1], device="cuda")
    z = tc.zeros(1000, device="cuda")  # the allocator still works afterwards
    assert z.sum().item() == 0.0


@pytest.mark.gpu
def test_empty_tensors(gpu):
    tc = gpu
    e = tc.empty([0, 3], device="cuda")
    assert (e + 1).shape == (0, 3) and (e * e).exp().shape == (0, 3)
    assert e.sum().item() == 0.0 and e.sum(0).cpu().tolist() == [0.0, 0.0, 0.0]
    r = tc.ones(3, 0, device="cuda") @ tc.ones(0, 4, device="cuda")  # k = 0: zeros, not garbage
    assert r.cpu().tolist() == [[0.0] * 4] * 3
    assert tc.arange(0, device="cuda").numel() == 0 and tc.linspace(0, 1, 0, device="cuda").numel() == 0
    assert tc.ones(0, device="cuda").cpu().numel() == 0


@pytest.mark.gpu
def test_large_reductions_agree_with_float64(gpu):
    tc = gpu
    rng = np.random.default_rng(7)
    a = rng.standard_normal(1 << 24).astype(np.float32)
    x = tc.tensor(a).cuda()
    np.testing.assert_allclose(x.sum().item(), a.astype(np.float64).sum(), rtol=1e-5, atol=1e-2)
    np.testing.assert_allclose(x.mean().item(), a.astype(np.float64).mean(), rtol=1e-5, atol=1e-7)
    m = a[: 4097 * 3001].reshape(4097, 3001)
    xm = tc.tensor(m).cuda()
    for dim in (0, 1):
        np.testing.assert_allclose(xm.sum(dim).cpu().numpy(), m.astype(np.float64).sum(dim), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(xm.t().sum(0).cpu().numpy(), m.astype(np.float64).sum(1), rtol=1e-4, atol=1e-3)
    ints = rng.integers(-(1 << 40), 1 << 40, 1 << 20)
    assert tc.tensor(ints).cuda().sum().item() == int(ints.sum())  # integers exactly


@pytest.mark.gpu
def test_mm_shapes_and_layouts(gpu):
    tc = gpu
    rng = np.random.default_rng(8)
    for n, k, m in ((513, 257, 129), (1, 4096, 1), (2048, 1, 3), (1000, 1000, 1000)):
        p = rng.standard_normal((n, k)).astype(np.float32)
        q = rng.standard_normal((k, m)).astype(np.float32)
        want = p.astype(np.float64) @ q.astype(np.float64)
        got = (tc.tensor(p).cuda() @ tc.tensor(q).cuda()).cpu().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3 * np.sqrt(k))
        got_t = (tc.tensor(p.T.copy()).cuda().t() @ tc.tensor(q.T.copy()).cuda().t()).cpu().numpy()  # transposed views
        np.testing.assert_allclose(got_t, want, rtol=1e-4, atol=1e-3 * np.sqrt(k))
    out = tc.empty([7, 7], device="cuda")
    a = tc.ones(4, 5, device="cuda")
    with pytest.warns(UserWarning):
        tc.mm(a, a.t(), out=out)  # a non-empty out of the wrong shape is resized, with torch's warning
    assert out.shape == (4, 4) and out.cpu().tolist() == [[5.0] * 4] * 4


@pytest.mark.gpu
def test_bmm_like_cpu(gpu):
    tc = gpu
    rng = np.random.default_rng(18)
    for b, n, k, m in ((64, 128, 128, 128), (3, 33, 17, 5), (2, 0, 4, 3), (2, 3, 0, 4), (70_000, 1, 2, 1)):
        p = rng.standard_normal((b, n, k)).astype(np.float32)
        q = rng.standard_normal((b, k, m)).astype(np.float32)
        want = p.astype(np.float64) @ q.astype(np.float64)
        got = tc.bmm(tc.tensor(p).cuda(), tc.tensor(q).cuda()).cpu().numpy()  # 70,000 products: more than grid z
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.sqrt(max(k, 1)))
        if b and n and k:  # transposed matrices, an expanded batch
            pt = tc.tensor(np.ascontiguousarray(p.transpose(0, 2, 1))).cuda().transpose(1, 2)
            qe = tc.tensor(q[:1].copy()).cuda().expand(b, k, m)
            np.testing.assert_allclose(tc.bmm(pt, qe).cpu().numpy(), p.astype(np.float64) @ q[:1].astype(np.float64),
                                       rtol=1e-4, atol=1e-4 * np.sqrt(k))
    d = rng.integers(-9, 9, (4, 5, 6))
    e = rng.integers(-9, 9, (4, 6, 3))
    assert tc.bmm(tc.tensor(d).cuda(), tc.tensor(e).cuda()).cpu().tolist() == (d @ e).tolist()


@pytest.mark.gpu
def test_broadcasts_strides_and_many_dims(gpu):
    tc = gpu
    rng = np.random.default_rng(9)
    a = rng.standard_normal((2,) * 9).astype(np.float32)
    b = rng.standard_normal((2,) * 9).astype(np.float32)
    order = (8, 0, 6, 2, 4, 1, 7, 3, 5)  # nothing merges: 9 dims of strided operands
    xa, xb = tc.tensor(a).cuda().permute(*order), tc.tensor(b).cuda()
    try:
        got = (xa + xb).cpu().numpy()
    except RuntimeError as e:  # a clear refusal is acceptable, a wrong answer is not
        assert "dims" in str(e)
    else:
        np.testing.assert_allclose(got, a.transpose(order) + b, rtol=1e-6)
    c = rng.standard_normal((3, 1, 5)).astype(np.float32)
    d = rng.standard_normal((1, 4, 1)).astype(np.float32)
    np.testing.assert_allclose((tc.tensor(c).cuda() * tc.tensor(d).cuda()).cpu().numpy(), c * d, rtol=1e-6)
    big = rng.standard_normal((64, 96)).astype(np.float32)
    v = tc.tensor(big).cuda()[::3, 5::7]
    np.testing.assert_allclose(v.exp().cpu().numpy(), np.exp(big[::3, 5::7]), rtol=1e-5)
    inplace = tc.tensor(big).cuda()
    inplace[::2].add_(1.0)  # in place through a strided view of a device tensor
    want = big.copy()
    want[::2] += 1
    np.testing.assert_allclose(inplace.cpu().numpy(), want, rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int8", "bool"])
def test_narrow_dtypes_like_cpu(gpu, dtype):
    tc = gpu
    a = _rand((33, 7), "float32", 10)
    x = tc.tensor(a).to(getattr(tc, dtype))
    d = x.cuda()
    assert d.dtype == x.dtype
    def values(t):  # numpy has no bfloat16
        return t.cpu().to(tc.float64).numpy()

    np.testing.assert_array_equal(values(d), values(x))
    ops = (lambda t: t + t, lambda t: t * t, lambda t: t.sum(), lambda t: t.sum(0), lambda t: tc.maximum(t, t),
           lambda t: t > 0, lambda t: t.to(tc.float32).exp().to(t.dtype))
    for op in ops:
        try:
            want = op(x)
        except RuntimeError:  # what the CPU refuses (sub of bools...) is not asked of the device
            continue
        got = op(d)
        assert got.is_cuda and got.dtype == want.dtype
        np.testing.assert_allclose(values(got), values(want), rtol=1e-2, atol=1e-2)
    if dtype in ("float16", "bfloat16"):  # computed in float32, rounded once, as on the CPU
        for name in ("exp", "tanh", "sigmoid", "neg", "abs"):
            try:
                want = getattr(tc, name)(x)
            except (RuntimeError, TypeError):  # no float16 kernel on the CPU
                continue
            got = getattr(tc, name)(d)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(values(got), values(want))


def _same(got, want, rtol=1e-6, atol=0.0, what=""):
    """A device result against the CPU's: on the device, same dtype and shape, same values (NaN included)."""
    assert got.is_cuda, what
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape), (what, got.dtype, want.dtype, got.shape)
    np.testing.assert_allclose(got.cpu().to(want.dtype).numpy(), want.numpy(), rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_more_pointwise_like_cpu(gpu, dtype):
    tc = gpu
    a, b = _rand((4, 5), dtype, 7), _rand((5,), dtype, 8)
    if dtype != "int64":
        a[0, :3] = [np.nan, np.inf, -np.inf]
    x, y, xc, yc = tc.tensor(a).cuda(), tc.tensor(b).cuda(), tc.tensor(a), tc.tensor(b)
    unary = ["sign", "floor", "ceil", "round", "trunc", "isnan", "isinf", "logical_not"]
    if dtype != "int64":
        unary += ["tan", "atan", "sinh", "erf", "exp2"]
    else:
        unary += ["bitwise_not"]
    for op in unary:
        _same(getattr(tc, op)(x), getattr(tc, op)(xc), rtol=1e-5, atol=1e-6, what=op)
    binary = ["logical_and", "logical_or", "logical_xor", "pow", "atan2"] if dtype != "int64" else \
        ["logical_and", "bitwise_and", "bitwise_or", "bitwise_xor", "pow"]
    for op in binary:
        yy = y.abs() if op == "pow" and dtype == "int64" else y
        _same(getattr(tc, op)(x, yy), getattr(tc, op)(xc, yy.cpu()), rtol=1e-5, what=op)
    nz = tc.where(y == 0, tc.ones_like(y), y)
    for op in ("remainder", "fmod"):
        _same(getattr(tc, op)(x, nz), getattr(tc, op)(xc, nz.cpu()), rtol=1e-5, atol=1e-6, what=op)
    for mode in ("trunc", "floor"):
        _same(tc.div(x, nz, rounding_mode=mode), tc.div(xc, nz.cpu(), rounding_mode=mode), rtol=1e-6, what=mode)
    if dtype == "int64":
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            tc.remainder(x, tc.zeros_like(y))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            x // tc.zeros_like(y)
    _same(tc.where(x > 0, x, y), tc.where(xc > 0, xc, yc), what="where")
    _same(tc.where(x > 0, x, 2.5), tc.where(xc > 0, xc, 2.5), what="where scalar")
    _same(x.clamp(-1, 1), xc.clamp(-1, 1), what="clamp")
    _same(x.clamp(min=0.5), xc.clamp(min=0.5), what="clamp min")
    _same(x.masked_fill(x > 1, -7), xc.masked_fill(xc > 1, -7), what="masked_fill")
    if dtype != "int64":
        for approximate in ("none", "tanh"):
            _same(tc.nn.functional.gelu(x, approximate=approximate),
                  tc.nn.functional.gelu(xc, approximate=approximate), rtol=1e-5, atol=1e-6, what="gelu")
        g = tc.tensor(_rand((4, 5), dtype, 9))
        _same(tc.threshold_backward(g.cuda(), x, 0.0), tc.threshold_backward(g, xc, 0.0), what="threshold_backward")
    z = x.clone()
    z.clamp_(max=0)
    _same(z, xc.clamp(max=0), what="clamp_")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_more_reductions_like_cpu(gpu, dtype):
    tc = gpu
    a = _rand((6, 1000), "float32" if dtype == "float16" else dtype, 11)
    if dtype != "int64":
        a[2, 17] = np.nan  # NaN wins in max/argmax
        a[3, :] = a[3, 0]  # ties: the first index
    xc = tc.tensor(a).to(getattr(tc, dtype))
    x = xc.cuda()
    tol = dict(rtol=2e-3 if dtype == "float16" else 1e-5, atol=1e-6)
    for dim in (0, 1):
        _same(x.amax(dim), xc.amax(dim), what=f"amax {dim}")
        _same(x.amin(dim), xc.amin(dim), what=f"amin {dim}")
        _same(x.argmax(dim), xc.argmax(dim), what=f"argmax {dim}")
        _same(x.argmin(dim), xc.argmin(dim), what=f"argmin {dim}")
        for got, want in zip(x.max(dim), xc.max(dim)):
            _same(got, want, what=f"max {dim}")
        for got, want in zip(x.min(dim, keepdim=True), xc.min(dim, keepdim=True)):
            _same(got, want, what=f"min {dim}")
        _same((x > 0).all(dim), (xc > 0).all(dim), what="all")
        _same((x > 0).any(dim), (xc > 0).any(dim), what="any")
        _same(x[:, :20].prod(dim), xc[:, :20].prod(dim), **tol, what="prod")
        _same(x.cumsum(dim), xc.cumsum(dim), **tol, what="cumsum")
    _same(x.max(), xc.max(), what="max()")
    _same(x.argmax(), xc.argmax(), what="argmax()")
    if dtype != "int64":
        f = tc.where(x.isnan(), tc.zeros_like(x), x)
        fc = f.cpu()
        _same(f.var(1), fc.var(1), **tol, what="var")
        _same(f.std(0, correction=0), fc.std(0, correction=0), **tol, what="std")
        _same(f.logsumexp(1), fc.logsumexp(1), **tol, what="logsumexp")
        for dim in (0, 1, -1):
            _same(f.softmax(dim), fc.softmax(dim), **tol, what="softmax")
            _same(f.log_softmax(dim), fc.log_softmax(dim), **tol, what="log_softmax")
        big = tc.tensor(np.array([[1000.0, 1000.0, -np.inf], [-np.inf] * 3])).to(getattr(tc, dtype))
        _same(big.cuda().softmax(1), big.softmax(1), what="softmax of large and -inf rows")
        _same(big.cuda().logsumexp(1), big.logsumexp(1), what="logsumexp of -inf rows")
    with pytest.raises(IndexError, match="Expected reduction dim"):
        tc.empty([0, 3], device="cuda").argmax()
    if dtype in ("float32", "float64"):
        w, b = tc.tensor(_rand((1000,), dtype, 13)), tc.tensor(_rand((1000,), dtype, 14))
        f = tc.where(xc.isnan(), tc.zeros_like(xc), xc)
        for got, want in zip(tc.native_layer_norm(f.cuda(), [1000], w.cuda(), b.cuda(), 1e-5),
                             tc.native_layer_norm(f, [1000], w, b, 1e-5)):
            _same(got, want, rtol=1e-4, atol=1e-5, what="native_layer_norm")
        _same(tc.nn.functional.layer_norm(f.cuda(), [1000]), tc.nn.functional.layer_norm(f, [1000]), rtol=1e-4,
              atol=1e-5, what="layer_norm")


@pytest.mark.gpu
def test_indexing_like_cpu(gpu):
    tc = gpu
    a = _rand((6, 5), "float32", 12)
    xc = tc.tensor(a)
    x = xc.cuda()
    idx = tc.tensor(np.array([[0, 4, 1], [2, 2, -1], [3, 0, 0], [1, 1, 1], [4, 3, 2], [0, 0, 4]]))
    _same(x.gather(1, idx.cuda()), xc.gather(1, idx), what="gather")
    _same(x.index_select(0, idx[:, 0].cuda()), xc.index_select(0, idx[:, 0]), what="index_select")
    _same(tc.zeros(6, 5, device="cuda").scatter_add(1, idx.cuda(), x[:, :3]),
          tc.zeros(6, 5).scatter_add(1, idx, xc[:, :3]), rtol=1e-6, atol=1e-6, what="scatter_add (repeated indices)")
    _same(tc.zeros(6, 5, device="cuda").index_add(0, tc.tensor([0, 0, 5]).cuda(), x[:3]),
          tc.zeros(6, 5).index_add(0, tc.tensor([0, 0, 5]), xc[:3]), rtol=1e-6, atol=1e-6, what="index_add")
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 1 with size 5"):
        x.gather(1, tc.full([6, 1], 9, dtype=tc.int64, device="cuda"))
    _same(x[idx[:, 0].cuda()], xc[idx[:, 0]], what="x[int tensor]")
    _same(x[x > 0], xc[xc > 0], what="x[bool mask]")
    _same(x[1:5:2, tc.tensor([4, 0]).cuda()], xc[1:5:2, tc.tensor([4, 0])], what="mixed")
    _same(tc.nonzero(x > 0.5), tc.nonzero(xc > 0.5), what="nonzero")
    z, zc = x.clone(), xc.clone()
    z[x < 0] = 0.0
    zc[xc < 0] = 0.0
    _same(z, zc, what="setitem bool mask")
    z.index_put_((tc.tensor([0, 0, 2]).cuda(),), tc.ones(3, 5, device="cuda"), accumulate=True)
    zc.index_put_((tc.tensor([0, 0, 2]),), tc.ones(3, 5), accumulate=True)
    _same(z, zc, what="index_put_ accumulate")
    _same(tc.cat([x, x[:2]], 0), tc.cat([xc, xc[:2]], 0), what="cat 0")
    _same(tc.cat([x, x.to(tc.float64)], 1), tc.cat([xc, xc.to(tc.float64)], 1), what="cat promotes")
    _same(tc.stack([x, x], 2), tc.stack([xc, xc], 2), what="stack")
    with pytest.raises(RuntimeError, match="same device"):
        tc.cat([x, xc])
    _same(x.flip(0), xc.flip(0), what="flip")
    _same(x.flip([0, 1]), xc.flip([0, 1]), what="flip 2")
    _same(x.tril(), xc.tril(), what="tril")
    _same(x.t().triu(1), xc.t().triu(1), what="triu of a view")
    emb = tc.nn.functional.embedding(idx.cuda(), x)
    _same(emb, tc.nn.functional.embedding(idx, xc), what="embedding")


@pytest.mark.gpu
def test_training_on_the_device_matches_the_cpu(gpu):
    tc = gpu

    def run(device):
        tc.manual_seed(0)
        model = tc.nn.Sequential(tc.nn.Linear(20, 64), tc.nn.ReLU(), tc.nn.Linear(64, 5)).to(device)
        opt = tc.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        rng = np.random.default_rng(1)
        x = tc.tensor(rng.standard_normal((32, 20)).astype(np.float32)).to(device)
        y = tc.tensor(rng.integers(0, 5, 32)).to(device)
        losses = []
        for _ in range(20):
            opt.zero_grad()
            loss = tc.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().cpu().numpy() for p in model.parameters()]

    dev_losses, dev_params = run("cuda")
    cpu_losses, cpu_params = run("cpu")
    np.testing.assert_allclose(dev_losses, cpu_losses, rtol=1e-4)
    assert dev_losses[-1] < dev_losses[0] * 0.7  # it learns
    for p, q in zip(dev_params, cpu_params):
        np.testing.assert_allclose(p, q, rtol=1e-3, atol=1e-5)


@pytest.mark.gpu
def test_edge_cases_like_cpu(gpu):
    """NaN bounds, infinite rows, broadcasting masks, offset outs, narrow accumulation, mixed devices."""
    tc = gpu
    a = _rand((3, 4), "float32", 21)
    xc = tc.tensor(a)
    x = xc.cuda()
    _same(x.clamp(min=float("nan")), xc.clamp(min=float("nan")), what="clamp with a NaN bound")
    inf_rows = tc.tensor([[float("inf"), 1.0], [float("-inf"), float("-inf")], [2.0, 1.0]])
    for op in ("softmax", "log_softmax"):
        _same(getattr(inf_rows.cuda(), op)(1), getattr(inf_rows, op)(1), what=op + " of rows with infinities")
    mask = tc.tensor([[True, False, True, False]] * 2)
    _same(tc.zeros(4, device="cuda").masked_fill(mask.cuda(), 1.0), tc.zeros(4).masked_fill(mask, 1.0),
          what="masked_fill with a mask that broadcasts self")
    long_rows = tc.tensor(_rand((2, 5000), "float64", 22))  # a block per row
    _same(long_rows.cuda().cumsum(1), long_rows.cumsum(1), rtol=1e-9, atol=1e-9, what="cumsum of long rows")
    ints = tc.tensor(_rand((100_003,), "int64", 23))
    _same(ints.cuda().cumsum(0), ints.cumsum(0), what="int64 cumsum of one long row")
    _same((ints.cuda() % 3 + 1).cumprod(0)[:40], (ints % 3 + 1).cumprod(0)[:40], what="cumprod (wrapping)")
    buf, bufc = tc.zeros(3, 4, device="cuda"), tc.zeros(3, 4)
    tc.cumsum(x[0], 0, out=buf[1])
    tc.cumsum(xc[0], 0, out=bufc[1])
    _same(buf, bufc, rtol=1e-6, what="cumsum into buf[1]")
    for dtype in (tc.float16, tc.bfloat16, tc.int8, tc.int16, tc.uint8):
        z, zc = tc.zeros(4, 3, dtype=dtype, device="cuda"), tc.zeros(4, 3, dtype=dtype)
        src = tc.ones(5, 3, dtype=dtype)
        index = tc.tensor([0, 0, 3, 0, 1])
        z.index_add_(0, index.cuda(), src.cuda())
        zc.index_add_(0, index, src)
        _same(z, zc, what=f"index_add_ {dtype}")
    flags, flagsc = tc.zeros(4, dtype=tc.bool, device="cuda"), tc.zeros(4, dtype=tc.bool)
    flags.index_put_((tc.tensor([1, 1, 2]).cuda(),), tc.tensor([True, False, False]).cuda(), accumulate=True)
    flagsc.index_put_((tc.tensor([1, 1, 2]),), tc.tensor([True, False, False]), accumulate=True)
    _same(flags, flagsc, what="bool index_put_ accumulate")
    with pytest.raises(RuntimeError, match="same device"):
        xc.gather(1, tc.zeros(3, 1, dtype=tc.int64, device="cuda"))
    with pytest.raises(RuntimeError, match="same device"):
        x.index_select(0, tc.tensor([0]), out=tc.empty([1, 4]))
    with pytest.raises((RuntimeError, ValueError), match="out= tensor is on cpu"):
        tc.where(x > 0, x, x, out=tc.empty([3, 4]))
    with pytest.raises((RuntimeError, ValueError), match="out= tensor is on cpu"):
        tc.clamp(x, 0, 1, out=tc.empty([3, 4]))
    with pytest.raises(RuntimeError, match="same device"):
        tc.where(xc > 0, x, 1.0)
    with pytest.raises(TypeError):
        tc.remainder(tc.tensor([True]).cuda(), tc.tensor([False]).cuda())
    p = tc.tensor(np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 0.0]])).cuda().requires_grad_()
    pc = tc.tensor(np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 0.0]]), requires_grad=True)
    p.cumprod(1).sum().backward()
    pc.cumprod(1).sum().backward()
    _same(p.grad, pc.grad, what="cumprod's gradient with zeros")


@pytest.mark.gpu
def test_causal_attention_like_cpu(gpu):
    """_causal_softmax through its composite (masked_fill, softmax) on the device, and causal
    attention's values and gradients, as the CPU kernel gives them."""
    tc = gpu
    sc = tc.tensor(_rand((2, 7, 9), "float32", 31))
    _same(tc._C._causal_softmax(sc.cuda()), tc._C._causal_softmax(sc), rtol=1e-5, atol=1e-6, what="_causal_softmax")
    q, k, v = (tc.tensor(_rand(s, "float64", 32 + i)) for i, s in enumerate(((2, 5, 4), (2, 6, 4), (2, 6, 3))))
    outs = []
    for dev in ("cuda", "cpu"):
        leaves = [t.to(dev).requires_grad_() for t in (q, k, v)]
        out = tc.nn.functional.scaled_dot_product_attention(*leaves, is_causal=True)
        out.sum().backward()
        outs.append([out.detach()] + [t.grad for t in leaves])
    for got, want in zip(*outs):
        _same(got, want, rtol=1e-9, atol=1e-12, what="causal attention")
