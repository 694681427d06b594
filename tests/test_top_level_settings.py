"""torch's process settings and compile, as tcore keeps them: recorded (tcore's float32 matmul is
always full precision, its CPU kernels deterministic), compile returns what it was given."""
from __future__ import annotations

import pytest

import tcore

torch = pytest.importorskip("torch")


def test_settings_and_compile_as_torch():
    for lib in (torch, tcore):
        before = lib.get_float32_matmul_precision()
        try:
            lib.set_float32_matmul_precision("high")
            assert lib.get_float32_matmul_precision() == "high"
            with pytest.warns(UserWarning, match="bad is not one of 'highest', 'high', or 'medium'"):
                lib.set_float32_matmul_precision("bad")
            assert lib.get_float32_matmul_precision() == "high"
        finally:
            lib.set_float32_matmul_precision(before)
        with pytest.raises(TypeError, match="argument 'mode' \\(position 1\\) must be bool, not int"):
            lib.use_deterministic_algorithms(1)
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled() and lib.is_deterministic_algorithms_warn_only_enabled()
        lib.use_deterministic_algorithms(False)
    model = tcore.nn.Linear(2, 2)
    assert tcore.compile(model) is model and tcore.compile(mode="max-autotune")(model) is model

    @tcore.compile
    def double(x):
        return x * 2

    assert double(tcore.ones(2)).tolist() == [2.0, 2.0]


def test_top_level_functional_spellings_and_type_queries_as_torch():
    import numpy as np
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 9)), rng.standard_normal((3, 4, 3))
    cases = [("conv1d", (x, w)), ("conv_transpose1d", (x, w.transpose(1, 0, 2).copy())), ("celu", (x,)),
             ("selu", (x,)), ("hardshrink", (x, 0.3)), ("cosine_similarity", (x, x[::-1].copy())),
             ("pairwise_distance", (x[0], x[1])), ("pixel_shuffle", (x.reshape(2, 4, 3, 3), 2)),
             ("avg_pool1d", (x, 3)), ("rms_norm", (x, [9]))]
    for name, args in cases:
        want = getattr(torch, name)(*[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        got = getattr(tcore, name)(*[tcore.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14, err_msg=name)
    for lib in (torch, tcore):
        pairs = [(lib.ones(2, dtype=lib.int32), 2.5), (lib.ones(2, dtype=lib.int32), lib.ones(1, dtype=lib.float64)),
                 (2, 3.0), (lib.tensor(1.0, dtype=lib.float64), lib.ones(2)), (lib.ones(2, dtype=lib.uint8), -1),
                 (lib.ones(2, dtype=lib.bool), True)]
        got = [str(lib.result_type(a, b)).split(".")[-1] for a, b in pairs]
        assert got == ["float32", "float64", "float32", "float32", "uint8", "bool"]
        assert [lib.can_cast(a, b) for a, b in [(lib.float64, lib.int32), (lib.int32, lib.float32),
                                                 (lib.int64, lib.bool), (lib.bool, lib.uint8)]] == \
            [False, True, False, True]
