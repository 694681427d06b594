"""nn.utils.parametrize, parametrizations (weight_norm, spectral_norm, orthogonal) and the older
weight_norm / spectral_norm hooks against torch's, in float64 from the same weights: the
parametrized values, reprs, state_dict keys, gradients of the originals, training steps, power
iteration buffers, assignment through right_inverse, removal, caching, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402


def _twins(make):
    """torch's module and tcore's from the same float64 state (the parametrized modules' state
    loaded from torch's: buffers of random initialization included)."""
    tm, cm = make(torch), make(tcore)
    state = {k: tcore.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    assert list(cm.state_dict()) == list(state)
    cm.load_state_dict(state)
    return tm, cm


def _close(got, want, rtol=1e-12, atol=1e-13):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol)


def _backward_as_torch(tm, cm, shape, rtol=1e-11):
    x = np.random.default_rng(1).standard_normal(shape)
    xt, xc = torch.tensor(x), tcore.tensor(x)
    yt, yc = tm(xt), cm(xc)
    _close(yc, yt)
    (yt * yt).sum().backward()
    (yc * yc).sum().backward()
    for (name, p), (_, q) in zip(cm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=rtol, atol=1e-12, err_msg=name)


def _new(fn: str, module: str, args: tuple, shape: tuple, **kw):
    """(the module parametrized in library m, an input's shape)"""
    def make(m):
        utils = m.nn.utils.parametrizations
        return getattr(utils, fn)(getattr(m.nn, module)(*args).double(), **kw)
    return make, shape


NEW = {
    "weight_norm_linear": _new("weight_norm", "Linear", (3, 4), (6, 3)),
    "weight_norm_conv_dim1": _new("weight_norm", "Conv2d", (2, 3, 3), (2, 2, 5, 5), dim=1),
    "weight_norm_conv_dim_none": _new("weight_norm", "Conv2d", (2, 3, 3), (2, 2, 5, 5), dim=None),
    "weight_norm_conv_dim3": _new("weight_norm", "Conv2d", (2, 3, 3), (2, 2, 5, 5), dim=3),
    "spectral_norm_linear": _new("spectral_norm", "Linear", (3, 4), (6, 3)),
    "spectral_norm_conv_t": _new("spectral_norm", "ConvTranspose2d", (2, 3, 3), (2, 2, 4, 4), n_power_iterations=3),
    "orthogonal_square": _new("orthogonal", "Linear", (4, 4), (6, 4)),
    "orthogonal_tall_householder": _new("orthogonal", "Linear", (3, 5), (6, 3)),
    "orthogonal_wide_cayley": _new("orthogonal", "Linear", (5, 3), (6, 5), orthogonal_map="cayley"),
    "orthogonal_tall_matrix_exp": _new("orthogonal", "Linear", (3, 5), (6, 3), orthogonal_map="matrix_exp"),
    "orthogonal_no_trivialization": _new("orthogonal", "Linear", (3, 5), (6, 3), use_trivialization=False),
}


@pytest.mark.parametrize("name", list(NEW))
def test_parametrizations_as_torch(name):
    """(training mode: spectral_norm's power step on each forward)"""
    torch.manual_seed(0)
    make, shape = NEW[name]
    tm, cm = _twins(make)
    assert repr(cm) == repr(tm)
    _close(cm.weight, tm.weight)
    if name.startswith("orthogonal"):
        w = cm.weight.detach().numpy()
        small = w.T @ w if w.shape[0] >= w.shape[1] else w @ w.T
        np.testing.assert_allclose(small, np.eye(small.shape[0]), atol=1e-12)
    _backward_as_torch(tm, cm, shape)
    for _ in range(2):  # (spectral_norm's buffers step on; the others stay)
        _close(cm.weight, tm.weight)
    for (key, a), (_, b) in zip(cm.state_dict().items(), tm.state_dict().items()):
        _close(a, b, rtol=1e-11, atol=1e-12)


def test_spectral_norm_training_and_evaluation_as_torch():
    torch.manual_seed(1)
    tm, cm = _twins(lambda m: m.nn.utils.parametrizations.spectral_norm(m.nn.Linear(6, 5).double()))
    optim_t, optim_c = torch.optim.SGD(tm.parameters(), lr=0.1), tcore.optim.SGD(cm.parameters(), lr=0.1)
    x = np.random.default_rng(2).standard_normal((4, 6))
    for _ in range(3):
        for m, opt, lib in ((tm, optim_t, torch), (cm, optim_c, tcore)):
            opt.zero_grad()
            m(lib.tensor(x)).pow(2).sum().backward()
            opt.step()
    for key in ("parametrizations.weight.original", "parametrizations.weight.0._u", "parametrizations.weight.0._v"):
        _close(cm.state_dict()[key], tm.state_dict()[key], rtol=1e-10, atol=1e-12)
    tm.eval()
    cm.eval()
    u = cm.parametrizations.weight[0]._u.clone()
    _close(cm.weight, tm.weight, rtol=1e-10)
    np.testing.assert_array_equal(cm.parametrizations.weight[0]._u.numpy(), u.numpy())  # (no step in evaluation)
    # (the estimate after a few power steps: the normalized weight's largest singular value near 1)
    np.testing.assert_allclose(np.linalg.svd(cm.weight.detach().numpy(), compute_uv=False)[0], 1.0, rtol=1e-2)


class _Symmetric:
    @staticmethod
    def make(lib):
        class Symmetric(lib.nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).transpose(-1, -2)

            def right_inverse(self, A):
                return A.triu()

        return Symmetric()


class _RankOne:
    @staticmethod
    def make(lib):
        class RankOne(lib.nn.Module):
            def forward(self, x, y):
                return x.unsqueeze(-1) @ y.unsqueeze(-2)

            def right_inverse(self, Z):
                return Z[:, 0], Z[0, :]

        return RankOne()


def test_custom_parametrizations_assignment_chaining_and_removal_as_torch():
    results = []
    for lib in (torch, tcore):
        P = lib.nn.utils.parametrize
        m = lib.nn.Linear(4, 4).double()
        with lib.no_grad():
            m.weight.copy_(lib.tensor(np.arange(16.0).reshape(4, 4) / 10))
        P.register_parametrization(m, "weight", _Symmetric.make(lib))
        assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
        assert P.type_before_parametrizations(m) is lib.nn.Linear
        first = m.weight.detach().numpy().copy()
        m.weight = lib.tensor(np.eye(4) * 3 + np.ones((4, 4)))  # (through right_inverse: the upper triangle)
        assigned = m.parametrizations.weight.original.detach().numpy().copy()
        with P.cached():
            assert m.weight is m.weight
        assert m.weight is not m.weight
        P.register_parametrization(m, "bias", lib.nn.Identity())
        keys = list(m.state_dict())
        P.remove_parametrizations(m, "weight", leave_parametrized=True)
        P.remove_parametrizations(m, "bias", leave_parametrized=False)
        results.append((first, assigned, keys, type(m).__name__, m.weight.detach().numpy(), repr(m)))
        r = lib.nn.Linear(3, 3).double()
        with lib.no_grad():
            r.weight.copy_(lib.tensor(np.arange(9.0).reshape(3, 3) - 4))
        P.register_parametrization(r, "weight", _RankOne.make(lib))
        results[-1] += (list(r.state_dict()), r.weight.detach().numpy())
        with pytest.raises(ValueError, match="Cannot leave unparametrized"):
            P.remove_parametrizations(r, "weight", leave_parametrized=False)
    for got, want in zip(results[1], results[0]):
        if isinstance(want, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-14)
        else:
            assert got == want


def test_parametrization_errors_as_torch():
    class Shrink:
        @staticmethod
        def make(lib):
            class Shrink(lib.nn.Module):
                def forward(self, X):
                    return X[:1]

            return Shrink()

    for lib in (torch, tcore):
        m = lib.nn.Linear(3, 4)
        with pytest.raises(ValueError, match="may not change the shape of the tensor"):
            lib.nn.utils.parametrize.register_parametrization(m, "weight", Shrink.make(lib))
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
            lib.nn.utils.parametrize.register_parametrization(m, "nothing", lib.nn.Identity())
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            lib.nn.utils.parametrize.remove_parametrizations(m, "weight")
        with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), orthogonal_map="qr")
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), "bias")
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(3, 3), n_power_iterations=0)


