"""tcore.distributions' second set against torch.distributions in float64: Cauchy, HalfNormal,
HalfCauchy, Gumbel, Pareto, Weibull, Kumaraswamy, FisherSnedecor, ContinuousBernoulli,
Multinomial, NegativeBinomial, VonMises, LowRankMultivariateNormal, LogisticNormal; the
transforms they need (StickBreaking, CorrCholesky, LowerCholesky, PositiveDefinite, Cat, Stack,
CumulativeDistribution); biject_to / transform_to; the KL pairs torch registers.

Checked as in test_distributions.py: shapes, log_prob and its gradients, properties, cdf/icdf,
expand, validation errors; sampling (tcore's RNG is not torch's) by the empirical CDF at
quantiles of torch's own draws and by the sample mean; rsample's gradient against the implicit
gradient -dF/dtheta / p of torch's cdf and density at tcore's draws (exact for a draw that is a
monotone map of one noise), or in expectation."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
import tcore.distributions as TD  # noqa: E402
from test_distributions import (Fixed, _batched_grad_mean, _canon, _close, _grads, _lib_dists,  # noqa: E402
                                _same_outcome, _tensors)

RNG = np.random.default_rng(10)
N = 20000  # draws for the sampling checks


def _pos(*shape, lo=0.5, hi=2.5):
    return RNG.uniform(lo, hi, shape)


def _norm(*shape):
    return RNG.standard_normal(shape)


def _unit(*shape):
    return RNG.uniform(0.05, 0.95, shape)


def _probs(*shape):
    p = RNG.uniform(0.1, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


_PARETO_SCALE = _pos(3, lo=0.5, hi=1.5)
_MULTINOMIAL_COUNTS = np.array([[[2.0, 0.0, 3.0], [1.0, 1.0, 3.0]], [[0.0, 5.0, 0.0], [4.0, 1.0, 0.0]]])

# name: (constructor(D, p), params, value (inside the support), value differentiable)
CASES = {
    "Cauchy": (lambda D, p: D.Cauchy(p["loc"], p["scale"]), {"loc": _norm(2, 3), "scale": _pos(3)},
               _norm(4, 2, 3) * 3, True),
    "Cauchy_numbers": (lambda D, p: D.Cauchy(p["loc"], p["scale"]), {"loc": 0.5, "scale": 2.0}, _norm(5), True),
    "HalfNormal": (lambda D, p: D.HalfNormal(p["scale"]), {"scale": _pos(3)}, _pos(2, 3, lo=0.0, hi=4.0), True),
    "HalfCauchy": (lambda D, p: D.HalfCauchy(p["scale"]), {"scale": _pos(2, 3)}, _pos(4, 2, 3, lo=0.0, hi=9.0),
                   True),
    "Gumbel": (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _norm(3), "scale": _pos(2, 3)}, _norm(4, 2, 3),
               True),
    "Gumbel_numbers": (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": -1.0, "scale": 0.5}, _norm(4), True),
    "Pareto": (lambda D, p: D.Pareto(p["scale"], p["alpha"]),
               {"scale": _PARETO_SCALE, "alpha": np.array([0.7, 1.5, 4.5])},
               _PARETO_SCALE + _pos(2, 3, lo=0.0, hi=3.0), True),
    "Weibull": (lambda D, p: D.Weibull(p["scale"], p["concentration"]),
                {"scale": _pos(3), "concentration": np.array([0.6, 1.0, 3.0])}, _pos(2, 3, lo=0.05, hi=3.0), True),
    "Kumaraswamy": (lambda D, p: D.Kumaraswamy(p["a"], p["b"]),
                    {"a": np.array([0.5, 2.0, 1.0, 3.0]), "b": np.array([0.7, 3.0, 2.0, 1.0])}, _unit(3, 4), True),
    "FisherSnedecor": (lambda D, p: D.FisherSnedecor(p["df1"], p["df2"]),
                       {"df1": np.array([1.5, 3.0, 5.0, 10.0]), "df2": np.array([1.5, 3.0, 5.0, 10.0])},
                       _pos(2, 4, lo=0.05, hi=4.0), True),
    "ContinuousBernoulli_probs": (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]),
                                  {"probs": np.array([0.1, 0.4995, 0.5, 0.5008, 0.9])}, _unit(3, 5), True),
    "ContinuousBernoulli_logits": (lambda D, p: D.ContinuousBernoulli(logits=p["logits"]), {"logits": _norm(2, 3)},
                                   _unit(2, 3), True),
    "Multinomial_probs": (lambda D, p: D.Multinomial(p["n"], probs=p["probs"]),
                          {"n": Fixed(5), "probs": _probs(2, 3) * 2}, _MULTINOMIAL_COUNTS, False),
    "Multinomial_logits": (lambda D, p: D.Multinomial(p["n"], logits=p["logits"]),
                           {"n": Fixed(5), "logits": _norm(3)}, _MULTINOMIAL_COUNTS[0], False),
    "NegativeBinomial_probs": (lambda D, p: D.NegativeBinomial(p["n"], probs=p["probs"]),
                               {"n": np.array([0.5, 2.0, 7.5]), "probs": _unit(2, 3)},
                               np.array([[0.0, 3.0, 12.0], [1.0, 0.0, 4.0]]), False),
    "NegativeBinomial_logits": (lambda D, p: D.NegativeBinomial(p["n"], logits=p["logits"]),
                                {"n": np.array([1.0, 3.0, 20.0]), "logits": _norm(3)}, np.array([2.0, 0.0, 30.0]),
                                False),
    "VonMises": (lambda D, p: D.VonMises(p["loc"], p["concentration"]),
                 {"loc": _norm(4), "concentration": np.array([0.01, 1.0, 3.7, 12.0])}, _norm(3, 4) * 4, True),
    "LowRankMultivariateNormal": (lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["D"]),
                                  {"loc": _norm(2, 3), "W": _norm(3, 2), "D": _pos(2, 3)}, _norm(4, 2, 3), True),
    "LowRankMultivariateNormal_broadcast": (lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["D"]),
                                            {"loc": _norm(4), "W": _norm(2, 4, 1), "D": _pos(4)}, _norm(3, 1, 4),
                                            True),
    "LogisticNormal": (lambda D, p: D.LogisticNormal(p["loc"], p["scale"]), {"loc": _norm(2, 3), "scale": _pos(3)},
                       _probs(5, 2, 4), True),
    "LogisticNormal_numbers": (lambda D, p: D.LogisticNormal(p["loc"], p["scale"]), {"loc": 0.3, "scale": 1.5},
                               _probs(3, 2), True),
}


def _both(name, grad=True):
    make, params, value, value_grad = CASES[name]
    out = []
    for lib in (torch, tcore):
        p = _tensors(lib, params, grad)
        v = lib.tensor(value, dtype=lib.float64, requires_grad=grad and value_grad)
        out.append((make(_lib_dists(lib), p), p, v))
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_and_gradients_as_torch(name):
    (td, tp, tv), (cd, cp, cv) = _both(name)
    assert type(cd).__name__ == type(td).__name__
    assert tuple(cd.batch_shape) == tuple(td.batch_shape) and tuple(cd.event_shape) == tuple(td.event_shape)
    assert cd.has_rsample == td.has_rsample and cd.has_enumerate_support == td.has_enumerate_support
    # (parameters given as Python numbers are float32, where torch's log is not always correctly rounded)
    rtol = 1e-6 if name.endswith("_numbers") else 1e-10
    want, got = td.log_prob(tv), cd.log_prob(cv)
    _close(got, want, rtol)
    for g, w in zip(_grads(got, list(cp.values()) + [cv]), _grads(want, list(tp.values()) + [tv])):
        if w is None:
            assert g is None or not np.any(g.numpy())
        else:
            _close(g, w, rtol=max(rtol, 1e-9), atol=1e-11)


@pytest.mark.parametrize("name", list(CASES))
def test_properties_as_torch(name):
    (td, _, tv), (cd, _, cv) = _both(name)
    for prop in ("mean", "mode", "variance", "stddev"):
        if name == "Kumaraswamy" and prop == "mode":
            continue  # (torch's mode is NaN everywhere: test_kumaraswamy_mode)
        _same_outcome(lambda: getattr(td, prop), lambda: getattr(cd, prop))
    _same_outcome(td.entropy, cd.entropy, rtol=1e-6 if name.startswith("Multinomial") else 1e-10)
    tsup, csup = td.support, cd.support
    assert type(csup).__name__ == type(tsup).__name__
    assert csup.event_dim == tsup.event_dim and csup.is_discrete == tsup.is_discrete
    np.testing.assert_array_equal(csup.check(cv.detach()).numpy(), tsup.check(tv.detach()).numpy())
    assert sorted(cd.arg_constraints) == sorted(td.arg_constraints)
    assert repr(cd) == _canon(repr(td))


CDF_CASES = ["Cauchy", "Cauchy_numbers", "HalfNormal", "HalfCauchy", "Gumbel", "Gumbel_numbers", "Pareto", "Weibull",
             "Kumaraswamy", "ContinuousBernoulli_probs", "ContinuousBernoulli_logits"]


@pytest.mark.parametrize("name", CDF_CASES)
def test_cdf_icdf_as_torch(name):
    (td, tp, tv), (cd, cp, cv) = _both(name)
    want, got = td.cdf(tv), cd.cdf(cv)
    _close(got, want)
    for g, w in zip(_grads(got, [cv] + list(cp.values())), _grads(want, [tv] + list(tp.values()))):
        _close(g, w, rtol=1e-9, atol=1e-12)
    (td, tp, _), (cd, cp, _) = _both(name)  # (afresh: parameters derived at construction kept their graphs)
    u = RNG.uniform(0.02, 0.98, (3,) + tuple(td.batch_shape))
    tu, cu = torch.tensor(u, requires_grad=True), tcore.tensor(u, requires_grad=True)
    want, got = td.icdf(tu), cd.icdf(cu)
    _close(got, want, rtol=1e-9)
    for g, w in zip(_grads(got, [cu] + list(cp.values())), _grads(want, [tu] + list(tp.values()))):
        _close(g, w, rtol=1e-8, atol=1e-12)
    # icdf inverts cdf
    _close(cd.cdf(got.detach()), tcore.tensor(u), rtol=1e-9)


@pytest.mark.parametrize("name", list(CASES))
def test_expand_as_torch(name):
    (td, _, _), (cd, _, _) = _both(name)
    shape = (2,) + tuple(td.batch_shape)
    te, ce = td.expand(shape), cd.expand(shape)
    assert type(ce) is type(cd) and tuple(ce.batch_shape) == tuple(te.batch_shape)
    assert tuple(ce.event_shape) == tuple(te.event_shape) and ce._validate_args == cd._validate_args
    value = te.sample().numpy()
    _close(ce.log_prob(tcore.tensor(value)), te.log_prob(torch.tensor(value)))
    _same_outcome(lambda: te.mean, lambda: ce.mean)
    _same_outcome(lambda: te.variance, lambda: ce.variance)
    assert tuple(ce.sample((3,)).shape) == tuple(te.sample((3,)).shape)


# --- sampling ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CASES))
def test_sample_distribution(name):
    """Shapes, dtype, support; the fraction of draws at or below the 10/50/90% quantiles of 20000
    of torch's draws as torch's fraction (within 6 standard errors, ties counted alike); the sample
    mean where the variance is finite."""
    tcore.manual_seed(1)
    torch.manual_seed(1)
    (td, _, _), (cd, _, _) = _both(name, grad=False)
    want = td.sample((N,))
    x = cd.sample((N,))
    assert tuple(x.shape) == tuple(want.shape) == (N,) + tuple(cd.batch_shape) + tuple(cd.event_shape)
    assert str(x.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert not x.requires_grad and bool(cd.support.check(x).all())
    xs, ts = x.numpy().reshape(N, -1), want.numpy().reshape(N, -1)
    for q in np.quantile(ts, [0.1, 0.5, 0.9], axis=0):
        fc, ft = (xs <= q).mean(0), (ts <= q).mean(0)
        f = (fc + ft) / 2
        assert np.all(np.abs(fc - ft) <= 6 * np.sqrt(f * (1 - f) * 2 / N) + 1e-12), (name, fc, ft)
    if name.startswith("LogisticNormal"):
        return  # (no mean in closed form: test_sample_specifics)
    mean = np.broadcast_to(td.mean.detach().numpy(), want.shape[1:]).reshape(-1)
    var = np.broadcast_to(td.variance.detach().numpy(), want.shape[1:]).reshape(-1)
    if name == "VonMises":  # (circular: E[cos(x - loc)] = 1 - the circular variance, E[sin(x - loc)] = 0)
        xs = np.stack([np.cos(xs - mean), np.sin(xs - mean)], -1).reshape(N, -1)
        mean = np.stack([1 - var, np.zeros(4)], -1).reshape(-1)
        var = np.ones_like(mean)
    ok = np.isfinite(mean) & np.isfinite(var)
    m, se = xs.mean(0), xs.std(0) / math.sqrt(N)
    assert np.all(np.abs(m - mean)[ok] <= 6 * se[ok] + 1e-12), (name, m, mean)


def test_sample_hostile_shapes():
    """Huge or negative sample shapes: a Python error, no crash and no giant allocation."""
    for name in CASES:
        (_, _, _), (cd, _, _) = _both(name, grad=False)
        for shape in ((2 ** 62,), (2 ** 31, 2 ** 31), (-1,)):
            with pytest.raises((RuntimeError, ValueError, OverflowError, MemoryError)):
                cd.sample(shape)
            if cd.has_rsample:
                with pytest.raises((RuntimeError, ValueError, OverflowError, MemoryError)):
                    cd.rsample(shape)
        assert tuple(cd.sample((0,)).shape) == (0,) + tuple(cd.batch_shape) + tuple(cd.event_shape)


def test_sample_specifics():
    tcore.manual_seed(2)
    # Multinomial: counts of total_count, of probs' dtype
    d = TD.Multinomial(7, probs=tcore.tensor([[0.2, 0.0, 0.8], [1.0, 1.0, 1.0]], dtype=tcore.float64))
    x = d.sample((500,))
    assert x.dtype == tcore.float64 and bool((x.sum(-1) == 7).all()) and bool((x[:, 0, 1] == 0).all())
    assert TD.Multinomial(0, probs=tcore.ones(3)).sample((2,)).tolist() == [[0.0, 0.0, 0.0]] * 2
    # NegativeBinomial: a count of 0 draws 0 (torch's too)
    assert TD.NegativeBinomial(tcore.zeros(4), probs=tcore.full((4,), 0.5)).sample((3,)).abs().sum().item() == 0
    # VonMises: float32 stays float32; tiny concentrations (torch's float64 sampler) are near uniform
    d = TD.VonMises(tcore.tensor([1.0]), tcore.tensor([1e-6]))
    x = d.sample((N,))
    assert x.dtype == tcore.float32 and bool((x.abs() <= math.pi).all())
    assert abs(float(x.double().cos().mean())) < 6 / math.sqrt(2 * N)
    # LogisticNormal: draws on the simplex, whose stick-breaking logits are the normal draws
    d = TD.LogisticNormal(tcore.tensor([0.5, -1.0], dtype=tcore.float64), tcore.tensor([0.3, 2.0],
                                                                                         dtype=tcore.float64))
    x = d.sample((N,))
    np.testing.assert_allclose(x.sum(-1).numpy(), 1.0, rtol=1e-12)
    z = x[:, :-1].numpy()
    z = np.log(z / (1 - np.cumsum(z, -1))) + np.log([2.0, 1.0])
    np.testing.assert_allclose(z.mean(0), [0.5, -1.0], atol=6 * 2.0 / math.sqrt(N))
    np.testing.assert_allclose(z.std(0), [0.3, 2.0], rtol=0.03)


# --- rsample gradients ---------------------------------------------------------------------------

IMPLICIT = {
    "Cauchy": (lambda D, p: D.Cauchy(p["a"], p["b"]), {"a": _norm(3), "b": _pos(3)}),
    "HalfNormal": (lambda D, p: D.HalfNormal(p["a"]), {"a": _pos(3)}),
    "HalfCauchy": (lambda D, p: D.HalfCauchy(p["a"]), {"a": _pos(3)}),
    "Gumbel": (lambda D, p: D.Gumbel(p["a"], p["b"]), {"a": _norm(3), "b": _pos(3)}),
    "Pareto": (lambda D, p: D.Pareto(p["a"], p["b"]), {"a": _pos(3), "b": _pos(3, lo=1.0, hi=4.0)}),
    "Weibull": (lambda D, p: D.Weibull(p["a"], p["b"]), {"a": _pos(3), "b": np.array([0.7, 1.0, 4.0])}),
    "Kumaraswamy": (lambda D, p: D.Kumaraswamy(p["a"], p["b"]), {"a": _pos(3), "b": _pos(3)}),
    "ContinuousBernoulli": (lambda D, p: D.ContinuousBernoulli(probs=p["a"]), {"a": np.array([0.1, 0.3, 0.85])}),
    "ContinuousBernoulli_logits": (lambda D, p: D.ContinuousBernoulli(logits=p["a"]), {"a": np.array([-2.0, 1.0])}),
}


@pytest.mark.parametrize("name", list(IMPLICIT))
def test_rsample_gradient_is_the_implicit_one(name):
    """For a draw x = g(theta, u) monotone in one noise u: dx/dtheta = -(dF/dtheta)(x) / p(x),
    with F and p torch's, at tcore's draws."""
    make, params = IMPLICIT[name]
    tcore.manual_seed(3)
    cp, tp = _tensors(tcore, params), _tensors(torch, params)
    x = make(TD, cp).rsample((200,))
    assert x.requires_grad
    got = _grads(x, list(cp.values()))
    xt = torch.tensor(x.detach().numpy())
    td = make(torch.distributions, tp)
    want = _grads(-td.cdf(xt) / td.log_prob(xt).exp().detach(), list(tp.values()))
    for g, w in zip(got, want):
        _close(g, w, rtol=1e-6, atol=1e-9)


def _param(v):
    return tcore.tensor(v, dtype=tcore.float64, requires_grad=True)


def test_rsample_gradients_exact_and_in_expectation():
    tcore.manual_seed(4)
    # LowRankMultivariateNormal: d/dloc exact; E|x - loc|^2 = |W|^2 + sum(D), of gradients 2W and 1
    loc, W, D = _param(_norm(3)), _param(_norm(3, 2)), _param(_pos(3))
    d = TD.LowRankMultivariateNormal(loc, W, D)
    d.rsample((100,)).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [100.0] * 3, rtol=1e-12)
    for param, want in ((W, 2 * W.detach().numpy()), (D, np.ones(3))):
        m, se = _batched_grad_mean(lambda n: (TD.LowRankMultivariateNormal(loc, W, D).rsample((n,))
                                              - loc.detach()).pow(2).sum(-1).mean(), param)
        assert np.all(np.abs(m - want) <= 6 * se + 1e-12), (m, want, se)
    # LogisticNormal: x_0 = sigmoid(y_0 - log K), so dx_0/dloc_0 = x_0 (1 - x_0)
    loc, scale = _param([0.5, -1.0, 2.0]), _param([1.0, 0.5, 2.0])
    x = TD.LogisticNormal(loc, scale).rsample((50,))
    x[:, 0].sum().backward()
    x0 = x.detach()[:, 0].numpy()
    np.testing.assert_allclose(loc.grad.numpy(), [(x0 * (1 - x0)).sum(), 0.0, 0.0], rtol=1e-10, atol=1e-14)
    # FisherSnedecor (two gamma draws): d/d df2 E[x] = -2 / (df2 - 2)^2, d/d df1 E[x] = 0
    df1, df2 = _param([3.0, 8.0]), _param([6.0, 9.0])
    m, se = _batched_grad_mean(lambda n: TD.FisherSnedecor(df1, df2).rsample((n,)).mean(0).sum(), df2)
    want = -2 / (df2.detach().numpy() - 2) ** 2
    assert np.all(np.abs(m - want) <= 6 * se + 1e-12), (m, want, se)
    m, se = _batched_grad_mean(lambda n: TD.FisherSnedecor(df1, df2).rsample((n,)).mean(0).sum(), df1)
    assert np.all(np.abs(m) <= 6 * se + 1e-12), (m, se)
    # the ones without rsample
    for d in (TD.Multinomial(3, probs=tcore.ones(3)), TD.NegativeBinomial(2.0, probs=tcore.tensor(0.5)),
              TD.VonMises(tcore.tensor(0.0), tcore.tensor(1.0))):
        assert not d.has_rsample
        with pytest.raises(NotImplementedError):
            d.rsample()


# --- specifics -----------------------------------------------------------------------------------

def test_kumaraswamy_mode():
    """torch 2.13's mode is NaN everywhere; tcore's is ((a - 1) / (ab - 1))^(1/a) where a, b >= 1,
    checked here against the argmax of torch's density on a grid."""
    a, b = np.array([2.0, 5.0, 1.0, 3.0, 0.5, 2.0]), np.array([3.0, 1.5, 4.0, 1.0, 2.0, 0.5])
    mode = TD.Kumaraswamy(tcore.tensor(a), tcore.tensor(b)).mode.numpy()
    grid = torch.linspace(0, 1, 200001, dtype=torch.float64)[1:-1, None]
    lp = torch.distributions.Kumaraswamy(torch.tensor(a[:4]), torch.tensor(b[:4])).log_prob(grid)
    np.testing.assert_allclose(mode[:4], grid[lp.argmax(0), 0].numpy(), atol=1e-5)
    assert np.isnan(mode[4:]).all()
    assert torch.isnan(torch.distributions.Kumaraswamy(torch.tensor(a), torch.tensor(b)).mode).all()


