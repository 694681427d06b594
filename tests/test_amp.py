"""tcore.amp.GradScaler against torch.amp.GradScaler on the CPU: the same scales, skipped steps
and parameters through a run with an overflowing gradient; torch's errors; autocast disabled is a
no-op (autocast itself: tests/test_autocast.py)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import tcore

torch = pytest.importorskip("torch")

W = np.array([[0.5, -1.0], [2.0, 0.25]])


def _run(lib):
    w = lib.nn.Parameter(lib.tensor(W))
    opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    trace = []
    for step in range(6):
        opt.zero_grad()
        loss = (w * w).sum() * (float("inf") if step == 2 else 1.0)  # (an overflow at step 2: skipped)
        scaler.scale(loss).backward()
        if step == 4:
            scaler.unscale_(opt)  # (clipping between unscale_ and step, as torch's recipe)
            lib.nn.utils.clip_grad_norm_([w], 1.0)
        result = scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), result is None))
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called on this optimizer"):
        scaler.scale((w * w).sum()).backward()
        scaler.unscale_(opt)
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported if GradScaler is enabled."):
        scaler.step(opt, closure=lambda: None)
    with lib.autocast("cpu", enabled=False):
        plain = (w @ w).dtype
    return trace, w.detach().numpy(), scaler.state_dict(), plain


def test_grad_scaler_as_torch():
    (want_trace, want_w, want_state, want_dtype), (got_trace, got_w, got_state, got_dtype) = _run(torch), _run(tcore)
    assert got_trace == want_trace
    np.testing.assert_allclose(got_w, want_w, rtol=1e-13)
    assert got_state == want_state
    assert str(got_dtype).split(".")[-1] == str(want_dtype).split(".")[-1] == "float64"


def test_disabled_scaler_passes_through():
    scaler = tcore.amp.GradScaler("cpu", enabled=False)
    loss = tcore.ones(1, requires_grad=True).sum()
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}


def test_deprecated_cpu_and_cuda_amp_spellings_as_torch():
    for lib in (torch, tcore):
        with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.autocast\(args...\)` is deprecated. Please use "
                                               r"`torch.amp.autocast\('cpu', args...\)` instead."):
            block = lib.cpu.amp.autocast()
        with block:
            assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.bfloat16
        with pytest.warns(FutureWarning, match=r"`torch.cuda.amp.GradScaler\(args...\)` is deprecated"):
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", category=UserWarning)
                lib.cuda.amp.GradScaler(enabled=False)
