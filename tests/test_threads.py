"""Intra-op threads: tcore.set_num_threads / get_num_threads, and results that do not
depend on the thread count (elementwise, reductions, matmul, softmax, copies) on
tensors large enough to be split, contiguous or not."""
from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def threads(tcore):
    before = tcore.get_num_threads()
    yield
    tcore.set_num_threads(before)


def test_set_and_get(tcore, threads):
    tcore.set_num_threads(3)
    assert tcore.get_num_threads() == 3
    with pytest.raises(ValueError, match="set_num_threads expects a positive integer, got 0"):
        tcore.set_num_threads(0)
    assert isinstance(tcore._C._has_openmp, bool)


def _workload(tcore, arrays):
    a, b, s, m = (tcore.tensor(x) for x in arrays)
    at = a.view(512, 256).transpose(0, 1)  # non-contiguous
    return [
        (a + b).numpy(), tcore.exp(a).numpy(), (at * 2.0).numpy(), at.contiguous().numpy(),
        a.sum().item(), a.mean().item(), s.sum(0).numpy(), s.sum(1).numpy(), tcore.amax(s, [1]).numpy(),
        tcore.softmax(s, 1).numpy(), tcore.log_softmax(s, 0).numpy(), s.cumsum(1).numpy(),
        (m @ m).numpy(), tcore.mm(m[:, :37].contiguous().t().contiguous(), m[:, :200].contiguous()).numpy(),
        tcore.where(a > 0, a, b).numpy(), tcore.zeros(300000).fill_(2.5).sum().item(),
        a.argmax().item(),
    ]


def test_results_do_not_depend_on_the_thread_count(tcore, threads):
    rng = np.random.default_rng(0)
    arrays = (rng.standard_normal(1 << 17).astype(np.float32), rng.standard_normal(1 << 17).astype(np.float32),
              rng.standard_normal((700, 300)), rng.standard_normal((200, 200)).astype(np.float32))
    results = {}
    for n in (1, 2, 3):
        tcore.set_num_threads(n)
        results[n] = _workload(tcore, arrays)
    # float matmul goes to OpenBLAS, whose threads split the work in ways that change the last bits
    # (as torch's MKL does); everything else is the same to the last bit for any thread count
    blas = {12, 13} if tcore.backends.cpu.blas() == "openblas" else set()
    for n in (2, 3):
        for i, (x, y) in enumerate(zip(results[1], results[n])):
            if i in blas:
                np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-4, err_msg=f"result {i} with {n} threads")
            else:
                np.testing.assert_array_equal(x, y, err_msg=f"result {i} with {n} threads")
    np.testing.assert_allclose(results[1][0], arrays[0] + arrays[1])
    np.testing.assert_allclose(results[1][12], arrays[3] @ arrays[3], rtol=1e-4, atol=1e-4)