def test_von_mises_log_bessel_approximation():
    """torch's polynomial approximations of log I0 and log I1, near the exact values."""
    from tcore.distributions.von_mises import _log_modified_bessel_fn
    x = tcore.tensor([1e-3, 0.5, 3.7, 3.8, 10.0, 100.0], dtype=tcore.float64)
    for order, exact in ((0, tcore.special.i0e), (1, tcore.special.i1e)):
        got = _log_modified_bessel_fn(x, order).numpy()
        np.testing.assert_allclose(got, (exact(x).log() + x).numpy(), rtol=2e-6, atol=2e-7)
    with pytest.raises(AssertionError, match="order must be 0 or 1"):
        _log_modified_bessel_fn(x, 2)


def test_multinomial_entropy_exact_and_expanded():
    """The entropy in closed form against the sum over all count vectors; torch computes
    lgamma(n + 1) in float32 (within 1e-6 of it), tcore in float64. Expanded, the entropy works
    (torch's expand loses the Binomial it needs)."""
    probs = np.array([0.2, 0.3, 0.5])
    n = 4
    d = TD.Multinomial(n, probs=tcore.tensor(probs))
    counts = [c for c in itertools.product(range(n + 1), repeat=3) if sum(c) == n]
    lp = d.log_prob(tcore.tensor(np.array(counts, dtype=float))).numpy()
    np.testing.assert_allclose(d.entropy().item(), -(np.exp(lp) * lp).sum(), rtol=1e-12)
    np.testing.assert_allclose(np.exp(lp).sum(), 1.0, rtol=1e-12)
    e = d.expand((2,))
    _close(e.entropy(), tcore.tensor([d.entropy().item()] * 2, dtype=tcore.float64))
    with pytest.raises(AttributeError):
        torch.distributions.Multinomial(n, probs=torch.tensor(probs)).expand((2,)).entropy()


