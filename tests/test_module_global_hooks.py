"""Global module hooks (tcore.nn.modules.module.register_module_*) against torch, side by side:
the order of the global and per-module hook calls, what the hooks see and what their results
replace, hooks that raise, hooks removed while they run, modules called with kwargs, the full
(and deprecated non-full) backward hooks with their gradients, and the registration hooks on
register_buffer/register_parameter/add_module/assignment. Every test leaves both libraries'
global hooks empty (the fixture clears them, even when a test fails)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import tcore
from tcore.nn.modules import module as tmod

torch = pytest.importorskip("torch")
from torch.nn.modules import module as pmod  # noqa: E402

_GLOBAL_DICTS = ("_global_buffer_registration_hooks", "_global_module_registration_hooks",
                 "_global_parameter_registration_hooks", "_global_backward_pre_hooks", "_global_backward_hooks",
                 "_global_forward_pre_hooks", "_global_forward_hooks", "_global_forward_hooks_always_called",
                 "_global_forward_hooks_with_kwargs")
LIBS = ((torch, pmod), (tcore, tmod))


def _clear_globals() -> None:
    for mod in (pmod, tmod):
        for name in _GLOBAL_DICTS:
            getattr(mod, name).clear()
        mod._global_is_full_backward_hook = None  # (it stays set once set, in both libraries)


@pytest.fixture(autouse=True)
def clean_globals():
    _clear_globals()
    try:
        yield
    finally:
        _clear_globals()


def _v(x):
    """A comparable value: tensors as rounded nested lists, tuples/lists elementwise."""
    if isinstance(x, (torch.Tensor, tcore.Tensor)):
        return ("T", np.round(np.asarray(x.detach().tolist(), dtype=np.float64), 10).tolist())
    if isinstance(x, (tuple, list)):
        return tuple(_v(i) for i in x)
    if isinstance(x, dict):
        return {k: _v(i) for k, i in x.items()}
    return x


W1 = np.linspace(-1, 1, 12).reshape(4, 3)
B1 = np.array([0.1, -0.2, 0.3, 0.05])
W2 = np.linspace(0.5, -0.5, 8).reshape(2, 4)
B2 = np.array([0.2, -0.1])
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def _net(lib):
    class Scale(lib.nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(3, 4, dtype=lib.float64)
            self.act = lib.nn.Tanh()
            self.scale = Scale()
            self.fc2 = lib.nn.Linear(4, 2, dtype=lib.float64)

        def forward(self, x, factor=2.0):
            return self.fc2(self.scale(self.act(self.fc1(x)), factor=factor))

    net = Net()
    with lib.no_grad():
        for p, v in ((net.fc1.weight, W1), (net.fc1.bias, B1), (net.fc2.weight, W2), (net.fc2.bias, B2)):
            p.copy_(lib.tensor(v))
    return net


def _both(run):
    """run(lib, mod) for torch then tcore, with the globals cleared in between."""
    out = []
    for lib, mod in LIBS:
        _clear_globals()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = run(lib, mod)
        messages = [(w.category.__name__, str(w.message)) for w in caught
                    if "padding='same'" not in str(w.message)]
        out.append((result, messages))
    return out


def _same(run):
    (want, want_w), (got, got_w) = _both(run)
    assert got == want
    assert got_w == want_w
    return want, want_w


def test_exported_names_as_torch():
    assert tmod.__all__ == pmod.__all__
    for name in pmod.__all__:
        assert callable(getattr(tmod, name))


def test_forward_hooks_order_values_and_replacement():
    def run(lib, mod):
        net, trace = _net(lib), []
        name = {m: n or "net" for n, m in net.named_modules()}

        def g_pre(m, args):
            trace.append(("g_pre", name[m], _v(args)))
            if name[m] == "act":
                return args[0] * 3  # (a single value: wrapped into a 1-tuple)

        def g_fwd(m, args, out):
            trace.append(("g_fwd", name[m], _v(args), _v(out)))
            if name[m] == "fc1":
                return out + 1

        def g_fwd_kw(m, args, kwargs, out):
            trace.append(("g_fwd_kw", name[m], sorted(kwargs), _v(out)))

        def own_pre(m, args, kwargs):
            trace.append(("own_pre", name[m], _v(args), _v(kwargs)))
            return args, {"factor": kwargs.get("factor", 1.0) + 1}

        handles = [mod.register_module_forward_pre_hook(g_pre), mod.register_module_forward_hook(g_fwd),
                   mod.register_module_forward_hook(g_fwd_kw, with_kwargs=True)]
        net.scale.register_forward_pre_hook(own_pre, with_kwargs=True)
        net.fc1.register_forward_pre_hook(lambda m, a: trace.append(("own_pre", "fc1")))
        net.fc1.register_forward_hook(lambda m, a, o: trace.append(("own_fwd", "fc1", _v(o))) or o * 2)
        net.act.register_forward_hook(lambda m, a, o: trace.append(("own_fwd_first", "act")), prepend=True)
        out = net(lib.tensor(X), factor=0.5)
        for h in handles:
            h.remove()
        out2 = net(lib.tensor(X))  # (the global hooks gone: only the module's own run)
        return trace, _v(out), _v(out2)

    (trace, out, _), _ = _same(run)
    assert [t[:2] for t in trace[:4]] == [("g_pre", "net"), ("g_pre", "fc1"), ("own_pre", "fc1"), ("g_fwd", "fc1")]


def test_pre_hook_kwargs_and_return_forms():
    def run(lib, mod):
        class Two(lib.nn.Module):
            def forward(self, a, b=None, *, c=0.0):
                return a + (0 if b is None else b) + c

        seen = []

        def g_pre(m, args):
            seen.append(("g_pre", len(args), _v(args)))  # (the positional arguments only)
            if len(args) == 1:
                return (args[0] * 10,)  # (a tuple replaces them as is)
            return None

        mod.register_module_forward_pre_hook(g_pre)
        m = Two()
        m.register_forward_pre_hook(lambda mod_, a, k: seen.append(("own_pre", _v(a), _v(k))), with_kwargs=True)
        r1 = m(lib.ones(2), c=1.0)
        r2 = m(lib.ones(2), lib.ones(2), c=2.0)
        r3 = m(a=lib.ones(2))  # (all by keyword: the hooks see args == ())
        return seen, _v(r1), _v(r2), _v(r3)

    _same(run)


def test_always_call_and_raising_hooks():
    def run(lib, mod):
        class Boom(lib.nn.Module):
            def forward(self, x, fail=False):
                if fail:
                    raise ValueError("forward failed")
                return x + 1

        trace, errors = [], []
        m = Boom()
        mod.register_module_forward_hook(lambda m_, a, o: trace.append(("g_always", _v(o))), always_call=True)
        mod.register_module_forward_hook(lambda m_, a, k, o: trace.append(("g_always_kw", _v(k), _v(o))),
                                         with_kwargs=True, always_call=True)
        mod.register_module_forward_hook(lambda m_, a, o: trace.append(("g_plain",)))
        m.register_forward_hook(lambda m_, a, k, o: trace.append(("own_always_kw", _v(k), _v(o))),
                                with_kwargs=True, always_call=True)

        def raising_always(m_, a, o):
            trace.append(("own_raising_always", _v(o)))
            if o is None:  # (only after a failure: its error becomes a warning)
                raise KeyError("hook failed too")

        m.register_forward_hook(raising_always, always_call=True)
        trace.append("-- ok call")
        m(lib.zeros(1))
        trace.append("-- forward raises")
        try:
            m(lib.zeros(1), fail=True)
        except ValueError as e:
            errors.append(str(e))
        trace.append("-- a pre-hook raises")
        h = mod.register_module_forward_pre_hook(lambda m_, a: (_ for _ in ()).throw(RuntimeError("pre failed")))
        try:
            m(lib.zeros(1))
        except RuntimeError as e:
            errors.append(str(e))
        h.remove()
        trace.append("-- a forward hook raises after the global always_call hooks ran")
        m.register_forward_hook(lambda m_, a, o: (_ for _ in ()).throw(TypeError("late")))
        try:
            m(lib.zeros(1))
        except TypeError as e:
            errors.append(str(e))
        return trace, errors

    (trace, errors), messages = _same(run)
    assert errors == ["forward failed", "pre failed", "late"]
    assert any("global module forward hook with ``always_call=True``" in text for _, text in messages)


def test_hooks_removed_or_added_while_running():
    def run(lib, mod):
        net, trace = _net(lib), []
        name = {m: n or "net" for n, m in net.named_modules()}
        handles = {}

        def g_fwd(m, args, out):
            trace.append(("g_fwd", name[m]))
            if name[m] == "act":
                handles["g_fwd"].remove()  # (itself: the rest of this call's hooks still run)
                handles["own"].remove()  # (the module's hook: taken for this call already)
                handles["g_pre"].remove()
                handles["late"] = mod.register_module_forward_hook(lambda m_, a, o: trace.append(("late", name[m_])))

        handles["g_pre"] = mod.register_module_forward_pre_hook(lambda m, a: trace.append(("g_pre", name[m])))
        handles["g_fwd"] = mod.register_module_forward_hook(g_fwd)
        handles["own"] = net.act.register_forward_hook(lambda m, a, o: trace.append(("own", "act")))
        net(lib.tensor(X))
        trace.append("-- second call")
        net(lib.tensor(X))
        handles["late"].remove()
        handles["late"].remove()  # (twice: nothing)
        with mod.register_module_forward_hook(lambda m, a, o: trace.append(("ctx", name[m]))):
            net.act(lib.tensor(X))
        net.act(lib.tensor(X))
        return trace

    _same(run)


def _backward_run(lib, mod, *, with_module_hooks=True):
    net, trace = _net(lib), []
    name = {m: n or "net" for n, m in net.named_modules()}

    def g_bpre(m, grad_output):
        trace.append(("g_bpre", name[m], _v(grad_output)))
        if name[m] == "scale":
            return (grad_output[0] * 2,)

    def g_bhook(m, grad_input, grad_output):
        trace.append(("g_bhook", name[m], _v(grad_input), _v(grad_output)))
        if name[m] == "act":
            return (grad_input[0] * 0.5,)

    mod.register_module_full_backward_pre_hook(g_bpre)
    mod.register_module_full_backward_hook(g_bhook)
    if with_module_hooks:
        net.act.register_full_backward_pre_hook(lambda m, go: trace.append(("own_bpre", "act", _v(go))))
        net.act.register_full_backward_hook(lambda m, gi, go: trace.append(("own_bhook", "act", _v(gi))))
        net.fc2.register_full_backward_hook(lambda m, gi, go: (gi[0] + 1,))
    x = lib.tensor(X, requires_grad=True)
    out = net(x, factor=0.5)
    out.sum().backward()
    return trace, _v(x.grad), _v(net.fc1.weight.grad), _v(net.fc2.weight.grad), _v(out)


def test_global_full_backward_hooks_with_module_hooks():
    (trace, *_), _ = _same(_backward_run)
    order = [t[:2] for t in trace]
    assert order.index(("g_bpre", "act")) < order.index(("own_bpre", "act"))
    assert order.index(("g_bhook", "act")) < order.index(("own_bhook", "act"))


def test_global_full_backward_hooks_inputs_without_grad():
    """Parameters need gradients, the input not: the hooks of the modules whose inputs need none
    fire with the outputs' gradients and Nones (torch's warning too)."""
    def run(lib, mod):
        net, trace = _net(lib), []
        name = {m: n or "net" for n, m in net.named_modules()}
        mod.register_module_full_backward_hook(lambda m, gi, go: trace.append((name[m], _v(gi), _v(go))))
        net(lib.tensor(X)).sum().backward()
        return trace, _v(net.fc1.weight.grad)

    _same(run)


def test_backward_hooks_are_those_of_the_call():
    """(torch's: a hook removed after forward still runs in that backward, one added after it
    does not)"""
    def run(lib, mod):
        trace = []
        m = lib.nn.Linear(3, 2, dtype=lib.float64)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(W1[:2]))
        h = mod.register_module_full_backward_hook(lambda m_, gi, go: trace.append(("early", _v(gi))))
        x = lib.tensor(X, requires_grad=True)
        out = m(x)
        h.remove()
        mod.register_module_full_backward_pre_hook(lambda m_, go: trace.append(("added late",)))
        out.sum().backward()
        out2 = m(x)
        out2.sum().backward()
        return trace

    trace, _ = _same(run)
    assert [t[0] for t in trace] == ["early", "added late"]


def test_backward_hook_kinds_refused_as_torch():
    def run(lib, mod):
        messages = []
        h = mod.register_module_full_backward_hook(lambda *a: None)
        h.remove()
        for register in (mod.register_module_backward_hook,):  # (refused even with the full hook removed)
            try:
                register(lambda *a: None)
            except RuntimeError as e:
                messages.append(str(e))
        _clear_globals()
        mod.register_module_backward_hook(lambda *a: None)
        try:
            mod.register_module_full_backward_hook(lambda *a: None)
        except RuntimeError as e:
            messages.append(str(e))
        m = lib.nn.Linear(2, 2)
        m.register_backward_hook(lambda *a: None)
        m.register_full_backward_pre_hook(lambda *a: None)  # (a pre-hook sits with either kind)
        return messages

    messages, _ = _same(run)
    assert len(messages) == 2


def test_global_non_full_backward_hook_with_module_full_hooks():
    def run(lib, mod):
        class Double(lib.nn.Module):
            def forward(self, x):
                return x * 2

        trace = []
        m = Double()
        mod.register_module_backward_hook(lambda m_, gi, go: trace.append(("g_legacy", type(m_).__name__,
                                                                           len(gi), _v(go))))
        m.register_full_backward_hook(lambda m_, gi, go: trace.append(("own_full", _v(gi), _v(go))))
        x = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        m(x).sum().backward()
        return trace, _v(x.grad)

    _same(run)


def test_global_non_full_backward_hook_alone():
    def run(lib, mod):
        class Mul(lib.nn.Module):
            def forward(self, x, y):
                return x * y

        trace = []
        mod.register_module_backward_hook(lambda m, gi, go: trace.append((_v(gi), _v(go))))
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([3.0, -4.0], dtype=lib.float64, requires_grad=True)
        m = Mul()  # (kept: torch's non-full hooks hold their module weakly)
        m(a * 1, b * 1).sum().backward()
        return trace, _v(a.grad), _v(b.grad)

    _same(run)


def test_hook_stores_edited_directly():
    """The no-hook check reads the stores themselves: an entry put in or taken out of a module's
    hook dict directly (as nn.utils.prune and weight_norm do) counts, as in torch."""
    def run(lib, mod):
        m, trace = lib.nn.Identity(), []
        m._forward_hooks[10 ** 9] = lambda m_, a, o: trace.append("direct") or o * 2
        r1 = m(lib.ones(1))
        del m._forward_hooks[10 ** 9]
        r2 = m(lib.ones(1))
        m._forward_pre_hooks[10 ** 9] = lambda m_, a: (a[0] + 1,)
        r3 = m(lib.ones(1))
        m._forward_pre_hooks.clear()
        return trace, _v(r1), _v(r2), _v(r3), _v(m(lib.ones(1)))

    _same(run)


def test_backward_hook_module_called_with_non_tensor_args():
    def run(lib, mod):
        class Mix(lib.nn.Module):
            def forward(self, x, k, y, scale=1.0):
                return x * k + y * scale, k

        trace = []
        mod.register_module_full_backward_pre_hook(lambda m, go: trace.append(("bpre", _v(go))))
        mod.register_module_full_backward_hook(lambda m, gi, go: trace.append(("bhook", _v(gi), _v(go))))
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([3.0, 4.0], dtype=lib.float64)  # (no gradient: zeros in grad_input)
        out, k = Mix()(x, 3, y, scale=2.0)
        out.sum().backward()
        with lib.no_grad():
            Mix()(x, 3, y)
        return trace, _v(x.grad), k

    _same(run)


def test_backward_hook_warns_on_non_tensor_output():
    def run(lib, mod):
        class Listed(lib.nn.Module):
            def forward(self, x):
                return [x * 2]

        trace = []
        mod.register_module_full_backward_hook(lambda m, gi, go: trace.append("called"))
        x = lib.ones(2, requires_grad=True)
        Listed()(x)[0].sum().backward()
        return trace

    _same(run)


def test_registration_hooks_see_and_replace_values():
    def run(lib, mod):
        trace = []

        def on_param(m, name, p):
            trace.append(("param", type(m).__name__, name, _v(p)))
            if name == "scaled":
                return lib.nn.Parameter(p.detach() * 10)

        def on_buffer(m, name, b):
            trace.append(("buffer", type(m).__name__, name, _v(b)))
            if name == "counter" and b is not None:
                return b + 100

        def on_module(m, name, sub):
            trace.append(("module", type(m).__name__, name, type(sub).__name__))
            if isinstance(sub, lib.nn.ReLU):
                return lib.nn.Tanh()

        mod.register_module_parameter_registration_hook(on_param)
        mod.register_module_buffer_registration_hook(on_buffer)
        mod.register_module_module_registration_hook(on_module)

        class Holder(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.scaled = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))  # (assignment)
                self.register_parameter("plain", lib.nn.Parameter(lib.zeros(1, dtype=lib.float64)))
                self.register_parameter("absent", None)  # (None: no parameter hook)
                self.register_buffer("counter", lib.tensor([1.0], dtype=lib.float64))
                self.register_buffer("temp", lib.tensor([2.0], dtype=lib.float64), persistent=False)
                self.register_buffer("nothing", None)
                self.act = lib.nn.ReLU()  # (replaced by the hook)
                self.add_module("head", lib.nn.Identity())
                self.register_module("none_child", None)

        h = Holder()
        h.counter = lib.tensor([5.0], dtype=lib.float64)  # (assignment to a buffer: register_buffer's hooks)
        h.head = None  # (assignment of None to a submodule: the module hooks too)
        h.absent = None  # (None to a parameter: none)
        h.plain = lib.nn.Parameter(lib.full((1,), 7.0, dtype=lib.float64))
        h.other = 3  # (a plain attribute: no hook)
        state = {k: _v(v) for k, v in h.state_dict().items()}
        return (trace, state, type(h.act).__name__, h.head, sorted(n for n, _ in h.named_buffers()),
                _v(h.scaled), _v(h.counter))

    (trace, *_), _ = _same(run)
    assert ("module", "Holder", "act", "ReLU") in trace


def test_registration_hooks_order_removal_and_errors():
    def run(lib, mod):
        trace, handles = [], []

        def first(m, name, b):
            trace.append(("first", name))
            handles[1].remove()  # (the second still runs for this registration)
            return b * 2

        handles.append(mod.register_module_buffer_registration_hook(first))
        handles.append(mod.register_module_buffer_registration_hook(
            lambda m, name, b: trace.append(("second", name, _v(b)))))
        m = lib.nn.Module()
        outcome = []
        try:
            m.register_buffer("a", lib.ones(1))
            outcome.append(_v(m.a))
        except RuntimeError as e:  # (torch: its hooks' dict changed while it iterated)
            outcome.append(type(e).__name__)
        handles[0].remove()

        def refuse(m_, name, p):
            raise ValueError(f"no parameter {name}")

        mod.register_module_parameter_registration_hook(refuse)
        try:
            m.register_parameter("w", lib.nn.Parameter(lib.ones(1)))
        except ValueError as e:
            outcome.append(str(e))
        outcome.append("w" in dict(m.named_parameters()))
        return trace, outcome

    (want, _), (got, _) = _both(run)
    # torch raises 'OrderedDict mutated during iteration' when a registration hook removes another;
    # tcore's registration hooks run over a copy (the hooks taken when the registration began)
    assert want[1][0] == "RuntimeError"
    assert got == ([("first", "a"), ("second", "a", ("T", [2.0]))], [("T", [2.0]), "no parameter w", False])
    assert want[1][1:] == got[1][1:]


def test_registration_hooks_on_library_modules_and_load_assign():
    def run(lib, mod):
        trace = []
        mod.register_module_parameter_registration_hook(lambda m, n, p: trace.append(
            ("param", type(m).__name__, n, tuple(p.shape))))
        mod.register_module_buffer_registration_hook(lambda m, n, b: trace.append(
            ("buffer", type(m).__name__, n, None if b is None else tuple(b.shape))))
        mod.register_module_module_registration_hook(lambda m, n, s: trace.append(
            ("module", type(m).__name__, n, type(s).__name__)))
        lin = lib.nn.Linear(3, 2, bias=False)
        seq = lib.nn.Sequential(lin, lib.nn.ReLU())
        trace.append("-- load_state_dict(assign=True)")
        seq.load_state_dict({"0.weight": lib.zeros(2, 3)}, assign=True)
        return trace

    _same(run)


def test_hooks_through_containers_and_state():
    """A global forward hook sees every module a container calls, in call order; a module's
    deepcopy keeps working (the fast path needs no extra attribute)."""
    import copy

    def run(lib, mod):
        seq = lib.nn.Sequential(lib.nn.Linear(3, 4, dtype=lib.float64), lib.nn.ReLU(),
                                lib.nn.Sequential(lib.nn.Tanh(), lib.nn.Identity()))
        order = []
        mod.register_module_forward_hook(lambda m, a, o: order.append(type(m).__name__))
        mod.register_module_forward_pre_hook(lambda m, a: order.append("pre " + type(m).__name__))
        seq(lib.tensor(X))
        clone = copy.deepcopy(seq)
        _clear_globals()
        return order, _v(clone(lib.tensor(X))) == _v(seq(lib.tensor(X)))

    _same(run)


def test_container_insert_fires_no_registration_hooks_as_torch():
    """insert renumbers the later entries by writing the container's dict: no hook fires for them
    (nor for the inserted module), as torch's; Sequential.insert checks its index and module."""
    seen = {}
    for lib, mod in ((torch, pmod), (tcore, tmod)):
        calls = []
        mod.register_module_module_registration_hook(lambda m, name, sub: calls.append(name))
        ml = lib.nn.ModuleList([lib.nn.ReLU()])
        ml.append(lib.nn.Tanh()).extend([lib.nn.Identity()])
        ml.insert(0, lib.nn.ReLU())
        seq = lib.nn.Sequential(lib.nn.ReLU())
        seq.insert(1, lib.nn.Tanh())
        seq.insert(-1, lib.nn.Identity())
        with pytest.raises(IndexError, match="Index out of range: 5"):
            seq.insert(5, lib.nn.ReLU())
        with pytest.raises(AssertionError, match="module should be of type"):
            seq.insert(0, 3)
        seen[lib.__name__] = (calls, [type(m).__name__ for m in ml], [type(m).__name__ for m in seq])
    assert seen["tcore"] == seen["torch"]
