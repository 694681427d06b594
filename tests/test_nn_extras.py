"""nn.init's orthogonal_, dirac_, sparse_; nn.utils.skip_init; Module's get_buffer, extra state,
state_dict hooks, to_empty and share_memory — against torch where torch defines the result."""
from __future__ import annotations

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (6, 2, 3), (4, 4)])
def test_orthogonal_is_orthogonal(shape):
    w = tcore.nn.init.orthogonal_(tcore.empty(*shape, dtype=tcore.float64), gain=1.5)
    a = w.reshape(shape[0], -1).numpy()
    small = a @ a.T if a.shape[0] <= a.shape[1] else a.T @ a
    np.testing.assert_allclose(small, 2.25 * np.eye(min(a.shape)), atol=1e-12)
    for lib in (torch, tcore):
        with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
            lib.nn.init.orthogonal_(lib.empty(3))


@pytest.mark.parametrize("shape,groups", [((4, 2, 3, 3), 2), ((3, 5, 3), 1), ((2, 2, 3, 3, 3), 1), ((6, 3, 5, 5), 3)])
def test_dirac_as_torch(shape, groups):
    want = torch.nn.init.dirac_(torch.empty(shape), groups).numpy()
    got = tcore.nn.init.dirac_(tcore.empty(*shape), groups).numpy()
    np.testing.assert_array_equal(got, want)


def test_dirac_and_sparse_errors_and_counts_as_torch():
    for lib in (torch, tcore):
        with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
            lib.nn.init.dirac_(lib.empty(2, 2))
        with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
            lib.nn.init.dirac_(lib.empty(3, 2, 3), 2)
        with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
            lib.nn.init.sparse_(lib.empty(2, 2, 2), 0.5)
        s = lib.nn.init.sparse_(lib.empty(10, 4), 0.25, std=0.5)
        assert (s == 0).sum(0).tolist() == [3, 3, 3, 3]


def test_skip_init_and_module_extras_as_torch():
    results = []
    for lib in (torch, tcore):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 3, 2)
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
            lib.nn.utils.skip_init(lib.nn.ReLU)

        class Counter(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(2, 2)
                self.register_buffer("steps", lib.zeros(1))
                self.calls = 0

            def get_extra_state(self):
                return {"calls": self.calls}

            def set_extra_state(self, state):
                self.calls = state["calls"]

        outer = lib.nn.Sequential(Counter())
        outer[0].calls = 7
        seen = []
        outer[0].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: seen.append(prefix))
        outer[0].register_state_dict_post_hook(lambda mod, sd, prefix, meta: sd.update({prefix + "note": 1}) and None)
        sd = outer.state_dict()
        fresh = lib.nn.Sequential(Counter())
        keys = fresh.load_state_dict({k: v for k, v in sd.items() if not k.endswith("note")})
        results.append((tuple(m.weight.shape), list(sd), seen, fresh[0].calls, tuple(keys),
                        outer.get_buffer("0.steps").tolist(), outer.share_memory() is outer))
        with pytest.raises(AttributeError, match="is not a buffer"):
            outer.get_buffer("0.lin.weight")
        empty = lib.nn.Linear(2, 2).to_empty(device="cpu")
        assert tuple(empty.weight.shape) == (2, 2) and isinstance(empty.weight, lib.nn.Parameter)
    assert results[1] == results[0]
