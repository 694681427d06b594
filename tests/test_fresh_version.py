"""A fresh result's version counter starts at 0, as torch's: the registrations of functional
operators whose returns alias nothing put back what their kernels' writes counted
(tcore/core/FreshResult.h); views, in-place and out= calls still count every write, and what
autograd saved still sees a later write."""
import pytest

torch = pytest.importorskip("torch")


def programs(lib):
    x = lib.ones(3, 2)
    F = lib.nn.functional
    return {
        "randn": lambda: lib.randn(3), "rand": lambda: lib.rand(3), "zeros": lambda: lib.zeros(2),
        "full": lambda: lib.full((2,), 3.0), "ones_like": lambda: lib.ones_like(x), "arange": lambda: lib.arange(3),
        "clone": lambda: x.clone(), "cat": lambda: lib.cat([x, x]), "sum": lambda: x.sum(), "mean": lambda: x.mean(0),
        "to": lambda: x.to(lib.float64), "add": lambda: x + 1, "mm": lambda: x @ x.t(), "exp": lambda: x.exp(),
        "where": lambda: lib.where(x > 0, x, x), "relu": lambda: lib.relu(x), "linear": lambda: F.linear(x, x),
        "sort": lambda: x.sort()[0], "index": lambda: x[[0, 1]], "nonzero": lambda: x.nonzero(),
        "softmax": lambda: lib.softmax(x, 1), "half": lambda: x.half(), "max": lambda: x.max(1)[0],
    }


def test_fresh_results_start_at_version_0(tcore):
    ours = {k: f()._version for k, f in programs(tcore).items()}
    theirs = {k: f()._version for k, f in programs(torch).items()}
    assert ours == theirs


@pytest.mark.parametrize("lib_name", ["tcore", "torch"])
def test_writes_still_count(tcore, lib_name):
    lib = tcore if lib_name == "tcore" else torch
    x = lib.ones(4)
    y = x * 2
    assert y._version == 0
    y.add_(1)
    assert y._version == 1
    v = y[:2]
    assert v._version == 1  # a view shares its base's counter
    v.mul_(2)
    assert (y._version, v._version) == (2, 2)
    out = lib.empty(4)
    lib.add(x, x, out=out)
    assert out._version == 1


def test_a_saved_result_still_sees_a_write(tcore):
    a = tcore.ones(3, requires_grad=True)
    b = a.exp()  # saves its result at version 0
    assert b._version == 0
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()
    c = a.exp()
    c.sum().backward()
    assert a.grad is not None
