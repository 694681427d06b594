"""grid_sample (4-D: bilinear, nearest, bicubic; 5-D: trilinear, nearest) and affine_grid (4-D and
5-D sizes) against torch's CPU kernels (an x86-64 build: its 4-D kernel vectorized with fused
multiply-adds, its 5-D one scalar): values and gradients to input and grid (float64 to 1e-12,
float32 too) for random grids mixed with points exactly on pixel centres, borders, corners and
reflection lines, far outside, NaN and inf; empty outputs; torch's errors and warnings in torch's
order. (Where torch's own kernel reads out of bounds, only its forward pass is compared.)"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402

TF, CF = torch.nn.functional, tcore.nn.functional
MODES_2D = ["bilinear", "nearest", "bicubic"]
MODES_3D = ["bilinear", "nearest"]
PADDINGS = ["zeros", "border", "reflection"]


def _sample(m, x, g, mode, padding_mode, align_corners, dtype):
    """grid_sample in module m: its output and the gradients of a fixed random weighting of it."""
    dt = getattr(m, dtype)
    xm, gm = m.tensor(x, dtype=dt, requires_grad=True), m.tensor(g, dtype=dt, requires_grad=True)
    out = m.nn.functional.grid_sample(xm, gm, mode, padding_mode, align_corners)
    up = np.random.default_rng(3).standard_normal(tuple(out.shape))
    out.backward(m.tensor(up, dtype=dt))
    return out.detach().numpy(), xm.grad.numpy(), gm.grad.numpy()


def _as_torch(x, g, mode, padding_mode, align_corners, dtype="float64", grid_nan_zero=False):
    """float64 to 1e-12; float32 to its rounding (the grid's gradient sums up to 16 taps' terms of
    size |input| * W / 2, which cancel where padding repeats a value: 1e-4 absolute)."""
    want = _sample(torch, x, g, mode, padding_mode, align_corners, dtype)
    got = _sample(tcore, x, g, mode, padding_mode, align_corners, dtype)
    for name, w, c in zip(("output", "input's gradient", "grid's gradient"), want, got):
        assert c.shape == w.shape and c.dtype == w.dtype, name
        if grid_nan_zero and name == "grid's gradient":  # (see test_non_finite_input_values_as_torch)
            w = np.where(np.isnan(w) & (c == 0), 0.0, w)
        rtol, atol = (1e-12, 1e-12) if dtype == "float64" else (2e-5, 1e-4 if name == "grid's gradient" else 2e-5)
        np.testing.assert_allclose(c, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)


def _grid(rng, shape, sizes):
    """shape (N, ..., k) of points: uniform in [-1.7, 1.7] and, for 60% of each coordinate, a
    multiple of 1/n or 1/(n - 1) (pixel centres, edges and reflection lines of either
    align_corners; ties for nearest) or a point far outside. sizes: the input's (W, H[, D])."""
    g = rng.uniform(-1.7, 1.7, shape)
    for a, n in enumerate(sizes):
        special = np.concatenate([np.arange(-2 * n - 2, 2 * n + 3) / n, np.arange(-2 * n, 2 * n + 1) / max(n - 1, 1),
                                  [-1.0, 1.0, -3.0, 3.0, 5.0, -5.0, 0.0, 1e3, -1e3]])
        pick = rng.random(shape[:-1]) < 0.6
        g[..., a] = np.where(pick, rng.choice(special, shape[:-1]), g[..., a])
    return g


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", PADDINGS)
@pytest.mark.parametrize("mode", MODES_2D)
def test_grid_sample_4d_as_torch(mode, padding_mode, align_corners):
    rng = np.random.default_rng(["bilinear", "nearest", "bicubic"].index(mode))
    x = rng.standard_normal((2, 3, 5, 4))
    for _ in range(6):
        _as_torch(x, _grid(rng, (2, 4, 5, 2), (4, 5)), mode, padding_mode, align_corners)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", PADDINGS)
@pytest.mark.parametrize("mode", MODES_3D)
def test_grid_sample_5d_as_torch(mode, padding_mode, align_corners):
    rng = np.random.default_rng(10 + MODES_3D.index(mode))
    x = rng.standard_normal((2, 2, 3, 5, 4))
    for _ in range(6):
        _as_torch(x, _grid(rng, (2, 3, 2, 4, 3), (4, 5, 3)), mode, padding_mode, align_corners)


