"""Torch idioms: short snippets written exactly as a PyTorch user writes them, run with
`torch` bound to tcore. Each snippet leaves its answer in `out`; the expected answer is
computed in the test by numpy (`expect`), and when torch 2.x is installed the same
snippet also runs on torch and both answers must agree."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

# name: (snippet, numpy expectation of `out` or None when only torch can tell)
SNIPPETS: dict[str, tuple[str, object]] = {}


def idiom(name: str, expect=None):
    def register(code: str):
        SNIPPETS[name] = (textwrap.dedent(code), expect)
    return register


A = np.arange(12, dtype=np.float32).reshape(3, 4)

# ------------------------------------------------------------------ identity of in-place and out= results
idiom("inplace_returns_self", [True, True, True])(
    "x = torch.ones(3); y = torch.empty(3); out = [x.add_(1) is x, torch.exp(x, out=y) is y, x.mul_(2).sub_(1) is x]")
idiom("same_tensor_same_object")(
    "x = torch.ones(3, 4); g = torch.ones(2, requires_grad=True); (g * 2).sum().backward(); "
    "out = [x.contiguous() is x, x.t().contiguous() is x, x.to(torch.float32) is x, x.to(torch.float64) is x, "
    "x.float() is x, x.cpu() is x, x.detach() is x, x.view(3, 4) is x, x.clone() is x, x.type_as(x) is x, "
    "x.requires_grad_(False) is x, "
    "x.fill_(2) is x, x.clamp_(0, 1) is x, x.copy_(torch.zeros(4)) is x, x.relu_() is x, x[...] is x, "
    "g.grad is g.grad, g.grad.zero_() is g.grad, torch.nn.functional.relu(x, inplace=True) is x]")
idiom("parameter_in_place_is_the_parameter")(
    "p = torch.nn.Parameter(torch.ones(2)); q = p.requires_grad_()\n"
    "with torch.no_grad():\n    r = p.add_(1)\n"
    "out = [q is p, type(q).__name__, r is p, type(r).__name__, type(p * 2).__name__, p.data is p]")
idiom("tensor_attributes_and_weak_references")(
    "import weakref, gc\nx = torch.ones(3); x.tag = 'mine'; r = weakref.ref(x)\n"
    "same = x.add_(1).tag\nalive = r() is x\ndel x\ngc.collect()\nout = [same, alive, r() is None]")
# PyTorch's object preservation: the object of a tensor C++ still holds outlives its last Python
# reference (attributes, weak references and id kept) and dies with the tensor
idiom("grad_object_outlives_its_python_references")(
    "import weakref\nx = torch.ones(3, requires_grad=True); (x * 2).sum().backward()\n"
    "g = x.grad; g.tag = 'kept'; i = id(g); r = weakref.ref(g); del g\n"
    "out = [x.grad.tag, id(x.grad) == i, r() is x.grad, (r() + 1).tolist()]\n"
    "x.grad = None\nout.append(r() is None)")
idiom("base_object_outlives_its_python_references")(
    "import weakref\nb = torch.ones(3); b.tag = 1; r = weakref.ref(b); v = b[1:]; del b\n"
    "out = [v._base.tag, r() is v._base, v._base.add_(1).tag]\ndel v\nout.append(r() is None)")
idiom("grad_object_through_optimizer_steps")(
    "w = torch.nn.Parameter(torch.ones(2)); opt = torch.optim.SGD([w], lr=0.1)\nseen = []\n"
    "for step in range(3):\n"
    "    opt.zero_grad(set_to_none=False)\n"
    "    (w * w).sum().backward()\n"
    "    w.grad.step = step\n"
    "    seen.append(w.grad.step)\n"
    "    opt.step()\n"
    "out = [seen, w.grad.step, w.tolist()]")
idiom("grad_accumulates_in_place_and_survives_a_garbage_cycle")(
    "import gc\nclass Box: pass\nx = torch.ones(3, requires_grad=True); (x * 2).sum().backward()\n"
    "x.grad.tag = 'mine'; prev = x.grad\nb = Box(); b.me = b; b.g = x.grad; del b\ngc.collect()\n"
    "(x * 3).sum().backward()\nout = [getattr(x.grad, 'tag', None), prev is x.grad, prev.tolist()]")
idiom("deepcopy_keeps_grad_and_attributes")(
    "import copy\nx = torch.ones(2, requires_grad=True); (x * 2).sum().backward(); x.tag = {'a': [1]}\n"
    "y = copy.deepcopy(x)\nout = [y.grad.tolist(), y.requires_grad, y.is_leaf, y.tag, y.tag['a'] is x.tag['a'], "
    "y.data_ptr() != x.data_ptr()]")
idiom("linalg_special_namespaces")(
    "x = torch.arange(6.).view(2, 3) / 6; "
    "out = [torch.linalg.vector_norm(x, dim=1), torch.linalg.vecdot(x, x), torch.special.logit(x[:, 1:]), "
    "torch.special.expit(x), torch.linalg.matmul(x, x.t())]")
idiom("functional_nn_ops")(
    "x = torch.arange(6.).view(2, 3) - 2; "
    "out = [F.gelu(x), F.silu(x), F.linear(x, torch.ones(4, 3)), F.mse_loss(x, x * 0.5)]")

# ------------------------------------------------------------------ creation and basics
idiom("arange_view", A)("out = torch.arange(12.).view(3, 4)")
idiom("zeros_like_ones", np.ones((2, 3), np.float32))("x = torch.zeros(2, 3); out = torch.ones_like(x)")
idiom("full_int", np.full((2, 2), 7))("out = torch.full((2, 2), 7)")
idiom("tensor_from_list", np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))("out = torch.tensor([[1., 2.], [3., 4.]])")
idiom("linspace", np.linspace(0, 1, 5, dtype=np.float32))("out = torch.linspace(0, 1, 5)")
idiom("eye", np.eye(3, dtype=np.float32))("out = torch.eye(3)")
idiom("dtype_cast", A.astype(np.int64))("out = torch.arange(12.).view(3, 4).long()")
idiom("reshape_minus_one", A.reshape(2, -1))("out = torch.arange(12.).reshape(2, -1)")
idiom("permute_contiguous", A.T.copy())("out = torch.arange(12.).view(3, 4).permute(1, 0).contiguous()")
idiom("unsqueeze_expand", np.broadcast_to(np.arange(3, dtype=np.float32)[:, None], (3, 4)))(
    "out = torch.arange(3.).unsqueeze(1).expand(-1, 4)")
idiom("item", 66.0)("out = torch.arange(12.).sum().item()")
idiom("tolist", [[0, 1], [2, 3]])("out = torch.arange(4).view(2, 2).tolist()")
idiom("numpy_round_trip", A * 2)("out = torch.from_numpy(torch.arange(12.).view(3, 4).numpy() * 2)")
idiom("new_zeros", np.zeros((2, 2), np.float64))("x = torch.ones(3, dtype=torch.float64); out = x.new_zeros(2, 2)")
idiom("view_as", A.reshape(4, 3))("out = torch.arange(12.).view(3, 4).view_as(torch.empty(4, 3))")

# ------------------------------------------------------------------ indexing
idiom("bool_mask_read", A[A > 5])("x = torch.arange(12.).view(3, 4); out = x[x > 5]")
idiom("bool_mask_write", np.where(A > 5, 0, A))("x = torch.arange(12.).view(3, 4); x[x > 5] = 0; out = x")
idiom("index_tensor_rows", A[[2, 0]])("x = torch.arange(12.).view(3, 4); out = x[torch.tensor([2, 0])]")
idiom("index_list_cols", A[:, [1, 3]])("x = torch.arange(12.).view(3, 4); out = x[:, [1, 3]]")
idiom("gather_by_label", A[np.arange(3), [1, 0, 3]])(
    "x = torch.arange(12.).view(3, 4); y = torch.tensor([1, 0, 3]); out = x[torch.arange(3), y]")
idiom("index_add_repeat", np.array([2.0, 1.0, 0.0], np.float32))(
    "x = torch.zeros(3); x.index_put_((torch.tensor([0, 0, 1]),), torch.tensor(1.), accumulate=True); out = x")
idiom("iadd_fancy", np.array([1.0, 1.0, 0.0], np.float32))(
    "x = torch.zeros(3); idx = torch.tensor([0, 0, 1]); x[idx] += 1; out = x")
idiom("ellipsis_none", A[..., None, 1])("out = torch.arange(12.).view(3, 4)[..., None, 1]")
idiom("masked_fill", np.where(A % 2 == 0, -1.0, A))(
    "x = torch.arange(12.).view(3, 4); out = x.masked_fill(x % 2 == 0, -1.0)")
idiom("where_scalar", np.where(A > 3, A, 0.0))("x = torch.arange(12.).view(3, 4); out = torch.where(x > 3, x, 0.0)")
idiom("nonzero", np.argwhere(A % 5 == 0))("x = torch.arange(12.).view(3, 4); out = torch.nonzero(x % 5 == 0)")
idiom("nonzero_as_tuple", np.nonzero(A % 5 == 0)[1])(
    "x = torch.arange(12.).view(3, 4); rows, cols = (x % 5 == 0).nonzero(as_tuple=True); out = cols")
idiom("masked_select", A[A > 8])("x = torch.arange(12.).view(3, 4); out = torch.masked_select(x, x > 8)")
idiom("gather_dim1", np.take_along_axis(A, np.array([[0], [2], [3]]), 1))(
    "x = torch.arange(12.).view(3, 4); out = x.gather(1, torch.tensor([[0], [2], [3]]))")

# ------------------------------------------------------------------ math and reductions
idiom("max_dim_values", A.max(1))("out = torch.arange(12.).view(3, 4).max(dim=1).values")
idiom("max_dim_unpack", A.argmax(1))("values, indices = torch.arange(12.).view(3, 4).max(1); out = indices")
idiom("max_two_tensors", np.maximum(A, 5))("x = torch.arange(12.).view(3, 4); out = torch.max(x, torch.full_like(x, 5))")
idiom("min_two_tensors", np.minimum(A, A[::-1]))(
    "x = torch.arange(12.).view(3, 4); out = torch.min(x, x.flip(0))")
idiom("clamp_scalars", np.clip(A, 2, 9))("out = torch.arange(12.).view(3, 4).clamp(2, 9)")
idiom("clamp_tensor_min", np.maximum(A, np.arange(4, dtype=np.float32)))(
    "x = torch.arange(12.).view(3, 4); out = torch.clamp(x, min=torch.arange(4.))")
idiom("mean_keepdim", A.mean(1, keepdims=True))("out = torch.arange(12.).view(3, 4).mean(dim=1, keepdim=True)")
idiom("std_unbiased", A.std(0, ddof=1))("out = torch.arange(12.).view(3, 4).std(0)")
idiom("softmax_rows", np.exp(A) / np.exp(A).sum(1, keepdims=True))(
    "out = torch.softmax(torch.arange(12.).view(3, 4), dim=1)")
idiom("matmul_at", A @ A.T)("x = torch.arange(12.).view(3, 4); out = x @ x.T")
idiom("einsum_bmm", np.einsum("bij,bjk->bik", A.reshape(1, 3, 4), A.T.reshape(1, 4, 3)))(
    "x = torch.arange(12.).view(1, 3, 4); out = torch.einsum('bij,bjk->bik', x, x.transpose(1, 2))")
idiom("einsum_trace", np.float32(np.trace(A[:, :3])))("out = torch.einsum('ii', torch.arange(12.).view(3, 4)[:, :3])")
idiom("cumsum", np.cumsum(A, 1))("out = torch.arange(12.).view(3, 4).cumsum(dim=1)")
idiom("cummax", np.maximum.accumulate(np.array([1, 3, 2, 5, 4], np.float32)))(
    "out = torch.cummax(torch.tensor([1., 3., 2., 5., 4.]), dim=0).values")
idiom("allclose", True)("out = torch.allclose(torch.ones(3), torch.ones(3) + 1e-7)")
idiom("isclose", np.array([True, False]))("out = torch.isclose(torch.tensor([1., 2.]), torch.tensor([1., 2.1]))")
idiom("equal", True)("out = torch.equal(torch.arange(3), torch.tensor([0, 1, 2]))")

# ------------------------------------------------------------------ sorting and selection
V = np.array([3.0, 1.0, 4.0, 1.5, 9.0, 2.0], np.float32)
idiom("sort_desc", np.sort(V)[::-1].copy())("out = torch.sort(torch.tensor([3., 1., 4., 1.5, 9., 2.]), descending=True).values")
idiom("argsort", np.argsort(V, kind="stable"))("out = torch.tensor([3., 1., 4., 1.5, 9., 2.]).argsort()")
idiom("topk_indices", np.array([4, 2]))("out = torch.tensor([3., 1., 4., 1.5, 9., 2.]).topk(2).indices")
idiom("kthvalue", np.float32(2.0))("out = torch.tensor([3., 1., 4., 1.5, 9., 2.]).kthvalue(3).values")
idiom("median", np.float32(2.0))("out = torch.tensor([3., 1., 4., 1.5, 9., 2.]).median()")
idiom("unique_counts", np.unique(np.array([2, 1, 2, 3, 1, 2]), return_counts=True)[1])(
    "vals, counts = torch.unique(torch.tensor([2, 1, 2, 3, 1, 2]), return_counts=True); out = counts")
idiom("argmax_keepdim", A.argmax(1)[:, None])("out = torch.arange(12.).view(3, 4).argmax(dim=1, keepdim=True)")

# ------------------------------------------------------------------ shapes
idiom("cat_dim1", np.concatenate([A, A], 1))("x = torch.arange(12.).view(3, 4); out = torch.cat([x, x], dim=1)")
idiom("stack", np.stack([A, A]))("x = torch.arange(12.).view(3, 4); out = torch.stack((x, x))")
idiom("repeat", np.tile(A, (2, 1)))("out = torch.arange(12.).view(3, 4).repeat(2, 1)")
idiom("repeat_interleave", np.repeat(np.arange(3), 2))("out = torch.arange(3).repeat_interleave(2)")
idiom("unbind_len", 3)("out = len(torch.arange(12.).view(3, 4).unbind(0))")
idiom("chunk_last", A[:, 2:])("out = torch.arange(12.).view(3, 4).chunk(2, dim=1)[-1]")
idiom("flip", A[:, ::-1].copy())("out = torch.arange(12.).view(3, 4).flip(1)")
idiom("roll", np.roll(A, 1, 1))("out = torch.arange(12.).view(3, 4).roll(1, dims=1)")
idiom("tril", np.tril(A))("out = torch.tril(torch.arange(12.).view(3, 4))")
idiom("triu_mask", np.triu(np.ones((3, 3), bool), 1))("out = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)")
idiom("flatten_start", A.reshape(3, 4))("out = torch.arange(12.).view(3, 2, 2).flatten(1)")
idiom("squeeze", A)("out = torch.arange(12.).view(1, 3, 1, 4).squeeze()")
idiom("squeeze_dims", A.reshape(3, 1, 4))("out = torch.arange(12.).view(1, 3, 1, 4).squeeze((0, 3))")

# ------------------------------------------------------------------ random with seeds
idiom("manual_seed_repeat", True)(
    "torch.manual_seed(0); a = torch.randn(5); torch.manual_seed(0); b = torch.randn(5); out = torch.equal(a, b)")
idiom("randperm_sorted", np.arange(10))("out = torch.randperm(10).sort().values")
idiom("generator_randperm", True)(
    "g = torch.Generator().manual_seed(1); a = torch.randperm(8, generator=g)\n"
    "g = torch.Generator().manual_seed(1); out = torch.equal(a, torch.randperm(8, generator=g))")
idiom("multinomial_support", True)(
    "torch.manual_seed(0); s = torch.multinomial(torch.tensor([0., 1., 0., 1.]), 2); out = sorted(s.tolist()) == [1, 3]")

# ------------------------------------------------------------------ autograd
idiom("backward_grad", np.array([2.0, 4.0, 6.0], np.float32))(
    "x = torch.tensor([1., 2., 3.], requires_grad=True); (x ** 2).sum().backward(); out = x.grad")
idiom("no_grad_flag", False)("x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n    y = x * 2\nout = y.requires_grad")
idiom("detach_numpy", np.ones(2, np.float32) * 3)(
    "x = torch.ones(2, requires_grad=True); out = (x * 3).detach().numpy()")
idiom("autograd_grad", np.array([3.0, 3.0], np.float32))(
    "x = torch.ones(2, requires_grad=True); (g,) = torch.autograd.grad((x * 3).sum(), x); out = g")
idiom("fancy_index_grad", np.array([2.0, 0.0, 1.0], np.float32))(
    "x = torch.zeros(3, requires_grad=True); x[torch.tensor([0, 0, 2])].sum().backward(); out = x.grad")
idiom("sort_grad", np.array([2.0, 0.0, 1.0], np.float32))(
    "x = torch.tensor([3., 1., 2.], requires_grad=True)\n"
    "(torch.sort(x).values * torch.tensor([1., 2., 3.])).sum().backward(); out = x.grad - 1")

# ------------------------------------------------------------------ nn, functional, optim
idiom("linear_shape", (5, 3))("out = tuple(nn.Linear(4, 3)(torch.randn(5, 4)).shape)")
idiom("param_count", 4 * 3 + 3 + 3 * 2 + 2)(
    "model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))\n"
    "out = sum(p.numel() for p in model.parameters() if p.requires_grad)")
idiom("state_dict_keys", ["0.weight", "0.bias", "2.weight", "2.bias"])(
    "out = list(nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).state_dict().keys())")
idiom("cross_entropy_sum", None)(
    "logits = torch.tensor([[1., 2., 0.], [0., 0., 3.]]); y = torch.tensor([1, 2])\n"
    "out = F.cross_entropy(logits, y, reduction='sum')")
idiom("nll_none", None)(
    "logp = F.log_softmax(torch.tensor([[1., 2., 0.], [0., 0., 3.]]), dim=1)\n"
    "out = F.nll_loss(logp, torch.tensor([0, 2]), reduction='none')")
idiom("mse_module", np.float32(((A - 1) ** 2).mean()))("out = nn.MSELoss()(torch.arange(12.).view(3, 4), torch.ones(3, 4))")
idiom("eval_mode_dropout", True)(
    "m = nn.Sequential(nn.Dropout(0.5)); m.eval(); x = torch.ones(4)\nout = torch.equal(m(x), x)")
idiom("conv_pool_shape", (2, 8, 7, 7))(
    "net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))\n"
    "out = tuple(net(torch.randn(2, 1, 14, 14)).shape)")
idiom("batchnorm_running", None)(
    "torch.manual_seed(0); bn = nn.BatchNorm1d(3); x = torch.arange(12.).view(4, 3)\nbn(x); out = bn.running_mean")
idiom("sgd_step", np.array([0.8], np.float32))(
    "w = torch.tensor([1.], requires_grad=True); opt = torch.optim.SGD([w], lr=0.1)\n"
    "opt.zero_grad(); (w ** 2).sum().backward(); opt.step(); out = w.detach()")
idiom("adam_step", np.array([0.99], np.float32))(
    "w = torch.tensor([1.], requires_grad=True); opt = torch.optim.Adam([w], lr=0.01)\n"
    "(w * 5).sum().backward(); opt.step(); out = w.detach()")
idiom("steplr", [0.1, 0.1, 0.01])(
    "w = torch.zeros(1, requires_grad=True); opt = torch.optim.SGD([w], lr=0.1)\n"
    "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1); out = []\n"
    "for _ in range(3):\n    out.append(round(opt.param_groups[0]['lr'], 6)); opt.step(); sched.step()")
idiom("dataloader_batches", [4, 4, 2])(
    "from torch.utils.data import DataLoader, TensorDataset\n"
    "ds = TensorDataset(torch.arange(10.).view(10, 1), torch.arange(10))\n"
    "out = [len(y) for x, y in DataLoader(ds, batch_size=4)]")
idiom("dataloader_drop_last", 2)(
    "from torch.utils.data import DataLoader, TensorDataset\n"
    "ds = TensorDataset(torch.arange(10.))\nout = len(DataLoader(ds, batch_size=4, shuffle=True, drop_last=True))")
idiom("init_zeros", np.zeros((3, 2), np.float32))("lin = nn.Linear(2, 3); nn.init.zeros_(lin.weight); out = lin.weight.detach()")
idiom("one_hot", np.eye(3, dtype=np.int64)[[2, 0]])("out = F.one_hot(torch.tensor([2, 0]), num_classes=3)")

# ------------------------------------------------------------------ errors users catch
idiom("shape_error_is_runtime", "RuntimeError")(
    "try:\n    torch.ones(2, 3) @ torch.ones(2, 3)\n    out = 'none'\nexcept RuntimeError:\n    out = 'RuntimeError'")
idiom("view_error_is_runtime", "RuntimeError")(
    "try:\n    torch.ones(2, 3).view(4)\n    out = 'none'\nexcept RuntimeError:\n    out = 'RuntimeError'")
idiom("index_error", "IndexError")(
    "try:\n    torch.ones(3)[torch.tensor([5])]\n    out = 'none'\nexcept IndexError:\n    out = 'IndexError'")
idiom("type_error_argument", "TypeError")(
    "try:\n    torch.add(torch.ones(2), 'one')\n    out = 'none'\nexcept TypeError:\n    out = 'TypeError'")


def _run(lib, code: str):
    namespace = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional}
    exec(compile(code, "<idiom>", "exec"), namespace)
    return namespace["out"]


def _plain(value):
    """A snippet's answer as plain Python/numpy data (tensors of either library included)."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach()
        if str(value.dtype).endswith("bfloat16"):
            value = value.float()
        return np.asarray(value.numpy())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _same(got, expected) -> None:
    if isinstance(expected, tuple):
        expected = list(expected)
    if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
        got_a, exp_a = np.asarray(got), np.asarray(expected)
        assert got_a.shape == exp_a.shape, (got_a.shape, exp_a.shape)
        if exp_a.dtype.kind == "f" or got_a.dtype.kind == "f":
            np.testing.assert_allclose(got_a.astype(np.float64), exp_a.astype(np.float64), rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(got_a, exp_a)
    elif isinstance(expected, float) or isinstance(got, float):
        assert abs(float(got) - float(expected)) < 1e-5
    elif isinstance(expected, list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
    else:
        assert got == expected, (got, expected)


@pytest.fixture(scope="module")
def tc(tcore):
    import tcore.nn  # noqa: F401
    import tcore.optim  # noqa: F401
    import tcore.utils.data  # noqa: F401
    return tcore


@pytest.fixture(scope="module")
def real_torch():
    try:
        import torch
        import torch.nn.functional  # noqa: F401
        import torch.utils.data  # noqa: F401
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def test_there_are_at_least_60_idioms():
    assert len(SNIPPETS) >= 60


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_idiom(tc, real_torch, name, monkeypatch):
    code, expected = SNIPPETS[name]
    import sys
    monkeypatch.setitem(sys.modules, "torch", tc)  # `from torch.utils.data import ...` finds tcore's
    monkeypatch.setitem(sys.modules, "torch.utils", tc.utils)
    monkeypatch.setitem(sys.modules, "torch.utils.data", tc.utils.data)
    got = _plain(_run(tc, code))
    monkeypatch.undo()
    if expected is not None:
        _same(got, expected)
    if real_torch is not None:
        theirs = _plain(_run(real_torch, code))
        if name not in ("batchnorm_running",):
            _same(got, theirs)
        else:
            np.testing.assert_allclose(got, theirs, rtol=1e-5)
    elif expected is None:
        pytest.skip("torch is not installed: this idiom has no numpy expectation")
