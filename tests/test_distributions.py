"""tcore.distributions against torch.distributions in float64: shapes, log_prob (and its
gradients in the parameters and the value), entropy, mean/mode/stddev/variance, cdf/icdf,
enumerate_support, expand, KL divergences (values and gradients), validation errors; sampling
(whose RNG differs from torch's) by shapes, dtypes, support and moments of 20000 draws; the
reparameterized gradients of rsample by their exact or expected values."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
import tcore.distributions as TD  # noqa: E402

RNG = np.random.default_rng(0)
N = 20000  # draws for the moment checks


def _pos(*shape, lo=0.5, hi=2.5):
    return RNG.uniform(lo, hi, shape)


def _norm(*shape):
    return RNG.standard_normal(shape)


def _probs(*shape):
    p = RNG.uniform(0.1, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _tril(n, batch=()):
    return np.linalg.cholesky(_spd(n, batch))


class Fixed:
    """A parameter given as is (not differentiated): an integer count or a Python number."""

    def __init__(self, value):
        self.value = value


def _tensors(lib, params, grad=True):
    out = {}
    for k, v in params.items():
        if isinstance(v, Fixed):
            out[k] = lib.tensor(v.value) if isinstance(v.value, np.ndarray) else v.value
        elif isinstance(v, np.ndarray):
            out[k] = lib.tensor(v, dtype=lib.float64, requires_grad=grad)
        else:
            out[k] = v
    return out


def _lib_dists(lib):
    return torch.distributions if lib is torch else TD


# name: (constructor(D, p), params, value (a sample point, inside the support), value differentiable)
CASES = {
    "Normal": (lambda D, p: D.Normal(p["loc"], p["scale"]), {"loc": _norm(2, 3), "scale": _pos(3)},
               _norm(4, 2, 3), True),
    "Normal_numbers": (lambda D, p: D.Normal(p["loc"], p["scale"]), {"loc": 0.5, "scale": 2.0}, _norm(5), True),
    "Uniform": (lambda D, p: D.Uniform(p["low"], p["high"]), {"low": np.array([-1.0, 0.0, 2.0]),
                                                              "high": np.array([1.0, 0.5, 5.0])},
                np.array([[0.3, 0.2, 4.9], [-0.9, 0.0, 2.5]]), True),
    "Bernoulli_probs": (lambda D, p: D.Bernoulli(probs=p["probs"]), {"probs": RNG.uniform(0.05, 0.95, (2, 3))},
                        RNG.integers(0, 2, (4, 2, 3)).astype(float), False),
    "Bernoulli_logits": (lambda D, p: D.Bernoulli(logits=p["logits"]), {"logits": _norm(3)},
                         np.array([0.0, 1.0, 1.0]), False),
    "Categorical_probs": (lambda D, p: D.Categorical(probs=p["probs"]), {"probs": _probs(2, 4) * 3},
                          RNG.integers(0, 4, (5, 2)).astype(float), False),
    "Categorical_logits": (lambda D, p: D.Categorical(logits=p["logits"]), {"logits": _norm(3, 5)},
                           RNG.integers(0, 5, (3,)), False),
    "OneHotCategorical": (lambda D, p: D.OneHotCategorical(probs=p["probs"]), {"probs": _probs(2, 4)},
                          np.eye(4)[RNG.integers(0, 4, (3, 2))], False),
    "Binomial_probs": (lambda D, p: D.Binomial(p["n"], probs=p["probs"]),
                       {"n": Fixed(np.array([10.0, 10.0, 10.0])), "probs": RNG.uniform(0.1, 0.9, (2, 3))},
                       np.array([[0.0, 3.0, 10.0], [7.0, 5.0, 1.0]]), False),
    "Binomial_logits": (lambda D, p: D.Binomial(p["n"], logits=p["logits"]),
                        {"n": Fixed(np.array([4.0, 9.0, 20.0])), "logits": _norm(3)},
                        np.array([1.0, 9.0, 0.0]), False),
    "Poisson": (lambda D, p: D.Poisson(p["rate"]), {"rate": _pos(4, lo=0.2, hi=20)},
                np.array([0.0, 3.0, 11.0, 2.0]), False),
    "Geometric_probs": (lambda D, p: D.Geometric(probs=p["probs"]), {"probs": RNG.uniform(0.1, 0.9, 3)},
                        np.array([0.0, 2.0, 7.0]), False),
    "Geometric_logits": (lambda D, p: D.Geometric(logits=p["logits"]), {"logits": _norm(3)},
                         np.array([[1.0, 0.0, 3.0]]), False),
    "Exponential": (lambda D, p: D.Exponential(p["rate"]), {"rate": _pos(3)}, _pos(2, 3), True),
    "Laplace": (lambda D, p: D.Laplace(p["loc"], p["scale"]), {"loc": _norm(3), "scale": _pos(3)}, _norm(2, 3), True),
    "LogNormal": (lambda D, p: D.LogNormal(p["loc"], p["scale"]), {"loc": _norm(3), "scale": _pos(3)},
                  _pos(2, 3), True),
    "Gamma": (lambda D, p: D.Gamma(p["concentration"], p["rate"]), {"concentration": _pos(3, lo=0.3, hi=4),
                                                                     "rate": _pos(3)}, _pos(2, 3), True),
    "Chi2": (lambda D, p: D.Chi2(p["df"]), {"df": _pos(3, lo=1, hi=6)}, _pos(2, 3), True),
    "Beta": (lambda D, p: D.Beta(p["c1"], p["c0"]), {"c1": _pos(3), "c0": _pos(2, 1)}, RNG.uniform(0.05, 0.95, (2, 3)),
             True),
    "Beta_numbers": (lambda D, p: D.Beta(p["c1"], p["c0"]), {"c1": 2.0, "c0": 3.0}, np.array([0.2, 0.7]), False),
    "Dirichlet": (lambda D, p: D.Dirichlet(p["concentration"]), {"concentration": _pos(2, 3)}, _probs(4, 2, 3), True),
    "StudentT": (lambda D, p: D.StudentT(p["df"], p["loc"], p["scale"]),
                 {"df": np.array([0.8, 1.5, 3.0, 10.0]), "loc": _norm(4), "scale": _pos(4)}, _norm(2, 4), True),
    "MultivariateNormal_cov": (lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
                               {"loc": _norm(2, 3), "cov": _spd(3, (2,))}, _norm(4, 2, 3), True),
    "MultivariateNormal_precision": (lambda D, p: D.MultivariateNormal(p["loc"], precision_matrix=p["prec"]),
                                     {"loc": _norm(3), "prec": _spd(3)}, _norm(5, 3), True),
    "MultivariateNormal_tril": (lambda D, p: D.MultivariateNormal(p["loc"], scale_tril=p["tril"]),
                                {"loc": _norm(4, 1, 2), "tril": _tril(2, (3,))}, _norm(4, 3, 2), True),
    "MultivariateNormal_broadcast_value": (lambda D, p: D.MultivariateNormal(p["loc"], scale_tril=p["tril"]),
                                           {"loc": _norm(3), "tril": _tril(3)}, _norm(2, 5, 3), True),
    "Independent": (lambda D, p: D.Independent(D.Normal(p["loc"], p["scale"]), 1),
                    {"loc": _norm(2, 3), "scale": _pos(2, 3)}, _norm(4, 2, 3), True),
    "Independent_2": (lambda D, p: D.Independent(D.Bernoulli(logits=p["logits"]), 2),
                      {"logits": _norm(2, 3)}, RNG.integers(0, 2, (2, 3)).astype(float), False),
    "MixtureSameFamily": (lambda D, p: D.MixtureSameFamily(D.Categorical(logits=p["w"]),
                                                           D.Normal(p["loc"], p["scale"])),
                          {"w": _norm(3), "loc": _norm(2, 3), "scale": _pos(2, 3)}, _norm(4, 2), True),
    "MixtureSameFamily_mvn": (lambda D, p: D.MixtureSameFamily(D.Categorical(probs=p["w"]),
                                                               D.MultivariateNormal(p["loc"], scale_tril=p["tril"])),
                              {"w": _probs(2, 3), "loc": _norm(2, 3, 2), "tril": _tril(2, (3,))}, _norm(5, 2, 2),
                              True),
    "MixtureSameFamily_independent": (
        lambda D, p: D.MixtureSameFamily(D.Categorical(logits=p["w"]),
                                         D.Independent(D.Laplace(p["loc"], p["scale"]), 1)),
        {"w": _norm(4), "loc": _norm(4, 2), "scale": _pos(4, 2)}, _norm(3, 2), True),
    "RelaxedBernoulli": (lambda D, p: D.RelaxedBernoulli(p["t"], logits=p["logits"]),
                         {"t": np.array([0.5, 1.0, 2.0]), "logits": _norm(3)}, RNG.uniform(0.05, 0.95, (2, 3)), True),
    "RelaxedOneHotCategorical": (lambda D, p: D.RelaxedOneHotCategorical(p["t"], probs=p["probs"]),
                                 {"t": np.array(0.7), "probs": _probs(2, 3)}, _probs(4, 2, 3), True),
    "Transformed_affine_sigmoid": (
        lambda D, p: D.TransformedDistribution(D.Normal(p["loc"], p["scale"]), [
            D.transforms.AffineTransform(p["a"], p["b"]), D.transforms.SigmoidTransform()]),
        {"loc": _norm(3), "scale": _pos(3), "a": _norm(3), "b": _pos(3)}, RNG.uniform(0.05, 0.95, (2, 3)), True),
    "Transformed_tanh": (lambda D, p: D.TransformedDistribution(D.Normal(p["loc"], p["scale"]),
                                                                D.transforms.TanhTransform()),
                         {"loc": _norm(3), "scale": _pos(3)}, RNG.uniform(-0.9, 0.9, (2, 3)), True),
    "Transformed_compose_exp_affine_negative": (
        lambda D, p: D.TransformedDistribution(D.Gamma(p["a"], p["b"]), D.transforms.ComposeTransform([
            D.transforms.AffineTransform(0.5, -2.0), D.transforms.ExpTransform()])),
        {"a": _pos(3), "b": _pos(3)}, RNG.uniform(0.05, 0.9, (2, 3)), True),
    "Transformed_affine_event": (
        lambda D, p: D.TransformedDistribution(D.Normal(p["loc"], p["scale"]),
                                               D.transforms.AffineTransform(p["a"], p["b"], event_dim=1)),
        {"loc": _norm(2, 3), "scale": _pos(2, 3), "a": _norm(3), "b": _pos(3)}, _norm(4, 2, 3), True),
}


def _both(name, grad=True):
    make, params, value, value_grad = CASES[name]
    out = []
    for lib in (torch, tcore):
        p = _tensors(lib, params, grad)
        v = lib.tensor(value, dtype=lib.float64, requires_grad=grad and value_grad)
        out.append((make(_lib_dists(lib), p), p, v))
    return out


def _close(got, want, rtol=1e-10, atol=1e-12):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w, rtol, atol)
        return
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    if str(want.dtype).endswith("float32"):  # (numbers given as Python floats: the default dtype)
        rtol = max(rtol, 1e-5)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol)


def _same_outcome(fn_torch, fn_tcore, rtol=1e-10):
    """Both give close tensors, or both raise the same exception type."""
    try:
        want = fn_torch()
    except (NotImplementedError, ValueError, RuntimeError) as e:
        with pytest.raises(type(e)):
            fn_tcore()
        return None
    got = fn_tcore()
    _close(got, want, rtol)
    return got


def _grads(out, inputs):
    inputs = [t for t in inputs if isinstance(t, (torch.Tensor, tcore.Tensor)) and t.requires_grad]
    if not inputs:
        return []
    lib = torch if isinstance(out, torch.Tensor) else tcore
    return list(lib.autograd.grad(out.sum(), inputs, allow_unused=True))


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_and_gradients_as_torch(name):
    (td, tp, tv), (cd, cp, cv) = _both(name)
    assert tuple(cd.batch_shape) == tuple(td.batch_shape)
    assert tuple(cd.event_shape) == tuple(td.event_shape)
    assert cd.has_rsample == td.has_rsample and cd.has_enumerate_support == td.has_enumerate_support
    want, got = td.log_prob(tv), cd.log_prob(cv)
    _close(got, want)
    wg = _grads(want, list(tp.values()) + [tv])
    gg = _grads(got, list(cp.values()) + [cv])
    for g, w in zip(gg, wg):
        if w is None:
            assert g is None or not np.any(g.numpy())
        else:
            _close(g, w, rtol=1e-9)


@pytest.mark.parametrize("name", list(CASES))
def test_properties_as_torch(name):
    (td, _, tv), (cd, _, cv) = _both(name)
    for prop in ("mean", "mode", "variance", "stddev"):
        _same_outcome(lambda: getattr(td, prop), lambda: getattr(cd, prop))
    _same_outcome(td.entropy, cd.entropy)
    _same_outcome(td.perplexity, cd.perplexity)
    if td.has_enumerate_support:
        for expand in (True, False):
            _same_outcome(lambda: td.enumerate_support(expand), lambda: cd.enumerate_support(expand))
    tsup, csup = td.support, cd.support
    assert type(csup).__name__ == type(tsup).__name__
    assert csup.event_dim == tsup.event_dim and csup.is_discrete == tsup.is_discrete
    np.testing.assert_array_equal(csup.check(cv.detach()).numpy(), tsup.check(tv.detach()).numpy())
    assert sorted(cd.arg_constraints) == sorted(td.arg_constraints)


def _canon(text):
    return text.replace("torch.", "tcore.").replace("torch", "tcore")


@pytest.mark.parametrize("name", list(CASES))
def test_repr_as_torch(name):
    (td, _, _), (cd, _, _) = _both(name, grad=False)
    assert repr(cd) == _canon(repr(td))
    assert repr(cd.support) == _canon(repr(td.support)) or name.startswith(("Uniform", "Binomial"))


CDF_CASES = ["Normal", "Uniform", "Exponential", "Laplace", "LogNormal", "Gamma", "Transformed_affine_sigmoid",
             "Transformed_tanh", "Transformed_compose_exp_affine_negative", "MixtureSameFamily"]


@pytest.mark.parametrize("name", CDF_CASES)
def test_cdf_icdf_as_torch(name):
    (td, tp, tv), (cd, cp, cv) = _both(name)
    want, got = td.cdf(tv), cd.cdf(cv)
    _close(got, want)
    # gradients in the value (and the parameters, where torch has them)
    inputs_t = [tv] + ([] if name in ("Gamma", "Transformed_compose_exp_affine_negative") else list(tp.values()))
    inputs_c = [cv] + ([] if name in ("Gamma", "Transformed_compose_exp_affine_negative") else list(cp.values()))
    for g, w in zip(_grads(got, inputs_c), _grads(want, inputs_t)):
        _close(g, w, rtol=1e-9)
    if name in ("Gamma", "MixtureSameFamily", "Transformed_compose_exp_affine_negative"):
        return  # (no icdf in torch)
    u = RNG.uniform(0.02, 0.98, tuple(td.batch_shape))
    _close(cd.icdf(tcore.tensor(u)), td.icdf(torch.tensor(u)))


def test_gamma_cdf_concentration_gradient():
    """torch's gammainc has no gradient in a; tcore's: dP/da by finite differences of torch's."""
    a = tcore.tensor([0.3, 1.0, 2.5, 7.0, 40.0], dtype=tcore.float64, requires_grad=True)
    x = np.array([0.2, 1.5, 2.0, 9.0, 38.0])
    tcore.distributions.Gamma(a, 1.0).cdf(tcore.tensor(x)).sum().backward()
    h = 1e-6
    ta = torch.tensor(a.detach().numpy())
    fd = (torch.special.gammainc(ta + h, torch.tensor(x)) - torch.special.gammainc(ta - h, torch.tensor(x))) / (2 * h)
    np.testing.assert_allclose(a.grad.numpy(), fd.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["Normal", "Bernoulli_logits", "Categorical_probs", "OneHotCategorical",
                                  "Binomial_probs", "Gamma", "Beta", "Dirichlet", "StudentT", "LogNormal",
                                  "MultivariateNormal_cov", "MultivariateNormal_precision", "Independent",
                                  "MixtureSameFamily", "Transformed_affine_event", "Uniform", "Geometric_probs"])
