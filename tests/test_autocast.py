"""tcore.autocast against torch.autocast on the CPU: the dtypes each operator of torch's lists
gives (lower precision, float32, promote; float64 left; out= and in-place left), values and
gradients of a small network, a backward run inside the block, nesting, the weight cache, the
thread-local state, custom_fwd/custom_bwd and torch's errors and warnings."""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
A = RNG.standard_normal((4, 4))
IMG = RNG.standard_normal((2, 3, 6, 6))
VOL = RNG.standard_normal((1, 2, 4, 4, 4))
SEQ = RNG.standard_normal((2, 3, 8))
PROBS = RNG.uniform(0.1, 0.9, (3, 4))


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


def _cases(lib, low):
    """(label, thunk) over lib: each thunk runs one call inside a block casting to low and returns a
    tensor (b: a tensor of dtype low)."""
    F = lib.nn.functional
    f = lib.tensor(A, dtype=lib.float32)
    b = f.to(low)
    d = lib.tensor(A)
    img = lib.tensor(IMG, dtype=lib.float32)
    w = lib.tensor(RNG.standard_normal((5, 3, 3, 3)), dtype=lib.float32)
    seq = lib.tensor(SEQ, dtype=lib.float32)
    vol = lib.tensor(VOL, dtype=low)
    p = lib.tensor(PROBS, dtype=low)
    target = lib.tensor([0, 3, 1])
    return [
        ("mm", lambda: lib.mm(f, f)), ("mm f64", lambda: lib.mm(d, d)), ("mm f32 bf16", lambda: lib.mm(f, b)),
        ("matmul", lambda: f @ f), ("bmm", lambda: lib.bmm(f[None], f[None])),
        ("addmm", lambda: lib.addmm(f, f, f)), ("baddbmm", lambda: lib.baddbmm(f[None], f[None], f[None])),
        ("addbmm", lambda: lib.addbmm(f, f[None], f[None])), ("linear", lambda: F.linear(f, f, f[0])),
        ("linear f64", lambda: F.linear(d, d)), ("conv2d", lambda: F.conv2d(img, w, padding=1)),
        ("conv1d", lambda: F.conv1d(seq, lib.tensor(RNG.standard_normal((2, 3, 3)), dtype=lib.float32))),
        ("conv_transpose2d", lambda: F.conv_transpose2d(img, w.transpose(0, 1))),
        ("prelu", lambda: F.prelu(f, lib.tensor([0.25]))),
        ("sdpa", lambda: F.scaled_dot_product_attention(f[None], f[None], f[None])),
        ("cat", lambda: lib.cat([b, f])), ("cat bf16", lambda: lib.cat([b, b])), ("stack f64", lambda: lib.stack([b, d])),
        ("index_copy", lambda: f.index_copy(0, lib.tensor([1]), b[:1])),
        ("mse_loss", lambda: F.mse_loss(b, b)), ("l1_loss", lambda: F.l1_loss(b, b)),
        ("smooth_l1_loss", lambda: F.smooth_l1_loss(b, b)), ("huber_loss", lambda: F.huber_loss(b, b)),
        ("cross_entropy", lambda: F.cross_entropy(b[:3], target)), ("nll_loss", lambda: F.nll_loss(b[:3], target)),
        ("bce", lambda: F.binary_cross_entropy(p, p)), ("bce logits", lambda: F.binary_cross_entropy_with_logits(b, b)),
        ("kl_div", lambda: F.kl_div(b, b, reduction="batchmean")), ("mse f64", lambda: F.mse_loss(d, d)),
        ("prod", lambda: b.prod()), ("trace", lambda: b.trace()), ("cdist", lambda: lib.cdist(b, b)),
        ("inv", lambda: lib.linalg.inv(b + 4 * lib.eye(4, dtype=low))),
        ("avg_pool3d", lambda: F.avg_pool3d(vol, 2)), ("max_pool3d", lambda: F.max_pool3d(vol, 2)),
        ("pad reflect", lambda: F.pad(vol[0, 0], (1, 1), mode="reflect")),
        ("pad replicate", lambda: F.pad(vol[0, 0], (1, 1), mode="replicate")),
        ("pad circular", lambda: F.pad(vol[0, 0], (1, 1), mode="circular")), ("pad constant", lambda: F.pad(b, (1, 1))),
        # not in the lists: they run on what they get
        ("softmax", lambda: b.softmax(0)), ("add", lambda: b + f), ("sum", lambda: b.sum()),
        ("relu", lambda: F.relu(b)), ("layer_norm", lambda: F.layer_norm(b, (4,))), ("max_pool2d", lambda: F.max_pool2d(b[None], 2)),
        # out= and in-place overloads are left as they are
        ("mm out", lambda: lib.mm(f, f, out=lib.empty(4, 4))), ("addmm_", lambda: f.clone().addmm_(f, f)),
        ("int mm", lambda: lib.mm(target[None], target[:, None])),
    ]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_operator_dtypes_as_torch(dtype):
    got = {}
    for lib in (torch, tcore):
        low = getattr(lib, dtype)
        with lib.autocast("cpu", dtype=low):
            got[lib.__name__] = [(label, _name(fn().dtype)) for label, fn in _cases(lib, low)]
    assert got["tcore"] == got["torch"]
    assert ("mm", dtype) in got["tcore"] and ("mse_loss", "float32") in got["tcore"]
    for lib in (torch, tcore):  # (a float16 argument under bfloat16 autocast: torch's error)
        with lib.autocast("cpu"):
            with pytest.raises(RuntimeError, match="Unexpected floating ScalarType in at::autocast::prioritize"):
                lib.cat([lib.ones(2, dtype=lib.float16), lib.ones(2, dtype=lib.bfloat16)])