@pytest.mark.parametrize("dims", [2, 3])
def test_grid_sample_float32_as_torch(dims):
    rng = np.random.default_rng(20 + dims)
    x = rng.standard_normal((2, 3, 5, 4) if dims == 2 else (2, 2, 3, 5, 4))
    sizes, shape = ((4, 5), (2, 4, 5, 2)) if dims == 2 else ((4, 5, 3), (2, 3, 2, 4, 3))
    for mode in MODES_2D if dims == 2 else MODES_3D:
        for padding_mode in PADDINGS:
            for align_corners in (False, True):
                _as_torch(x, _grid(rng, shape, sizes), mode, padding_mode, align_corners, "float32")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dims", [2, 3])
def test_pixel_centres_as_torch(dims, dtype):
    """Grids from torch's affine_grid (identity and half-pixel shifts: every point within a rounding
    of a pixel's center or edge, as a spatial transformer starts). Which side of the center a point
    lands on decides the floor and so the grid's gradient; torch's 4-D kernel unnormalizes with a
    fused multiply-add (align_corners=False), its 5-D kernel without."""
    rng = np.random.default_rng(80 + dims)
    for sizes in ([3, 5], [7, 6], [5, 9], [10, 12], [11, 3]) if dims == 2 else ([3, 5, 7], [6, 11, 3], [2, 9, 10]):
        for align_corners in (False, True):
            theta = np.tile(np.eye(dims, dims + 1), (2, 1, 1))
            theta[1, :, dims] = [1 / s for s in sizes[::-1]]  # (half a pixel along each axis under align_corners=False)
            g = TF.affine_grid(torch.tensor(theta, dtype=getattr(torch, dtype)), [2, 1] + sizes, align_corners).numpy()
            x = rng.standard_normal([2, 2] + sizes)
            for mode in MODES_2D if dims == 2 else MODES_3D:
                for padding_mode in PADDINGS:
                    _as_torch(x, g, mode, padding_mode, align_corners, dtype)


@pytest.mark.parametrize("needs", ["input", "grid"])
def test_one_side_requires_grad_as_torch(needs):
    rng = np.random.default_rng(90)
    for dims, modes in ((2, MODES_2D), (3, MODES_3D)):
        x = rng.standard_normal((2, 3, 4, 5) if dims == 2 else (2, 3, 2, 4, 5))
        g = _grid(rng, (2, 3, 4, 2) if dims == 2 else (2, 2, 3, 4, 3), (5, 4, 2)[:dims])
        for mode in modes:
            results = []
            for m in (torch, tcore):
                xm, gm = m.tensor(x, requires_grad=needs == "input"), m.tensor(g, requires_grad=needs == "grid")
                out = m.nn.functional.grid_sample(xm, gm, mode, "border", True)
                (out * out).sum().backward()
                results.append((out.detach().numpy(), (xm if needs == "input" else gm).grad.numpy()))
            for w, c in zip(*results):
                np.testing.assert_allclose(c, w, rtol=1e-12, atol=1e-12)


def test_many_channels_tiny_input_as_torch():
    rng = np.random.default_rng(95)
    for x_shape, g_shape in (((3, 40, 1, 1), (3, 7, 1, 2)), ((1, 33, 1, 2, 1), (1, 1, 1, 9, 3))):
        x, g = rng.standard_normal(x_shape), _grid(rng, g_shape, x_shape[2:][::-1])
        for mode in MODES_2D if len(x_shape) == 4 else MODES_3D:
            _as_torch(x, g, mode, "reflection", False)


@pytest.mark.parametrize("sizes", [(1, 1), (1, 4), (3, 1), (1, 1, 1), (1, 3, 1), (2, 1, 4)])
def test_unit_sizes_as_torch(sizes):
    """(one pixel along an axis: reflection's empty span under align_corners=True; the grid's
    gradient zeros, not missing, where nothing depends on it)"""
    rng = np.random.default_rng(sum(sizes))
    x = rng.standard_normal((1, 2) + sizes)
    for mode in MODES_2D if len(sizes) == 2 else MODES_3D:
        for padding_mode in PADDINGS:
            for align_corners in (False, True):
                g = _grid(rng, (1, 3, 4, len(sizes)) if len(sizes) == 2 else (1, 2, 3, 2, 3), sizes[::-1])
                _as_torch(x, g, mode, padding_mode, align_corners)


