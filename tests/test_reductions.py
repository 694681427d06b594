"""sum and mean over dims that are not the last ones (the column path of ReduceOps.cpp: rows
of kept elements added into an accumulator row) against numpy in float64 / int64, and the
same results as the row path gives for the same values transposed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent

CASES = [((4096, 64), 0), ((3, 5, 7), 1), ((3, 5, 7), (0, 1)), ((2, 1), 0), ((5, 3000), 0), ((4, 0, 3), 1),
         ((0, 3), 0), ((2, 3, 4, 5), (1, 2)), ((6, 2049), 0),
         ((3, 0), 0), ((9, 4099), 0), ((17, 3, 5000), 1)]  # no columns; eight rows a pass and a remainder


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape, dim", CASES)
def test_sum_and_mean_over_leading_and_middle_dims(tcore, shape, dim, dtype):
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 10).astype(dtype)
    t = tcore.from_numpy(x)
    wide = np.float64 if x.dtype.kind == "f" else np.int64
    got = t.sum(dim).numpy()
    assert got.dtype == (x.dtype if x.dtype.kind == "f" else np.int64)
    np.testing.assert_allclose(got, x.sum(dim, dtype=wide), rtol=1e-6, atol=1e-3)
    assert tuple(t.sum(dim, keepdim=True).shape) == np.sum(x, dim, keepdims=True).shape
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            want = x.astype(np.float64).mean(dim) if x.size else np.full(got.shape, np.nan)
        np.testing.assert_allclose(t.mean(dim).numpy(), want, rtol=1e-6, atol=1e-6, equal_nan=True)


def test_column_and_row_paths_agree(tcore):
    x = np.random.default_rng(0).standard_normal((300, 40)).astype(np.float32)
    by_columns = tcore.from_numpy(x).sum(0).numpy()
    by_rows = tcore.from_numpy(np.ascontiguousarray(x.T)).sum(1).numpy()
    np.testing.assert_allclose(by_columns, by_rows, rtol=1e-5, atol=1e-5)  # the row path sums in float lanes


def test_nan_and_inf_propagate(tcore):
    x = np.ones((4, 3), dtype=np.float32)
    x[1, 0], x[2, 1] = np.nan, np.inf
    got = tcore.from_numpy(x).sum(0).numpy()
    assert np.isnan(got[0]) and np.isinf(got[1]) and got[2] == 4


def test_scans_and_softmax_into_an_out_with_an_offset(tcore):
    """out= a view that starts inside its storage (buf[1]): the rows are written there, not at the start."""
    tc = tcore
    buf = tc.zeros(3, 4)
    tc.cumsum(tc.arange(4.0), 0, out=buf[1])
    np.testing.assert_array_equal(buf.numpy(), [[0, 0, 0, 0], [0, 1, 3, 6], [0, 0, 0, 0]])
    y = np.array([[1.0, 2.0], [3.0, 5.0]], dtype=np.float32)
    buf = tc.zeros(3, 2, 2)
    tc.softmax(tc.tensor(y), 0, out=buf[2])  # over a non-last dim: rows written back through the view
    want = np.exp(y) / np.exp(y).sum(0, keepdims=True)
    np.testing.assert_allclose(buf[2].numpy(), want, rtol=1e-6)
    np.testing.assert_array_equal(buf[:2].numpy(), np.zeros((2, 2, 2)))
    buf = tc.ones(2, 3)
    tc.cumprod(tc.tensor([[1.0, 2.0], [3.0, 4.0]]), 0, out=buf[:, 1:])
    np.testing.assert_array_equal(buf.numpy(), [[1, 1, 2], [1, 3, 8]])


# argmax/argmin and max/min(dim) at one capability: lengths around the vector widths (4 registers of
# 4, 8 or 16 lanes, the scalar tail), ties, signed zeros, infinities and NaNs (the first NaN wins,
# as in numpy and PyTorch), for every dtype with a vector path and one without; prints the mismatches.
ARG_PROGRAM = r"""
import json, numpy as np, tcore
rng = np.random.default_rng(7)
bad = []
for dt in ("float32", "float64", "int32", "int64", "int16"):
    for n in (1, 2, 15, 16, 31, 32, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4099):
        for kind in ("normal", "ties", "nan", "last_nan", "signed_zeros", "inf", "all_nan", "max_at_end"):
            if dt[0] != "f" and kind in ("nan", "last_nan", "signed_zeros", "inf", "all_nan"):
                continue
            a = (rng.integers(-3, 4, (3, n)) if kind == "ties" else rng.standard_normal((3, n)) * 100).astype(dt)
            if kind == "nan": a[:, rng.integers(0, n, 3)] = np.nan
            if kind == "last_nan": a[0, -1] = np.nan; a[1, n // 2] = np.nan
            if kind == "signed_zeros": a[:] = 0.0; a[:, ::3] = -0.0
            if kind == "inf": a[:, rng.integers(0, n, 2)] = np.inf; a[:, rng.integers(0, n, 2)] = -np.inf
            if kind == "all_nan": a[:] = np.nan
            if kind == "max_at_end": a[:, -1] = np.iinfo(dt).max if dt[0] == "i" else 1e30; a[:, 0] = a[:, -1]
            t = tcore.from_numpy(a)
            got = {"argmax": t.argmax(1).numpy(), "argmin": t.argmin(1).numpy(), "max": t.max(1)[1].numpy(),
                   "min": t.min(1)[1].numpy(), "argmax_all": np.array(t.argmax().item())}
            want = {"argmax": a.argmax(1), "argmin": a.argmin(1), "max": a.argmax(1), "min": a.argmin(1),
                    "argmax_all": np.array(a.argmax())}
            bad += [[dt, n, kind, k] for k in got if not np.array_equal(got[k], want[k])]
print(json.dumps({"capability": tcore.backends.cpu.get_cpu_capability(), "bad": bad}))
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_arg_extremes_at_every_capability(tcore, capability):
    env = {**os.environ, "TCORE_CPU_CAPABILITY": capability}
    r = subprocess.run([sys.executable, "-c", ARG_PROGRAM], capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["bad"] == [], out


def test_float_scans_accumulate_in_double(tcore):
    """cumsum/cumprod of float32 accumulate in double, as torch does on the CPU: each result is the
    exact running sum (product) rounded once (float32 partial sums were 0.07 off after 100k values)."""
    x = (np.random.default_rng(0).standard_normal((9, 100_000)) + 0.1).astype(np.float32)  # 8 rows side by side + 1
    np.testing.assert_array_equal(tcore.from_numpy(x).cumsum(1).numpy(), np.cumsum(x.astype(np.float64), 1).astype(np.float32))
    p = np.random.default_rng(1).uniform(0.99, 1.01, (3, 20_000)).astype(np.float32)
    np.testing.assert_array_equal(tcore.from_numpy(p).cumprod(1).numpy(), np.cumprod(p.astype(np.float64), 1).astype(np.float32))


SCAN_SHAPES = [((4, 5000), 1), ((13, 1000), 1), ((1000, 13), 0), ((3, 17, 9), 1), ((16, 257), 1), ((7,), 0),
               ((2, 3, 4), 2), ((9, 0), 1), ((0, 5), 1), ((), 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.bool_])
@pytest.mark.parametrize("shape, dim", SCAN_SHAPES)
def test_scans_match_torch_bit_for_bit(tcore, shape, dim, dtype):
    """Each row in torch's order (eight rows side by side, a remainder row by row, dims other than the
    last through rows written back): the same bits, the same dtype (integers and bool as int64)."""
    torch = pytest.importorskip("torch")
    a = np.asarray(np.random.default_rng(2).standard_normal(shape) * 3 + 0.5).astype(dtype)
    near_one = np.asarray(1 + (a * 1e-3 if a.dtype.kind == "f" else a % 2)).astype(dtype)
    for op, x in (("cumsum", a), ("cumprod", near_one)):
        want = getattr(torch.from_numpy(x.copy()), op)(dim).numpy()
        got = getattr(tcore.from_numpy(x.copy()), op)(dim).numpy()
        assert got.dtype == want.dtype and np.array_equal(got, want), (op, shape, dim, dtype)


# Inputs that fill memory in another order (transposes, permutes) are reduced in place by the
# order-insensitive reductions, over leading dims by whole rows; sliced ones (gaps) and expanded
# ones (overlap) take the copying path. All against numpy, NaNs included.
LAYOUTS = {
    "transposed": lambda a: a.transpose(1, 0, 2) if a.ndim == 3 else a.T,
    "permuted": lambda a: a.transpose(2, 0, 1) if a.ndim == 3 else a.T,
    "sliced": lambda a: a[..., ::2],
    "expanded": lambda a: np.broadcast_to(a[:1], a.shape),
}


def _tcore_view(tcore, base, layout):
    t = tcore.from_numpy(base)
    if layout == "transposed":
        return t.transpose(0, 1)
    if layout == "permuted":
        return t.permute(2, 0, 1) if base.ndim == 3 else t.t()
    if layout == "sliced":
        return t[..., ::2]
    return t[:1].expand(*base.shape)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(40, 300), (6, 35, 130), (9, 1, 70)])