def _net(lib, x):
    lin1 = lib.nn.Linear(4, 8)
    lin2 = lib.nn.Linear(8, 2)
    with lib.no_grad():
        for lin, seed in ((lin1, 1), (lin2, 2)):
            r = np.random.default_rng(seed)
            lin.weight.copy_(lib.tensor(r.standard_normal(tuple(lin.weight.shape))))
            lin.bias.copy_(lib.tensor(r.standard_normal(tuple(lin.bias.shape))))
    with lib.autocast("cpu"):
        hidden = lib.relu(lin1(x))
        out = lin2(hidden)
        loss = lib.nn.functional.mse_loss(out, lib.zeros(out.shape))
    loss.backward()
    return out, loss, lin1.weight.grad, lin2.bias.grad


def test_network_values_and_gradients_as_torch():
    x = RNG.standard_normal((3, 4))
    want = _net(torch, torch.tensor(x, dtype=torch.float32))
    got = _net(tcore, tcore.tensor(x, dtype=tcore.float32))
    assert [_name(t.dtype) for t in got] == [_name(t.dtype) for t in want] == [
        "bfloat16", "float32", "float32", "float32"]
    for g, w in zip(got, want):  # (bfloat16 matmuls: the same roundings up to a last bit)
        np.testing.assert_allclose(g.detach().float().numpy(), w.detach().float().numpy(), rtol=3e-2, atol=3e-2)


def test_backward_inside_the_block_is_autocast_as_torch():
    """A backward run in the block casts its matmuls as torch's does (its gradients lose precision)."""
    errors = []
    for lib in (torch, tcore):
        a = lib.tensor(A, dtype=lib.float32, requires_grad=True)
        b = lib.tensor(A.T, dtype=lib.float32)
        with lib.autocast("cpu"):
            with lib.autocast("cpu", enabled=False):
                y = a @ b
            y.sum().backward()
        exact = np.ones((4, 4)) @ A.T.T
        assert _name(a.grad.dtype) == "float32"
        errors.append(np.abs(a.grad.numpy() - exact).max())
    assert all(1e-4 < e < 0.1 for e in errors), errors