def test_negative_binomial_edges_as_torch():
    for n, p, v in (([0.0, 0.0, 3.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]), ([2.0, 5.0, 1.0], [0.999, 0.0, 0.3],
                                                                      [40.0, 0.0, 1.0])):
        out = []
        for lib in (torch, tcore):
            t = _t(lib)
            d = _lib_dists(lib).NegativeBinomial(t(n), probs=t(p))
            out.append([d.log_prob(t(v)), d.mean, d.mode, d.variance])
        _close(out[1], out[0])


def test_continuous_bernoulli_taylor_region_and_probs_check():
    """Near probs 1/2 the Taylor forms (mean, variance, log normalizer, cdf, icdf); the natural
    parameter's log normalizer (entropy through ExponentialFamily's rule); torch's rule that probs
    are checked at construction only when validate_args is given, else clamped."""
    p = np.array([0.4989, 0.499, 0.4995, 0.5, 0.501, 0.5011])
    v = np.array([0.0, 0.3, 0.5, 0.7, 1.0, 0.2])
    out = []
    for lib in (torch, tcore):
        d = _lib_dists(lib).ContinuousBernoulli(probs=lib.tensor(p, requires_grad=True))
        x = lib.tensor(v)
        lg = d._log_normalizer(d.logits)
        out.append([d.mean, d.variance, d._cont_bern_log_norm(), d.cdf(x), d.icdf(x), d.log_prob(x), lg,
                    _lib_dists(lib).ExponentialFamily.entropy(d)])
    _close(out[1], out[0], rtol=1e-9)
    bad = [1.5]
    assert float(TD.ContinuousBernoulli(probs=tcore.tensor(bad)).probs) == pytest.approx(1.0)
    for flag in (True, False):
        with pytest.raises(ValueError, match="The parameter probs has invalid values"):
            TD.ContinuousBernoulli(probs=tcore.tensor(bad), validate_args=flag)
    assert TD.ContinuousBernoulli(probs=0.3)._lims == (0.499, 0.501)
    assert tuple(TD.ContinuousBernoulli(logits=tcore.zeros(2, 3)).param_shape) == (2, 3)


