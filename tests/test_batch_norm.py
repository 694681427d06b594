"""batch_norm's kernels (native/cpu/BatchNorm.cpp) and its composite against torch: every layout
the kernels walk ((N, C) by blocks of columns, short and long segments, 5-D), training and
evaluation with and without running statistics and affine parameters, non-contiguous inputs, a
mean far from zero (the squared deviations must not cancel), float64/float32/float16/bfloat16 and
mixed float32 parameters, one and two threads; first and second derivatives, forward-mode
tangents, running-statistic updates (momentum, cumulative averages, empty batches), the
functionalized buffer write, and the errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

SHAPES = [(8, 6), (300, 5), (5000, 3), (5, 4, 3), (2, 3, 40), (3, 2, 17, 1), (4, 3, 5, 5), (2, 3, 2, 3, 4), (6, 1, 9)]
MODES = [(True, True), (True, False), (False, True)]  # (training, running statistics)


def _data(shape, dtype=np.float64, seed=0, offset=5.0):
    rng = np.random.default_rng(seed + sum(shape))
    c = shape[1]
    return (rng.standard_normal(shape).astype(dtype) * 3 + offset, rng.standard_normal(c).astype(dtype),
            rng.standard_normal(c).astype(dtype), rng.standard_normal(c).astype(dtype),
            (rng.random(c) + 0.5).astype(dtype), rng.standard_normal(shape).astype(dtype))


def _run(lib, x, w, b, rm, rv, up, training, stats, affine, momentum=0.1, eps=1e-5, transpose=False):
    """(output, input grad, weight grad, bias grad, running mean, running var) as numpy."""
    tx = lib.tensor(np.ascontiguousarray(np.swapaxes(x, 0, -1)) if transpose else x)
    tx = (tx.transpose(0, -1) if transpose else tx).requires_grad_()
    tw, tb = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
    trm, trv = lib.tensor(rm), lib.tensor(rv)
    y = lib.nn.functional.batch_norm(tx, trm if stats else None, trv if stats else None, tw if affine else None,
                                     tb if affine else None, training, momentum, eps)
    y.backward(lib.tensor(up))
    grads = [tw.grad.numpy() if affine else None, tb.grad.numpy() if affine else None]
    return [y.detach().numpy(), tx.grad.numpy(), *grads, trm.numpy(), trv.numpy()]


def _compare(got, want, rtol, atol):
    for name, g, t in zip(("output", "input grad", "weight grad", "bias grad", "running mean", "running var"),
                          got, want):
        if t is None:
            assert g is None, name
            continue
        np.testing.assert_allclose(g, t, rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mode", MODES, ids=["train-stats", "train", "eval"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_against_torch_float64(tcore, shape, mode, threads):
    training, stats = mode
    x, w, b, rm, rv, up = _data(shape)
    old = tcore.get_num_threads()
    tcore.set_num_threads(threads)
    try:
        for affine in (True, False):
            got = _run(tcore, x, w, b, rm, rv, up, training, stats, affine)
            want = _run(torch, x, w, b, rm, rv, up, training, stats, affine)
            _compare(got, want, 1e-10, 1e-10)
    finally:
        tcore.set_num_threads(old)


@pytest.mark.parametrize("shape", [(16, 7), (4, 3, 33), (2, 5, 6, 6)], ids=str)
def test_strided_inputs_and_far_means(tcore, shape):
    # a transposed input (the kernels' contiguous copy), and float32 values 1e4 +- 1: two passes
    # keep the variance (one pass of sums of squares would cancel), and the batch mean's float32
    # rounding (up to 5e-4 here) is carried in a second float, so the output is as accurate as
    # float32 allows -- torch's float32 is off by 1e-3. The gradients use the saved float32 mean,
    # as torch's do: no worse than torch's.
    x, w, b, rm, rv, up = _data(shape, np.float32, offset=1e4)
    x = (x - 1e4) / 3 + np.float32(1e4)
    f64 = lambda a: a.astype(np.float64)  # noqa: E731
    for mode in MODES:
        got = _run(tcore, x, w, b, rm, rv, up, *mode, affine=True, transpose=True)
        theirs = _run(torch, x, w, b, rm, rv, up, *mode, affine=True, transpose=True)
        exact = _run(torch, *map(f64, (x, w, b, rm, rv, up)), *mode, affine=True, transpose=True)
        np.testing.assert_allclose(got[0], exact[0], rtol=1e-5, atol=1e-5)
        for name, g, t, e in zip(("input grad", "weight grad", "bias grad", "running mean", "running var"),
                                 got[1:], theirs[1:], exact[1:]):
            assert np.abs(g - e).max() <= max(1.5 * np.abs(t - e).max(), 1e-5 * np.abs(e).max()), name


@pytest.mark.parametrize("shape", [(64, 32), (4, 8, 16, 16)], ids=str)
def test_float32_and_the_reduced_floats(tcore, shape):
    x, w, b, rm, rv, up = _data(shape, np.float32)
    for mode in MODES:
        _compare(_run(tcore, x, w, b, rm, rv, up, *mode, affine=True),
                 _run(torch, x, w, b, rm, rv, up, *mode, affine=True), 2e-5, 2e-5)
        for dt in ("float16", "bfloat16"):
            for mixed in (False, True):  # parameters of the input's dtype, or float32 ones
                outs = []
                for lib in (tcore, torch):
                    d = getattr(lib, dt)
                    p = (lambda a: lib.tensor(a)) if mixed else (lambda a: lib.tensor(a).to(d))
                    trm, trv = p(rm), p(rv)
                    y = lib.nn.functional.batch_norm(lib.tensor(x).to(d), trm if mode[1] else None,
                                                     trv if mode[1] else None, p(w), p(b), mode[0])
                    assert str(y.dtype).endswith(dt)
                    outs.append([y.float().numpy(), trm.float().numpy(), trv.float().numpy()])
                tol = 2e-2 if dt == "bfloat16" else 3e-3
                for g, t in zip(*outs):
                    np.testing.assert_allclose(g, t, rtol=tol, atol=tol * 4)


def test_internal_operators_like_torch(tcore):
    x, w, b, rm, rv, _ = _data((4, 3, 5), np.float32)
    args = lambda lib: (lib.tensor(x), lib.tensor(w), lib.tensor(b))  # noqa: E731
    for training in (True, False):
        got = tcore.ops._native_batch_norm_legit_functional(*args(tcore), tcore.tensor(rm), tcore.tensor(rv), training, 0.3, 1e-3)
        want = torch.ops.aten._native_batch_norm_legit_functional(*args(torch), torch.tensor(rm), torch.tensor(rv),
                                                                    training, 0.3, 1e-3)
        for g, t in zip(got, want):
            assert list(g.shape) == list(t.shape)
            np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=2e-5, atol=2e-5)
    got = tcore.ops._native_batch_norm_legit(*args(tcore), True, 0.1, 1e-5)
    want = torch.ops.aten._native_batch_norm_legit(*args(torch), True, 0.1, 1e-5)
    for g, t in zip(got, want):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=2e-5, atol=2e-5)
    # the buffers given to the functional form are not written
    trm = tcore.tensor(rm)
    tcore.ops._native_batch_norm_legit_functional(*args(tcore), trm, tcore.tensor(rv), True, 0.5, 1e-5)
    np.testing.assert_array_equal(trm.numpy(), rm)
    # the out= forms: _native_batch_norm_legit.out writes the running statistics in place, as torch's
    bufs = {lib: [lib.tensor(rm), lib.tensor(rv)] + [lib.empty(0) for _ in range(3)] for lib in (tcore, torch)}
    tcore.ops._native_batch_norm_legit.out(*args(tcore), *bufs[tcore][:2], True, 0.3, 1e-5, out=bufs[tcore][2],
                                           save_mean=bufs[tcore][3], save_invstd=bufs[tcore][4])
    torch.ops.aten._native_batch_norm_legit.out(*args(torch), *bufs[torch][:2], True, 0.3, 1e-5, out=bufs[torch][2],
                                                save_mean=bufs[torch][3], save_invstd=bufs[torch][4])
    for g, t in zip(bufs[tcore], bufs[torch]):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=2e-5, atol=2e-5)
    outs = [tcore.empty(0) for _ in range(3)]
    tcore.ops._native_batch_norm_legit.no_stats_out(*args(tcore), True, 0.1, 1e-5, out=outs[0], save_mean=outs[1],
                                                    save_invstd=outs[2])
    for g, t in zip(outs, torch.ops.aten._native_batch_norm_legit(*args(torch), True, 0.1, 1e-5)):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=2e-5, atol=2e-5)
    # the backward operator, every output_mask
    g = np.random.default_rng(1).standard_normal(x.shape).astype(np.float32)
    _, mean, invstd = torch.ops.aten._native_batch_norm_legit(*args(torch), True, 0.1, 1e-5)
    for mask in ([True, True, True], [True, False, False], [False, True, True]):
        for train in (True, False):
            t_args = [torch.tensor(g), torch.tensor(x), torch.tensor(w), torch.tensor(rm), torch.tensor(rv), mean, invstd]
            c_args = [tcore.tensor(g), tcore.tensor(x), tcore.tensor(w), tcore.tensor(rm), tcore.tensor(rv),
                      tcore.tensor(mean.numpy()), tcore.tensor(invstd.numpy())]
            want = torch.ops.aten.native_batch_norm_backward(*t_args, train, 1e-5, mask)
            got = tcore.ops.native_batch_norm_backward(*c_args, train, 1e-5, mask)
            outs = [tcore.empty(0) for _ in range(3)]
            tcore.ops.native_batch_norm_backward.out(*c_args, train, 1e-5, mask, out0=outs[0], out1=outs[1],
                                                     out2=outs[2])
            for m, gg, oo, tt in zip(mask, got, outs, want):
                if m:
                    np.testing.assert_allclose(gg.numpy(), tt.numpy(), rtol=2e-5, atol=2e-5)
                    np.testing.assert_allclose(oo.numpy(), tt.numpy(), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("mode", MODES, ids=["train-stats", "train", "eval"])
@pytest.mark.parametrize("shape", [(6, 4), (3, 2, 4, 5)], ids=str)
def test_second_derivatives(tcore, shape, mode):
    # create_graph: the backward in differentiable operators (a gradient penalty through input,
    # weight and the upstream gradient), as torch's batchnorm_double_backward
    x, w, b, rm, rv, up = _data(shape)
    results = []
    for lib in (tcore, torch):
        tx, tw, tb, tu = (lib.tensor(a, requires_grad=True) for a in (x, w, b, up))
        y = lib.nn.functional.batch_norm(tx, lib.tensor(rm) if mode[1] else None, lib.tensor(rv) if mode[1] else None,
                                         tw, tb, mode[0])
        gx, gw = lib.autograd.grad((y * tu).sum(), (tx, tw), create_graph=True)
        penalty = (gx * gx).sum() + (gw * gw).sum()
        results.append([a.detach().numpy() for a in lib.autograd.grad(penalty, (tx, tw, tu))])
    for name, g, t in zip(("input", "weight", "upstream"), *results):
        np.testing.assert_allclose(g, t, rtol=1e-9, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("mode", MODES, ids=["train-stats", "train", "eval"])
def test_forward_mode(tcore, mode):
    import tcore.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD

    x, w, b, rm, rv, xt = _data((4, 3, 5))
    wt, bt = np.linspace(-1, 1, 3), np.array([0.5, -2.0, 1.0])
    outs = []
    for lib, ad in ((tcore, fwAD), (torch, tfwAD)):
        with ad.dual_level():
            y = lib.nn.functional.batch_norm(ad.make_dual(lib.tensor(x), lib.tensor(xt)),
                                             lib.tensor(rm) if mode[1] else None, lib.tensor(rv) if mode[1] else None,
                                             ad.make_dual(lib.tensor(w), lib.tensor(wt)),
                                             ad.make_dual(lib.tensor(b), lib.tensor(bt)), mode[0])
            outs.append(ad.unpack_dual(y).tangent.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-10, atol=1e-10)


def test_forward_over_reverse(tcore):
    # a tangent through the backward itself: the differentiable path, not the kernel
    import tcore.autograd.forward_ad as fwAD

    x, w, b, _, _, up = _data((5, 3))
    xt = np.random.default_rng(2).standard_normal(x.shape)

    def grad_at(lib, xs):
        tw = lib.tensor(w)
        return lambda t: lib.autograd.grad((lib.nn.functional.batch_norm(t, None, None, tw, None, True)
                                            * lib.tensor(up)).sum(), t)[0]
    with fwAD.dual_level():
        tx = fwAD.make_dual(tcore.tensor(x), tcore.tensor(xt)).requires_grad_()
        got = fwAD.unpack_dual(grad_at(tcore, x)(tx)).tangent.numpy()
    # the directional derivative of the input gradient, by central differences (torch's
    # forward-over-reverse for batch_norm goes through the same formulas)
    h = 1e-6
    plus = grad_at(tcore, x)(tcore.tensor(x + h * xt, requires_grad=True)).numpy()
    minus = grad_at(tcore, x)(tcore.tensor(x - h * xt, requires_grad=True)).numpy()
    np.testing.assert_allclose(got, (plus - minus) / (2 * h), rtol=1e-5, atol=1e-6)


def test_module_running_statistics(tcore):
    rng = np.random.default_rng(3)
    batches = [rng.standard_normal((8, 4, 3)) * (i + 1) + i for i in range(3)]
    for momentum in (0.1, None, 0.0, 1.0):
        mods = [lib.nn.BatchNorm1d(4, momentum=momentum).double() for lib in (tcore, torch)]
        for xb in batches:
            outs = [m(lib.tensor(xb)).detach().numpy() for m, lib in zip(mods, (tcore, torch))]
            np.testing.assert_allclose(*outs, rtol=1e-10, atol=1e-10)
        for name in ("running_mean", "running_var"):
            np.testing.assert_allclose(getattr(mods[0], name).numpy(), getattr(mods[1], name).numpy(), rtol=1e-12)
        assert int(mods[0].num_batches_tracked.item()) == 3
        for m in mods:
            m.eval()
        outs = [m(lib.tensor(batches[0])).detach().numpy() for m, lib in zip(mods, (tcore, torch))]
        np.testing.assert_allclose(*outs, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape", [(8, 6), (4, 3, 5, 5)])
@pytest.mark.parametrize("channels_last", [False, True])
def test_values_whose_squares_overflow_float32(tcore, shape, channels_last):
    """float32 deviations past 1.8e19 square past float32's range, and the normalized output is
    finite: a channel whose squares overflowed is summed again scaled (it gave an output of 0, as
    torch's float32 kernel does; float64 torch is the reference), and instance_norm with it."""
    if channels_last and len(shape) != 4:
        pytest.skip("channels_last is 4-D")
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32) * np.float32(1e30)
    x[:, 0] /= np.float32(1e30)  # an ordinary channel beside them
    t = tcore.tensor(x)
    if channels_last:
        t = t.contiguous(memory_format=tcore.channels_last)
    rm, rv = tcore.zeros(shape[1]), tcore.ones(shape[1])
    got = tcore.nn.functional.batch_norm(t, rm, rv, training=True).numpy()
    trm, trv = torch.zeros(shape[1], dtype=torch.float64), torch.ones(shape[1], dtype=torch.float64)
    want = torch.nn.functional.batch_norm(torch.tensor(x, dtype=torch.float64), trm, trv, training=True).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rm.numpy(), trm.numpy(), rtol=1e-5)
    assert np.isinf(rv.numpy()[1:]).all() and np.isclose(rv.numpy()[0], trv.numpy()[0], rtol=1e-5)  # past float32
    if len(shape) > 2:
        want = torch.nn.functional.instance_norm(torch.tensor(x, dtype=torch.float64)).numpy()
        np.testing.assert_allclose(tcore.nn.functional.instance_norm(t).numpy(), want, rtol=1e-5, atol=1e-5)