def test_old_weight_norm_as_torch_and_its_state_dict_into_the_new_form():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        tm, cm = _twins(lambda m: m.nn.utils.weight_norm(m.nn.Conv1d(2, 3, 3).double(), dim=2))
    assert list(cm.state_dict()) == ["bias", "weight_g", "weight_v"]
    _backward_as_torch(tm, cm, (2, 2, 7))
    old_state = cm.state_dict()
    new = tcore.nn.utils.parametrizations.weight_norm(tcore.nn.Conv1d(2, 3, 3).double(), dim=2)
    new.load_state_dict(old_state)  # (the compatibility hook renames weight_g / weight_v)
    _close(new.weight, cm.weight)
    tcore.nn.utils.remove_weight_norm(cm)
    torch.nn.utils.remove_weight_norm(tm)
    assert list(cm.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    _close(cm.weight, tm.weight)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        tcore.nn.utils.remove_weight_norm(cm)


def test_old_spectral_norm_as_torch():
    torch.manual_seed(3)
    tm, cm = _twins(lambda m: m.nn.utils.spectral_norm(m.nn.Linear(5, 4).double(), n_power_iterations=2))
    assert list(cm.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    for _ in range(2):  # (each training forward one power step: u and v in place)
        _backward_as_torch(tm, cm, (3, 5))
        _close(cm.weight_u, tm.weight_u, rtol=1e-11)
    tm.eval()
    cm.eval()
    _close(cm(tcore.ones(2, 5, dtype=tcore.float64)), tm(torch.ones(2, 5, dtype=torch.float64)), rtol=1e-11)
    tcore.nn.utils.remove_spectral_norm(cm)
    torch.nn.utils.remove_spectral_norm(tm)
    assert list(cm.state_dict()) == list(tm.state_dict())
    _close(cm.weight, tm.weight, rtol=1e-11)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        m = tcore.nn.utils.spectral_norm(tcore.nn.Linear(2, 2))
        tcore.nn.utils.spectral_norm(m)