def test_lowrank_matrices_as_torch():
    params = {"loc": _norm(2, 3), "W": _norm(2, 3, 2), "D": _pos(3)}
    out = []
    for lib in (torch, tcore):
        p = _tensors(lib, params)
        d = _lib_dists(lib).LowRankMultivariateNormal(p["loc"], p["W"], p["D"])
        mats = [d.covariance_matrix, d.precision_matrix, d.scale_tril, d.variance, d.entropy()]
        out.append((mats, _grads(sum(m.sum() for m in mats), [p["W"], p["D"]])))
    _close(out[1][0], out[0][0], rtol=1e-9)
    _close(out[1][1], out[0][1], rtol=1e-8)
    # its log_prob is the full-covariance MultivariateNormal's
    d = TD.LowRankMultivariateNormal(*[tcore.tensor(v) for v in params.values()])
    full = TD.MultivariateNormal(d.loc, covariance_matrix=d.covariance_matrix)
    x = tcore.tensor(_norm(5, 2, 3))
    _close(d.log_prob(x), full.log_prob(x), rtol=1e-10)


# --- validation ------------------------------------------------------------------------------------

def _t(lib):
    return lambda v: lib.tensor(v, dtype=lib.float64)


ERRORS = [
    (lambda D, t: D.Cauchy(t([0.0]), t([0.0])), "Expected parameter scale"),
    (lambda D, t: D.Cauchy(t([math.nan]), t([1.0])), "Expected parameter loc"),
    (lambda D, t: D.Cauchy(0.0, -1.0), "Expected parameter scale"),
    (lambda D, t: D.HalfNormal(t([1.0, -2.0])), "Expected parameter scale"),
    (lambda D, t: D.HalfCauchy(0.0), "Expected parameter scale"),
    (lambda D, t: D.Gumbel(t([0.0]), t([0.0])), "Expected parameter scale"),
    (lambda D, t: D.Pareto(t([0.0]), t([1.0])), "Expected parameter scale"),
    (lambda D, t: D.Pareto(t([1.0]), t([-1.0])), "Expected parameter rate"),  # (of its Exponential)
    (lambda D, t: D.Weibull(t([-1.0]), t([1.0])), "Expected parameter scale"),
    (lambda D, t: D.Weibull(t([1.0]), t([0.0])), "Expected parameter concentration"),
    (lambda D, t: D.Kumaraswamy(t([0.0]), t([1.0])), "Expected parameter concentration1"),
    (lambda D, t: D.Kumaraswamy(t([1.0]), t([-1.0])), "Expected parameter concentration0"),
    (lambda D, t: D.FisherSnedecor(t([1.0]), t([0.0])), "Expected parameter concentration"),  # (of a Gamma)
    (lambda D, t: D.FisherSnedecor(-1.0, 1.0), "Expected parameter concentration"),
    (lambda D, t: D.FisherSnedecor(t([1.0]), t([0.0]), validate_args=False), "Expected parameter concentration"),
    (lambda D, t: D.ContinuousBernoulli(probs=t([0.5]), logits=t([0.0])), "Either `probs` or `logits`"),
    (lambda D, t: D.ContinuousBernoulli(logits=t([math.nan])), "Expected parameter logits"),
    (lambda D, t: D.Multinomial(3, probs=t([0.5, -0.1])), "Expected parameter probs"),
    (lambda D, t: D.Multinomial(3, probs=t(0.5)), "`probs` parameter must be at least one-dimensional."),
    (lambda D, t: D.NegativeBinomial(t([-1.0]), probs=t([0.5])), "Expected parameter total_count"),
    (lambda D, t: D.NegativeBinomial(t([1.0]), probs=t([1.0])), "Expected parameter probs"),
    (lambda D, t: D.NegativeBinomial(t([1.0])), "Either `probs` or `logits`"),
    (lambda D, t: D.VonMises(t([0.0]), t([0.0])), "Expected parameter concentration"),
    (lambda D, t: D.VonMises(t([0.0]), t([-1.0])), "Expected parameter concentration"),
    (lambda D, t: D.LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [1.0]]), t([1.0, 0.0])),
     "Expected parameter cov_diag"),
    (lambda D, t: D.LowRankMultivariateNormal(t(0.0), t([[1.0]]), t([1.0])), "loc must be at least one-dimensional."),
    (lambda D, t: D.LowRankMultivariateNormal(t([0.0]), t([1.0]), t([1.0])), "cov_factor must be at least two-dim"),
    (lambda D, t: D.LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0, 1.0]]), t([1.0, 1.0])),
     "cov_factor must be a batch of matrices with shape 2 x m"),
    (lambda D, t: D.LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [1.0]]), t([1.0])),
     "cov_diag must be a batch of vectors with shape"),
    (lambda D, t: D.LowRankMultivariateNormal(t([[0.0, 0.0]] * 3), t([[[1.0], [1.0]]] * 2), t([1.0, 1.0])),
     "Incompatible batch shapes"),
    (lambda D, t: D.LogisticNormal(t([0.0, 1.0]), t([1.0, 0.0])), "Expected parameter scale"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_validation_errors_as_torch(i):
    make, message = ERRORS[i]
    with pytest.raises(ValueError, match=message.replace("(", "\\(").replace("`", "`")) as want:
        make(torch.distributions, _t(torch))
    with pytest.raises(ValueError) as got:
        make(TD, _t(tcore))
    assert _canon(str(want.value)).split("\n")[0] == str(got.value).split("\n")[0]


def test_validation_off_and_structural_errors():
    assert TD.Cauchy(tcore.tensor([0.0]), tcore.tensor([-1.0]), validate_args=False).scale.item() == -1.0
    assert float(TD.Pareto(1.0, -1.0, validate_args=False).alpha) == -1.0
    for total_count in (tcore.tensor(3), 3.0):
        with pytest.raises(NotImplementedError, match="inhomogeneous total_count is not supported"):
            TD.Multinomial(total_count, probs=tcore.ones(3))


SUPPORT_ERRORS = {
    "Cauchy": math.nan, "HalfNormal": -0.5, "HalfCauchy": -1e-9, "Gumbel": math.nan, "Pareto": 0.2,
    "Weibull": 0.0, "Kumaraswamy": 1.5, "FisherSnedecor": 0.0, "ContinuousBernoulli_probs": -0.1,
    "NegativeBinomial_probs": 1.5, "VonMises": math.nan, "LowRankMultivariateNormal": math.nan,
    "LogisticNormal": 0.9, "Multinomial_probs": 6.0,
}


@pytest.mark.parametrize("name", list(SUPPORT_ERRORS))
def test_values_outside_the_support_raise_as_torch(name):
    (td, _, tv), (cd, _, cv) = _both(name, grad=False)
    bad = tv.detach().clone()
    bad.view(-1)[0] = SUPPORT_ERRORS[name]
    with pytest.raises(ValueError, match="Expected value argument") as want:
        td.log_prob(bad)
    with pytest.raises(ValueError, match="Expected value argument") as got:
        cd.log_prob(tcore.tensor(bad.numpy()))
    assert str(got.value).split("\n")[0] == _canon(str(want.value)).split("\n")[0]
    if name in CDF_CASES:  # (a transformed distribution's cdf checks the base distribution's support)
        _same_outcome(lambda: td.cdf(bad), lambda: cd.cdf(tcore.tensor(bad.numpy())))
    with pytest.raises(ValueError, match="The right-most size of value must match event_shape|not broadcastable"):
        cd.log_prob(tcore.zeros((7,) * (len(cd.event_shape) + len(cd.batch_shape) + 1), dtype=tcore.float64)
                    if cd.event_shape else tcore.zeros(7, 7, dtype=tcore.float64))


# --- transforms and the constraint registry ------------------------------------------------------

def _transform_inputs():
    return {1: RNG.standard_normal((4, 3)), 2: RNG.standard_normal((2, 3, 3))}


TRANSFORMS = {
    "StickBreaking": (lambda T: T.StickBreakingTransform(), 1),
    "LowerCholesky": (lambda T: T.LowerCholeskyTransform(), 2),
    "PositiveDefinite": (lambda T: T.PositiveDefiniteTransform(), 2),
    "CorrCholesky": (lambda T: T.CorrCholeskyTransform(), 1),
    "Cat": (lambda T: T.CatTransform([T.ExpTransform(), T.identity_transform, T.SigmoidTransform()], -1,
                                     [1, 1, 1]), 1),
    "Cat_dim0": (lambda T: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], 0, [3, 1]), 1),
    "Cat_event_batch_dim": (lambda T: T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1),
                                                      T.IndependentTransform(T.SigmoidTransform(), 1)], 0, [2, 2]), 1),
    "Cat_event_event_dim": (lambda T: T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1),
                                                      T.IndependentTransform(T.AffineTransform(1.0, -3.0), 1)], -1,
                                                     [1, 2]), 1),
    "Stack": (lambda T: T.StackTransform([T.ExpTransform(), T.TanhTransform(), T.AffineTransform(0.5, -1.0)], -1),
              1),
    "CDF": (lambda T: T.CumulativeDistributionTransform(
        (torch.distributions if T is torch.distributions.transforms else TD).Normal(0.5, 2.0)), 1),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_new_transforms_as_torch(name):
    build, rank = TRANSFORMS[name]
    x = _transform_inputs()[rank]
    tt, ct = build(torch.distributions.transforms), build(TD.transforms)
    tx, cx = torch.tensor(x, requires_grad=True), tcore.tensor(x, requires_grad=True)
    ty, cy = tt(tx), ct(cx)
    _close(cy, ty, rtol=1e-12)
    assert bool(ct.codomain.check(cy.detach()).all())
    assert repr(ct.domain) == repr(tt.domain) and repr(ct.codomain) == repr(tt.codomain)
    assert ct.bijective == tt.bijective and ct == ct and not ct != ct
    assert (ct == build(TD.transforms)) == (tt == build(torch.distributions.transforms))
    assert tuple(ct.forward_shape(tuple(x.shape))) == tuple(tt.forward_shape(tuple(x.shape)))
    assert tuple(ct.inverse_shape(tuple(ty.shape))) == tuple(tt.inverse_shape(tuple(ty.shape)))
    _close(ct.inv(cy.detach()), tt.inv(ty.detach()), rtol=1e-8, atol=1e-12)
    if tt.bijective:
        _close(ct.log_abs_det_jacobian(cx, cy), tt.log_abs_det_jacobian(tx, ty), rtol=1e-10, atol=1e-12)
        _close(ct.inv(cy.detach()), tcore.tensor(x), rtol=1e-8, atol=1e-12)
    _close(_grads(cy, [cx])[0], _grads(ty, [tx])[0], rtol=1e-9)
    cached = ct.with_cache()
    y = cached(cx)
    assert cached.inv(y) is cx and cached.with_cache() is cached


