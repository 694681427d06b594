"""tcore.utils.data: Dataset/TensorDataset/Subset/ConcatDataset/random_split, DataLoader
batching, shuffling through a Generator (repeatable, a new order each epoch), drop_last,
default_collate of tuples, dicts, numbers and numpy arrays, custom collate and samplers."""
from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def data(tcore):
    import tcore.utils.data as data
    return data


def _dataset(tcore, data, n=10):
    x = tcore.arange(n * 2).view(n, 2).float()
    y = tcore.arange(n)
    return data.TensorDataset(x, y)


def test_tensor_dataset(tcore, data):
    ds = _dataset(tcore, data)
    assert len(ds) == 10
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 3
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        data.TensorDataset(tcore.ones(3), tcore.ones(4))


@pytest.mark.parametrize("drop_last", [False, True])
def test_sequential_batches(tcore, data, drop_last):
    ds = _dataset(tcore, data)
    loader = data.DataLoader(ds, batch_size=4, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(batches) == (2 if drop_last else 3)
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7]] + ([] if drop_last else [[8, 9]])
    assert batches[0][0].shape == (4, 2) and batches[0][0].dtype == tcore.float32


def test_shuffle_with_a_generator(tcore, data):
    ds = _dataset(tcore, data, 50)

    def epoch(loader):
        return [i for _, y in loader for i in y.tolist()]

    g1 = tcore.Generator().manual_seed(7)
    first = epoch(data.DataLoader(ds, batch_size=8, shuffle=True, generator=g1))
    assert sorted(first) == list(range(50)) and first != list(range(50))
    again = epoch(data.DataLoader(ds, batch_size=8, shuffle=True, generator=tcore.Generator().manual_seed(7)))
    assert again == first  # the same seed, the same order
    loader = data.DataLoader(ds, batch_size=8, shuffle=True, generator=tcore.Generator().manual_seed(7))
    assert epoch(loader) == first and epoch(loader) != first  # each epoch draws a new order
    tcore.manual_seed(3)
    a = epoch(data.DataLoader(ds, batch_size=8, shuffle=True))
    tcore.manual_seed(3)
    assert epoch(data.DataLoader(ds, batch_size=8, shuffle=True)) == a  # default generator: manual_seed


class Squares:
    """A user dataset returning (dict, number) samples."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": np.array([i, i * i], dtype=np.float32), "name": f"s{i}"}, i * 0.5


def test_default_collate_of_structures(tcore, data):
    loader = data.DataLoader(Squares(5), batch_size=2, shuffle=False)
    (features, target), *_ = list(loader)
    assert features["x"].tolist() == [[0.0, 0.0], [1.0, 1.0]] and features["name"] == ["s0", "s1"]
    assert target.dtype == tcore.float64 and target.tolist() == [0.0, 0.5]
    assert data.default_collate([1, 2]).dtype == tcore.int64
    assert data.default_collate([True, False]).dtype == tcore.bool
    batch = data.default_collate([(tcore.ones(2), 1), (tcore.zeros(2), 0)])
    assert isinstance(batch, list) and batch[0].shape == (2, 2)
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        data.default_collate([object()])


def test_custom_collate_sampler_and_no_batching(tcore, data):
    ds = _dataset(tcore, data, 6)
    loader = data.DataLoader(ds, batch_size=3, collate_fn=lambda samples: len(samples))
    assert list(loader) == [3, 3]
    sampler = data.SubsetRandomSampler([0, 2, 4], generator=tcore.Generator().manual_seed(0))
    got = sorted(i for _, y in data.DataLoader(ds, batch_size=2, sampler=sampler) for i in y.tolist())
    assert got == [0, 2, 4]
    single = list(data.DataLoader(ds, batch_size=None))
    assert len(single) == 6 and single[0][1].item() == 0
    bs = data.BatchSampler(data.SequentialSampler(ds), batch_size=4, drop_last=False)
    assert [y.tolist() for _, y in data.DataLoader(ds, batch_sampler=bs)] == [[0, 1, 2, 3], [4, 5]]
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        data.DataLoader(ds, shuffle=True, sampler=data.SequentialSampler(ds))
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        data.DataLoader(ds, batch_size=0)
    with pytest.warns(UserWarning, match="num_workers is ignored"):
        data.DataLoader(ds, num_workers=2)


def test_subset_concat_random_split(tcore, data):
    ds = _dataset(tcore, data, 10)
    sub = data.Subset(ds, [9, 0])
    assert len(sub) == 2 and sub[0][1].item() == 9
    both = ds + sub
    assert len(both) == 12 and both[10][1].item() == 9 and both[-1][1].item() == 0
    a, b = data.random_split(ds, [7, 3], generator=tcore.Generator().manual_seed(1))
    assert len(a) == 7 and len(b) == 3 and sorted(a.indices + b.indices) == list(range(10))
    c, d = data.random_split(ds, [0.5, 0.5])
    assert len(c) == len(d) == 5
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        data.random_split(ds, [3, 3])


def test_fast_path_equals_per_sample_collate(tcore, data):
    """The TensorDataset shortcut gives exactly what stacking the samples gives."""
    ds = _dataset(tcore, data, 23)
    fast = list(data.DataLoader(ds, batch_size=5, shuffle=True, generator=tcore.Generator().manual_seed(4)))
    slow = list(data.DataLoader(ds, batch_size=5, shuffle=True, generator=tcore.Generator().manual_seed(4),
                                collate_fn=lambda s: data.default_collate(s)))
    assert len(fast) == len(slow) == 5
    for (fx, fy), (sx, sy) in zip(fast, slow):
        assert fx.tolist() == sx.tolist() and fy.tolist() == sy.tolist()


def test_iterable_datasets_and_weighted_sampler_as_torch(tcore):
    """(a stream batched as it comes, chained; torch's option errors; the weighted sampler's
    frequencies and errors)"""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, tcore):
        data = lib.utils.data

        class Stream(data.IterableDataset):
            def __init__(self, n, start=0):
                self.n, self.start = n, start

            def __iter__(self):
                return iter([lib.tensor([float(self.start + i)]) for i in range(self.n)])

            def __len__(self):
                return self.n

        loader = data.DataLoader(Stream(5) + Stream(2, 10), batch_size=3)
        batches = [b.flatten().tolist() for b in loader]
        dropped = [b.flatten().tolist() for b in data.DataLoader(Stream(5), batch_size=2, drop_last=True)]
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected unspecified shuffle option"):
            data.DataLoader(Stream(3), shuffle=True)
        with pytest.raises(ValueError, match="weights should be a 1d sequence"):
            data.WeightedRandomSampler(lib.ones(2, 2), 2)
        with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
            data.WeightedRandomSampler([1.0], 0)
        lib.manual_seed(0)
        draws = list(data.WeightedRandomSampler([0.1, 0.0, 5.0, 1.0], 4000))
        counts = [draws.count(i) / 4000 for i in range(4)]
        unique = sorted(data.WeightedRandomSampler([1.0, 2.0, 3.0], 3, replacement=False))
        results.append((batches, len(loader), dropped, unique, data.get_worker_info()))
        np.testing.assert_allclose(counts, [0.1 / 6.1, 0.0, 5.0 / 6.1, 1.0 / 6.1], atol=0.03)
    assert results[1] == results[0]