@pytest.mark.parametrize("dims", [2, 3])
def test_non_finite_grid_as_torch(dims):
    """NaN and +-inf coordinates. torch's 4-D kernel: NaN clipped to 0 by border and reflection,
    NaN weights times masked zeros give NaN; its bilinear backward there reads out of bounds (it
    crashes), so only its forward is compared. The 5-D kernel clips NaN to the far border in the
    forward pass and skips the point in the backward."""
    rng = np.random.default_rng(30 + dims)
    x = rng.standard_normal((1, 2, 3, 4) if dims == 2 else (1, 2, 2, 3, 4))
    specials = np.array([np.nan, np.inf, -np.inf, 0.3, -0.6, 1e30])
    g = rng.choice(specials, (1, 6, 6, dims) if dims == 2 else (1, 3, 4, 3, 3))
    for mode in MODES_2D if dims == 2 else MODES_3D:
        for padding_mode in PADDINGS:
            for align_corners in (False, True):
                if dims == 2 and mode == "bilinear" and padding_mode != "zeros":
                    want = TF.grid_sample(torch.tensor(x), torch.tensor(g), mode, padding_mode, align_corners)
                    got = CF.grid_sample(tcore.tensor(x), tcore.tensor(g), mode, padding_mode, align_corners)
                    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12, equal_nan=True)
                else:
                    _as_torch(x, g, mode, padding_mode, align_corners)


@pytest.mark.parametrize("dims", [2, 3])
def test_far_and_huge_coordinates_as_torch(dims):
    """(reflections many spans away, past INT_MAX flips in the 5-D kernel's int cast, overflow to
    inf in the 5-D kernel: torch's 4-D bilinear backward crashes on that, see above)"""
    rng = np.random.default_rng(40 + dims)
    x = rng.standard_normal((1, 2, 3, 5) if dims == 2 else (1, 2, 2, 3, 5))
    specials = np.array([1e10, -3e9, 4.3e9 + 0.25, 1e16, -1e17, 1e300, 123.456, -77.7] + [-1e308] * (dims == 3))
    g = rng.choice(specials, (1, 4, 5, dims) if dims == 2 else (1, 2, 4, 5, 3))
    for mode in MODES_2D if dims == 2 else MODES_3D:
        for padding_mode in PADDINGS:
            for align_corners in (False, True):
                _as_torch(x, g, mode, padding_mode, align_corners)


@pytest.mark.parametrize("dims", [2, 3])
def test_non_finite_input_values_as_torch(dims):
    """NaN and inf in the input: masked taps read zeros (and get no gradient), as torch's. One
    difference left: where border or reflection padding clips a point (its coordinate's gradient
    0), torch multiplies a NaN gradient (inf times a zero weight) by that 0 and gets NaN, tcore's
    clip passes 0."""
    rng = np.random.default_rng(50 + dims)
    x = rng.standard_normal((1, 1, 3, 4) if dims == 2 else (1, 1, 2, 3, 4))
    x.reshape(-1)[[0, 5, -1]] = [np.nan, np.inf, -np.inf]
    sizes = (4, 3) if dims == 2 else (4, 3, 2)
    for mode in MODES_2D if dims == 2 else MODES_3D:
        for padding_mode in PADDINGS:
            for align_corners in (False, True):
                g = _grid(rng, (1, 5, 6, 2) if dims == 2 else (1, 2, 5, 6, 3), sizes)
                _as_torch(x, g, mode, padding_mode, align_corners, grid_nan_zero=padding_mode != "zeros")