def test_expand_as_torch(name):
    (td, _, _), (cd, _, _) = _both(name)
    shape = (2,) + tuple(td.batch_shape)
    te, ce = td.expand(shape), cd.expand(shape)
    assert type(ce) is type(cd) and tuple(ce.batch_shape) == tuple(te.batch_shape)
    assert tuple(ce.event_shape) == tuple(te.event_shape) and ce._validate_args == cd._validate_args
    value = te.sample().numpy()
    _close(ce.log_prob(tcore.tensor(value)), te.log_prob(torch.tensor(value)))
    _same_outcome(lambda: te.mean, lambda: ce.mean)
    assert tuple(ce.sample((3,)).shape) == tuple(te.sample((3,)).shape)


# --- KL divergence ----------------------------------------------------------------------------

KL_PAIRS = {
    "Normal": (lambda D, p: (D.Normal(p["a"], p["b"]), D.Normal(p["c"], p["d"])),
               {"a": _norm(2, 3), "b": _pos(3), "c": _norm(3), "d": _pos(2, 3)}),
    "Bernoulli": (lambda D, p: (D.Bernoulli(probs=p["a"]), D.Bernoulli(logits=p["b"])),
                  {"a": RNG.uniform(0.05, 0.95, 4), "b": _norm(4)}),
    "Bernoulli_edges": (lambda D, p: (D.Bernoulli(probs=p["a"]), D.Bernoulli(probs=p["b"])),
                        {"a": Fixed(np.array([0.0, 1.0, 0.3, 0.0, 0.5])), "b": Fixed(np.array([0.2, 0.0, 0.0, 1.0,
                                                                                               1.0]))}),
    "Categorical": (lambda D, p: (D.Categorical(probs=p["a"]), D.Categorical(logits=p["b"])),
                    {"a": _probs(2, 4), "b": _norm(4)}),
    "Categorical_zero": (lambda D, p: (D.Categorical(probs=p["a"]), D.Categorical(probs=p["b"])),
                         {"a": Fixed(np.array([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]])),
                          "b": Fixed(np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]))}),
    "OneHotCategorical": (lambda D, p: (D.OneHotCategorical(logits=p["a"]), D.OneHotCategorical(logits=p["b"])),
                          {"a": _norm(3, 5), "b": _norm(3, 5)}),
    "Uniform": (lambda D, p: (D.Uniform(p["a"], p["b"]), D.Uniform(p["c"], p["d"])),
                {"a": np.array([0.0, 0.0, 0.0]), "b": np.array([1.0, 1.0, 2.0]), "c": np.array([-1.0, 0.5, -3.0]),
                 "d": np.array([2.0, 3.0, 2.0])}),
    "Exponential": (lambda D, p: (D.Exponential(p["a"]), D.Exponential(p["b"])), {"a": _pos(3), "b": _pos(3)}),
    "Laplace": (lambda D, p: (D.Laplace(p["a"], p["b"]), D.Laplace(p["c"], p["d"])),
                {"a": _norm(3), "b": _pos(3), "c": _norm(3), "d": _pos(3)}),
    "Gamma": (lambda D, p: (D.Gamma(p["a"], p["b"]), D.Gamma(p["c"], p["d"])),
              {"a": _pos(3), "b": _pos(3), "c": _pos(3), "d": _pos(3)}),
    "Beta": (lambda D, p: (D.Beta(p["a"], p["b"]), D.Beta(p["c"], p["d"])),
             {"a": _pos(3), "b": _pos(3), "c": _pos(3), "d": _pos(3)}),
    "Dirichlet": (lambda D, p: (D.Dirichlet(p["a"]), D.Dirichlet(p["b"])), {"a": _pos(2, 4), "b": _pos(4)}),
    "Poisson": (lambda D, p: (D.Poisson(p["a"]), D.Poisson(p["b"])), {"a": _pos(3), "b": _pos(3)}),
    "Geometric": (lambda D, p: (D.Geometric(probs=p["a"]), D.Geometric(probs=p["b"])),
                  {"a": RNG.uniform(0.1, 0.9, 3), "b": RNG.uniform(0.1, 0.9, 3)}),
    "Binomial": (lambda D, p: (D.Binomial(p["n"], probs=p["a"]), D.Binomial(p["m"], probs=p["b"])),
                 {"n": Fixed(np.array([5.0, 8.0])), "m": Fixed(np.array([5.0, 6.0])), "a": RNG.uniform(0.1, 0.9, 2),
                  "b": RNG.uniform(0.1, 0.9, 2)}),
    "Independent": (lambda D, p: (D.Independent(D.Normal(p["a"], p["b"]), 1),
                                  D.Independent(D.Normal(p["c"], p["d"]), 1)),
                    {"a": _norm(2, 3), "b": _pos(2, 3), "c": _norm(2, 3), "d": _pos(2, 3)}),
    "MultivariateNormal": (lambda D, p: (D.MultivariateNormal(p["a"], covariance_matrix=p["b"]),
                                         D.MultivariateNormal(p["c"], scale_tril=p["d"])),
                           {"a": _norm(2, 3), "b": _spd(3, (2,)), "c": _norm(3), "d": _tril(3)}),
    "MultivariateNormal_precision": (lambda D, p: (D.MultivariateNormal(p["a"], precision_matrix=p["b"]),
                                                   D.MultivariateNormal(p["c"], covariance_matrix=p["d"])),
                                     {"a": _norm(3), "b": _spd(3), "c": _norm(2, 3), "d": _spd(3, (2,))}),
    "LogNormal": (lambda D, p: (D.LogNormal(p["a"], p["b"]), D.LogNormal(p["c"], p["d"])),
                  {"a": _norm(3), "b": _pos(3), "c": _norm(3), "d": _pos(3)}),
}