def test_order_insensitive_reductions_of_strided_inputs(tcore, layout, dtype, shape):
    rng = np.random.default_rng(sum(shape))
    base = (rng.standard_normal(shape) * 50).astype(dtype)
    if base.dtype.kind == "f":
        base.flat[rng.integers(0, base.size, 3)] = np.nan
        base.flat[rng.integers(0, base.size, 3)] = -0.0
    a = np.ascontiguousarray(LAYOUTS[layout](base))
    t = _tcore_view(tcore, base, layout)
    assert tuple(t.shape) == a.shape
    dims = [None] + [d for d in range(a.ndim)] + ([(0, 1), (1, 2), (0, 2)] if a.ndim == 3 else [])
    wide = np.float64 if a.dtype.kind == "f" else np.int64
    for dim in dims:
        kw = {} if dim is None else {"axis": dim}
        for keep in (False, True):
            got_sum = (t.sum() if dim is None else t.sum(dim, keepdim=keep)).numpy()
            want_sum = a.sum(dtype=wide, keepdims=keep, **kw) if dim is not None else a.sum(dtype=wide)
            np.testing.assert_allclose(got_sum, want_sum, rtol=1e-5, atol=1e-3, equal_nan=True)
            got_max = (t.amax() if dim is None else tcore.amax(t, dim, keepdim=keep)).numpy()
            np.testing.assert_array_equal(got_max, a.max(keepdims=keep, **kw) if dim is not None else a.max())
            got_min = (t.amin() if dim is None else tcore.amin(t, dim, keepdim=keep)).numpy()
            np.testing.assert_array_equal(got_min, a.min(keepdims=keep, **kw) if dim is not None else a.min())
        if a.dtype.kind == "f":
            got_mean = (t.mean() if dim is None else t.mean(dim)).numpy()
            np.testing.assert_allclose(got_mean, a.astype(np.float64).mean(**kw), rtol=1e-5, atol=1e-5, equal_nan=True)
        if dim is None or isinstance(dim, int):
            pos = t > 0
            np.testing.assert_array_equal((pos.all() if dim is None else pos.all(dim)).numpy(), (a > 0).all(**kw))
            np.testing.assert_array_equal((pos.any() if dim is None else pos.any(dim)).numpy(), (a > 0).any(**kw))
            np.testing.assert_array_equal((t.all() if dim is None else t.all(dim)).numpy(), a.all(**kw))