def test_transform_errors_as_torch():
    T, C = TD.transforms, TD.constraints
    with pytest.raises(ValueError, match="Input is not a flattened lower-diagonal number"):
        T.CorrCholeskyTransform().forward_shape((2, 4))
    with pytest.raises(ValueError, match="Input is not square"):
        T.CorrCholeskyTransform().inverse_shape((2, 3))
    with pytest.raises(ValueError, match="Too few dimensions on input"):
        T.StickBreakingTransform().forward_shape(())
    with pytest.raises(AssertionError, match="must equal length 3"):
        T.CatTransform([T.ExpTransform(), T.ExpTransform()], 0, [1, 2])(tcore.zeros(4))
    with pytest.raises(AssertionError, match="must equal len\\(transforms\\) 2"):
        T.StackTransform([T.ExpTransform(), T.ExpTransform()], 0)(tcore.zeros(3))
    with pytest.raises(AssertionError, match="lengths \\(1\\) must match transforms \\(2\\)"):
        T.CatTransform([T.ExpTransform(), T.ExpTransform()], 0, [2])
    with pytest.raises(NotImplementedError):
        T.LowerCholeskyTransform().log_abs_det_jacobian(tcore.eye(2), tcore.eye(2))
    # a 2 x 2 correlation Cholesky factor from one number, and back
    y = T.CorrCholeskyTransform()(tcore.tensor([0.3], dtype=tcore.float64))
    assert bool(C.corr_cholesky.check(y)) and abs(float(y[1, 0]) - math.tanh(0.3)) < 1e-15


