"""The lazy tensor backend (issue 18, part 3): device "lazy" tensors record IR nodes
(generated/lazy/Lazy_N.cpp) and compute when read. Each program of the table runs eagerly on the
CPU and lazily on copies of the same inputs; outputs and the inputs after the call must agree
(views and in-place writes through them included), and nothing runs before a read. Then the
graph cache (a training loop compiles once), eager fallbacks, errors at record time, autograd
through lazy tensors (an MLP's 50 steps against eager and against torch) and the generator."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

tcore = pytest.importorskip("tcore")
import tcore.nn as nn  # noqa: E402
import tcore.nn.functional as F  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not tcore._C._registered_keys("add.Tensor").count("Lazy"),
                                reason="built without the lazy backend (generate_code --gen-lazy-ts-backend)")


def ar(*shape, dtype=None):
    n = int(np.prod(shape))
    return tcore.tensor((np.arange(n, dtype=np.float64).reshape(shape) * 0.5 - 1.0).tolist(),
                        dtype=dtype or tcore.float32)


def cpu(t):
    return t.to("cpu") if isinstance(t, tcore.Tensor) else t


def _set(x, y):
    x[1] = 7.0
    x[:, 2] = y[:, 0]
    return x + 0


def _chunks(x):
    for c in x.chunk(3):
        c.mul_(2)
    return x * 1


def _view_chain(x):
    v = x.t()[1:3]
    v.add_(10)
    d = x.diagonal()
    d.mul_(-1)
    return x.sum(1), v * 1


def _base_after_view(x):
    v = x[:, 1]
    x.mul_(3)  # the view sees the base's write
    return v + 0


def _out_resize(x, y):
    out = tcore.empty(0, device=x.device)
    tcore.add(x, y, out=out)
    return out * 1


def _sgd_momentum(p, g, buf):
    buf.mul_(0.9).add_(g, alpha=0.1)
    p.add_(buf, alpha=-0.01)
    return p * 1


PROGRAMS = {
    "arith": (lambda x, y: (x * 2 + y / 3 - 1) ** 2, lambda: (ar(3, 4), ar(3, 4) + 5)),
    "broadcast": (lambda x, y: x + y[0], lambda: (ar(3, 4), ar(2, 4))),
    "int_and_float_scalars": (lambda x: (x + 1, x * 2.5, x // 2, x > 3),
                              lambda: (tcore.tensor([[1, 5, 7], [2, 4, 9]]),)),
    "matmul": (lambda x, y: x @ y.t() + x.mm(y.t()).relu(), lambda: (ar(4, 3), ar(5, 3))),
    "reductions": (lambda x: (x.sum(), x.mean(0), x.amax(1), x.argmax(1), x.prod(0), x.cumsum(1)),
                   lambda: (ar(3, 5),)),
    "softmax": (lambda x: (x.softmax(1), F.log_softmax(x, 0), F.gelu(x), tcore.where(x > 0, x, -x)),
                lambda: (ar(4, 6),)),
    "views": (lambda x: (x.t() * 1, x[1:, ::2] + 0, x.view(12)[3:7] * 1, x.unsqueeze(0).expand(2, 3, 4) * 1,
                         x.transpose(0, 1).reshape(-1) * 1),
              lambda: (ar(3, 4),)),
    "setitem": (_set, lambda: (ar(3, 4), ar(3, 2))),
    "chunks_in_place": (_chunks, lambda: (ar(6, 2),)),
    "view_chain": (_view_chain, lambda: (ar(4, 4),)),
    "base_after_view": (_base_after_view, lambda: (ar(3, 3),)),
    "out_resized": (_out_resize, lambda: (ar(2, 3), ar(2, 3))),
    "sgd_momentum": (_sgd_momentum, lambda: (ar(5), ar(5) * 0.5, ar(5) * 0)),
    "fallbacks": (lambda x: (x.sort(1)[0], x.flip(0), x.clamp(-0.5, 1.0), tcore.cat([x, x], 0), x.tril()),
                  lambda: (ar(3, 3),)),
    "in_place_fallback": (lambda x: x.t().masked_fill_(x.t() > 1, 0.0) * 1, lambda: (ar(3, 3),)),
}


def _flat(r):
    return list(r) if isinstance(r, tuple) else [r]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_eager(name):
    fn, make = PROGRAMS[name]
    eager_in = make()
    lazy_in = [t.to("lazy") for t in make()]
    expected = _flat(fn(*eager_in))
    got = _flat(fn(*lazy_in))
    assert all(g.device.type == "lazy" for g in got if isinstance(g, tcore.Tensor))
    for e, g in zip(expected, got):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(cpu(g).numpy(), e.numpy(), rtol=1e-6, atol=1e-6)
    for e, g in zip(eager_in, lazy_in):  # the inputs' mutations too
        np.testing.assert_allclose(cpu(g).numpy(), e.numpy(), rtol=1e-6, atol=1e-6)


def test_nothing_runs_before_a_read():
    tcore.lazy.sync()
    tcore.lazy.reset_metrics()
    x = ar(4, 4).to("lazy")
    y = (x @ x + 1).sum(0)
    m = tcore.lazy.metrics()
    assert m["nodes_executed"] == 0 and m["syncs"] == 0 and m["nodes_recorded"] >= 3
    ir = tcore.lazy.ir(y)
    assert "mm(" in ir and "sum.dim_IntList(" in ir and "float32[4]" in ir
    np.testing.assert_allclose(y.to("cpu").numpy(), (ar(4, 4) @ ar(4, 4) + 1).sum(0).numpy(), rtol=1e-6)
    assert tcore.lazy.metrics()["nodes_executed"] >= 3


def test_reads_item_numpy_float_repr():
    x = ar(2, 3).to("lazy")
    s = x.sum() * 2
    assert s.item() == pytest.approx(float((ar(2, 3).sum() * 2).item()))
    assert float(s) == s.item()
    a = x.numpy()
    a[0, 0] = 100.0  # a copy: the lazy tensor keeps its values
    assert x.to("cpu").numpy()[0, 0] == -1.0
    assert "device='lazy'" in repr(x)
    c = tcore.zeros(2, 3)
    c.copy_(x * 2)  # lazy -> cpu through copy_
    np.testing.assert_allclose(c.numpy(), (ar(2, 3) * 2).numpy())


def test_training_loop_compiles_once():
    x = ar(8, 8).to("lazy")
    w = (ar(8, 8) * 0.01).to("lazy")
    tcore.lazy.sync()
    tcore.lazy.clear_compiled()
    tcore.lazy.reset_metrics()
    for step in range(5):
        w.sub_(0.1 * ((x @ w).tanh() @ x.t()))
        tcore.lazy.sync()
        m = tcore.lazy.metrics()
        assert m["graphs_compiled"] == 1 and m["cache_hits"] == step
    assert m["eager_fallbacks"] == {}
    x16 = ar(16, 16).to("lazy")  # another shape: another graph
    (x16 @ x16).sum().item()
    assert tcore.lazy.metrics()["graphs_compiled"] == 2


def test_buffers_are_reused_in_place():
    x = ar(64, 64).to("lazy")
    tcore.lazy.sync()
    tcore.lazy.reset_metrics()
    y = (x * 2).add_(1).mul_(3)  # the interpreter writes add_ and mul_ into x * 2's buffer
    np.testing.assert_allclose(y.to("cpu").numpy(), ((ar(64, 64) * 2 + 1) * 3).numpy(), rtol=1e-6)
    assert tcore.lazy.metrics()["buffers_reused"] >= 2


def test_eager_fallback_is_counted_and_right():
    tcore.lazy.reset_metrics()
    x = ar(3, 4).to("lazy")
    v, i = x.sort(1, descending=True)
    np.testing.assert_array_equal(i.to("cpu").numpy(), np.argsort(-ar(3, 4).numpy(), axis=1, kind="stable"))
    assert tcore.lazy.metrics()["eager_fallbacks"] == {"sort": 1}


def test_errors_at_record_time():
    x = ar(2, 3).to("lazy")
    with pytest.raises(ValueError) as lazy_err:
        x + ar(4).to("lazy")
    with pytest.raises(ValueError) as cpu_err:
        ar(2, 3) + ar(4)
    assert str(lazy_err.value) == str(cpu_err.value)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least two "
                                           "devices, lazy and cpu"):
        x + ar(2, 3)
    assert (x + tcore.tensor(2.0)).device.type == "lazy"  # a 0-dim CPU tensor is a number
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ar(3).to("lazy").expand(2, 3).add_(1)
    with pytest.raises(NotImplementedError, match="lazy tensor .* has no data here"):
        x.data_ptr()


def test_out_resize_warns_as_eager():
    out = tcore.zeros(5).to("lazy")
    with pytest.warns(UserWarning, match="was resized"):
        tcore.add(ar(2, 3).to("lazy"), 1, out=out)
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out.to("cpu").numpy(), (ar(2, 3) + 1).numpy())


def test_autograd_through_lazy_tensors():
    def f(x, w):
        h = (x @ w).relu()
        h = h * h.t()[0]  # a view in the graph
        return (h.softmax(1) * ar(3, 3).to(x.device)).sum()

    xs, ws = ar(3, 4), ar(4, 3) * 0.3
    grads = []
    for device in ("cpu", "lazy"):
        x = xs.to(device).detach().requires_grad_()
        w = ws.to(device).detach().requires_grad_()
        f(x, w).backward()
        assert x.grad.device.type == device
        grads.append((cpu(x.grad).numpy(), cpu(w.grad).numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-5, atol=1e-6)


def _mlp_losses(device, steps, make_model, make_tensor, opt_cls, momentum, sync=None):
    model = make_model()
    model.to(device)
    opt = opt_cls(model.parameters(), lr=0.05, momentum=momentum)
    rng = np.random.default_rng(0)
    X = make_tensor(rng.standard_normal((64, 16)).astype(np.float32)).to(device)
    Y = make_tensor(rng.standard_normal((64, 4)).astype(np.float32)).to(device)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        opt.step()
        if sync:
            sync()
        losses.append(loss.item())
    return losses


def _weights(seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((32, 16)) * 0.2, rng.standard_normal(32) * 0.1),
            (rng.standard_normal((4, 32)) * 0.2, rng.standard_normal(4) * 0.1)]


def _tcore_mlp():
    layers = [nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)]
    for layer, (w, b) in zip(layers[::2], _weights()):
        layer.weight = nn.Parameter(tcore.tensor(w.astype(np.float32)))
        layer.bias = nn.Parameter(tcore.tensor(b.astype(np.float32)))
    return nn.Sequential(*layers)


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_mlp_50_steps_lazy_equals_eager_and_compiles_once(momentum):
    eager = _mlp_losses("cpu", 50, _tcore_mlp, tcore.tensor, tcore.optim.SGD, momentum)
    tcore.lazy.sync()
    tcore.lazy.clear_compiled()
    tcore.lazy.reset_metrics()
    first = []

    def sync():
        tcore.lazy.sync()
        first.append(tcore.lazy.metrics()["graphs_compiled"])

    lazy = _mlp_losses("lazy", 50, _tcore_mlp, tcore.tensor, tcore.optim.SGD, momentum, sync)
    np.testing.assert_allclose(lazy, eager, rtol=1e-5, atol=1e-6)
    m = tcore.lazy.metrics()
    # with momentum, step 1 makes the buffers (a clone of the gradient) and the later steps update
    # them: a second graph, once; without, every step is the first one's graph
    settled = 1 if momentum else 0
    assert first[0] >= 1 and first[-1] == first[settled], f"a step after the first compiled a graph: {first}"
    assert m["cache_hits"] >= 49 - settled and m["eager_fallbacks"] == {}
    assert eager[-1] < eager[0] * 0.8  # it trains

    torch = pytest.importorskip("torch")

    def torch_mlp():
        layers = [torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)]
        with torch.no_grad():
            for layer, (w, b) in zip(layers[::2], _weights()):
                layer.weight.copy_(torch.tensor(w, dtype=torch.float32))
                layer.bias.copy_(torch.tensor(b, dtype=torch.float32))
        return torch.nn.Sequential(*layers)

    reference = _mlp_losses("cpu", 50, torch_mlp, torch.tensor, torch.optim.SGD, momentum)
    np.testing.assert_allclose(lazy, reference, rtol=1e-4, atol=1e-5)


def test_meta_kernels_of_the_pointwise_additions_match_cpu():
    x = ar(3, 4)
    for fn in (tcore.relu, F.gelu, lambda t: tcore.where(t > 0, t, 1.0),
               lambda t: tcore._C.threshold_backward(t, t, 0.0), lambda t: t ** t,
               lambda t: tcore.cat([t, t[:1], tcore.empty(0, device=t.device)], 0), lambda t: t.clamp(0.0, 1.0),
               lambda t: t.to(tcore.int64).clamp(0.5), lambda t: t.to(tcore.int64).clamp(0, 2),
               lambda t: t.clone().clamp_(max=1.0), lambda t: t.masked_fill(t > 0, 2.0),
               lambda t: t[0].masked_fill((t > 0), 2.0), lambda t: t.clone().masked_fill_(t > 0, tcore.tensor(1.0)),
               lambda t: t.tril(1), lambda t: t.triu(), lambda t: t.clone().tril_(-1), lambda t: t.clone().triu_(2)):
        e = fn(x)
        m = fn(tcore.empty(3, 4, device="meta"))
        assert (m.shape, m.dtype, m.device.type) == (e.shape, e.dtype, "meta")
        lz = fn(x.to("lazy"))
        np.testing.assert_allclose(lz.to("cpu").numpy(), e.numpy())
    for bad in (lambda t: t.clamp(), lambda t: t.masked_fill(t.to(tcore.int64), 1.0), lambda t: t[0].tril(),
                lambda t: tcore.cat([t, t[0]]),
                lambda t: t.to(tcore.int64).clamp_(0.5)):
        with pytest.raises(Exception) as cpu_err:
            bad(x)
        with pytest.raises(type(cpu_err.value)) as meta_err:
            bad(tcore.empty(3, 4, device="meta"))
        assert str(meta_err.value) == str(cpu_err.value)
    with pytest.raises(TypeError, match="relu"):
        tcore.relu(tcore.empty(2, dtype=tcore.bool, device="meta"))


# ------------------------------------------------------------------ the generator

def _generate(tmp_path, *extra):
    from codegen import generate_code
    out = tmp_path / "gen"
    rc = generate_code.main(["--native-functions-path", str(ROOT / "csrc/native/native_functions.yaml"),
                             "--tags-path", str(ROOT / "csrc/native/tags.yaml"), "--install-dir", str(out),
                             "--per-operator-headers", *extra])
    assert rc == 0
    return out


def test_generate_code_gen_lazy_ts_backend(tmp_path):
    plain = _generate(tmp_path / "plain")
    assert not (plain / "lazy").exists()
    out = _generate(tmp_path / "lazy", "--gen-lazy-ts-backend")
    shards = sorted((out / "lazy").glob("Lazy_*.cpp"))
    assert len(shards) >= 5
    text = "\n".join(p.read_text() for p in shards)
    assert "struct mm_node final : lazy::Node" in text  # structured: a node
    assert "struct add__Tensor_node final" in text  # in-place: a node
    assert '// sort.stable: eager fallback' in text  # no Meta function
    assert "struct t_node" not in text  # views alias lazy storages: no kernel
    assert "lazy/Lazy_0.cpp" in (out / "cmake" / "sources.cmake").read_text()


def test_one_schema_edit_regenerates_one_lazy_shard(tmp_path):
    from codegen.load import load_operator_set
    from codegen.plan import Options, make_plan
    import dataclasses

    opset = load_operator_set(str(ROOT / "csrc/native/native_functions.yaml"), str(ROOT / "csrc/native/tags.yaml"))
    before = {u.name: u.digest for u in make_plan(opset, Options(lazy=True)) if u.name.startswith("lazy:")}
    functions = tuple(dataclasses.replace(f, source=f.source + "\n# edited") if str(f.func.name) == "mm" else f
                      for f in opset.functions)
    after = {u.name: u.digest for u in make_plan(dataclasses.replace(opset, functions=functions), Options(lazy=True))
             if u.name.startswith("lazy:")}
    assert len(before) >= 5 and before.keys() == after.keys()
    assert sum(before[k] != after[k] for k in before) == 1
