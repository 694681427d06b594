"""nn layers, losses and functions against torch's: PReLU, RReLU, Softmax2d, BatchNorm3d, Bilinear,
ChannelShuffle, LPPool1d/2d, MaxUnpool1d/2d, MultiLabelMarginLoss, TripletMarginWithDistanceLoss,
pdist, gumbel_softmax, alpha dropout, ParameterList/ParameterDict: values and gradients in float64
(random ones by their laws: tcore's draws are its own), reprs, errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
from torch_twins import copy_parameters  # noqa: E402

TF, CF = torch.nn.functional, tcore.nn.functional


def _pair(*arrays, grad=True):
    return ([torch.tensor(a, requires_grad=grad) for a in arrays], [tcore.tensor(a, requires_grad=grad) for a in arrays])


def _same_values_and_gradients(fn_t, fn_c, *arrays, tol=1e-12):
    ts, cs = _pair(*arrays)
    want, got = fn_t(*ts), fn_c(*cs)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)
    up = np.random.default_rng(9).standard_normal(tuple(want.shape))
    want.backward(torch.tensor(up))
    got.backward(tcore.tensor(up))
    for c, t in zip(cs, ts):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


RNG = np.random.default_rng(0)
X4 = np.round(RNG.standard_normal((2, 3, 6, 5)) * 2) / 2  # (zeros and ties included)

FUNCTIONS = {
    "prelu per channel": (lambda m, x, w: m.nn.functional.prelu(x, w), [X4, np.array([0.25, -0.5, 2.0])]),
    "prelu one weight": (lambda m, x, w: m.nn.functional.prelu(x, w), [X4, np.array([0.1])]),
    "prelu 1-D": (lambda m, x, w: m.nn.functional.prelu(x, w), [X4.reshape(-1)[:9], np.array([0.3])]),
    "rrelu eval": (lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.3, training=False), [X4]),
    "softmax2d": (lambda m, x: m.nn.Softmax2d()(x), [X4]),
    "bilinear": (lambda m, a, b, w, c: m.nn.functional.bilinear(a, b, w, c),
                 [RNG.standard_normal((4, 3)), RNG.standard_normal((4, 5)), RNG.standard_normal((2, 3, 5)),
                  RNG.standard_normal(2)]),
    "bilinear batched": (lambda m, a, b, w: m.nn.functional.bilinear(a, b, w),
                         [RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 4, 5)), RNG.standard_normal((2, 3, 5))]),
    "channel_shuffle": (lambda m, x: m.nn.functional.channel_shuffle(x, 3), [RNG.standard_normal((2, 6, 3, 2))]),
    "lp_pool2d": (lambda m, x: m.nn.functional.lp_pool2d(x, 2.0, 2), [np.abs(X4) + 0.5]),
    "lp_pool2d p3 stride": (lambda m, x: m.nn.functional.lp_pool2d(x, 3.0, (2, 3), 1), [np.abs(X4) + 0.5]),
    "lp_pool1d": (lambda m, x: m.nn.functional.lp_pool1d(x, 1.5, 3, 2, True), [np.abs(X4[0]) + 0.5]),
    "pdist": (lambda m, x: m.nn.functional.pdist(x), [RNG.standard_normal((6, 4))]),
    "pdist p1": (lambda m, x: m.nn.functional.pdist(x, 1), [RNG.standard_normal((6, 4))]),
    "pdist p3": (lambda m, x: m.nn.functional.pdist(x, 3), [RNG.standard_normal((6, 4))]),
    "pdist inf": (lambda m, x: m.nn.functional.pdist(x, float("inf")), [RNG.standard_normal((6, 4))]),
    "pdist equal rows": (lambda m, x: m.nn.functional.pdist(x), [np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])]),
    "triplet distance": (lambda m, a, p, n: m.nn.functional.triplet_margin_with_distance_loss(a, p, n),
                         [RNG.standard_normal((5, 4)) for _ in range(3)]),
    "triplet distance swap none": (
        lambda m, a, p, n: m.nn.functional.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda x, y: 1 - m.nn.functional.cosine_similarity(x, y), margin=0.5,
            swap=True, reduction="none"),
        [RNG.standard_normal((5, 4)) for _ in range(3)]),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_functions_as_torch(name):
    fn, arrays = FUNCTIONS[name]
    _same_values_and_gradients(lambda *a: fn(torch, *a), lambda *a: fn(tcore, *a), *arrays)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("batched", [True, False])
def test_multilabel_margin_loss_as_torch(reduction, batched):
    x = RNG.standard_normal((4, 5))
    y = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 3, 4], [4, 4, -1, 0, 0]])
    x, y = (x, y) if batched else (x[0], y[0])
    ts, cs = _pair(x)
    want = TF.multilabel_margin_loss(ts[0], torch.tensor(y), reduction=reduction)
    got = CF.multilabel_margin_loss(cs[0], tcore.tensor(y), reduction=reduction)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-13)
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(cs[0].grad.numpy(), ts[0].grad.numpy(), rtol=1e-13)
    assert repr(tcore.nn.MultiLabelMarginLoss()) == repr(torch.nn.MultiLabelMarginLoss())


@pytest.mark.parametrize("n", [1, 2])
def test_max_unpool_inverts_max_pool_as_torch(n):
    x = RNG.standard_normal((2, 3, 7, 6)[: n + 2])
    pool_t, pool_c = (TF.max_pool2d, CF.max_pool2d) if n == 2 else (TF.max_pool1d, CF.max_pool1d)
    unpool_t, unpool_c = (TF.max_unpool2d, CF.max_unpool2d) if n == 2 else (TF.max_unpool1d, CF.max_unpool1d)
    vt, it = pool_t(torch.tensor(x), 2, return_indices=True)
    vc, ic = pool_c(tcore.tensor(x), 2, return_indices=True)
    for size in (None, list(x.shape[2:])):
        want = unpool_t(vt, it, 2, output_size=size)
        vc_grad = tcore.tensor(vc.numpy(), requires_grad=True)
        got = unpool_c(vc_grad, ic, 2, output_size=size)
        np.testing.assert_array_equal(got.detach().numpy(), want.numpy())
        got.sum().backward()
        assert vc_grad.grad.tolist() == np.ones(vc.shape).tolist()
    module = tcore.nn.MaxUnpool2d(2) if n == 2 else tcore.nn.MaxUnpool1d(2)
    np.testing.assert_array_equal(module(vc, ic).numpy(), unpool_t(vt, it, 2).numpy())
    with pytest.raises(ValueError, match="invalid output_size"):
        unpool_c(vc, ic, 2, output_size=[s + 3 for s in x.shape[2:]])


def test_prelu_and_bilinear_modules_as_torch():
    for make in (lambda m: m.nn.PReLU(3), lambda m: m.nn.Bilinear(3, 5, 2)):
        tm, cm = make(torch).double(), make(tcore).to(tcore.float64)
        assert repr(cm) == repr(tm)
        copy_parameters(tm, cm)
        args = [X4] if isinstance(tm, torch.nn.PReLU) else [RNG.standard_normal((4, 3)), RNG.standard_normal((4, 5))]
        np.testing.assert_allclose(cm(*[tcore.tensor(a) for a in args]).detach().numpy(),
                                   tm(*[torch.tensor(a) for a in args]).detach().numpy(), rtol=1e-13)
    assert tcore.nn.PReLU().weight.tolist() == [0.25]


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_3d_as_torch(training):
    x = RNG.standard_normal((3, 2, 4, 3, 5))
    tm, cm = torch.nn.BatchNorm3d(2).double(), tcore.nn.BatchNorm3d(2, dtype=tcore.float64)
    assert repr(cm) == repr(tm)
    tm.train(training)
    cm.train(training)
    for _ in range(2):
        np.testing.assert_allclose(cm(tcore.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(),
                                   rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cm.running_var.numpy(), tm.running_var.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match=r"expected 5D input \(got 4D input\)"):
        cm(tcore.tensor(x[0]))


def test_rrelu_training_draws_a_slope_per_negative_element():
    x = tcore.tensor(np.linspace(-3, 3, 2001), requires_grad=True)
    y = CF.rrelu(x, 0.1, 0.3, training=True)
    neg = x.detach().numpy() < 0
    slope = y.detach().numpy()[neg] / x.detach().numpy()[neg]
    assert slope.min() >= 0.1 and slope.max() < 0.3 and slope.std() > 0.04
    np.testing.assert_array_equal(y.detach().numpy()[~neg], x.detach().numpy()[~neg])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[neg], slope, rtol=1e-12)  # (the gradient: the drawn slope)
    m = tcore.nn.RReLU(0.1, 0.3)
    m.eval()
    assert m(tcore.tensor([-1.0])).tolist() == pytest.approx([-0.2])


def test_gumbel_softmax():
    tcore.manual_seed(0)
    logits = tcore.tensor(np.log(np.array([[0.1, 0.6, 0.3]] * 20000)))
    soft = CF.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).numpy(), 1.0, rtol=1e-12)
    hard = CF.gumbel_softmax(logits, hard=True)
    assert set(np.unique(hard.numpy())) == {0.0, 1.0} and hard.sum(-1).tolist() == [1.0] * 20000
    np.testing.assert_allclose(hard.numpy().mean(0), [0.1, 0.6, 0.3], atol=0.015)  # (Gumbel-max: exact sampling)
    x = tcore.tensor([[1.0, 2.0, 0.5]], requires_grad=True)
    tcore.manual_seed(1)
    (CF.gumbel_softmax(x, hard=True) * tcore.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    tcore.manual_seed(1)
    x2 = tcore.tensor([[1.0, 2.0, 0.5]], requires_grad=True)
    (CF.gumbel_softmax(x2) * tcore.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)  # straight-through: the soft gradient


def test_alpha_dropout_keeps_selu_statistics():
    tcore.manual_seed(0)
    x = tcore.randn(400000, dtype=tcore.float64)
    y = CF.alpha_dropout(x, 0.3, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    # torch's two forms: kept a x + a alpha' p, dropped -a alpha' (1 - p)
    a, alpha = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7), 1.7580993408473766
    dropped = np.isclose(y, -a * alpha * 0.7)
    np.testing.assert_allclose(y[~dropped], a * x.numpy()[~dropped] + a * alpha * 0.3, rtol=1e-12)
    assert abs(dropped.mean() - 0.3) < 0.005
    assert CF.alpha_dropout(x, 0.3, training=False) is x
    f = CF.feature_alpha_dropout(tcore.ones(64, 8, 5), 0.5, training=True).numpy()
    assert (f == f[:, :, :1]).all()  # one draw per (sample, channel)
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        CF.feature_alpha_dropout(tcore.ones(3), 0.5, True)


def test_parameter_containers():
    class Net(tcore.nn.Module):
        def __init__(self):
            super().__init__()
            self.plist = tcore.nn.ParameterList([tcore.zeros(2), tcore.nn.Parameter(tcore.ones(3))])
            self.pdict = tcore.nn.ParameterDict({"w": tcore.zeros(2, 2)})

    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["plist.0", "plist.1", "pdict.w"]
    assert all(isinstance(p, tcore.nn.Parameter) for p in net.parameters())
    net.plist.append(tcore.ones(1))
    net.pdict["b"] = tcore.ones(4)
    assert len(net.plist) == 3 and list(net.pdict) == ["w", "b"] and net.plist[-1].shape == (1,)
    assert list(net.state_dict()) == ["plist.0", "plist.1", "plist.2", "pdict.w", "pdict.b"]
    assert net.pdict.pop("b").shape == (4,) and "b" not in net.pdict

    def plist(m):
        return m.nn.ParameterList([m.nn.Parameter(m.zeros(2, 3)), m.zeros(2, dtype=m.float64)])

    assert repr(plist(tcore)).replace("tcore.", "torch.") == repr(plist(torch))


MODULE_REPRS = [
    lambda m: m.nn.RReLU(0.1, 0.3, True), lambda m: m.nn.AlphaDropout(0.2), lambda m: m.nn.FeatureAlphaDropout(),
    lambda m: m.nn.LPPool2d(2, 3), lambda m: m.nn.LPPool1d(2, 3, 2), lambda m: m.nn.ChannelShuffle(2),
    lambda m: m.nn.MaxUnpool2d(2), lambda m: m.nn.MaxUnpool1d(2, 1), lambda m: m.nn.Softmax2d(),
    lambda m: m.nn.TripletMarginWithDistanceLoss(), lambda m: m.nn.BatchNorm2d(3, bias=False),
    lambda m: m.nn.InstanceNorm1d(3, affine=True, bias=False),
]


@pytest.mark.parametrize("i", range(len(MODULE_REPRS)))
def test_reprs_as_torch(i):
    assert repr(MODULE_REPRS[i](tcore)) == repr(MODULE_REPRS[i](torch))


ERRORS = [
    lambda m: m.nn.functional.prelu(m.zeros(2, 4), m.zeros(3)),
    lambda m: m.nn.functional.prelu(m.zeros(4), m.zeros(3)),
    lambda m: m.nn.functional.pdist(m.zeros(2, 3, 4)),
    lambda m: m.nn.functional.pdist(m.zeros(3, 4), -1),
    lambda m: m.nn.functional.channel_shuffle(m.zeros(1, 5, 2), 2),
    lambda m: m.nn.functional.bilinear(m.zeros(2, 3), m.zeros(2, 4), m.zeros(5, 3, 3)),
    lambda m: m.nn.functional.multilabel_margin_loss(m.zeros(2, 3), m.zeros(2, 4, dtype=m.int64)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    with pytest.raises(RuntimeError) as want:
        ERRORS[i](torch)
    with pytest.raises(RuntimeError) as got:
        ERRORS[i](tcore)
    assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        tcore.nn.Softmax2d()(tcore.zeros(2, 3))
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        CF.triplet_margin_with_distance_loss(tcore.zeros(2, 3), tcore.zeros(2, 3), tcore.zeros(2, 3), margin=0)


BAGS = [(np.array([1, 2, 3, 4, 1, 0, 7]), dict(offsets=np.array([0, 2, 2, 5]))),
        (np.array([1, 2, 3, 4, 1, 0, 7]), dict(offsets=np.array([0, 2, 2, 5]), padding_idx=1)),
        (np.array([[1, 2, 3], [4, 1, 0]]), dict()),
        (np.array([1, 2, 3, 4, 1, 0, 7]), dict(offsets=np.array([0, 2, 5, 7]), include_last_offset=True)),
        # rows 3 and 5 are equal (below): equal maxima, whose gradient torch gives to the first alone
        (np.array([3, 3, 5, 4, 5, 2, 3]), dict(offsets=np.array([0, 3, 3]))),
        (np.array([], dtype=np.int64), dict(offsets=np.array([0, 0])))]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", range(len(BAGS)))
def test_embedding_bag_as_torch(mode, case):
    """(empty bags give zeros; padding_idx's entries count for nothing; max's gradient reaches the
    maximum's row)"""
    inp, kw = BAGS[case]
    w = np.random.default_rng(case).standard_normal((10, 3))
    w[5] = w[3]
    wt, wc = torch.tensor(w, requires_grad=True), tcore.tensor(w, requires_grad=True)
    kt = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    kc = {k: tcore.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    want = TF.embedding_bag(torch.tensor(inp), wt, mode=mode, **kt)
    got = CF.embedding_bag(tcore.tensor(inp), wc, mode=mode, **kc)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-14, atol=1e-15)
    up = np.random.default_rng(9).standard_normal(tuple(want.shape))
    want.backward(torch.tensor(up))
    got.backward(tcore.tensor(up))
    np.testing.assert_allclose(wc.grad.numpy(), wt.grad.numpy(), rtol=1e-13, atol=1e-15)


def test_embedding_bag_max_with_nan_as_torch():
    """(torch's running maximum: a NaN counts only as a bag's first entry)"""
    nan = float("nan")
    for w, inp in [([[nan, 1.0], [2.0, 3.0]], [[1, 0]]), ([[nan, 1.0], [2.0, 3.0]], [[0, 1]]),
                   ([[2.0, 3.0], [nan, nan], [2.0, 5.0]], [[0, 1, 2], [1, 2, 0]])]:
        results = []
        for lib in (torch, tcore):
            weight = lib.tensor(w, requires_grad=True)
            out = lib.nn.functional.embedding_bag(lib.tensor(inp), weight, mode="max")
            out.sum().backward()
            results.append((out.detach().numpy(), weight.grad.numpy()))
        np.testing.assert_array_equal(results[1][0], results[0][0])
        np.testing.assert_array_equal(results[1][1], results[0][1])


def test_embedding_bag_weights_module_and_errors():
    w = np.random.default_rng(1).standard_normal((10, 3))
    psw = np.random.default_rng(2).standard_normal(7)
    inp, off = np.array([1, 2, 3, 4, 1, 0, 7]), np.array([0, 2, 2, 5])
    np.testing.assert_allclose(
        CF.embedding_bag(tcore.tensor(inp), tcore.tensor(w), tcore.tensor(off), mode="sum",
                         per_sample_weights=tcore.tensor(psw)).numpy(),
        TF.embedding_bag(torch.tensor(inp), torch.tensor(w), torch.tensor(off), mode="sum",
                         per_sample_weights=torch.tensor(psw)).numpy(), rtol=1e-14)
    for make in (lambda m: m.nn.EmbeddingBag(10, 3), lambda m: m.nn.EmbeddingBag(10, 3, mode="max", padding_idx=0)):
        assert repr(make(tcore)) == repr(make(torch))
    assert tcore.nn.EmbeddingBag(10, 3, padding_idx=2).weight[2].tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        CF.embedding_bag(tcore.tensor([1, 2]), tcore.tensor(w))
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        CF.embedding_bag(tcore.tensor([1, 2]), tcore.tensor(w), tcore.tensor([1]))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        CF.embedding_bag(tcore.tensor([1, 2]), tcore.tensor(w), tcore.tensor([0]), mode="max",
                         per_sample_weights=tcore.ones(2))


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_as_torch(mode, padding_mode, align_corners):
    """(grid points inside and up to 40% past the edges; gradients to input and grid)"""
    rng = np.random.default_rng(5)
    x, g = rng.standard_normal((2, 3, 5, 6)), rng.uniform(-1.4, 1.4, (2, 4, 7, 2))
    (xt, gt), (xc, gc) = _pair(x, g)
    want = TF.grid_sample(xt, gt, mode, padding_mode, align_corners)
    got = CF.grid_sample(xc, gc, mode, padding_mode, align_corners)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-13, atol=1e-14)
    up = rng.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(up))
    got.backward(tcore.tensor(up))
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(gc.grad.numpy(), gt.grad.numpy(), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_as_torch(align_corners):
    rng = np.random.default_rng(6)
    for theta, size in ((rng.standard_normal((2, 2, 3)), [2, 3, 4, 5]), (rng.standard_normal((2, 3, 4)), [2, 1, 3, 4, 5])):
        (tt,), (tc,) = _pair(theta)
        want, got = TF.affine_grid(tt, size, align_corners), CF.affine_grid(tc, size, align_corners)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-13, atol=1e-15)
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(tc.grad.numpy(), tt.grad.numpy(), rtol=1e-13, atol=1e-14)
    # the identity transform samples the input back (a spatial transformer's starting point)
    x = tcore.tensor(rng.standard_normal((1, 2, 4, 5)))
    identity = tcore.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=tcore.float64)
    grid = CF.affine_grid(identity, [1, 2, 4, 5], align_corners=False)
    np.testing.assert_allclose(CF.grid_sample(x, grid, align_corners=False).numpy(), x.numpy(), atol=1e-14)


