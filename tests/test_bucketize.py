"""searchsorted, bucketize and bincount against torch: values, dtypes, shapes, NaN and ties, sorter,
several rows of boundaries, and torch's errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

NAN = float("nan")
CASES = {
    "left": lambda t: t.searchsorted(t.tensor([1.0, 3, 5, 7, 9]), t.tensor([[3.0, 6, 9], [0, 10, 5]])),
    "right": lambda t: t.searchsorted(t.tensor([1.0, 3, 5, 7, 9]), t.tensor([3.0, 6, 9]), right=True),
    "side right": lambda t: t.searchsorted(t.tensor([1, 3, 3, 3, 9]), t.tensor([3]), side="right"),
    "side left": lambda t: t.searchsorted(t.tensor([1, 3, 3, 3, 9]), t.tensor([3]), side="left"),
    "scalar": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), 4),
    "scalar right": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), 3.0, right=True),
    "int32 out": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), t.tensor([2.0, 8]), out_int32=True),
    "rows": lambda t: t.searchsorted(t.tensor([[1, 3, 5], [2, 4, 6]]), t.tensor([[3, 0], [3, 7]])),
    "sorter": lambda t: t.searchsorted(t.tensor([5, 1, 3]), t.tensor([3, 4, 0, 6]), sorter=t.tensor([1, 2, 0])),
    "rows with sorter": lambda t: t.searchsorted(t.tensor([[5.0, 1, 3], [0, 2, 1]]), t.tensor([[3.0], [1.5]]),
                                                 sorter=t.tensor([[1, 2, 0], [0, 2, 1]]), right=True),
    "nan boundaries and values": lambda t: t.searchsorted(t.tensor([1.0, 2, NAN]), t.tensor([NAN, 2.0, 5.0])),
    "nan right": lambda t: t.searchsorted(t.tensor([1.0, NAN]), t.tensor([NAN, 0.5]), right=True),
    "int boundaries float values": lambda t: t.searchsorted(t.tensor([1, 3, 5]), t.tensor([1.5, 3.0])),
    "float64 values float32 boundaries": lambda t: t.searchsorted(t.tensor([0.1, 0.2]),
                                                                 t.tensor([0.1], dtype=t.float64)),
    "empty values": lambda t: t.searchsorted(t.tensor([1.0, 2]), t.tensor([])),
    "empty boundaries": lambda t: t.searchsorted(t.tensor([]), t.tensor([1.0, 2])),
    "0-dim values": lambda t: t.searchsorted(t.tensor([1.0, 2]), t.tensor(1.5)),
    "transposed values": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), t.arange(6.0).reshape(2, 3).t()),
    "bucketize": lambda t: t.bucketize(t.tensor([[3, 6, 9], [0, 10, 1]]), t.tensor([1, 3, 5, 7, 9])),
    "bucketize right int32": lambda t: t.bucketize(t.tensor([3, 6, 9]), t.tensor([1, 3, 5, 7, 9]), right=True,
                                                   out_int32=True),
    "bucketize scalar": lambda t: t.bucketize(4.5, t.tensor([1.0, 3, 5])),
    "bincount": lambda t: t.bincount(t.tensor([0, 1, 1, 3])),
    "bincount method": lambda t: t.tensor([4, 1, 1, 0], dtype=t.int32).bincount(),
    "bincount weights minlength": lambda t: t.bincount(t.tensor([0, 1, 1, 3]), weights=t.tensor([0.5, 1, 2, 3]),
                                                       minlength=6),
    "bincount float64 weights": lambda t: t.bincount(t.tensor([2, 2]), t.tensor([0.1, 0.2], dtype=t.float64)),
    "bincount int weights": lambda t: t.bincount(t.tensor([1, 2]), weights=t.tensor([1, 2], dtype=t.int32)),
    "bincount empty": lambda t: t.bincount(t.tensor([], dtype=t.long)),
    "bincount empty minlength": lambda t: t.bincount(t.tensor([], dtype=t.long), minlength=3),
    "bincount uint8": lambda t: t.bincount(t.tensor([255, 0], dtype=t.uint8)),
    "bincount strided": lambda t: t.bincount(t.arange(10)[::3]),
    "bincount float16 weights": lambda t: t.bincount(t.tensor([1, 1]), t.tensor([0.5, 0.25], dtype=t.float16)),
    "bincount empty with weights": lambda t: t.bincount(t.tensor([], dtype=t.long), t.ones(3), minlength=2),
    # a Python number takes the boundaries' dtype, as in any promotion
    "number in float32 boundaries": lambda t: t.bucketize(0.1, t.tensor([0.1, 0.2]), right=True),
    "number beyond int32": lambda t: t.searchsorted(t.tensor([1, 2, 3], dtype=t.int32), 2**40),
    "negative number uint8": lambda t: t.searchsorted(t.tensor([1, 2, 250], dtype=t.uint8), -1),
    "number rounding in float16": lambda t: t.searchsorted(t.tensor([65504.0], dtype=t.float16), 65519.0),
}
ERRORS = {
    "side and right": lambda t: t.searchsorted(t.tensor([1.0]), t.tensor([1.0]), side="left", right=True),
    "bad side": lambda t: t.searchsorted(t.tensor([1.0]), t.tensor([1.0]), side="mid"),
    "rows mismatch": lambda t: t.searchsorted(t.ones(2, 3), t.ones(3, 3)),
    "0-dim boundaries": lambda t: t.searchsorted(t.tensor(1.0), t.tensor([1.0])),
    "scalar with rows": lambda t: t.searchsorted(t.ones(2, 3), 1.0),
    "sorter dtype": lambda t: t.searchsorted(t.tensor([1.0, 2]), t.tensor([1.0]), sorter=t.tensor([0, 1]).int()),
    "sorter shape": lambda t: t.searchsorted(t.tensor([1.0, 2]), t.tensor([1.0]), sorter=t.tensor([0])),
    "sorter range": lambda t: t.searchsorted(t.tensor([1.0, 2]), t.tensor([1.0]), sorter=t.tensor([0, 2])),
    "bucketize 2-d boundaries": lambda t: t.bucketize(t.tensor([1.0]), t.ones(2, 2)),
    "bincount negative": lambda t: t.bincount(t.tensor([-1])),
    "bincount 2-d": lambda t: t.bincount(t.tensor([[1]])),
    "bincount float": lambda t: t.bincount(t.tensor([1.0])),
    "bincount weights length": lambda t: t.bincount(t.tensor([1]), weights=t.ones(2)),
    "bincount minlength": lambda t: t.bincount(t.tensor([1]), minlength=-1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_torch(tcore, name):
    def run(lib):
        r = CASES[name](lib)
        return np.array(r.tolist()), str(r.dtype).split(".")[-1], tuple(r.shape)

    (ev, ed, es), (gv, gd, gs) = run(torch), run(tcore)
    assert (gd, gs) == (ed, es)
    np.testing.assert_array_equal(gv, ev)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(tcore, name):
    def run(lib):
        try:
            ERRORS[name](lib)
        except (RuntimeError, NotImplementedError) as e:
            return type(e).__name__, str(e).split("\n")[0][:35]  # (torch names dtypes its own way after)
        return None

    assert run(tcore) == run(torch)


def test_random_sorted_against_numpy(tcore):
    rng = np.random.default_rng(0)
    b = np.sort(rng.integers(0, 50, 200)).astype(np.float32)
    v = rng.integers(-5, 55, (7, 30)).astype(np.float32)
    for side in ("left", "right"):
        got = tcore.searchsorted(tcore.from_numpy(b), tcore.from_numpy(v), side=side).numpy()
        np.testing.assert_array_equal(got, np.searchsorted(b, v, side=side))


def test_inputs_that_require_grad_are_allowed(tcore):
    """The results are integers, not differentiable; inputs that require grad are fine (they raised)."""
    b = tcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = tcore.tensor([2.5], requires_grad=True)
    assert tcore.searchsorted(b, v).tolist() == [2] and not tcore.searchsorted(b, 2.0).requires_grad
    assert tcore.bucketize(v, b).tolist() == [2]
    assert tcore.bincount(tcore.tensor([0, 2]), weights=v.expand(2)).tolist() == [2.5, 0.0, 2.5]
