"""`autogen:` out= overloads (codegen/autogen.py): their schemas are torchgen's for every one of
PyTorch's YAML, and tcore's generated out= kernels behave as PyTorch's out= rules say (the
functional result, resized into out silently when out is empty and with a warning otherwise,
copied with a cast, never differentiable)."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import tcore
from codegen import autogen
from codegen.load import load_operator_set

ROOT = Path(__file__).resolve().parents[1]
OPSET = load_operator_set(str(ROOT / "csrc/native/native_functions.yaml"), str(ROOT / "csrc/native/tags.yaml"))
GENERATED = [f for f in OPSET.functions if autogen.is_generated(f)]

try:
    import torch
except ImportError:  # pragma: no cover - torch is a test requirement
    torch = None


def test_pytorch_autogen_schemas_are_torchgens(pytorch_dir):
    """Every out= overload and functional form of a mutating entry (41) torchgen generates from
    PyTorch's YAML, tcore generates with the same schema; the only others are PyTorch's non-core CompositeImplicitAutograd entries, whose out=
    overloads torchgen skips (they decompose) and tcore generates all the same."""
    gen = pytest.importorskip("torchgen.gen")
    model = pytest.importorskip("torchgen.model")
    parsed = gen.parse_native_yaml(str(pytorch_dir / "native_functions.yaml"), str(pytorch_dir / "tags.yaml"))
    theirs = {str(f.func.name): str(f.func) for f in parsed.native_functions
              if "generated" in f.tags and f.func.kind() in (model.SchemaKind.out, model.SchemaKind.functional)}
    opset = load_operator_set(str(pytorch_dir / "native_functions.yaml"), str(pytorch_dir / "tags.yaml"))
    ours = {str(f.func.name): f for f in opset.functions if autogen.is_generated(f)}
    assert len(theirs) > 400
    assert {n: str(ours[n].func) for n in theirs if n in ours} == theirs
    for name in set(ours) - set(theirs):
        src = ours[name].autogen_from
        entry = next(f for f in opset.functions if f.func == src)
        assert entry.is_composite_implicit and "core" not in entry.tags, name


def test_tcore_operators_have_their_out_overloads():
    names = {str(f.func.name) for f in GENERATED}
    assert {"relu.out", "logsumexp.out", "clone.out", "prod.out", "sum.out", "_foreach_add.List_out"} <= names
    for f in GENERATED:
        assert f.autogen_from is not None and f.dispatch == (("CompositeExplicitAutograd", "<autogen>"),)
        assert f.func.is_out_fn or str(f.func.name) == "zero"  # zero_'s functional form


def test_every_out_overload_pytorch_has_for_a_tcore_operator(pytorch_dir):
    """For each of PyTorch's groups (functional, in-place, out=) whose functional operator tcore has
    with PyTorch's schema, tcore has the out= overload too, with PyTorch's schema."""
    gen = pytest.importorskip("torchgen.gen")
    model = pytest.importorskip("torchgen.model")
    parsed = gen.parse_native_yaml(str(pytorch_dir / "native_functions.yaml"), str(pytorch_dir / "tags.yaml"))
    ours = {str(f.func.name): str(f.func) for f in OPSET.functions}
    checked, missing = 0, []
    for g in gen.get_grouped_native_functions(parsed.native_functions):
        if not isinstance(g, model.NativeFunctionsGroup) or g.out is None:
            continue
        functional = g.functional.func
        if ours.get(str(functional.name)) != str(functional):
            continue  # not in tcore, or tcore's own operator under that name (_fused_adam)
        checked += 1
        if ours.get(str(g.out.func.name)) != str(g.out.func):
            missing.append(str(g.out.func))
    assert checked > 200 and not missing, missing


def test_functional_form_of_a_mutating_operator():
    """zero_'s autogen: zero (a clone zeroed, the input untouched) and zero.out, as PyTorch's."""
    x = tcore.tensor(X.copy())
    z = tcore.zero(x)
    assert z.tolist() == [[0.0] * 3] * 2 and x.tolist() == X.tolist() and z._storage_ptr() != x._storage_ptr()
    out = tcore.empty(0)
    assert tcore.zero(x, out=out) is out and out.tolist() == [[0.0] * 3] * 2 and x.tolist() == X.tolist()
    assert str(OPSET.lookup()["zero"].func) == "zero(Tensor self) -> Tensor"


def test_functional_form_errors_name_the_expected_name(tmp_path):
    from codegen.errors import SourceError
    from codegen.load import load_native_functions

    yaml = tmp_path / "native_functions.yaml"
    yaml.write_text("- func: rrelu_with_noise(Tensor self, Tensor(b!) noise, bool training=False) -> Tensor\n"
                    "  autogen: rrelu_with_noise.functional\n")
    with pytest.raises(SourceError, match="rrelu_with_noise_functional"):
        load_native_functions(str(yaml))


X = np.array([[1.5, -2.0, 3.0], [0.25, 5.0, -1.0]], np.float32)

# (label, fn(module, x, out)): operators whose out= overload is generated in tcore; compared with
# torch where torch's Python API takes out= (its out= there is a kernel of its own or a generated one)
CASES = [
    ("cumsum", lambda m, x, out: m.cumsum(x, 1, out=out)),
    ("cumprod", lambda m, x, out: m.cumprod(x, 0, out=out)),
    ("clone", lambda m, x, out: m.clone(x, out=out)),
    ("sum-all", lambda m, x, out: m.sum(x, out=out)),
    ("prod-dim", lambda m, x, out: m.prod(x, 1, out=out)),
    ("logsumexp", lambda m, x, out: m.logsumexp(x, [1], out=out)),
    ("softmax", lambda m, x, out: m.softmax(x, 1, out=out)),
    ("bmm", lambda m, x, out: m.bmm(x.reshape(1, 2, 3), x.reshape(1, 3, 2), out=out)),
    ("matmul", lambda m, x, out: m.matmul(x, x.t(), out=out)),
    ("outer", lambda m, x, out: m.outer(x[0], x[1], out=out)),
    ("add-scalar", lambda m, x, out: m.add(x, 2, out=out)),
    ("gt-scalar", lambda m, x, out: m.gt(x, 1.0, out=out)),
    ("isnan", lambda m, x, out: m.isnan(x, out=out)),
    ("flip", lambda m, x, out: m.flip(x, [0], out=out)),
    ("roll", lambda m, x, out: m.roll(x, 1, 1, out=out)),
    ("masked_select", lambda m, x, out: m.masked_select(x, x > 0, out=out)),
    ("nonzero", lambda m, x, out: m.nonzero(x > 0, out=out)),
    ("var", lambda m, x, out: m.var(x, [1], out=out)),
    ("tril", lambda m, x, out: m.tril(x, -1, out=out)),
    ("triu", lambda m, x, out: m.triu(x, out=out)),
    ("arange", lambda m, x, out: m.arange(5, out=out)),
    ("arange-start-step", lambda m, x, out: m.arange(1, 10, 3, out=out)),
    ("eye", lambda m, x, out: m.eye(3, out=out)),
    ("eye-m", lambda m, x, out: m.eye(2, 4, out=out)),
    ("linspace", lambda m, x, out: m.linspace(0, 1, 5, out=out)),
    ("rand", lambda m, x, out: (m.manual_seed(3), m.rand(2, 3, out=out))[1]),
    ("randn", lambda m, x, out: (m.manual_seed(3), m.randn([4], out=out))[1]),
    ("randint", lambda m, x, out: (m.manual_seed(3), m.randint(2, 7, (5,), out=out))[1]),
    ("randperm", lambda m, x, out: (m.manual_seed(3), m.randperm(6, out=out))[1]),
    ("special.expit", lambda m, x, out: m.special.expit(x, out=out)),
    ("linalg.vector_norm", lambda m, x, out: m.linalg.vector_norm(x, 1, [0], out=out)),
]


RANDOM = {"rand", "randn", "randint", "randperm"}


def _result(m, fn, out_dtype):
    x = m.tensor(X.copy())
    out = m.empty(0, dtype=out_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out is resized silently
        r = fn(m, x, out)
    return r, out


@pytest.mark.parametrize("label,fn", CASES, ids=[c[0] for c in CASES])
def test_generated_out_matches_functional(label, fn):
    functional = fn(tcore, tcore.tensor(X.copy()), None)
    r, out = _result(tcore, fn, functional.dtype)  # of the functional result's dtype: an exact copy
    assert r._storage_ptr() == out._storage_ptr()
    assert tuple(out.shape) == tuple(functional.shape)
    np.testing.assert_array_equal(out.numpy(), functional.numpy())
    if torch is not None:
        try:
            want, tout = _result(torch, fn, getattr(torch, str(out.dtype).split(".")[-1]))
        except TypeError:  # torch's Python API has no out= for it (a generated overload there)
            return
        assert tuple(out.shape) == tuple(tout.shape), label
        if label in RANDOM:  # another generator: the same shape and dtype, other numbers
            assert str(out.dtype).split(".")[-1] == str(tout.dtype).split(".")[-1]
            return
        np.testing.assert_allclose(out.numpy().astype(np.float64), tout.numpy().astype(np.float64), rtol=1e-5,
                                   atol=1e-6)


def test_out_resize_warns_and_refuses_another_dtype():
    x = tcore.tensor(X.copy())
    out = tcore.empty(2)
    with pytest.warns(UserWarning, match="clone.out: An output with one or more elements was resized"):
        tcore.clone(x, out=out)
    np.testing.assert_allclose(out.numpy(), X, rtol=1e-6)
    same = tcore.empty(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tcore.clone(x, out=same)  # the right shape: no resize, no warning
    ints = tcore.empty(0, dtype=tcore.int64)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float32, but got int64 instead"):
        tcore.clone(x, out=ints)  # as torch's generated out= kernels (copy_arg)


def test_out_may_alias_the_input():
    x = tcore.tensor(X.copy())
    tcore.cumsum(x, 1, out=x)
    np.testing.assert_allclose(x.numpy(), np.cumsum(X, 1), rtol=1e-6)
    y = tcore.tensor(X.copy())
    tcore.flip(y, [1], out=y)
    np.testing.assert_array_equal(y.numpy(), X[:, ::-1])


def test_out_is_not_differentiable():
    x = tcore.tensor(X.copy(), requires_grad=True)
    with pytest.raises(RuntimeError, match="out=.* don't support automatic differentiation"):
        tcore.cumsum(x, 1, out=tcore.empty(0))
    with tcore.no_grad():
        o = tcore.empty(0)
        tcore.cumsum(x, 1, out=o)
    assert not o.requires_grad


def test_foreach_out_overloads_fill_each_out():
    xs = [tcore.tensor(X.copy()), tcore.ones(3)]
    ys = [tcore.full([2, 3], 2.0), tcore.full([3], 3.0)]
    outs = [tcore.empty(0), tcore.empty(0)]
    tcore._foreach_add(xs, ys, out=outs)
    np.testing.assert_allclose(outs[0].numpy(), X + 2)
    np.testing.assert_allclose(outs[1].numpy(), [4, 4, 4])
    with pytest.raises(ValueError, match="expected 2 out= tensors, got 1"):
        tcore._foreach_add(xs, ys, out=[tcore.empty(0)])


def test_generated_out_overloads_functionalize():
    """Under tcore.func.functionalize a generated out= call is its entry's functional call, its
    result committed to the out (a factory's dtype and device taken from the out)."""
    from tcore import func

    def program(x):
        z = tcore.empty(0, dtype=tcore.float64)
        tcore.zeros_like(x, out=z)
        outs = [tcore.empty(0), tcore.empty(0)]
        tcore._foreach_add([x, x], [x, x], out=outs)
        tcore.cumsum(x, 1, out=x)
        return z + outs[1]

    eager_x = tcore.tensor(X.copy())
    eager = program(eager_x)
    f_x = tcore.tensor(X.copy())
    got = func.functionalize(program)(f_x)
    np.testing.assert_allclose(got.numpy(), eager.numpy())
    assert got.dtype == tcore.float64
    np.testing.assert_allclose(f_x.numpy(), eager_x.numpy())  # the input's mutation is copied back
    graph = str(tcore.jit.trace(func.functionalize(program), (tcore.tensor(X.copy()),)).graph)
    assert "_out" not in graph and ".out" not in graph and "copy_" not in graph, graph


# (label, fn(module, x, out)): the (values, indices) operators' out= overloads, with PyTorch's
# schemas (max.dim_max, sort.values...), given as torch takes them: out=(values, indices)
VALUES_INDICES = [
    ("max.dim_max", lambda m, x, out: m.max(x, 1, out=out)),
    ("min.dim_min", lambda m, x, out: m.min(x, 0, True, out=out)),
    ("sort.values", lambda m, x, out: m.sort(x, 1, True, out=out)),
    ("sort.values_stable", lambda m, x, out: m.sort(x, stable=True, dim=0, out=out)),
    ("topk.values", lambda m, x, out: m.topk(x, 2, out=out)),
    ("kthvalue.values", lambda m, x, out: m.kthvalue(x, 2, 1, out=out)),
    ("median.dim_values", lambda m, x, out: m.median(x, 1, out=out)),
    ("cummax.out", lambda m, x, out: m.cummax(x, 1, out=out)),
    ("cummin.out", lambda m, x, out: m.cummin(x, 0, out=out)),
]


@pytest.mark.parametrize("label,fn", VALUES_INDICES, ids=[c[0] for c in VALUES_INDICES])
def test_values_indices_out_overloads_match_torch(label, fn):
    x = tcore.tensor(X.copy())
    functional = fn(tcore, x, None)
    outs = (tcore.empty(0), tcore.empty(0, dtype=tcore.int64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # empty outs are resized silently
        r = fn(tcore, x, outs)
    assert type(r) is type(functional) and r._fields == ("values", "indices")  # tcore.return_types.NAME
    for got, out, want in zip(r, outs, functional):
        assert got._storage_ptr() == out._storage_ptr()
        np.testing.assert_array_equal(out.numpy(), want.numpy())
    if torch is not None:
        touts = (torch.empty(0), torch.empty(0, dtype=torch.int64))
        fn(torch, torch.tensor(X.copy()), touts)
        for out, tout in zip(outs, touts):
            np.testing.assert_array_equal(out.numpy(), tout.numpy())
    with pytest.raises(TypeError, match="int64"):  # indices must be int64, as torch says
        fn(tcore, x, (tcore.empty(0), tcore.empty(0)))
    with pytest.raises(TypeError):  # one out tensor is not a (values, indices) pair
        fn(tcore, x, tcore.empty(0))
    with pytest.raises(TypeError):  # three outs, or something else, are not a pair either
        fn(tcore, x, (tcore.empty(0), tcore.empty(0, dtype=tcore.int64), tcore.empty(0)))
    with pytest.raises(TypeError):
        fn(tcore, x, (tcore.empty(0), "indices"))


def test_grad_input_overloads_take_torchs_argument_name():
    """gelu_backward.grad_input and threshold_backward.grad_input: PyTorch names their out argument
    grad_input; the functional result lands there with the out= rules (resize, warning)."""
    g, x = tcore.tensor([1.0, 2.0, 3.0]), tcore.tensor([-1.0, 0.5, 2.0])
    gi = tcore.empty(0)
    assert tcore._C._nn.gelu_backward(g, x, grad_input=gi).tolist() == gi.tolist()
    np.testing.assert_allclose(gi.numpy(), tcore._C._nn.gelu_backward(g, x).numpy())
    out = tcore.empty(5)
    with pytest.warns(UserWarning, match="resized"):
        tcore.ops.threshold_backward.grad_input(g, x, 0.0, grad_input=out)
    assert out.tolist() == [0.0, 2.0, 3.0]
    with pytest.raises(TypeError):
        tcore.ops.threshold_backward.grad_input(g, x, 0.0, out=tcore.empty(0))  # not its name
    bad = tcore.empty(5, dtype=tcore.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the dtype is refused before any resize (and its warning), as torch does
        with pytest.raises(RuntimeError, match="can't be cast"):
            tcore.ops.threshold_backward.grad_input(g, x, 0.0, grad_input=bad)
    assert bad.shape == (5,)
    meta = tcore.empty(0, device="meta")  # through the dispatcher's copy_: Meta takes it too
    tcore.ops.threshold_backward.grad_input(g.to("meta"), x.to("meta"), 0.0, grad_input=meta)
    assert meta.shape == (3,) and meta.device.type == "meta"
