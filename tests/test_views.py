"""Views against numpy from one table: each view's values, whether it shares storage
(exactly when PyTorch's does), writes through the view visible in the base; Python
indexing (ints, slices with steps, None, ...) and assignment; bad indices."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided, sliding_window_view

BASE = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)


def _unfold(a, dim, size, step):
    return np.moveaxis(sliding_window_view(a, size, axis=dim), -1, -1).take(range(0, a.shape[dim] - size + 1, step),
                                                                            axis=dim)


# name: (tcore view of t, numpy view of a, shares storage)
VIEWS = {
    "view": (lambda tc, t: t.view(4, 6), lambda a: a.reshape(4, 6), True),
    "transpose": (lambda tc, t: t.transpose(0, 2), lambda a: a.swapaxes(0, 2), True),
    "permute": (lambda tc, t: t.permute([2, 0, 1]), lambda a: a.transpose(2, 0, 1), True),
    "unsqueeze": (lambda tc, t: t.unsqueeze(1), lambda a: a[:, None], True),
    "unsqueeze_last": (lambda tc, t: t.unsqueeze(-1), lambda a: a[..., None], True),
    "squeeze": (lambda tc, t: t[:, :1].squeeze(), lambda a: a[:, :1].squeeze(), True),
    "squeeze_dim": (lambda tc, t: t[:1].squeeze(0), lambda a: a[0], True),
    "squeeze_dims": (lambda tc, t: t[:1, :1].squeeze((0, 1, 2)), lambda a: a[0, 0], True),
    "select": (lambda tc, t: t.select(1, -1), lambda a: a[:, -1], True),
    "slice": (lambda tc, t: tc.slice(t, 2, 1, None, 2), lambda a: a[:, :, 1::2], True),
    "narrow": (lambda tc, t: tc.narrow(t, 1, 1, 2), lambda a: a[:, 1:3], True),
    "diagonal": (lambda tc, t: tc.diagonal(t, 1, 1, 2), lambda a: np.diagonal(a, 1, 1, 2), True),
    "diagonal_neg": (lambda tc, t: tc.diagonal(t, -1, 2, 1), lambda a: np.diagonal(a, -1, 2, 1), True),
    "as_strided": (lambda tc, t: tc.as_strided(t, [3, 3], [4, 1], 2),
                   lambda a: as_strided(a.ravel()[2:], (3, 3), (32, 8)), True),
    "unfold": (lambda tc, t: t.unfold(2, 2, 1), lambda a: _unfold(a, 2, 2, 1), True),
    "unfold_step": (lambda tc, t: t.unfold(1, 2, 2), lambda a: _unfold(a, 1, 2, 2), True),
    "t": (lambda tc, t: t[0].t(), lambda a: a[0].T, True),
    "T": (lambda tc, t: t[0].T, lambda a: a[0].T, True),
    "T_reversed": (lambda tc, t: t.T, lambda a: a.T, True),  # (torch warns: dims other than 2)
    "H": (lambda tc, t: t[1].H, lambda a: a[1].T, True),
    "mT": (lambda tc, t: t.mT, lambda a: a.swapaxes(-2, -1), True),
    "mH": (lambda tc, t: t.mH, lambda a: a.swapaxes(-2, -1), True),
    "adjoint": (lambda tc, t: tc.adjoint(t), lambda a: a.swapaxes(-2, -1), True),
    "adjoint_method": (lambda tc, t: t[:, 1:].adjoint(), lambda a: a[:, 1:].swapaxes(-2, -1), True),
    "reshape_view": (lambda tc, t: t.reshape(6, -1), lambda a: a.reshape(6, -1), True),
    "reshape_copy": (lambda tc, t: t.transpose(0, 1).reshape(-1), lambda a: a.swapaxes(0, 1).reshape(-1), False),
    "flatten": (lambda tc, t: t.flatten(1), lambda a: a.reshape(2, -1), True),
    "flatten_copy": (lambda tc, t: t.transpose(1, 2).flatten(), lambda a: a.swapaxes(1, 2).reshape(-1), False),
    "index": (lambda tc, t: t[1, ::2, None, -1], lambda a: a[1, ::2, None, -1], True),
    "ellipsis": (lambda tc, t: t[..., 1:3], lambda a: a[..., 1:3], True),
}


@pytest.mark.parametrize("name", VIEWS)
def test_view_values_storage_and_writes(tcore, name):
    make_t, make_a, shares = VIEWS[name]
    base, a = tcore.tensor(BASE), BASE.copy()
    v, va = make_t(tcore, base), make_a(a)
    assert v.shape == va.shape
    np.testing.assert_array_equal(v.numpy(), va)
    assert (v._storage_ptr() == base._storage_ptr()) == shares
    if shares and va.size:  # a write through the view lands in the base, where numpy's view lies
        v.fill_(-1.0)
        covered = np.unique(make_a(np.arange(BASE.size).reshape(BASE.shape)))
        expected = BASE.copy().ravel()
        expected[covered] = -1.0
        np.testing.assert_array_equal(base.numpy().ravel(), expected)


INDICES = [1, -1, slice(1, 3), slice(None, None, 2), slice(1, -1, 2), None, Ellipsis, (Ellipsis, 0),
           (0, Ellipsis, None), (slice(None), None, 1), slice(2, 100), slice(-100, 2), (1, 2, 3), (-2, -3, -4),
           (slice(3, 1),), (None, None, 0), ()]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_getitem_like_numpy(tcore, index):
    t = tcore.tensor(BASE)
    got = t[index]
    np.testing.assert_array_equal(got.numpy(), BASE[index])
    assert got._storage_ptr() == t._storage_ptr()


@pytest.mark.parametrize("index, value", [(1, 5.0), ((slice(None), 0), -1.0), ((0, slice(None), slice(None, None, 2)), "tensor"),
                                          ((Ellipsis, 3), "row"), ((1, 2, 3), 9.0)], ids=repr)
def test_setitem_like_numpy(tcore, index, value):
    t, a = tcore.tensor(BASE), BASE.copy()
    if value == "tensor":
        v = np.array([10.0, 20.0])  # broadcasts against the (3, 2) view
        t[index] = tcore.tensor(v)
        a[index] = v
    elif value == "row":
        t[index] = tcore.tensor([7.0, 8.0, 9.0])
        a[index] = [7.0, 8.0, 9.0]
    else:
        t[index] = value
        a[index] = value
    np.testing.assert_array_equal(t.numpy(), a)


def test_iteration_and_len(tcore):
    t = tcore.tensor(BASE)
    assert len(t) == 2 and [r.shape for r in t] == [(3, 4), (3, 4)]
    np.testing.assert_array_equal(np.stack([r.numpy() for r in t]), BASE)
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(tcore.tensor(1.0))


@pytest.mark.parametrize("index, error, message", [
    ((0, 0, 0, 0), IndexError, "too many indices for tensor of dimension 3"),
    (1.5, IndexError, "only integers, slices"),
    ("a", IndexError, "only integers, slices"),
    (5, IndexError, "index 5 out of range"),
    ((0, -4), IndexError, "index -4 out of range"),
    (slice(None, None, 0), ValueError, "step must be greater than zero"),
    (slice(None, None, -1), ValueError, "step must be greater than zero"),
])
def test_bad_indices(tcore, index, error, message):
    with pytest.raises(error, match=message):
        tcore.tensor(BASE)[index]


@pytest.mark.parametrize("call, error, message", [
    (lambda tc, t: t.permute([0, 1]), ValueError, "does not match the length"),
    (lambda tc, t: t.permute([0, 0, 1]), ValueError, "duplicate dims"),
    (lambda tc, t: t.unsqueeze(5), IndexError, "Dimension out of range"),
    (lambda tc, t: tc.diagonal(t, 0, 1, 1), ValueError, "diagonal dimensions cannot be identical"),
    (lambda tc, t: tc.as_strided(t, [5, 5], [5, 1]), ValueError, "require a storage of 25 elements, but it has 24"),
    (lambda tc, t: t.unfold(2, 5, 1), ValueError, "maximum size for tensor at dimension 2 is 4"),
    (lambda tc, t: tc.narrow(t, 2, 3, 2), ValueError, r"start \(3\) \+ length \(2\) exceeds dimension size \(4\)"),
    (lambda tc, t: t.view(5, 5), ValueError, "shape '\\[5, 5\\]' is invalid for input of size 24"),
    (lambda tc, t: t.transpose(0, 1).view(24), ValueError, "Use .reshape"),
    (lambda tc, t: t.t(), ValueError, "t\\(\\) expects a tensor with <= 2 dimensions"),
    (lambda tc, t: t.squeeze((0, 3)), IndexError, "out of range"),
    (lambda tc, t: t.squeeze((1, -2)), ValueError, "dim 1 appears multiple times in the list of dims"),
])
def test_bad_view_arguments(tcore, call, error, message):
    with pytest.raises(error, match=message):
        call(tcore, tcore.tensor(BASE))


def test_numpy_interop_shares_memory(tcore):
    t = tcore.zeros(2, 3)
    n = t.numpy()
    n[0, 1] = 4.0  # .numpy() of a contiguous tensor is a view of its memory
    assert t[0, 1].item() == 4.0
    a = np.arange(6.0).reshape(2, 3)
    f = tcore.from_numpy(a)
    a[1, 2] = -1.0
    assert f[1, 2].item() == -1.0 and f.dtype == tcore.float64
    assert np.asarray(f).shape == (2, 3) and t.tolist() == [[0.0, 4.0, 0.0], [0.0, 0.0, 0.0]]
    assert tcore.tensor(3).tolist() == 3
    d = tcore.from_dlpack(a)  # any DLPack producer; here numpy
    a[0, 0] = 9.0
    assert d[0, 0].item() == 9.0
    back = np.from_dlpack(t)  # tcore as the producer
    back[1, 1] = 2.5
    assert t[1, 1].item() == 2.5


def test_matrix_transposes_refuse_and_warn_as_torch(tcore):
    """.mT, .mH, .H and adjoint() check the dims with torch's words; .T warns as torch's past 2 dims."""
    torch = pytest.importorskip("torch")
    for get in (lambda L: L.ones(3).mT, lambda L: L.ones(3).mH, lambda L: L.ones(3).H, lambda L: L.ones(2, 3, 4).H,
                lambda L: L.ones(3).adjoint()):
        messages = []
        for lib in (tcore, torch):
            with pytest.raises(RuntimeError) as e:
                get(lib)
            messages.append(str(e.value))
        assert messages[0] == messages[1]
    with pytest.warns(UserWarning, match="dimension other than 2"):
        assert tuple(tcore.ones(2, 3, 4).T.shape) == (4, 3, 2)
    for get in (lambda t: t.T, lambda t: t.H, lambda t: t.mT, lambda t: t.mH, lambda t: t.adjoint()):
        with pytest.warns(UserWarning, match="0-D"):
            assert get(tcore.ones(())).item() == 1.0