def _constraints(C, lib):
    t = _t(lib)
    return {
        "real": C.real, "positive": C.positive, "nonnegative": C.nonnegative,
        "greater_than": C.greater_than(-1.5), "greater_than_eq": C.greater_than_eq(2.0),
        "greater_than_tensor": C.greater_than(t([0.0, 1.0, 2.0])), "less_than": C.less_than(3.0),
        "interval": C.interval(-1.0, 2.0), "half_open_interval": C.half_open_interval(0.0, 1.0),
        "unit_interval": C.unit_interval, "interval_tensor": C.interval(t([0.0, 1.0, -2.0]), t([1.0, 5.0, 0.0])),
        "simplex": C.simplex, "real_vector": C.real_vector, "independent": C.independent(C.positive, 1),
        "corr_cholesky": C.corr_cholesky, "lower_cholesky": C.lower_cholesky,
        "positive_definite": C.positive_definite, "positive_semidefinite": C.positive_semidefinite,
        "cat": C.cat([C.positive, C.real, C.unit_interval], -1, [1, 1, 1]),
        "stack": C.stack([C.positive, C.less_than(-2.0), C.interval(1.0, 4.0)], -1),
    }


_REGISTRY_INPUT_RANK = {"corr_cholesky": 1, "lower_cholesky": 2, "positive_definite": 2, "positive_semidefinite": 2}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(_constraints(TD.constraints, tcore)))
def test_constraint_registry_as_torch(registry, name):
    """The transform's type and repr, its values inside the constraint, its log |det J| and
    inverse as torch's (or the same NotImplementedError)."""
    tc = _constraints(torch.distributions.constraints, torch)[name]
    cc = _constraints(TD.constraints, tcore)[name]
    treg, creg = getattr(torch.distributions, registry), getattr(TD, registry)
    try:
        tt = treg(tc)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError, match=str(e)):
            creg(cc)
        return
    ct = creg(cc)
    assert type(ct).__name__ == type(tt).__name__ and repr(ct) == repr(tt) and ct.bijective == tt.bijective
    x = _transform_inputs()[_REGISTRY_INPUT_RANK.get(name, 1)]
    tx, cx = torch.tensor(x), tcore.tensor(x)
    ty, cy = tt(tx), ct(cx)
    _close(cy, ty, rtol=1e-12)
    assert bool(cc.check(cy).all()) and bool(tc.check(ty).all())
    if tt.bijective:
        _close(ct.log_abs_det_jacobian(cx, cy), tt.log_abs_det_jacobian(tx, ty), rtol=1e-10, atol=1e-12)
        _close(ct.inv(cy), cx, rtol=1e-8, atol=1e-10)