def test_strided_input_and_grid_as_torch():
    """(a channels-last input, a grid made by permuting a conv's (N, 2, H, W) output)"""
    rng = np.random.default_rng(60)
    x = rng.standard_normal((2, 5, 4, 3))
    g = _grid(rng, (2, 6, 7, 2), (4, 5)).transpose(0, 3, 1, 2).copy()
    for mode in MODES_2D:
        outs = []
        for m in (torch, tcore):
            xm = m.tensor(x, requires_grad=True)
            gm = m.tensor(g, requires_grad=True)
            out = m.nn.functional.grid_sample(xm.permute(0, 3, 1, 2), gm.permute(0, 2, 3, 1), mode, "reflection", False)
            (out * out).sum().backward()
            outs.append((out.detach().numpy(), xm.grad.numpy(), gm.grad.numpy()))
        for w, c in zip(*outs):
            np.testing.assert_allclose(c, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("x_shape, g_shape", [
    ((0, 2, 3, 4), (0, 5, 6, 2)), ((2, 0, 3, 4), (2, 5, 6, 2)), ((2, 3, 3, 4), (2, 0, 6, 2)),
    ((2, 3, 3, 4), (2, 5, 0, 2)), ((0, 2, 2, 3, 4), (0, 1, 5, 6, 3)), ((2, 0, 2, 3, 4), (2, 1, 5, 6, 3)),
    ((2, 3, 2, 3, 4), (2, 0, 5, 6, 3)), ((2, 3, 2, 3, 4), (2, 4, 5, 0, 3))])
def test_empty_outputs_as_torch(x_shape, g_shape):
    for mode in MODES_2D if len(x_shape) == 4 else MODES_3D:
        results = []
        for m in (torch, tcore):
            xm = m.zeros(x_shape, dtype=m.float64, requires_grad=True)
            gm = m.zeros(g_shape, dtype=m.float64, requires_grad=True)
            out = m.nn.functional.grid_sample(xm, gm, mode, "zeros", False)
            out.sum().backward()
            results.append((tuple(out.shape), out.dtype.__str__().split(".")[-1], xm.grad.numpy(), gm.grad.numpy()))
        (ws, wd, wx, wg), (cs, cd, cx, cg) = results
        assert (cs, cd) == (ws, wd)
        np.testing.assert_array_equal(cx, wx)
        np.testing.assert_array_equal(cg, wg)
    # an empty output is returned before torch's 4-D kernel looks at the dtypes
    out = CF.grid_sample(tcore.zeros(1, 1, 3, 3, dtype=tcore.int64), tcore.zeros(1, 0, 3, 2), align_corners=False)
    assert tuple(out.shape) == (1, 1, 0, 3) and out.dtype == tcore.int64
    out = CF.grid_sample(tcore.zeros(1, 0, 3, 3), tcore.zeros(1, 2, 3, 2, dtype=tcore.float64), align_corners=True)
    assert tuple(out.shape) == (1, 0, 2, 3) and out.dtype == tcore.float32


def _z(m, *shape, dtype=None):
    return m.zeros(shape, dtype=getattr(m, dtype) if dtype else None)


def _gs(m, x, g, **kw):
    kw.setdefault("align_corners", False)
    return m.nn.functional.grid_sample(x, g, **kw)


GRID_SAMPLE_ERRORS = {
    "3-D input": lambda m: _gs(m, _z(m, 1, 1, 3), _z(m, 1, 3, 2)),
    "3-D input, last dim 1": lambda m: _gs(m, _z(m, 1, 1, 3), _z(m, 1, 3, 1)),
    "1-D input": lambda m: _gs(m, _z(m, 3), _z(m, 3)),
    "2-D input": lambda m: _gs(m, _z(m, 1, 3), _z(m, 1, 0)),
    "0-d input": lambda m: _gs(m, m.tensor(1.0), m.tensor(1.0)),
    "6-D input": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3, 3), _z(m, 1, 3, 3, 3, 3, 4)),
    "5-D input, 4-D grid": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3), _z(m, 1, 3, 3, 3)),
    "4-D input, 5-D grid": lambda m: _gs(m, _z(m, 1, 1, 3, 3), _z(m, 1, 3, 3, 3, 2)),
    "bicubic 5-D": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3), _z(m, 1, 3, 3, 3, 3), mode="bicubic"),
    "bicubic 5-D, empty grid": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3), _z(m, 1, 0, 3, 3, 3), mode="bicubic"),
    "bicubic 5-D, int input": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3, dtype="int64"), _z(m, 1, 3, 3, 3, 3),
                                            mode="bicubic"),
    "bicubic 5-D, grid of 2": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3), _z(m, 1, 3, 3, 3, 2), mode="bicubic"),
    "5-D, grid of 2": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3), _z(m, 1, 3, 3, 3, 2)),
    "4-D, grid of 3": lambda m: _gs(m, _z(m, 1, 1, 3, 3), _z(m, 1, 3, 3, 3), mode="bicubic"),
    "5-D batch": lambda m: _gs(m, _z(m, 2, 1, 3, 3, 3), _z(m, 1, 3, 3, 3, 3)),
    "batch before last dim": lambda m: _gs(m, _z(m, 2, 1, 3, 3), _z(m, 1, 3, 3, 3)),
    "batch before empty input": lambda m: _gs(m, _z(m, 2, 1, 0, 3), _z(m, 1, 3, 3, 2)),
    "batch before dims": lambda m: _gs(m, _z(m, 2, 1, 3, 3, 3), _z(m, 1, 3, 3, 3)),
    "last dim before empty input": lambda m: _gs(m, _z(m, 1, 1, 0, 3), _z(m, 1, 3, 3, 3)),
    "empty input before dims": lambda m: _gs(m, _z(m, 1, 1, 0, 3, 3), _z(m, 1, 3, 3, 3)),
    "empty 4-D input": lambda m: _gs(m, _z(m, 1, 1, 3, 0), _z(m, 1, 3, 3, 2), mode="bicubic"),
    "empty 5-D input": lambda m: _gs(m, _z(m, 1, 1, 0, 3, 3), _z(m, 1, 3, 3, 3, 3)),
    "int 4-D input": lambda m: _gs(m, _z(m, 1, 1, 3, 3, dtype="int64"), _z(m, 1, 3, 3, 2)),
    "bool 4-D input": lambda m: _gs(m, _z(m, 1, 1, 3, 3, dtype="bool"), _z(m, 1, 3, 3, 2), mode="bicubic"),
    "uint8 5-D input": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3, dtype="uint8"), _z(m, 1, 3, 3, 3, 3)),
    "int 5-D input before empty": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3, dtype="int64"), _z(m, 1, 0, 3, 3, 3)),
    "int 5-D input before grid dtype": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3, dtype="int32"),
                                                     _z(m, 1, 3, 3, 3, 3, dtype="float64")),
    "float input, double grid": lambda m: _gs(m, _z(m, 1, 1, 3, 3), _z(m, 1, 3, 3, 2, dtype="float64")),
    "double input, float grid": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3, dtype="float64"), _z(m, 1, 3, 3, 3, 3)),
    "float input, int grid": lambda m: _gs(m, _z(m, 1, 1, 3, 3), _z(m, 1, 3, 3, 2, dtype="int64"), mode="bicubic"),
    "bad mode": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3), _z(m, 1, 3, 3, 3, 3), mode="trilinear"),
    "bad padding": lambda m: _gs(m, _z(m, 1, 1, 3, 3, 3), _z(m, 1, 3, 3, 3, 3), padding_mode="circular"),
}