GRID_ERRORS = [
    lambda m: m.nn.functional.affine_grid(m.zeros(2, 2, 3), [2, 3, 4]),
    lambda m: m.nn.functional.affine_grid(m.zeros(2, 3, 3), [2, 3, 4, 5]),
    lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 3), align_corners=False),
    lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 2), mode="x", align_corners=False),
    lambda m: m.nn.functional.grid_sample(m.zeros(1, 1, 3, 3), m.zeros(1, 2, 2, 2), padding_mode="x",
                                          align_corners=False),
    lambda m: m.nn.functional.grid_sample(m.zeros(2, 1, 3, 3), m.zeros(1, 2, 2, 2), align_corners=False),
]


@pytest.mark.parametrize("i", range(len(GRID_ERRORS)))
def test_grid_errors_as_torch(i):
    with pytest.raises(Exception) as want:
        GRID_ERRORS[i](torch)
    with pytest.raises(type(want.value)) as got:
        GRID_ERRORS[i](tcore)
    assert str(got.value).replace("tcore.", "torch.").replace("(2, 3, 3)", "torch.Size([2, 3, 3])") == str(want.value)


CTC_T, CTC_N, CTC_C = 12, 4, 6


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("lengths", [[12, 10, 7, 12], [2, 10, 7, 12]], ids=["possible", "one_impossible"])
def test_ctc_loss_as_torch(reduction, zero_infinity, lengths):
    """(a repeated label, an empty target, a sequence too short for its target; gradients to the
    logits through log_softmax, as a model computes them)"""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((CTC_T, CTC_N, CTC_C))
    targets = rng.integers(1, CTC_C, (CTC_N, 5))
    targets[1, 2] = targets[1, 1]
    target_lengths = [5, 3, 2, 0]
    (xt,), (xc,) = _pair(x)
    want = TF.ctc_loss(xt.log_softmax(2), torch.tensor(targets), lengths, target_lengths, reduction=reduction,
                       zero_infinity=zero_infinity)
    got = CF.ctc_loss(xc.log_softmax(2), tcore.tensor(targets), lengths, target_lengths, reduction=reduction,
                      zero_infinity=zero_infinity)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-13)
    if not np.isfinite(want.detach().numpy()).all():
        return  # (an infinite loss: torch's gradient is not a reference)
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-14)
    flat = np.concatenate([targets[n, :target_lengths[n]] for n in range(CTC_N)])  # (1-D concatenated targets)
    np.testing.assert_allclose(
        tcore.nn.CTCLoss(reduction=reduction)(tcore.tensor(x).log_softmax(2), tcore.tensor(flat), lengths,
                                              target_lengths).numpy(),
        torch.nn.CTCLoss(reduction=reduction)(torch.tensor(x).log_softmax(2), torch.tensor(flat), lengths,
                                              target_lengths).numpy(), rtol=1e-13)
