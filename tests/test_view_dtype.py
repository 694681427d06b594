"""Tensor.view(dtype): the same bytes seen as another dtype, as torch's: shapes, strides and
offsets when the element size changes, the values (numpy's view of the same bytes), aliasing and
version counter, torch's refusals, and no gradient."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]


def _bytes(lib):
    return lib.tensor([[1, 2, 3, 4, 5, 6, 7, 8], [0, 64, 128, 255, 17, 0, 0, 63]], dtype=lib.uint8)


@pytest.mark.parametrize("src", ["uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("dst", DTYPES)
def test_views_as_torch(tcore, src, dst):
    def run(lib):
        x = _bytes(lib).view(getattr(lib, src))
        y = x.view(getattr(lib, dst))
        if dst == "bool":  # only bytes 0 and 1 are bools: view a tensor of those
            x = (_bytes(lib) % 2).view(getattr(lib, src))
            y = x.view(lib.bool)
        values = y.view(getattr(lib, "uint8")) if dst in ("bfloat16", "float16") else y
        return (tuple(y.shape), y.stride(), y.storage_offset(), str(y.dtype).split(".")[-1],
                np.array(values.tolist()).tolist())

    got, want = run(tcore), run(torch)
    assert got[:4] == want[:4]
    np.testing.assert_array_equal(np.array(got[4], dtype=float), np.array(want[4], dtype=float))


GEOMETRY = {
    "offset slice up": lambda t: t.zeros(2, 8, dtype=t.int8)[1:].view(t.float64),
    "offset slice down": lambda t: t.zeros(4, 2, dtype=t.float32)[1:].view(t.int8),
    "rows of a wider tensor": lambda t: t.zeros(3, 8, dtype=t.int8)[:, :4].view(t.int32),
    "transposed same size": lambda t: t.zeros(3, 4).t().view(t.int32),
    "size-1 last dim": lambda t: t.zeros(4, 1).t().view(t.int8),
    "0-dim same size": lambda t: t.tensor(1.0).view(t.int32),
    "empty": lambda t: t.zeros(0, 4, dtype=t.int8).view(t.float32),
    "narrowed columns": lambda t: t.zeros(2, 6, dtype=t.int16)[:, 2:4].view(t.int32),
}


@pytest.mark.parametrize("name", sorted(GEOMETRY))
def test_geometry_as_torch(tcore, name):
    def run(lib):
        y = GEOMETRY[name](lib)
        return tuple(y.shape), y.stride(), y.storage_offset(), str(y.dtype).split(".")[-1]

    assert run(tcore) == run(torch)


def test_values_are_the_same_bytes(tcore):
    a = np.array([1.5, -2.0, np.inf, np.nan], dtype=np.float32)
    y = tcore.tensor(a).view(tcore.int32)
    assert y.tolist() == a.view(np.int32).tolist()
    z = tcore.tensor(a.view(np.int16)).view(tcore.float32)
    np.testing.assert_array_equal(np.array(z.tolist(), dtype=np.float32), a)
    h = tcore.tensor([1.0, -0.0, 65504.0], dtype=tcore.float16).view(tcore.int16)
    assert h.tolist() == np.array([1.0, -0.0, 65504.0], dtype=np.float16).view(np.int16).tolist()


def test_a_view_shares_memory_and_version(tcore):
    for lib in (tcore, torch):
        x = lib.zeros(2, 2)
        y = x.view(lib.int32)
        y[0, 1] = 1065353216  # the bits of 1.0f
        assert x.tolist() == [[0.0, 1.0], [0.0, 0.0]]
        assert y._version == x._version
        x.add_(1)
        assert y._version == x._version
        assert y[0, 0].item() == 1065353216


def test_no_gradient_flows(tcore):
    for lib in (tcore, torch):
        x = lib.ones(2, requires_grad=True)
        for dt in (lib.int32, lib.float32, lib.float64 if lib is torch else lib.float64):
            try:
                y = x.view(dt)
            except RuntimeError:
                continue
            assert not y.requires_grad
            assert y.grad_fn is None


ERRORS = {
    "0-dim different size": (lambda t: t.tensor(1.0).view(t.int8), "self.dim\\(\\) cannot be 0"),
    "last stride": (lambda t: t.zeros(3, 4).t().view(t.int8), "self.stride\\(-1\\) must be 1"),
    "last size": (lambda t: t.zeros(3, 3, dtype=t.int8).view(t.float32), "self.size\\(-1\\) must be divisible by 4"),
    "offset": (lambda t: t.zeros(8, dtype=t.int8)[1:5].view(t.float32),
               "self.storage_offset\\(\\) must be divisible by 4"),
    "other stride": (lambda t: t.zeros(3, 6, dtype=t.int8)[:, :4].view(t.float32),
                     "self.stride\\(0\\) must be divisible by 4"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(tcore, name):
    fn, words = ERRORS[name]
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match=words):
            fn(lib)


def test_view_of_sizes_still_works(tcore):
    x = tcore.arange(6.0)
    assert x.view(2, 3).shape == (2, 3)
    assert x.view(-1).shape == (6,)
    assert x.view([3, 2]).shape == (3, 2)
    assert x.view((2, -1)).shape == (2, 3)


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_a_write_through_a_dtype_view_survives_functionalize(tcore, remove):
    def fn(x):
        y = x.view(tcore.int16)  # float32 (2, 3) seen as int16 (2, 6)
        y[:, 1::2] += 1  # the high halves: each float grows by 2^-7 of its exponent's unit
        return x * 1

    eager_in, fun_in = tcore.ones(2, 3), tcore.ones(2, 3)
    eager = fn(eager_in)
    got = tcore.func.functionalize(fn, remove=remove)(fun_in)
    assert got.tolist() == eager.tolist() != tcore.ones(2, 3).tolist()
    assert fun_in.tolist() == eager_in.tolist()
