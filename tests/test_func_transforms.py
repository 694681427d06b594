"""tcore.func's transforms (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap,
functional_call, stack_module_state) against torch.func in float64: values of nested transforms,
pytree arguments and results, argnums, has_aux, vmap's in_dims/out_dims and randomness modes, the
per-sample-gradient and ensemble recipes of torch's documentation, and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
from torch_twins import copy_parameters  # noqa: E402

RNG = np.random.default_rng(0)
X, Y, W = RNG.standard_normal(4), RNG.standard_normal(4), RNG.standard_normal((3, 4))


def _both(fn):
    """fn(lib) for torch and tcore, with the library's func module, tensors from numpy."""
    return fn(torch), fn(tcore)


def _close(got, want, rtol=1e-12):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w, rtol)
    elif isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for k in want:
            _close(got[k], want[k], rtol)
    else:
        assert tuple(got.shape) == tuple(want.shape)
        assert not got.requires_grad  # (results carry no graph, as torch's)
        np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=rtol, atol=1e-13)


def f_scalar(lib, x, y):
    return (lib.sin(x) * y).sum() + (x * x).sum() * y.sum()


CASES = {
    "grad": lambda lib: lib.func.grad(lambda x: f_scalar(lib, x, lib.tensor(Y)))(lib.tensor(X)),
    "grad_argnums": lambda lib: lib.func.grad(lambda x, y: f_scalar(lib, x, y), argnums=(0, 1))(lib.tensor(X),
                                                                                                 lib.tensor(Y)),
    "grad_aux": lambda lib: lib.func.grad(lambda x: (f_scalar(lib, x, x), x.cos()), has_aux=True)(lib.tensor(X)),
    "grad_and_value": lambda lib: lib.func.grad_and_value(lambda x: f_scalar(lib, x, x))(lib.tensor(X)),
    "grad_dict": lambda lib: lib.func.grad(lambda d: (d["a"] * d["b"]).exp().sum())(
        {"a": lib.tensor(X), "b": lib.tensor(Y)}),
    "grad_of_grad": lambda lib: lib.func.grad(lambda x: lib.func.grad(lambda y: (y.sin() * y).sum() * 1.0)(x).sum())(
        lib.tensor(X)),
    "grad_closure": lambda lib: lib.func.grad(lambda x: lib.func.grad(lambda y: (x * y).sum() ** 2)(x).sum())(
        lib.tensor(X)),
    "jvp": lambda lib: lib.func.jvp(lambda x: lib.tanh(lib.tensor(W) @ x), (lib.tensor(X),), (lib.tensor(Y),)),
    "jvp_aux": lambda lib: lib.func.jvp(lambda x: (x.exp(), x.sum()), (lib.tensor(X),), (lib.tensor(Y),),
                                        has_aux=True),
    "jacrev": lambda lib: lib.func.jacrev(lambda x: lib.tanh(lib.tensor(W) @ x))(lib.tensor(X)),
    "jacrev_argnums_dict_out": lambda lib: lib.func.jacrev(lambda x, y: {"p": x * y, "q": (x @ y).reshape(1)},
                                                           argnums=(0, 1))(lib.tensor(X), lib.tensor(Y)),
    "jacfwd": lambda lib: lib.func.jacfwd(lambda x: lib.tanh(lib.tensor(W) @ x))(lib.tensor(X)),
    "jacfwd_matrix": lambda lib: lib.func.jacfwd(lambda w: (w @ lib.tensor(X)).sin())(lib.tensor(W)),
    "jacrev_of_grad": lambda lib: lib.func.jacrev(lib.func.grad(lambda x: f_scalar(lib, x, x)))(lib.tensor(X)),
    "hessian": lambda lib: lib.func.hessian(lambda x: f_scalar(lib, x, x))(lib.tensor(X)),
    "vmap_dot": lambda lib: lib.func.vmap(lib.dot)(lib.tensor(W), lib.tensor(W[::-1].copy())),
    "vmap_in_dims": lambda lib: lib.func.vmap(lambda a, b: a * b + 1, in_dims=(1, None))(lib.tensor(W),
                                                                                     lib.tensor(Y[:3])),
    "vmap_out_dims": lambda lib: lib.func.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, 1))(lib.tensor(W)),
    "vmap_nested": lambda lib: lib.func.vmap(lib.func.vmap(lambda a, b: a * b))(lib.tensor(W), lib.tensor(W)),
    "vmap_of_grad": lambda lib: lib.func.vmap(lib.func.grad(lambda w: (w.sin() * w).sum()))(lib.tensor(W)),
    "vmap_of_jacrev": lambda lib: lib.func.vmap(lib.func.jacrev(lambda w: w.exp() * w.sum()))(lib.tensor(W)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_transforms_as_torch(name):
    want, got = _both(lambda lib: CASES[name](lib))
    _close(got, want)


def test_vjp_as_torch():
    results = []
    for lib in (torch, tcore):
        out, vjp_fn = lib.func.vjp(lambda x, d: (x * d["s"], (x.exp() * d["s"]).sum()), lib.tensor(X),
                                   {"s": lib.tensor(Y)})
        cotangents = (lib.tensor(W[0]), lib.tensor(2.5))
        results.append((out, vjp_fn(cotangents)))
    _close(results[1], results[0])


def _model(lib):
    lib.manual_seed(0) if lib is torch else None
    return lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2)).double()