def test_column_extremes_keep_nans_and_all_any_empty(tcore):
    x = np.ones((10, 37), dtype=np.float32)
    x[3, 5], x[9, 36], x[0, 0] = np.nan, np.nan, np.inf  # a NaN in a four-row pass, in the remainder, first row
    t = tcore.from_numpy(x)
    np.testing.assert_array_equal(tcore.amax(t, 0).numpy(), x.max(0))
    np.testing.assert_array_equal(tcore.amin(t, 0).numpy(), x.min(0))
    e = tcore.zeros(0, 5, dtype=tcore.bool)
    assert e.all(0).numpy().tolist() == [True] * 5 and e.any(0).numpy().tolist() == [False] * 5


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int16])
def test_prod_of_long_rows(tcore, dtype):
    rng = np.random.default_rng(5)
    x = (rng.uniform(0.98, 1.02, (5, 1027)) if np.dtype(dtype).kind == "f" else rng.integers(-3, 4, (5, 1027))).astype(dtype)
    got = tcore.from_numpy(x).prod(1).numpy()
    want = x.astype(np.float64).prod(1) if x.dtype.kind == "f" else x.astype(np.int64).prod(1)  # integers wrap alike
    if x.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
    else:
        np.testing.assert_array_equal(got, want.astype(got.dtype))