def test_constraint_registry_lookup_and_register():
    with pytest.raises(NotImplementedError, match="Cannot transform _DependentProperty constraints"):
        TD.biject_to(TD.Uniform.support)
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        TD.transform_to(TD.constraints.boolean)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        TD.biject_to.register(3, lambda c: None)
    from tcore.distributions.constraint_registry import ConstraintRegistry
    reg = ConstraintRegistry()

    class _Odd(TD.constraints.Constraint):
        pass

    @reg.register(_Odd)
    def _factory(constraint):
        return TD.transforms.TanhTransform()

    reg.register(TD.constraints.real, lambda c: TD.transforms.ExpTransform())
    assert isinstance(reg(_Odd()), TD.transforms.TanhTransform)
    assert isinstance(reg(TD.constraints.real), TD.transforms.ExpTransform)
    assert isinstance(TD.biject_to(TD.constraints.real), TD.transforms.ComposeTransform)  # (the global one unchanged)
    # unconstrained optimization of a constrained parameter, as torch's docs show it
    u = tcore.zeros(3, requires_grad=True)
    scale = TD.transform_to(TD.Normal.arg_constraints["scale"])(u)
    (-TD.Normal(tcore.zeros(3), scale).log_prob(tcore.tensor([1.0, 2.0, 3.0])).sum()).backward()
    np.testing.assert_allclose(u.grad.numpy(), [0.0, -3.0, -8.0], atol=1e-6)


@pytest.mark.parametrize("name", [n for n in CASES if not n.startswith(("Multinomial", "NegativeBinomial"))])
def test_biject_to_support_lands_in_it(name):
    """HMC's use: unconstrained draws mapped by biject_to(support) into the support, a finite
    log density there, and log |det J| as torch's."""
    (td, _, _), (cd, _, _) = _both(name, grad=False)
    tt, ct = torch.distributions.biject_to(td.support), TD.biject_to(cd.support)
    shape = tuple(tt.inverse_shape(tuple(td.batch_shape) + tuple(td.event_shape)))
    x = RNG.standard_normal((5,) + shape)
    ty, cy = tt(torch.tensor(x)), ct(tcore.tensor(x))
    _close(cy, ty, rtol=1e-12)
    assert bool(cd.support.check(cy).all())
    lp = cd.log_prob(cy)
    assert bool(tcore.isfinite(lp).all())
    _close(lp, td.log_prob(ty), *((1e-6, 1e-7) if name.endswith("_numbers") else (1e-9, 1e-12)))
    _close(ct.log_abs_det_jacobian(tcore.tensor(x), cy), tt.log_abs_det_jacobian(torch.tensor(x), ty), rtol=1e-10)


def test_biject_to_discrete_supports_as_torch():
    for lib in (torch, tcore):
        D = _lib_dists(lib)
        for d in (D.Multinomial(3, probs=lib.ones(3)), D.NegativeBinomial(2.0, probs=lib.tensor(0.5))):
            with pytest.raises(NotImplementedError, match="Cannot transform"):
                D.biject_to(d.support)