def test_empty_batch_leaves_the_statistics(tcore):
    rm, rv = tcore.zeros(3), tcore.ones(3)
    w = tcore.ones(3, requires_grad=True)
    y = tcore.nn.functional.batch_norm(tcore.zeros(0, 3, 2), rm, rv, w, None, True)
    assert list(y.shape) == [0, 3, 2]
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros(3))
    np.testing.assert_array_equal(rm.numpy(), np.zeros(3))
    np.testing.assert_array_equal(rv.numpy(), np.ones(3))


def test_functionalized_buffers(tcore):
    # the running statistics are written by copy_ (not inside the kernel): functionalization
    # sees the write and commits it to the buffers
    from tcore.func import functionalize

    x = tcore.tensor(_data((6, 3), np.float32)[0])

    def step(x, rm, rv):
        return tcore.nn.functional.batch_norm(x, rm, rv, None, None, True, 0.5)

    plain = [tcore.zeros(3), tcore.ones(3)]
    want = step(x, *plain)
    func = [tcore.zeros(3), tcore.ones(3)]
    got = functionalize(step)(x, *func)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    for a, b in zip(func, plain):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    assert not np.allclose(func[0].numpy(), 0)

    # PyTorch's out= form writes the running statistics in place: functionalized, the functional
    # form runs and its new statistics are committed to them
    def legit_out(x, rm, rv, out, mean, invstd):
        tcore.ops._native_batch_norm_legit.out(x, None, None, rm, rv, True, 0.5, 1e-5, out=out, save_mean=mean,
                                               save_invstd=invstd)
        return out
    eager = [tcore.zeros(3), tcore.ones(3)] + [tcore.empty(0) for _ in range(3)]
    functional = [tcore.zeros(3), tcore.ones(3)] + [tcore.empty(0) for _ in range(3)]
    legit_out(x, *eager)
    functionalize(legit_out)(x, *functional)
    for a, b in zip(functional, eager):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    np.testing.assert_allclose(eager[0].numpy(), plain[0].numpy(), rtol=1e-6)