@pytest.mark.parametrize("name", list(KL_PAIRS))
def test_kl_divergence_as_torch(name):
    make, params = KL_PAIRS[name]
    results = []
    for lib in (torch, tcore):
        p = _tensors(lib, params)
        kl = _lib_dists(lib).kl_divergence(*make(_lib_dists(lib), p))
        results.append((kl, _grads(kl, list(p.values()))))
    (want, wg), (got, gg) = results
    _close(got, want)
    for g, w in zip(gg, wg):  # (torch's trigamma is within 5e-10 of the true value, tcore's 2e-13)
        _close(g, w, rtol=1e-8)


def test_kl_registry():
    class MyNormal(TD.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), TD.Normal(1.0, 2.0)
    assert float(TD.kl_divergence(p, q)) == pytest.approx(float(TD.kl_divergence(TD.Normal(0.0, 1.0), q)))

    @TD.register_kl(MyNormal, TD.Normal)
    def _mine(p, q):
        return tcore.tensor(42.0)

    assert float(TD.kl_divergence(p, q)) == 42.0
    assert float(TD.kl_divergence(q, q)) == 0.0
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type "
                                                  "Cauchy"):
        TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Cauchy(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="different exponential families"):
        TD.kl_divergence(TD.Exponential(1.0), TD.Poisson(1.0))