@pytest.mark.parametrize("case", list(GRID_SAMPLE_ERRORS))
def test_grid_sample_errors_as_torch(case):
    with pytest.raises(Exception) as want:
        GRID_SAMPLE_ERRORS[case](torch)
    with pytest.raises(type(want.value)) as got:
        GRID_SAMPLE_ERRORS[case](tcore)
    assert str(got.value) == str(want.value)


def test_grid_sample_warns_without_align_corners():
    for m in (torch, tcore):
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed") as record:
            _gs(m, _z(m, 1, 1, 2, 3, 3), _z(m, 1, 2, 2, 2, 3), mode="nearest", align_corners=None)
        assert record[0].filename == __file__


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [[2, 3, 4, 5, 6], [1, 1, 1, 1, 1], [3, 2, 1, 7, 2], (2, 1, 3, 1, 4), [2, 3, 6, 5]])
def test_affine_grid_as_torch(size, align_corners):
    rng = np.random.default_rng(len(size) + sum(size))
    k = len(size) - 2
    theta = rng.standard_normal((size[0], k, k + 1))
    results = []
    for m in (torch, tcore):
        tm = m.tensor(theta, requires_grad=True)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            grid = m.nn.functional.affine_grid(tm, size, align_corners)
        (grid * m.tensor(np.arange(grid.numel()).reshape(tuple(grid.shape)) % 7)).sum().backward()
        results.append((grid.detach().numpy(), tm.grad.numpy(), [str(r.message) for r in record]))
    (wg, wt, ww), (cg, ct, cw) = results
    np.testing.assert_allclose(cg, wg, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(ct, wt, rtol=1e-13, atol=1e-13)
    assert cw == ww


def test_affine_grid_5d_drives_grid_sample():
    """(the identity samples the input back; a shift by one voxel's width moves it by one voxel)"""
    x = tcore.tensor(np.random.default_rng(70).standard_normal((2, 3, 4, 5, 6)))
    identity = tcore.tensor(np.tile(np.eye(3, 4), (2, 1, 1)))
    for align_corners in (False, True):
        grid = CF.affine_grid(identity, [2, 3, 4, 5, 6], align_corners=align_corners)
        np.testing.assert_allclose(CF.grid_sample(x, grid, align_corners=align_corners).numpy(), x.numpy(),
                                   atol=1e-14)
    shift = np.tile(np.eye(3, 4), (2, 1, 1))
    shift[:, 0, 3] = 2 / 6  # x by one voxel (align_corners=False: 2 / W per voxel)
    grid = CF.affine_grid(tcore.tensor(shift), [2, 3, 4, 5, 6], align_corners=False)
    out = CF.grid_sample(x, grid, padding_mode="border", align_corners=False).numpy()
    np.testing.assert_allclose(out[..., :-1], x.numpy()[..., 1:], atol=1e-14)


AFFINE_GRID_ERRORS = {
    "5-D size, 2-D theta": lambda m: m.nn.functional.affine_grid(_z(m, 2, 2, 3), [2, 1, 3, 4, 5], False),
    "5-D tuple size, 2-D theta": lambda m: m.nn.functional.affine_grid(_z(m, 2, 2, 3), (2, 1, 3, 4, 5), False),
    "4-D size, 3-D theta": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4), [2, 1, 3, 4], False),
    "5-D size, one matrix": lambda m: m.nn.functional.affine_grid(_z(m, 3, 4), [2, 1, 1, 4, 5], True),
    "6-D size": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4), (2, 1, 3, 4, 5, 6), False),
    "3-D size": lambda m: m.nn.functional.affine_grid(_z(m, 2, 2, 3), [2, 3, 4], False),
    "batch": lambda m: m.nn.functional.affine_grid(_z(m, 3, 3, 4), [2, 1, 3, 4, 5], False),
    "zero depth": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4), [2, 1, 0, 4, 5], False),
    "zero batch": lambda m: m.nn.functional.affine_grid(_z(m, 0, 3, 4), [0, 1, 2, 4, 5], False),
    "zero channels": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4), [2, 0, 2, 4, 5], False),
    "negative size": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4), [2, 1, -1, 4, 5], False),
    "zero beside a unit size": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4), [2, 1, 1, 0, 5], True),
    "int theta": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4, dtype="int64"), [2, 1, 1, 4, 5], True),
    "float size": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4), [2, 1, 2.5, 4, 5], False),
    "float batch size": lambda m: m.nn.functional.affine_grid(_z(m, 2, 3, 4), [2.0, 1, 2, 4, 5], False),
}


@pytest.mark.parametrize("case", list(AFFINE_GRID_ERRORS))
def test_affine_grid_errors_as_torch(case):
    with pytest.raises(Exception) as want:
        AFFINE_GRID_ERRORS[case](torch)
    with pytest.raises(type(want.value)) as got:
        AFFINE_GRID_ERRORS[case](tcore)
    assert str(got.value).replace("tcore.", "torch.") == str(want.value)


def test_affine_grid_unit_size_with_empty_batch():
    """(align_corners=True and a unit size: torch warns instead of checking the sizes)"""
    for m in (torch, tcore):
        with pytest.warns(UserWarning, match="unit-size grids"):
            grid = m.nn.functional.affine_grid(_z(m, 0, 3, 4), [0, 1, 1, 4, 5], True)
        assert tuple(grid.shape) == (0, 1, 4, 5, 3)