@pytest.mark.parametrize("case", [
    (lambda lib: lib.nn.functional.batch_norm(lib.randn(4, 3), None, None, training=False),
     RuntimeError, "running_mean must be defined in evaluation mode"),
    (lambda lib: lib.nn.functional.batch_norm(lib.randn(4, 3), lib.zeros(4), lib.ones(4)),
     RuntimeError, "running_mean should contain 3 elements not 4"),
    (lambda lib: lib.nn.functional.batch_norm(lib.randn(4, 3), lib.zeros(3), lib.ones(3), lib.ones(2)),
     RuntimeError, "weight should contain 3 elements not 2"),
    (lambda lib: lib.nn.functional.batch_norm(lib.randn(1, 3), None, None, training=True),
     ValueError, "Expected more than 1 value per channel when training"),
    (lambda lib: lib.nn.functional.batch_norm(lib.randn(4, 3).double(), lib.zeros(3), lib.ones(3)),
     RuntimeError, "mixed dtype"),
    (lambda lib: lib.nn.functional.batch_norm(lib.randn(4, 3), lib.zeros(3).double(), lib.ones(3).double()),
     RuntimeError, "mixed dtype"),
])
def test_errors_like_torch(tcore, case):
    fn, kind, message = case
    with pytest.raises(kind, match=message):
        fn(torch)
    with pytest.raises(kind, match=message):
        fn(tcore)


def test_errors_of_tcore(tcore):
    with pytest.raises(ValueError, match="at least 2 dims"):
        tcore.nn.functional.batch_norm(tcore.randn(3), None, None, training=True)
    with pytest.raises(TypeError, match="floating point"):
        tcore.nn.functional.batch_norm(tcore.arange(12).reshape(4, 3), None, None, training=True)
    # torch's _native_batch_norm_legit(training=False) without statistics crashes the process
    with pytest.raises(RuntimeError, match="running_mean must be defined"):
        tcore.ops._native_batch_norm_legit(tcore.randn(4, 3), None, None, False, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="at least one element"):
        tcore.ops._native_batch_norm_legit(tcore.zeros(0, 3), None, None, True, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="save_mean and save_invstd"):
        tcore.ops.native_batch_norm_backward(tcore.ones(4, 3), tcore.ones(4, 3), None, None, None, None, None, True, 1e-5,
                                         [True, True, True])
