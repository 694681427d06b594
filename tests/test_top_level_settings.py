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
