"""The lazy modules against torch's: reprs before and after the first forward, the inferred
features and parameter shapes, the module becoming its plain class, outputs equal to the plain
module's with the same parameters, a state_dict loaded before the first forward, uninitialized
parameters' errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402

CASES = [
    ("LazyLinear", (4,), {}, (2, 3)),
    ("LazyLinear", (4,), {"bias": False}, (5, 2, 3)),
    ("LazyConv1d", (6, 3), {"groups": 2}, (2, 4, 9)),
    ("LazyConv2d", (5, 3), {"padding": 1}, (2, 3, 6, 6)),
    ("LazyConv2d", (5, 3), {}, (3, 6, 6)),  # (unbatched)
    ("LazyConv3d", (2, 2), {}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2}, (2, 3, 5)),
    ("LazyConvTranspose2d", (6, 3), {"groups": 3}, (2, 3, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 2, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"momentum": None}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"affine": False}, (2, 2, 3, 3, 3)),
    ("LazyInstanceNorm1d", (), {"affine": True}, (2, 3, 6)),
    ("LazyInstanceNorm2d", (), {"affine": True, "track_running_stats": True}, (2, 3, 4, 4)),
]


@pytest.mark.parametrize("name,args,kw,shape", CASES, ids=lambda v: str(v).replace(" ", ""))
def test_lazy_modules_as_torch(name, args, kw, shape):
    tm, cm = getattr(torch.nn, name)(*args, **kw).double(), getattr(tcore.nn, name)(*args, **kw).double()
    assert repr(cm) == repr(tm)
    assert list(cm.state_dict()) == list(tm.state_dict())
    x = np.random.default_rng(0).standard_normal(shape)
    want, got = tm(torch.tensor(x)), cm(tcore.tensor(x))  # (the first forward: parameters inferred, initialized)
    assert type(cm).__name__ == type(tm).__name__ == name[len("Lazy"):]
    assert repr(cm) == repr(tm)
    for (k, p), (_, q) in zip(cm.named_parameters(), tm.named_parameters()):
        assert tuple(p.shape) == tuple(q.shape) and type(p).__name__ == "Parameter", k
    with tcore.no_grad():  # (torch's values, then the same outputs)
        for k, v in tm.state_dict().items():
            cm.state_dict()[k].copy_(tcore.tensor(v.numpy()))
    tm.eval()
    cm.eval()
    np.testing.assert_allclose(cm(tcore.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(),
                               rtol=1e-12, atol=1e-12)
    assert tuple(got.shape) == tuple(want.shape)


def test_lazy_state_dict_and_errors_as_torch():
    for lib in (torch, tcore):
        m = lib.nn.LazyLinear(4)
        m.load_state_dict({"weight": lib.ones(4, 3), "bias": lib.zeros(4)})  # (before the first forward)
        assert tuple(m.weight.shape) == (4, 3) and m.in_features == 0
        out = m(lib.ones(2, 3))
        assert type(m).__name__ == "Linear" and m.in_features == 3 and out.tolist() == [[3.0] * 4] * 2
        lazy = lib.nn.LazyLinear(2)
        assert lazy.has_uninitialized_params() and repr(lazy.weight) == "<UninitializedParameter>"
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer"):
            lazy.weight.shape
        with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
            lib.nn.LazyConv2d(2, 3)(lib.ones(2, 3))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5))
