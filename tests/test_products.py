"""tensordot, kron, block_diag, cdist and cartesian_prod against torch: values, dtypes, shapes,
float64 gradients and torch's errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _arange(lib, *shape, dtype="float64"):
    n = int(np.prod(shape))
    return (lib.arange(float(n), dtype=getattr(lib, dtype)).reshape(*shape) - n / 3) / 2


CASES = {
    "tensordot int": lambda t: t.tensordot(_arange(t, 2, 3, 4), _arange(t, 3, 4, 5), dims=2),
    "tensordot 0": lambda t: t.tensordot(_arange(t, 2, 3), _arange(t, 3, 4), dims=0),
    "tensordot lists": lambda t: t.tensordot(_arange(t, 2, 3, 4), _arange(t, 4, 2), dims=([2, 0], [0, 1])),
    "tensordot negative dims": lambda t: t.tensordot(_arange(t, 2, 3), _arange(t, 2, 3), dims=([-1, 0], [1, 0])),
    "tensordot ints pair": lambda t: t.tensordot(_arange(t, 2, 3), _arange(t, 3, 4), dims=[[1], [0]]),
    "tensordot tensor dims": lambda t: t.tensordot(_arange(t, 2, 3), _arange(t, 3, 4), dims=t.tensor([[1], [0]])),
    "tensordot 0-dim tensor dims": lambda t: t.tensordot(_arange(t, 2, 3), _arange(t, 3, 4), dims=t.tensor(1)),
    "tensordot transposed": lambda t: t.tensordot(_arange(t, 3, 2).t(), _arange(t, 4, 3).t(), dims=1),
    "kron": lambda t: t.kron(_arange(t, 2, 3), _arange(t, 2, 2)),
    "kron ranks": lambda t: t.kron(t.tensor([1, 2]), t.tensor([[1.0, 10.0]])),
    "kron 0-dim": lambda t: t.kron(t.tensor(2), t.tensor([1, 2])),
    "kron method 3-d": lambda t: _arange(t, 2, 1, 2).kron(_arange(t, 1, 3, 2)),
    "block_diag": lambda t: t.block_diag(t.tensor(2), t.tensor([1, 2]), t.ones(2, 2)),
    "block_diag ints": lambda t: t.block_diag(t.tensor([[1, 2]]), t.tensor([[3], [4]])),
    "block_diag empty": lambda t: t.block_diag(),
    "block_diag zero-size": lambda t: t.block_diag(t.ones(0, 2), t.ones(2, 0)),
    "cdist": lambda t: t.cdist(_arange(t, 4, 3), _arange(t, 5, 3).flip(0)),
    "cdist p=1": lambda t: t.cdist(_arange(t, 4, 3), _arange(t, 2, 3), p=1),
    "cdist p=0": lambda t: t.cdist(_arange(t, 4, 3), _arange(t, 2, 3).round(), p=0),
    "cdist p=inf": lambda t: t.cdist(_arange(t, 4, 3), _arange(t, 2, 3), p=float("inf")),
    "cdist p=3.5": lambda t: t.cdist(_arange(t, 4, 3), _arange(t, 2, 3), p=3.5),
    "cdist batch broadcast": lambda t: t.cdist(_arange(t, 2, 2, 3), _arange(t, 1, 4, 3)),
    "cdist float32": lambda t: t.cdist(_arange(t, 3, 2, dtype="float32"), _arange(t, 3, 2, dtype="float32")),
    "cartesian_prod": lambda t: t.cartesian_prod(t.tensor([1, 2]), t.tensor([3, 4, 5])),
    "cartesian_prod three": lambda t: t.cartesian_prod(t.tensor([1.0]), t.tensor([2.0, 3.0]), t.tensor([4.0, 5.0])),
    "cartesian_prod one": lambda t: t.cartesian_prod(t.tensor([1, 2])),
}
ERRORS = {
    "tensordot size": lambda t: t.tensordot(t.ones(2, 3), t.ones(4, 4), dims=([1], [0])),
    "tensordot lengths": lambda t: t.tensordot(t.ones(2, 3), t.ones(3, 4), dims=([1], [0, 1])),
    "tensordot dtype": lambda t: t.tensordot(t.ones(2, 3, dtype=t.int64), t.ones(3, 4), dims=1),
    "tensordot repeated": lambda t: t.tensordot(t.ones(2, 3), t.ones(3, 2), dims=([1, 1], [0, 0])),
    "tensordot negative": lambda t: t.tensordot(t.ones(2, 3), t.ones(3, 4), dims=-1),
    "tensordot too many": lambda t: t.tensordot(t.ones(2, 3), t.ones(3, 4), dims=3),
    "cdist 1-d": lambda t: t.cdist(t.ones(3), t.ones(2, 3)),
    "cdist columns": lambda t: t.cdist(t.ones(2, 3), t.ones(2, 4)),
    "cdist p": lambda t: t.cdist(t.ones(2, 3), t.ones(2, 3), p=-1),
    "cdist ints": lambda t: t.cdist(t.ones(2, 3, dtype=t.int64), t.ones(2, 3, dtype=t.int64)),
    "cdist dtypes": lambda t: t.cdist(t.ones(2, 3, dtype=t.float64), t.ones(2, 3)),
    "cartesian_prod 2-d": lambda t: t.cartesian_prod(t.ones(2, 2)),
    "cartesian_prod dtypes": lambda t: t.cartesian_prod(t.tensor([1, 2]), t.tensor([3.0])),
    "block_diag 3-d": lambda t: t.block_diag(t.ones(2, 2, 2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_torch(tcore, name):
    def run(lib):
        r = CASES[name](lib)
        return np.array(r.double().tolist()), str(r.dtype).split(".")[-1], tuple(r.shape)

    (ev, ed, es), (gv, gd, gs) = run(torch), run(tcore)
    assert (gd, gs) == (ed, es)
    np.testing.assert_allclose(gv, ev, rtol=1e-6 if ed == "float32" else 1e-13, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(tcore, name):
    def run(lib):
        try:
            ERRORS[name](lib)
        except RuntimeError as e:
            return str(e)[:20]  # (torch names dtypes its own way: "Double")
        return None

    expected = run(torch)
    assert expected is not None and run(tcore) == expected


GRADS = {
    "tensordot": lambda t, a, b: t.tensordot(a, b.reshape(3, 4)[:, :2].t().reshape(2, 3), dims=([1, 0], [1, 0])),
    "kron": lambda t, a, b: t.kron(a, b),
    "block_diag": lambda t, a, b: t.block_diag(a, b[0], b[1, 0]),
    "cdist p=2": lambda t, a, b: t.cdist(a, b.reshape(4, 3)),
    "cdist p=1": lambda t, a, b: t.cdist(a, b.reshape(4, 3), p=1),
    "cdist p=inf": lambda t, a, b: t.cdist(a, b.reshape(4, 3), p=float("inf")),
    "cdist p=3": lambda t, a, b: t.cdist(a, b.reshape(4, 3), p=3.0),
    "cdist equal rows": lambda t, a, b: t.cdist(a, a.detach() * 1),
    "cartesian_prod": lambda t, a, b: t.cartesian_prod(a[0], b[0]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_as_torch(tcore, name):
    def run(lib):
        a = _arange(lib, 2, 3).requires_grad_()
        b = (_arange(lib, 3, 4) ** 2).requires_grad_()
        out = GRADS[name](lib, a, b)
        w = lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape) - 2
        (out * w).sum().backward()
        return a.grad.tolist(), b.grad.tolist() if b.grad is not None else None

    (ea, eb), (ga, gb) = run(torch), run(tcore)
    np.testing.assert_allclose(ga, ea, rtol=1e-12, atol=1e-12)
    if eb is None:
        assert gb is None
    else:
        np.testing.assert_allclose(gb, eb, rtol=1e-12, atol=1e-12)
