"""python_module: entries (native_functions.yaml) bound where torch has them: tcore._C._nn,
_linalg, _special as torch._C's submodules; tcore.linalg and tcore.special without the prefix;
the nn operators only through tcore.nn.functional (no top-level tcore.gelu, as no torch.gelu).
Values, gradients and out= against torch 2.13; the generated bindings and stubs of PyTorch's
own YAML put its 600-odd python_module functions in the same places."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

NN = ("gelu", "silu", "mse_loss", "linear", "nll_loss", "avg_pool2d")


def test_nn_operators_live_where_torch_has_them(tcore):
    for name in NN:
        assert hasattr(tcore, name) == hasattr(torch, name), name  # torch.gelu does not exist
        assert hasattr(tcore._C._nn, name) and hasattr(torch._C._nn, name), name
        assert hasattr(tcore.nn.functional, name), name
    with pytest.raises(AttributeError):
        tcore.gelu  # noqa: B018


def test_every_public_name_is_torchs(tcore):
    import tcore.linalg
    import tcore.special
    from tcore.special import expit

    assert expit is tcore.special.expit
    for module in ("linalg", "special"):
        ours = getattr(tcore, module).__all__
        assert ours and set(ours) <= set(dir(getattr(torch, module))), module
        assert module in tcore._C._python_modules
        for name in ours:  # the binding keeps the prefix, as torch._C._linalg.linalg_matmul
            if name == "LinAlgError":  # torch.linalg.LinAlgError: an exception class, a RuntimeError
                assert issubclass(tcore.linalg.LinAlgError, RuntimeError)
                continue
            assert hasattr(getattr(tcore._C, "_" + module), f"{module}_{name}")


def _pair(tcore, arrays, requires_grad=True):
    ours = [tcore.tensor(a, requires_grad=requires_grad) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=requires_grad) for a in arrays]
    return ours, theirs


RNG = np.random.default_rng(0)
PROB = RNG.uniform(0.05, 0.95, (3, 4))
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((3, 4))
B = RNG.standard_normal((2, 4, 4))

CASES = {
    "special.erf": (lambda m, x: m.special.erf(x), [X]),
    "special.expit": (lambda m, x: m.special.expit(x), [X * 20]),
    "special.exp2": (lambda m, x: m.special.exp2(x), [X]),
    "special.expm1": (lambda m, x: m.special.expm1(x * 1e-6), [X]),
    "special.log1p": (lambda m, x: m.special.log1p(x), [PROB - 0.04]),
    "special.logit": (lambda m, x: m.special.logit(x), [PROB]),
    "special.logit_eps": (lambda m, x: m.special.logit(x, eps=0.2), [PROB]),
    "special.logit_eps_kw": (lambda m, x: m.special.logit(x, 0.3), [PROB]),
    "special.logsumexp": (lambda m, x: m.special.logsumexp(x * 50, [1], keepdim=True), [X]),
    "special.logsumexp_int": (lambda m, x: m.special.logsumexp(x, 0), [X]),
    "special.softmax": (lambda m, x: m.special.softmax(x, 1), [X]),
    "special.softmax_dtype": (lambda m, x: m.special.softmax(x.float(), 0, m.float64), [X]),
    "special.log_softmax": (lambda m, x: m.special.log_softmax(x, -1), [X]),
    "special.log_softmax_dtype": (lambda m, x: m.special.log_softmax(x, 0, dtype=m.float32), [X]),
    "linalg.matmul": (lambda m, a, b: m.linalg.matmul(a, b), [B, B[0]]),
    "linalg.matmul_vec": (lambda m, a, b: m.linalg.matmul(a, b[0]), [B, B[0]]),
    "linalg.vecdot": (lambda m, a, b: m.linalg.vecdot(a, b), [X, Y]),
    "linalg.vecdot_dim": (lambda m, a, b: m.linalg.vecdot(a, b, dim=0), [X, Y]),
    "linalg.vector_norm": (lambda m, x: m.linalg.vector_norm(x), [X]),
    "linalg.vector_norm_ord": (lambda m, x: m.linalg.vector_norm(x, 3, [1], True), [X]),
    "linalg.vector_norm_inf": (lambda m, x: m.linalg.vector_norm(x, float("inf"), dim=0), [X]),
    "linalg.vector_norm_neg_inf": (lambda m, x: m.linalg.vector_norm(x, -float("inf"), dim=1), [X]),
    "linalg.vector_norm_1": (lambda m, x: m.linalg.vector_norm(x, 1, dim=(0, 1)), [X]),
    "linalg.vector_norm_dtype": (lambda m, x: m.linalg.vector_norm(x.float(), dtype=m.float64), [X]),
    "linalg.diagonal": (lambda m, x: m.linalg.diagonal(x) * 2, [B]),
    "linalg.diagonal_offset": (lambda m, x: m.linalg.diagonal(x, offset=1, dim1=0, dim2=2), [B]),
    "nn.gelu": (lambda m, x: m.nn.functional.gelu(x, approximate="tanh"), [X]),
    "nn.silu": (lambda m, x: m.nn.functional.silu(x), [X]),
    "nn.linear": (lambda m, x, w: m.nn.functional.linear(x, w), [X, Y]),
    "nn.mse_loss": (lambda m, x, y: m.nn.functional.mse_loss(x, y, reduction="sum"), [X, Y]),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_gradients_match_torch(tcore, name):
    fn, arrays = CASES[name]
    ours, theirs = _pair(tcore, arrays)
    got, want = fn(tcore, *ours), fn(torch, *theirs)
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-12)
    weights = np.random.default_rng(1).standard_normal(tuple(want.shape))
    (got * tcore.tensor(weights, dtype=got.dtype)).sum().backward()
    (want * torch.tensor(weights, dtype=want.dtype)).sum().backward()
    for a, b in zip(ours, theirs):
        if b.grad is None:
            assert a.grad is None
        else:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m, x, out: m.special.erf(x, out=out),
    lambda m, x, out: m.special.expit(x, out=out),
    lambda m, x, out: m.special.logit(x, 0.25, out=out),
    lambda m, x, out: m.special.logsumexp(x, [0], out=out),
    lambda m, x, out: m.linalg.matmul(x, x.t(), out=out),
    lambda m, x, out: m.linalg.vecdot(x, x, out=out),
    lambda m, x, out: m.linalg.vector_norm(x, 2, [1], out=out),
])
def test_out_overloads(tcore, call):
    ours = tcore.tensor(PROB)
    theirs = torch.tensor(PROB)
    out, out_t = tcore.empty(0, dtype=tcore.float64), torch.empty(0, dtype=torch.float64)
    got = call(tcore, ours, out)
    call(torch, theirs, out_t)
    assert got is out
    np.testing.assert_allclose(out.numpy(), out_t.numpy(), rtol=1e-12)


def test_linalg_diagonal_is_a_view(tcore):
    base = tcore.zeros(2, 3, 3)
    d = tcore.linalg.diagonal(base)
    assert d._is_view() and d._base.data_ptr() == base.data_ptr()
    d.fill_(1.0)
    assert base.sum().item() == 6.0


@pytest.mark.parametrize("call, kind, message", [
    (lambda m: m.linalg.vecdot(m.ones(2), m.ones(2).double()), RuntimeError, "same dtype"),
    (lambda m: m.linalg.vector_norm(m.ones(2, dtype=m.int64)), RuntimeError, "floating point"),
    (lambda m: m.special.logsumexp(m.ones(2), 3), IndexError, "out of range"),
    (lambda m: m.special.erf(m.ones(2), "a"), TypeError, "special_erf()"),
])
def test_errors_as_torch_raises_them(tcore, call, kind, message):
    with pytest.raises(kind):
        call(torch)
    with pytest.raises(kind, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(tcore)


def test_pytorch_yaml_binds_its_python_modules(pytorch_dir):
    """PyTorch's YAML: each python_module function is bound in its submodule and stubbed in
    its module's .pyi by its public name; none is left at the top level."""
    import re

    from codegen.gen_headers import Layout
    from codegen.gen_pyi import render_module, stub_modules
    from codegen.gen_python import bindable, render_bindings
    from codegen.load import load_operator_set

    opset = load_operator_set(str(pytorch_dir / "native_functions.yaml"), str(pytorch_dir / "tags.yaml"))
    functions = opset.functions
    modular = [f for f in functions if f.python_module and "function" in f.variants and bindable(f)]
    assert len(modular) > 500
    assert set(stub_modules(functions)) >= {"linalg", "special", "fft", "sparse", "nested"}
    groups = opset.by_root()
    text = render_bindings(0, 1, groups, Layout(per_operator=True))
    modules = dict(re.findall(r'nb::module_ (py_module_\d+) = python_module\(m, "(\w+)"\);', text))
    assert set(modules.values()) >= {"nn", "linalg", "special", "fft"}
    defs = re.findall(r'^  (\w+)\.def\("(\w+)"', text, re.M)
    where = {}
    for target, name in defs:
        where.setdefault(name, set()).add(modules.get(target, target))
    for name in ("linalg_det", "linalg_vector_norm"):
        assert where[name] == {"linalg"}, name
    assert where["special_erf"] == {"special"} and where["fft_fft"] == {"fft"} and where["gelu"] == {"nn"}
    assert "m" in where["add"] and "cls" in where["add"]
    linalg = render_module("linalg", functions)
    assert "def det(A: Tensor) -> Tensor: ..." in linalg and "def linalg_det" not in linalg
    assert "class linalg_slogdet(NamedTuple)" in linalg or "slogdet" in linalg