# --- KL divergence ---------------------------------------------------------------------------------

KL_DISTS = {
    "Bernoulli": (lambda D, p: D.Bernoulli(probs=p["p"]), {"p": _unit(3)}),
    "Beta": (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _pos(3), "b": _pos(3)}),
    "Binomial": (lambda D, p: D.Binomial(p["n"], probs=p["p"]), {"n": Fixed(np.array([3.0, 4.0, 5.0])),
                                                                 "p": _unit(3)}),
    "Cauchy": (lambda D, p: D.Cauchy(p["a"], p["b"]), {"a": _norm(3), "b": _pos(3)}),
    "ContinuousBernoulli": (lambda D, p: D.ContinuousBernoulli(probs=p["p"]),
                            {"p": np.array([0.2, 0.4995, 0.8])}),
    "Exponential": (lambda D, p: D.Exponential(p["r"]), {"r": _pos(3)}),
    "Gamma": (lambda D, p: D.Gamma(p["a"], p["r"]), {"a": _pos(3), "r": _pos(3)}),
    "Gumbel": (lambda D, p: D.Gumbel(p["a"], p["b"]), {"a": _norm(3), "b": _pos(3)}),
    "HalfNormal": (lambda D, p: D.HalfNormal(p["s"]), {"s": _pos(3)}),
    "Laplace": (lambda D, p: D.Laplace(p["a"], p["b"]), {"a": _norm(3), "b": _pos(3)}),
    "Normal": (lambda D, p: D.Normal(p["a"], p["b"]), {"a": _norm(3), "b": _pos(3)}),
    "Pareto": (lambda D, p: D.Pareto(p["s"], p["a"]), {"s": np.array([0.05, 0.1, 0.02]),
                                                       "a": np.array([0.8, 1.5, 3.5])}),
    "Poisson": (lambda D, p: D.Poisson(p["r"]), {"r": _pos(3)}),
    "Uniform": (lambda D, p: D.Uniform(p["lo"], p["hi"]), {"lo": np.array([0.2, 0.3, -0.5]),
                                                           "hi": np.array([0.6, 0.9, 0.5])}),
    "Kumaraswamy": (lambda D, p: D.Kumaraswamy(p["a"], p["b"]), {"a": _pos(3), "b": _pos(3)}),
    "Weibull": (lambda D, p: D.Weibull(p["a"], p["b"]), {"a": _pos(3), "b": _pos(3)}),
    "MultivariateNormal": (lambda D, p: D.MultivariateNormal(p["a"], scale_tril=p["L"]),
                           {"a": _norm(2, 3), "L": np.linalg.cholesky(np.eye(3) * 2 + 0.5)}),
    "LowRankMultivariateNormal": (lambda D, p: D.LowRankMultivariateNormal(p["a"], p["W"], p["D"]),
                                  {"a": _norm(2, 3), "W": _norm(2, 3, 2), "D": _pos(3)}),
}
_KL_DISTS_2 = {  # a second member of each family, for KL(p || q) within it
    k: (make, {n: (v if isinstance(v, Fixed) else v * 1.3 if n in ("b", "s", "r", "D", "W", "L") else v[::-1].copy())
               for n, v in params.items()}) for k, (make, params) in KL_DISTS.items()}


@pytest.mark.parametrize("p_name", list(KL_DISTS))
def test_kl_divergence_all_pairs_as_torch(p_name):
    """KL(p || q) for q of every family here: torch's value and gradients where torch registers
    the pair (infinite where q's support misses p's), the same NotImplementedError where not."""
    for q_name in KL_DISTS:
        q_source = _KL_DISTS_2 if q_name == p_name else KL_DISTS
        results = []
        for lib in (torch, tcore):
            D = _lib_dists(lib)
            pp, qp = _tensors(lib, KL_DISTS[p_name][1]), _tensors(lib, q_source[q_name][1])
            p, q = KL_DISTS[p_name][0](D, pp), q_source[q_name][0](D, qp)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    kl = D.kl_divergence(p, q)
            except NotImplementedError as e:
                results.append(e)
                continue
            finite = lib.where(lib.isfinite(kl), kl, lib.zeros_like(kl))
            results.append((kl, _grads(finite, list(pp.values()) + list(qp.values())) if kl.requires_grad else []))
        (want, got) = results
        if isinstance(want, Exception):
            assert isinstance(got, NotImplementedError), (p_name, q_name, got)
            continue
        assert not isinstance(got, Exception), (p_name, q_name, got)
        _close(got[0], want[0], rtol=1e-9)
        assert len(got[1]) == len(want[1])
        for g, w in zip(got[1], want[1]):  # (torch's trigamma is within 5e-10 of the true value, tcore's 2e-13)
            if w is None:
                assert g is None or not np.any(g.numpy())
            else:
                _close(g, w, rtol=1e-8, atol=1e-9)


def test_kl_divergence_lowrank_and_cauchy_values():
    """Against numbers not from torch: the low-rank KLs equal the full-covariance one; the Cauchy
    KL by quadrature."""
    a, b = _norm(3), _norm(3)
    W, D_ = _norm(3, 2), _pos(3)
    p = TD.LowRankMultivariateNormal(tcore.tensor(a), tcore.tensor(W), tcore.tensor(D_))
    q = TD.LowRankMultivariateNormal(tcore.tensor(b), tcore.tensor(W[::-1].copy()), tcore.tensor(D_ * 2))
    fp = TD.MultivariateNormal(p.loc, covariance_matrix=p.covariance_matrix)
    fq = TD.MultivariateNormal(q.loc, covariance_matrix=q.covariance_matrix)
    want = float(TD.kl_divergence(fp, fq))
    for pair in ((p, q), (fp, q), (p, fq)):
        assert float(TD.kl_divergence(*pair)) == pytest.approx(want, rel=1e-10)
    c1, c2 = TD.Cauchy(0.3, 1.2), TD.Cauchy(-1.0, 0.4)
    t = np.tan(np.pi * ((np.arange(200000) + 0.5) / 200000 - 0.5))  # the midpoints of p's quantiles
    x = tcore.tensor(0.3 + 1.2 * t, dtype=tcore.float32)
    quad = float((c1.log_prob(x).double() - c2.log_prob(x).double()).mean())
    assert float(TD.kl_divergence(c1, c2)) == pytest.approx(quad, rel=1e-3)