# --- validation ---------------------------------------------------------------------------------

ERRORS = [
    (lambda D, t: D.Normal(t([0.0]), t([-1.0])), "Expected parameter scale"),
    (lambda D, t: D.Normal(t([0.0]), t([-1.0])), "to satisfy the constraint GreaterThan(lower_bound=0.0)"),
    (lambda D, t: D.Uniform(t([1.0]), t([0.0])), "Expected parameter low"),
    (lambda D, t: D.Bernoulli(probs=t([1.5])), "constraint Interval(lower_bound=0.0, upper_bound=1.0)"),
    (lambda D, t: D.Bernoulli(probs=t([0.5]), logits=t([0.0])), "Either `probs` or `logits` must be specified"),
    (lambda D, t: D.Categorical(probs=t(0.5)), "`probs` parameter must be at least one-dimensional."),
    (lambda D, t: D.Categorical(logits=t(0.5)), "`logits` parameter must be at least one-dimensional."),
    (lambda D, t: D.Categorical(probs=t([0.5, -0.1])), "Expected parameter probs"),
    (lambda D, t: D.Geometric(probs=t([0.0, 0.5])), "to be positive but found invalid values"),
    (lambda D, t: D.Binomial(t([2.5]), probs=t([0.5])), "Expected parameter total_count"),
    (lambda D, t: D.Dirichlet(t(2.0)), "`concentration` parameter must be at least one-dimensional."),
    (lambda D, t: D.Dirichlet(t([1.0, -2.0])), "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"),
    (lambda D, t: D.Gamma(t([1.0]), t([0.0])), "Expected parameter rate"),
    (lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), covariance_matrix=t(np.eye(2)), scale_tril=t(np.eye(2))),
     "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified."),
    (lambda D, t: D.MultivariateNormal(t(0.0), covariance_matrix=t(np.eye(2))), "loc must be at least one-dimensional"),
    (lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), scale_tril=t([1.0, 1.0])),
     "scale_tril matrix must be at least two-dimensional"),
    (lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), covariance_matrix=t([[1.0, 2.0], [2.0, 1.0]])),
     "Expected parameter covariance_matrix"),
    (lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), scale_tril=t([[1.0, 1.0], [0.0, 1.0]])),
     "constraint LowerCholesky()"),
    (lambda D, t: D.Independent(D.Normal(t([0.0]), t([1.0])), 2), "Expected reinterpreted_batch_ndims <= "
                                                                   "len(base_distribution.batch_shape), actual 2 vs 1"),
    (lambda D, t: D.MixtureSameFamily(D.Categorical(logits=t([0.0, 0.0])), D.Normal(t([0.0] * 3), t([1.0] * 3))),
     "does not equal `component_distribution.batch_shape[-1]`"),
    (lambda D, t: D.MixtureSameFamily(D.Normal(t([0.0]), t([1.0])), D.Normal(t([0.0]), t([1.0]))),
     "The Mixture distribution needs to be an  instance of torch.distributions.Categorical"),
    (lambda D, t: D.TransformedDistribution(D.Normal(t([0.0]), t([1.0])), "exp"),
     "transforms must be a Transform or list"),
    (lambda D, t: D.Exponential(t([1.0])).log_prob(t([-1.0])), "Expected value argument"),
    (lambda D, t: D.Exponential(t([1.0])).log_prob(t([-1.0])),
     "to be within the support (GreaterThanEq(lower_bound=0.0))"),
    (lambda D, t: D.Normal(t([0.0]), t([1.0])).log_prob(0.5), "The value argument to log_prob must be a Tensor"),
    (lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), t(np.eye(2))).log_prob(t([0.0, 0.0, 0.0])),
     "The right-most size of value must match event_shape"),
    (lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, 1.0])).log_prob(t([0.0, 0.0, 0.0])),
     "Value is not broadcastable with batch_shape+event_shape"),
    (lambda D, t: D.Categorical(probs=t([0.5, 0.5])).log_prob(t([2.0])),
     "IntegerInterval(lower_bound=0, upper_bound=1)"),
    (lambda D, t: D.Bernoulli(probs=t([0.5])).log_prob(t([0.5])), "Boolean()"),
    (lambda D, t: D.Poisson(t([1.0])).log_prob(t([1.5])), "IntegerGreaterThan(lower_bound=0)"),
    (lambda D, t: D.Dirichlet(t([1.0, 2.0])).log_prob(t([0.5, 0.6])), "Simplex()"),
    (lambda D, t: D.Beta(t([1.0]), t([1.0])).log_prob(t([1.5])), "Interval(lower_bound=0.0, upper_bound=1.0)"),
    (lambda D, t: D.Binomial(t([4.0, 5.0]), probs=t([0.5, 0.5])).entropy(),
     "Inhomogeneous total count not supported by `entropy`."),
    (lambda D, t: D.Independent(D.Normal(t([[0.0]]), t([[1.0]])), 1).enumerate_support(),
     "Enumeration over cartesian product is not implemented"),
    (lambda D, t: D.Poisson(t([1.0])).entropy(), None),
    (lambda D, t: D.Distribution.set_default_validate_args(3), None),
    (lambda D, t: D.transforms.ExpTransform(cache_size=2), "cache_size must be 0 or 1"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    fn, message = ERRORS[i]
    with pytest.raises(Exception) as want:
        fn(torch.distributions, lambda v: torch.tensor(v, dtype=torch.float64))
    with pytest.raises(type(want.value)) as got:
        fn(TD, lambda v: tcore.tensor(v, dtype=tcore.float64))
    if message is not None:
        assert message in str(want.value)
        assert message in str(got.value)


def test_validate_args_switches():
    TD.Normal(0.0, -1.0, validate_args=False)  # accepted
    assert TD.Normal(0.0, -1.0, validate_args=False).log_prob(tcore.tensor(0.0)).isnan()
    TD.Distribution.set_default_validate_args(False)
    try:
        TD.Normal(0.0, -1.0)
        TD.Exponential(1.0).log_prob(tcore.tensor(-1.0))
    finally:
        TD.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        TD.Normal(0.0, -1.0)
    # a parameter derived from another one (logits from probs) is not validated
    d = TD.Bernoulli(probs=tcore.tensor([0.0, 1.0]))
    assert "logits" not in d.__dict__ and d.logits.shape == (2,)


# --- sampling -----------------------------------------------------------------------------------

SAMPLED = ["Normal", "Normal_numbers", "Uniform", "Bernoulli_probs", "Bernoulli_logits", "Categorical_probs",
           "OneHotCategorical", "Binomial_probs", "Binomial_logits", "Poisson", "Geometric_probs", "Exponential",
           "Laplace", "LogNormal", "Gamma", "Chi2", "Beta", "Beta_numbers", "Dirichlet", "StudentT",
           "MultivariateNormal_cov", "MultivariateNormal_precision", "MultivariateNormal_tril", "Independent",
           "MixtureSameFamily_independent", "MixtureSameFamily_mvn", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "Transformed_affine_sigmoid", "Transformed_tanh"]


def _moments_agree(x, mean, var, name):
    """The sample mean (and variance) within 6 standard errors of the distribution's."""
    m = x.mean(0)
    se = x.std(0) / math.sqrt(len(x))
    assert np.all(np.abs(m - mean) <= 6 * se + 1e-12), (name, m, mean)
    if var is not None and np.all(np.isfinite(var)):
        d2 = (x - m) ** 2
        v = d2.mean(0)
        se_v = d2.std(0) / math.sqrt(len(x))
        assert np.all(np.abs(v - var) <= 6 * se_v + 1e-12), (name, v, var)


@pytest.mark.parametrize("name", SAMPLED)
def test_sample_shapes_support_and_moments(name):
    tcore.manual_seed(1)
    (td, _, _), (cd, _, _) = _both(name, grad=False)
    want = td.sample((N,))
    x = cd.sample((N,))
    assert tuple(x.shape) == tuple(want.shape) == (N,) + tuple(cd.batch_shape) + tuple(cd.event_shape)
    assert str(x.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert not x.requires_grad
    assert bool(cd.support.check(x).all())
    xs = x.numpy().astype(float)
    if name.startswith("Relaxed"):  # (no moments in closed form: against torch's draws)
        ref = td.sample((N,)).numpy()
        se = np.sqrt(xs.var(0) / N + ref.var(0) / N)
        assert np.all(np.abs(xs.mean(0) - ref.mean(0)) <= 6 * se), name
        return
    if name.startswith("Transformed"):  # E f(X) = int_0^1 f(F^-1(u)) du, by the midpoint rule
        u = (torch.arange(100000, dtype=torch.float64) + 0.5) / 100000
        y = td.base_dist.icdf(u.reshape((-1,) + (1,) * len(td.batch_shape)))
        for t in td.transforms:
            y = t(y)
        _moments_agree(xs, y.mean(0).detach().numpy(), y.var(0, unbiased=False).detach().numpy(), name)
        return
    mean = td.mean.detach().numpy()
    var = None if name == "StudentT" else td.variance.detach().numpy()
    if name == "StudentT":  # heavy tails: the mean only where the variance is finite
        xs, mean = xs[:, 2:], mean[2:]
    if name == "LogNormal":  # heavy tails: the moments of the logarithm
        xs, mean, var = np.log(xs), td.loc.detach().numpy(), td.scale.detach().numpy() ** 2
    if name in ("Categorical_probs",):  # no mean: compare the frequencies
        probs = td.probs.detach().numpy()
        xs = (xs[..., None] == np.arange(probs.shape[-1])).astype(float)
        mean, var = probs, probs * (1 - probs)
    _moments_agree(xs, mean, var, name)
    assert tuple(cd.sample().shape) == tuple(cd.batch_shape) + tuple(cd.event_shape)
    assert tuple(cd.sample((2, 3)).shape) == (2, 3) + tuple(cd.batch_shape) + tuple(cd.event_shape)


@pytest.mark.parametrize("params", [(0.05,), (0.7,), (1.0,), (6.0,), (300.0,)])
def test_gamma_sampler_distribution(params):
    """Kolmogorov-Smirnov distance of 20000 draws to the gamma CDF (torch's gammainc)."""
    (a,) = params
    tcore.manual_seed(2)
    x = np.sort(TD.Gamma(tcore.tensor(a, dtype=tcore.float64), 1.0).sample((N,)).numpy())
    cdf = torch.special.gammainc(torch.tensor(a, dtype=torch.float64), torch.tensor(x)).numpy()
    k = np.arange(1, N + 1) / N
    d = max(np.max(k - cdf), np.max(cdf - (k - 1.0 / N)))
    assert d < 1.95 / math.sqrt(N)  # (the KS test's 0.1% level)


@pytest.mark.parametrize("rate", [0.0, 0.3, 4.0, 9.99, 10.0, 150.0, 1e5])
def test_poisson_sampler(rate):
    tcore.manual_seed(3)
    x = TD.Poisson(tcore.full((N,), rate, dtype=tcore.float64)).sample().numpy()
    assert np.all(x == np.floor(x)) and np.all(x >= 0)
    if rate == 0:
        assert np.all(x == 0)
        return
    _moments_agree(x[:, None], np.array([rate]), np.array([rate]), rate)
    # the probabilities of the commonest values, against the pmf
    k = np.round(rate + np.arange(-2, 3) * math.sqrt(rate))
    k = np.unique(k[k >= 0])
    pmf = np.exp(torch.distributions.Poisson(torch.tensor(rate)).log_prob(torch.tensor(k)).numpy())
    freq = (x[:, None] == k).mean(0)
    assert np.all(np.abs(freq - pmf) <= 6 * np.sqrt(pmf * (1 - pmf) / N) + 1e-9)


@pytest.mark.parametrize("n,p", [(1, 0.3), (7, 0.0), (7, 1.0), (20, 0.2), (40, 0.5), (1000, 0.93), (10 ** 6, 0.4)])
def test_binomial_sampler(n, p):
    tcore.manual_seed(4)
    x = TD.Binomial(tcore.full((N,), float(n), dtype=tcore.float64),
                    probs=tcore.full((N,), p, dtype=tcore.float64)).sample().numpy()
    assert np.all(x == np.floor(x)) and np.all(x >= 0) and np.all(x <= n)
    if p in (0.0, 1.0):
        assert np.all(x == n * p)
        return
    _moments_agree(x[:, None], np.array([n * p]), np.array([n * p * (1 - p)]), (n, p))
    sd = math.sqrt(n * p * (1 - p))
    k = np.unique(np.clip(np.round(n * p + np.arange(-2, 3) * sd), 0, n))
    pmf = np.exp(torch.distributions.Binomial(n, probs=torch.tensor(p, dtype=torch.float64))
                 .log_prob(torch.tensor(k)).numpy())
    freq = (x[:, None] == k).mean(0)
    assert np.all(np.abs(freq - pmf) <= 6 * np.sqrt(pmf * (1 - pmf) / N) + 1e-9)


# --- rsample gradients --------------------------------------------------------------------------

def _param(v):
    return tcore.tensor(v, dtype=tcore.float64, requires_grad=True)


def test_rsample_gradients_exact():
    tcore.manual_seed(5)
    loc, scale = _param([0.5, -1.0]), _param([2.0, 0.5])
    x = TD.Normal(loc, scale).rsample((1000,))
    x.mean(0).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [1.0, 1.0], rtol=1e-12)
    eps = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(scale.grad.numpy(), eps.mean(0).numpy(), rtol=1e-10, atol=1e-14)

    rate = _param([0.5, 3.0])
    x = TD.Exponential(rate).rsample((1000,))
    x.sum().backward()
    np.testing.assert_allclose(rate.grad.numpy(), (-x.detach() / rate.detach()).sum(0).numpy(), rtol=1e-10)

    for make in (lambda l, s: TD.Laplace(l, s), lambda l, s: TD.StudentT(3.0, l, s),
                 lambda l, s: TD.Uniform(l, l + s), lambda l, s: TD.Independent(TD.Normal(l, s), 1)):
        loc, s = _param([0.5, -1.0]), _param([2.0, 0.5])
        make(loc, s).rsample((100,)).mean(0).sum().backward()
        np.testing.assert_allclose(loc.grad.numpy(), [1.0, 1.0], rtol=1e-12)

    loc, s = _param([0.5, -1.0]), _param([2.0, 0.5])
    x = TD.LogNormal(loc, s).rsample((100,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), x.detach().sum(0).numpy(), rtol=1e-12)

    loc, L = _param([0.5, -1.0, 2.0]), _param(_tril(3))
    x = TD.MultivariateNormal(loc, scale_tril=L).rsample((500,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [500.0] * 3, rtol=1e-12)
    eps = np.linalg.solve(L.detach().numpy(), (x.detach() - loc.detach()).numpy().T)  # (3, 500)
    want = np.tril(np.tile(eps.sum(1), (3, 1)))
    np.testing.assert_allclose(np.tril(L.grad.numpy()), want, rtol=1e-8, atol=1e-9)


def test_gamma_rsample_gradient_is_the_implicit_one():
    """d(draw)/d(concentration) at the draw's quantile u: (F^-1(u; a + h) - F^-1(u; a - h)) / 2h, with
    the quantile from torch's gammainc and the inverse by Newton steps in float64."""
    tcore.manual_seed(6)
    a = _param([0.1, 0.8, 1.0, 3.5, 60.0])
    rate = _param([2.0, 1.0, 0.5, 1.0, 3.0])
    x = TD.Gamma(a, rate).rsample((40,))
    x.sum().backward()
    xs = (x.detach() * rate.detach()).numpy()  # standard gamma draws
    ta = torch.tensor(a.detach().numpy())

    def quantile(alpha, u, x0):
        x = torch.tensor(x0)
        for _ in range(60):
            f = torch.special.gammainc(alpha, x) - u
            dens = torch.exp((alpha - 1) * x.log() - x - torch.lgamma(alpha))
            x = (x - f / dens).clamp(min=x / 10)
        return x

    u = torch.special.gammainc(ta, torch.tensor(xs))
    h = 1e-5 * ta
    fd = (quantile(ta + h, u, xs) - quantile(ta - h, u, xs)) / (2 * h)
    want_a = (fd.numpy() / rate.detach().numpy()).sum(0)
    np.testing.assert_allclose(a.grad.numpy(), want_a, rtol=1e-6)
    np.testing.assert_allclose(rate.grad.numpy(), (-x.detach() / rate.detach()).sum(0).numpy(), rtol=1e-10)
    # torch's own gradient (an approximation, within 1e-3) at the same draws
    tg = torch._standard_gamma_grad(ta.expand(40, 5), torch.tensor(xs)).numpy()
    np.testing.assert_allclose(a.grad.numpy(), (tg / rate.detach().numpy()).sum(0), rtol=2e-3)


def _batched_grad_mean(fn, param, batches=20, size=1000):
    grads = []
    for _ in range(batches):
        param.grad = None
        fn(size).backward()
        grads.append(param.grad.numpy().copy())
    g = np.array(grads)
    return g.mean(0), g.std(0) / math.sqrt(batches)


def test_rsample_gradients_in_expectation():
    """d/dtheta E[x] from the pathwise gradients of 20000 draws, within 6 standard errors."""
    tcore.manual_seed(7)
    a, b = _param([0.4, 2.0, 7.0]), _param([1.0, 2.0, 0.5])
    m, se = _batched_grad_mean(lambda n: TD.Gamma(a, b).rsample((n,)).mean(0).sum(), a)
    assert np.all(np.abs(m - 1 / b.detach().numpy()) <= 6 * se + 1e-12), (m, se)

    c = _param([0.5, 1.5, 4.0])
    m, se = _batched_grad_mean(lambda n: TD.Dirichlet(c).rsample((n,))[:, 0].mean(), c)
    cv = c.detach().numpy()
    want = (np.eye(3)[0] * cv.sum() - cv[0]) / cv.sum() ** 2  # d/dc_j of c_0 / sum(c)
    assert np.all(np.abs(m - want) <= 6 * se + 1e-12), (m, want, se)

    c1, c0 = _param([0.7, 3.0]), _param([2.0, 0.4])
    m, se = _batched_grad_mean(lambda n: TD.Beta(c1, c0).rsample((n,)).mean(0).sum(), c1)
    want = c0.detach().numpy() / (c1.detach().numpy() + c0.detach().numpy()) ** 2
    assert np.all(np.abs(m - want) <= 6 * se + 1e-12), (m, want, se)

    df = _param([5.0])
    m, se = _batched_grad_mean(lambda n: TD.Chi2(df).rsample((n,)).mean(), df)
    assert abs(m[0] - 1.0) <= 6 * se[0]


def test_straight_through_and_sample_without_grad():
    probs = _param([0.2, 0.3, 0.5])
    d = TD.OneHotCategoricalStraightThrough(probs=probs)
    x = d.rsample((4,))
    assert x.requires_grad and bool(d.support.check(x.detach()).all())
    (x * tcore.tensor([1.0, 2.0, 3.0], dtype=tcore.float64)).sum().backward()
    np.testing.assert_allclose(probs.grad.numpy(), 4 * (np.array([1.0, 2.0, 3.0]) - 2.3), rtol=1e-12)
    for dist in (TD.Normal(probs, 1.0), TD.Gamma(probs, 1.0), TD.Dirichlet(probs), TD.Beta(probs, probs)):
        assert not dist.sample((2,)).requires_grad
        assert dist.rsample((2,)).requires_grad


# --- transforms ---------------------------------------------------------------------------------

def test_transforms_as_torch():
    x = RNG.standard_normal((4, 3))
    for build in (lambda T: T.ExpTransform(), lambda T: T.SigmoidTransform(), lambda T: T.TanhTransform(),
                  lambda T: T.AffineTransform(1.5, -2.0), lambda T: T.SoftplusTransform(),
                  lambda T: T.ComposeTransform([T.AffineTransform(0.5, 3.0), T.TanhTransform()]),
                  lambda T: T.ComposeTransform([T.ExpTransform(), T.ExpTransform().inv])):
        tt, ct = build(torch.distributions.transforms), build(TD.transforms)
        tx, cx = torch.tensor(x), tcore.tensor(x)
        ty, cy = tt(tx), ct(cx)
        _close(cy, ty, rtol=1e-12)
        _close(ct.log_abs_det_jacobian(cx, cy), tt.log_abs_det_jacobian(tx, ty))
        _close(ct.inv(cy), tt.inv(ty), rtol=1e-9)
        assert ct.sign == tt.sign and ct.bijective == tt.bijective
        assert repr(ct.domain) == repr(tt.domain) and repr(ct.codomain) == repr(tt.codomain)
        assert ct.inv.inv is ct and ct == build(TD.transforms)
    ca = TD.transforms.AffineTransform(tcore.zeros(3), tcore.ones(2, 3), event_dim=1)
    ta = torch.distributions.transforms.AffineTransform(torch.zeros(3), torch.ones(2, 3), event_dim=1)
    assert tuple(ca.forward_shape((5, 1, 3))) == tuple(ta.forward_shape((5, 1, 3)))
    assert repr(ca.domain) == repr(ta.domain)
    cached = TD.transforms.ExpTransform().with_cache()
    y = cached(tcore.tensor([1.0]))
    assert cached.inv(y) is cached._cached_x_y[0]
    assert "ComposeTransform(\n    ExpTransform(),\n    TanhTransform()\n)" == repr(
        TD.transforms.ComposeTransform([TD.transforms.ExpTransform(), TD.transforms.TanhTransform()]))


def test_constraints_as_torch():
    values = [np.array([[-1.0, 0.0, 0.5, 1.0, 2.0, np.nan]]), np.array([[0.2, 0.8], [0.5, 0.6]]),
              np.array([[[2.0, 0.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]], [[2.0, 1.0], [1.0, 2.0]]])]
    names = ["real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer",
             "positive_integer", "simplex", "real_vector", "one_hot", "lower_triangular", "lower_cholesky",
             "positive_definite", "symmetric", "square", "positive_semidefinite"]
    families = [lambda C: C.greater_than(0.5), lambda C: C.greater_than_eq(0.5), lambda C: C.less_than(0.5),
                lambda C: C.interval(0.0, 1.0), lambda C: C.half_open_interval(0.0, 1.0),
                lambda C: C.integer_interval(0, 1), lambda C: C.independent(C.positive, 1),
                lambda C: C.multinomial(1)]
    for get in [lambda C, n=n: getattr(C, n) for n in names] + families:
        tc, cc = get(torch.distributions.constraints), get(TD.constraints)
        assert repr(cc) == repr(tc) and cc.event_dim == tc.event_dim and cc.is_discrete == tc.is_discrete
        for v in values:
            if v.ndim < tc.event_dim or (tc.event_dim == 2 and v.shape[-1] != v.shape[-2]):
                continue
            np.testing.assert_array_equal(cc.check(tcore.tensor(v)).numpy(), tc.check(torch.tensor(v)).numpy())
    assert TD.constraints.is_dependent(TD.Uniform.support) and TD.constraints.is_dependent(TD.constraints.dependent)
    assert TD.Categorical.support.is_discrete and TD.Categorical.support.event_dim == 0


def test_mixture_same_family_broadcast_and_cdf():
    """A mixture over a batch of (2,) with a mixing distribution of batch (1,): log_prob, mean, variance, cdf."""
    w, loc, scale = _norm(1, 3), _norm(2, 3), _pos(2, 3)
    value = _norm(4, 2)
    out = []
    for lib in (torch, tcore):
        D = _lib_dists(lib)
        d = D.MixtureSameFamily(D.Categorical(logits=lib.tensor(w)), D.Normal(lib.tensor(loc), lib.tensor(scale)))
        out.append([d.log_prob(lib.tensor(value)), d.mean, d.variance, d.cdf(lib.tensor(value))])
    _close(out[1], out[0])


def test_no_torch_import():
    code = "import sys, tcore.distributions; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(__file__).parents[1]))