def test_nesting_state_and_threads_as_torch():
    for lib in (torch, tcore):
        f = lib.tensor(A, dtype=lib.float32)
        assert not lib.is_autocast_enabled("cpu") and lib.get_autocast_dtype("cpu") == lib.bfloat16
        with lib.autocast("cpu", dtype=lib.float16):
            assert lib.is_autocast_enabled("cpu") and lib.get_autocast_dtype("cpu") == lib.float16
            with lib.autocast("cpu", enabled=False):
                assert (f @ f).dtype == lib.float32 and not lib.is_autocast_enabled("cpu")
            assert (f @ f).dtype == lib.float16
            seen = []
            thread = threading.Thread(target=lambda: seen.append((f @ f).dtype))  # (the state is per thread)
            thread.start()
            thread.join()
            assert seen == [lib.float32]
        with pytest.raises(ZeroDivisionError):
            with lib.autocast("cpu"):
                1 / 0
        assert not lib.is_autocast_enabled("cpu") and lib.get_autocast_dtype("cpu") == lib.bfloat16
        assert (f @ f).dtype == lib.float32

        @lib.autocast("cpu")
        def run(x):
            return x @ x

        assert run(f).dtype == lib.bfloat16 and (f @ f).dtype == lib.float32


def test_weight_cache_lasts_the_outermost_block():
    """The casts of float32 leaves requiring grad are kept until the outermost block ends: an
    in-place change to the weight inside shows only after it (torch's documented caveat)."""
    results = []
    for lib in (torch, tcore):
        w = lib.tensor(A, dtype=lib.float32, requires_grad=True)
        x = lib.eye(4)
        outs = []
        with lib.autocast("cpu"):
            outs.append(lib.nn.functional.linear(x, w))
            with lib.autocast("cpu"):
                with lib.no_grad():
                    w.add_(1.0)
            outs.append(lib.nn.functional.linear(x, w))  # (still the cached cast)
        with lib.autocast("cpu"):
            outs.append(lib.nn.functional.linear(x, w))
        with lib.autocast("cpu", cache_enabled=False):
            with lib.no_grad():
                w.add_(1.0)
            outs.append(lib.nn.functional.linear(x, w))
        sum(o.float().sum() for o in outs).backward()
        results.append([o.detach().float().numpy() for o in outs] + [w.grad.numpy()])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)
    np.testing.assert_array_equal(results[1][0], results[1][1])


def test_custom_fwd_and_bwd_as_torch():
    seen = {}
    for lib in (torch, tcore):
        events = []

        class Scale(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
            def forward(ctx, x, w):
                events.append(("fwd", _name(x.dtype), _name((x @ w).dtype), lib.is_autocast_enabled("cpu")))
                ctx.save_for_backward(w)
                return x @ w

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                (w,) = ctx.saved_tensors
                events.append(("bwd", _name(grad.dtype), lib.is_autocast_enabled("cpu")))
                return grad @ w.t(), None

        class Plain(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu")
            def forward(ctx, x):
                events.append(("plain fwd", _name((x @ x).dtype)))
                return x * 2

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                events.append(("plain bwd", lib.is_autocast_enabled("cpu")))
                return grad * 2

        x = lib.tensor(A, dtype=lib.bfloat16, requires_grad=True)
        w = lib.tensor(A, dtype=lib.float32)
        with lib.autocast("cpu"):
            y = Scale.apply(x, w)
            z = Plain.apply(lib.tensor(A, dtype=lib.float32, requires_grad=True))
        y.float().sum().backward()
        z.sum().backward()
        events.append(_name(x.grad.dtype))
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.amp.custom_fwd(device_type=1)
        seen[lib.__name__] = events
    assert seen["tcore"] == seen["torch"]


def test_errors_and_warnings_as_torch():
    for lib in (torch, tcore):
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(lib.device("cpu"))
        with pytest.raises(RuntimeError):  # (torch's message depends on the device type)
            lib.autocast("vulkan")
        with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of torch.bfloat16, torch.float16"):
            block = lib.autocast("cpu", dtype=lib.float32)
        with block:
            assert not lib.is_autocast_enabled("cpu")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autocast("cpu", enabled=False):
                pass
        assert lib.amp.is_autocast_available("cpu") and not lib.amp.is_autocast_available("vulkan")
    with pytest.raises(RuntimeError, match="User specified an unsupported autocast device_type 'vulkan'"):
        tcore.autocast("vulkan")
    if not tcore.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
            with tcore.autocast("cuda"):
                assert not tcore.is_autocast_enabled("cuda")