def test_per_sample_gradients_as_torch():
    """torch.func's recipe: vmap(grad(loss)) over the samples with functional_call."""
    tm, cm = _model(torch), _model(tcore)
    copy_parameters(tm, cm)
    data, targets = RNG.standard_normal((6, 4)), RNG.integers(0, 2, 6)
    grads = []
    for lib, model in ((torch, tm), (tcore, cm)):
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, x, t, lib=lib, model=model):
            logits = lib.func.functional_call(model, p, (x.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(logits, t.unsqueeze(0))

        grads.append(lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, lib.tensor(data),
                                                                               lib.tensor(targets)))
    _close(grads[1], grads[0])
    for name, p in cm.named_parameters():  # (the module's own parameters are back)
        assert p is dict(cm.named_parameters())[name] and p.grad is None


def test_ensemble_with_stack_module_state_as_torch():
    tms = [torch.nn.Linear(3, 2).double() for _ in range(4)]
    cms = [tcore.nn.Linear(3, 2).double() for _ in range(4)]
    for t, c in zip(tms, cms):
        copy_parameters(t, c)
    x = RNG.standard_normal((5, 3))
    outs = []
    for lib, models in ((torch, tms), (tcore, cms)):
        params, buffers = lib.func.stack_module_state(models)
        assert all(p.requires_grad and p.is_leaf for p in params.values())
        outs.append(lib.func.vmap(lambda p, b, x, lib=lib, base=models[0]: lib.func.functional_call(base, (p, b), (x,)),
                                  in_dims=(0, 0, None))(params, buffers, lib.tensor(x)).detach())
    np.testing.assert_allclose(outs[1].numpy(), outs[0].numpy(), rtol=1e-13)


def test_functional_call_ties_and_strictness():
    m = tcore.nn.Linear(2, 2, bias=False).double()
    shared = tcore.nn.Sequential(m, m)
    w = tcore.tensor(np.eye(2) * 3)
    out = tcore.func.functional_call(shared, {"0.weight": w}, (tcore.ones(1, 2, dtype=tcore.float64),))
    np.testing.assert_allclose(out.numpy(), [[9.0, 9.0]])  # (the tied 1.weight followed)
    assert m.weight is shared[0].weight and not np.allclose(m.weight.detach().numpy(), np.eye(2) * 3)
    with pytest.raises(RuntimeError, match="Missing key"):
        tcore.func.functional_call(tcore.nn.Linear(2, 2), {"weight": tcore.zeros(2, 2)}, (tcore.ones(2),), strict=True)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        tcore.func.functional_call(m, ({"weight": w}, {"weight": w}), (tcore.ones(2),))


def test_vmap_randomness_and_errors_as_torch():
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
            lib.func.vmap(lambda a: a + lib.rand(2))(lib.ones(3, 2))
        same = lib.func.vmap(lambda a: a + lib.rand(2), randomness="same")(lib.zeros(3, 2))
        assert np.allclose(same[0].numpy(), same[1].numpy())
        different = lib.func.vmap(lambda a: a + lib.rand(2), randomness="different")(lib.zeros(3, 2))
        assert not np.allclose(different[0].numpy(), different[1].numpy())
        with pytest.raises(ValueError, match="Expected all tensors to have the same size in the mapped dimension"):
            lib.func.vmap(lib.mul)(lib.ones(2), lib.ones(3))
        with pytest.raises(ValueError, match="so expected in_dim to satisfy"):
            lib.func.vmap(lib.sin, in_dims=2)(lib.ones(2, 2))
        with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
            lib.func.grad(lambda x: x * 2)(lib.ones(2))
        with pytest.raises(RuntimeError, match="Got argnum=2, but only 1 positional inputs"):
            lib.func.grad(lambda x: x.sum(), argnums=2)(lib.ones(2))


def test_jacfwd_randomness_as_torch():
    """(the basis vectors are vmap's samples: "same" gives each the same draws, "different" its own)"""
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
            lib.func.jacfwd(lambda x: x * lib.rand(3))(lib.ones(3))
        with pytest.raises(RuntimeError, match="Only allowed values for randomness are"):
            lib.func.jacfwd(lambda x: x * lib.rand(3), randomness="bad")(lib.ones(3))
        lib.manual_seed(0)
        draw = lib.rand(3)
        lib.manual_seed(0)
        same = lib.func.jacfwd(lambda x: x * lib.rand(3), randomness="same")(lib.ones(3))
        np.testing.assert_array_equal(same.numpy(), np.diag(draw.numpy()))
        lib.manual_seed(0)
        draws = np.stack([lib.rand(3).numpy() for _ in range(3)])  # (torch's rand(3, 3) alike)
        lib.manual_seed(0)
        different = lib.func.jacfwd(lambda x: x * lib.rand(3), randomness="different")(lib.ones(3))
        np.testing.assert_array_equal(different.numpy(), np.diag(np.diag(draws)))


def test_reverse_over_forward_and_results_differentiable_as_torch():
    """grad of a jvp (the tangents carry reverse-mode history), and transforms of inputs that
    require grad give results that stay differentiable, as torch's."""
    results = []
    for lib in (torch, tcore):
        x = lib.tensor(X)
        g = lib.func.grad(lambda x: lib.func.jvp(lambda y: (y ** 3).sum(), (x,), (lib.tensor(Y),))[1])(x)
        xr = lib.tensor(X, requires_grad=True)
        lib.func.grad(lambda x: (x.sin() * x).sum())(xr).sum().backward()
        jac = lib.func.jacrev(lambda w: lib.func.jacfwd(lambda x: (w @ x).tanh())(lib.tensor(X)))(lib.tensor(W))
        results.append((g, xr.grad, jac))
    _close(results[1], results[0])


def test_vmap_structures_and_empty_batches_as_torch():
    for case in (
        lambda lib: lib.func.vmap(lambda d: d["a"] + d["b"].t(), in_dims=({"a": 0, "b": 1},))(
            {"a": lib.tensor(W), "b": lib.tensor(W.T.copy())}),
        lambda lib: lib.func.vmap(lambda x: (x, (x * 2, x + 1)), out_dims=(0, 1))(lib.tensor(W)),
        lambda lib: lib.func.vmap(lambda x: x * 2)(lib.zeros(0, 3, dtype=lib.float64)),
        lambda lib: lib.func.vmap(lambda x: (x.sum(), x * 2), out_dims=(0, 1))(lib.zeros(0, 3, dtype=lib.float64)),
        lambda lib: lib.func.jacfwd(lambda x: x.sum(0))(lib.tensor(W).t()),
    ):
        want, got = _both(case)
        _close(got, want)
    for lib in (torch, tcore):
        with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
            lib.func.vmap(lambda x: x * 2, out_dims=None)(lib.arange(3.0))
        with pytest.raises(ValueError, match="must only return Tensors, got type <class 'float'>"):
            lib.func.vmap(lambda x: 3.0)(lib.ones(2))


def test_functional_call_leaves_parametrized_and_tied_modules_alone_as_torch():
    import copy
    for lib in (torch, tcore):
        m = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(2, 2).double())
        before = {k: v.detach().clone() for k, v in m.state_dict().items()}
        out = lib.func.functional_call(m, {"weight": lib.ones(2, 2, dtype=lib.float64)},
                                       (lib.ones(1, 2, dtype=lib.float64),))
        np.testing.assert_allclose(out.detach().numpy(), 2 + m.bias.detach().numpy()[None], rtol=1e-15)
        for k, v in m.state_dict().items():
            np.testing.assert_array_equal(v.numpy(), before[k].numpy())
        replica = copy.deepcopy(m)
        assert type(replica).__name__ == "ParametrizedLinear"
        np.testing.assert_array_equal(replica.weight.detach().numpy(), m.weight.detach().numpy())
        tied = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
        tied[1].weight = tied[0].weight
        with pytest.raises(ValueError, match="which are tied. Consider using tie_weights=False"):
            lib.func.functional_call(tied, {"0.weight": lib.eye(2), "1.weight": 2 * lib.eye(2)}, (lib.ones(1, 2),))
        frozen = [lib.nn.Linear(2, 2) for _ in range(2)]
        for f in frozen:
            f.weight.requires_grad_(False)
        params, _ = lib.func.stack_module_state(frozen)
        assert not params["weight"].requires_grad and params["bias"].requires_grad
        frozen[1].weight.requires_grad_(True)
        with pytest.raises(RuntimeError, match="Expected weight from each model to have the same .requires_grad"):
            lib.func.stack_module_state(frozen)
