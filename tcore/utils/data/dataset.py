"""Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, ChainDataset and random_split,
as torch.utils.data."""
from __future__ import annotations

import bisect
import math
import warnings

from ... import _C

Tensor = _C.Tensor


class Dataset:
    """A map-style dataset: __getitem__(index) -> sample, and usually __len__."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: __iter__ yields them (a DataLoader batches them as they come)."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other."""

    def __init__(self, datasets) -> None:
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dim."""

    def __init__(self, *tensors: Tensor) -> None:
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset takes tensors, got {type(t).__name__}")
        if any(t.size(0) != tensors[0].size(0) for t in tensors):  # (a 0-d tensor: size(0)'s IndexError)
            raise ValueError("Size mismatch between tensors")  # (torch's is an AssertionError)
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    def __init__(self, dataset: Dataset, indices) -> None:
        self.dataset, self.indices = dataset, indices  # (kept as given, as torch's)

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if which == 0 else self.cumulative_sizes[which - 1]
        return self.datasets[which][idx - start]


def random_split(dataset: Dataset, lengths, generator=None) -> list[Subset]:
    """Subsets of the given lengths (or fractions summing to 1), over a random permutation."""
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = (_C.randperm(n, generator=generator) if generator is not None else _C.randperm(n)).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out
