"""index_copy and masked_scatter (out of place, in place, out=) against torch: values with repeated
indices, 0-dim and transposed operands, broadcast masks, torch's errors and their kinds, and
float64 gradients of self and source."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _x(lib):
    return lib.arange(12.0, dtype=lib.float64).reshape(3, 4)


VALUES = {
    "index_copy dim 1": lambda t: _x(t).index_copy(1, t.tensor([3, 0]), -_x(t)[:, :2]),
    "index_copy dim 0": lambda t: _x(t).index_copy(0, t.tensor([2]), t.ones(1, 4, dtype=t.float64)),
    "index_copy dim -1": lambda t: t.index_copy(_x(t), -1, t.tensor([1]), t.zeros(3, 1, dtype=t.float64)),
    "index_copy repeated index keeps the last": lambda t: t.zeros(3).index_copy(0, t.tensor([1, 1]),
                                                                                t.tensor([5.0, 6.0])),
    "index_copy 0-dim self": lambda t: t.tensor(1.0).index_copy(0, t.tensor([0]), t.tensor(5.0)),
    "index_copy 0-dim index and source": lambda t: t.zeros(3).index_copy(0, t.tensor(1), t.tensor(5.0)),
    "index_copy transposed self": lambda t: _x(t).t().index_copy(0, t.tensor([1, 2]), t.ones(2, 3, dtype=t.float64)),
    "index_copy transposed source": lambda t: _x(t).index_copy(1, t.tensor([0, 2, 1]), _x(t)[:, 1:].t().t() * 2),
    "index_copy empty index": lambda t: _x(t).index_copy(1, t.tensor([], dtype=t.long), t.ones(3, 0, dtype=t.float64)),
    "index_copy_": lambda t: _x(t).index_copy_(1, t.tensor([1]), t.ones(3, 1, dtype=t.float64)),
    "index_copy int64": lambda t: _x(t).long().index_copy(0, t.tensor([0]), t.ones(1, 4, dtype=t.long)),
    "index_copy bool": lambda t: (_x(t) > 5).index_copy(0, t.tensor([2]), t.zeros(1, 4, dtype=t.bool)),
    "masked_scatter": lambda t: t.zeros(3, 4).masked_scatter(t.tensor([True, False, True, False]),
                                                             t.arange(12.0).reshape(3, 4)),
    "masked_scatter broadcast self": lambda t: t.zeros(4).masked_scatter(t.tensor([[True, False, True, False]] * 2),
                                                                         t.arange(12.0)),
    "masked_scatter spare source": lambda t: _x(t).masked_scatter(_x(t) > 6, -t.arange(30.0, dtype=t.float64)),
    "masked_scatter empty source": lambda t: t.zeros(2).masked_scatter(t.tensor([False, False]), t.tensor([])),
    "masked_scatter transposed": lambda t: _x(t).t().masked_scatter(_x(t).t() < 4, t.ones(9, dtype=t.float64) * 7),
    "masked_scatter 0-dim": lambda t: t.tensor(2.0).masked_scatter(t.tensor(True), t.tensor([5.0])),
    "masked_scatter 0-dim false": lambda t: t.tensor(2.0).masked_scatter(t.tensor(False), t.tensor([5.0])),
    "masked_scatter_": lambda t: _x(t).masked_scatter_(t.tensor([[True], [False], [True]]),
                                                      t.ones(2, 4, dtype=t.float64)),
    "masked_scatter int8": lambda t: t.zeros(3, dtype=t.int8).masked_scatter(t.tensor([True, False, True]),
                                                                            t.tensor([100, -100], dtype=t.int8)),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_as_torch(tcore, name):
    def run(lib):
        r = VALUES[name](lib)
        return r.tolist(), str(r.dtype).split(".")[-1], tuple(r.shape)

    assert run(tcore) == run(torch)


def test_in_place_writes_self_and_bumps_its_version(tcore):
    for lib in (tcore, torch):
        x = _x(lib)
        v = x._version
        assert x.index_copy_(0, lib.tensor([1]), lib.ones(1, 4, dtype=lib.float64)) is x
        assert x.masked_scatter_(x > 10, lib.zeros(12, dtype=lib.float64)) is x
        assert x._version > v
        assert x.tolist() == [[0, 1, 2, 3], [1, 1, 1, 1], [8, 9, 10, 0]]


ERRORS = {
    "index_copy int32 index": (lambda t: _x(t).index_copy(1, t.tensor([0], dtype=t.int32), _x(t)[:, :1]),
                               RuntimeError, "Expected a long tensor for index"),
    "index_copy dtypes": (lambda t: _x(t).index_copy(1, t.tensor([0]), _x(t)[:, :1].float()), RuntimeError,
                          "expected to have the same dtype"),
    "index_copy count": (lambda t: _x(t).index_copy(1, t.tensor([0, 1, 2]), _x(t)[:, :2]), IndexError,
                         r"Number of indices \(3\) should be equal to source.size\(dim\) \(2\)"),
    "index_copy slice shapes": (lambda t: _x(t).index_copy(1, t.tensor([0, 1]), t.ones(2, 2, dtype=t.float64)),
                                RuntimeError, "must have same slice shapes"),
    "index_copy dims": (lambda t: _x(t).index_copy(1, t.tensor([0, 1]), t.ones(2, dtype=t.float64)), IndexError,
                        "dimensionality must match"),
    "index_copy 2-D index": (lambda t: _x(t).index_copy(1, t.tensor([[0, 1]]), _x(t)[:, :2]), IndexError,
                             "Index should have dimension 1 or 0"),
    "index_copy out of range": (lambda t: _x(t).index_copy(1, t.tensor([4, 0]), _x(t)[:, :2]), IndexError,
                                "index 4 is out of bounds for dimension 1 with size 4"),
    "index_copy negative": (lambda t: _x(t).index_copy(1, t.tensor([-1, 0]), _x(t)[:, :2]), IndexError,
                            "index -1 is out of bounds"),
    "masked_scatter few": (lambda t: t.zeros(4).masked_scatter(t.tensor([True, False, True, True]), t.ones(2)),
                           RuntimeError, "Number of elements of source < number of ones in mask"),
    "masked_scatter dtypes": (lambda t: t.zeros(2).masked_scatter(t.tensor([True, False]), t.ones(2, dtype=t.long)),
                              RuntimeError, "expected self and source to have same dtypes"),
    "masked_scatter mask dtype": (lambda t: t.zeros(2).masked_scatter(t.tensor([1, 0]), t.ones(2)), RuntimeError,
                                  "only supports boolean masks"),
    "masked_scatter_ does not broadcast self": (
        lambda t: t.zeros(4).masked_scatter_(t.tensor([[True, False, True, False]] * 2), t.ones(8)), RuntimeError, ""),
    "masked_scatter shapes": (lambda t: t.zeros(2, 3).masked_scatter(t.tensor([False, False]), t.ones(6)),
                              RuntimeError, "must match"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(tcore, name):
    fn, kind, words = ERRORS[name]
    for lib in (torch, tcore):
        with pytest.raises(kind, match=words):
            fn(lib)


GRADS = {
    "index_copy": lambda t, x, s: x.index_copy(1, t.tensor([3, 0]), s[:, :2]),
    "index_copy repeated": lambda t, x, s: x.index_copy(1, t.tensor([1, 1]), s[:, :2]),
    "index_copy_ of a clone": lambda t, x, s: (x * 1).index_copy_(0, t.tensor([2, 0]), s[:2]),
    "masked_scatter": lambda t, x, s: x.masked_scatter(x > 5, s),
    "masked_scatter broadcast mask": lambda t, x, s: x.masked_scatter(t.tensor([True, False, False, True]), s),
    "masked_scatter broadcast self": lambda t, x, s: x[0].masked_scatter(x > 5, s),
    "masked_scatter_ of a clone": lambda t, x, s: (x * 1).masked_scatter_(t.tensor([True, False, False, True]), s),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_as_torch(tcore, name):
    def run(lib):
        x = _x(lib).requires_grad_()
        s = (lib.arange(12.0, dtype=lib.float64).reshape(3, 4) * 0.5 - 2).requires_grad_()
        y = GRADS[name](lib, x, s)
        (y * lib.arange(float(y.numel()), dtype=lib.float64).reshape(y.shape)).sum().backward()
        return x.grad.tolist(), s.grad.tolist()

    assert run(tcore) == run(torch)
