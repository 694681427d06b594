"""Samplers: the order in which a DataLoader visits indices."""
from __future__ import annotations

from ... import _C


class Sampler:
    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A new permutation each epoch, drawn from `generator` (else tcore's default one, so
    tcore.manual_seed makes it repeatable); with replacement, num_samples random indices."""

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None, generator=None) -> None:
        self.data_source, self.replacement, self.generator = data_source, replacement, generator
        self._num_samples = num_samples
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def _kw(self) -> dict:
        return {} if self.generator is None else {"generator": self.generator}

    def _whole_permutation(self) -> bool:
        """One permutation of the dataset per epoch (the DataLoader's shuffle=True)."""
        return not self.replacement and self.num_samples == len(self.data_source)

    def order(self):
        """This epoch's indices as an int64 tensor: the draws iterating makes. For a whole permutation
        only (other epochs are drawn lazily, as they may be huge)."""
        if not self._whole_permutation():
            raise ValueError("RandomSampler.order() is for one permutation of the whole dataset")
        return _C.randperm(len(self.data_source), **self._kw())

    def __iter__(self):
        """The indices, drawn as they are consumed (as torch's: num_samples may be far larger than
        what fits in memory): with replacement 32 at a time, else whole permutations then a part of one."""
        n = len(self.data_source)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from _C.randint(0, n, [32], **self._kw()).tolist()
            if self.num_samples % 32:
                yield from _C.randint(0, n, [self.num_samples % 32], **self._kw()).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _C.randperm(n, **self._kw()).tolist()
        if self.num_samples % n:
            yield from _C.randperm(n, **self._kw())[:self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None) -> None:
        self.indices, self.generator = list(indices), generator

    def __iter__(self):
        kw = {} if self.generator is None else {"generator": self.generator}
        return (self.indices[i] for i in _C.randperm(len(self.indices), **kw).tolist())

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probabilities proportional to weights (torch.multinomial's
    draw, with or without replacement)."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        from ..._tensor import tensor
        w = weights if isinstance(weights, _C.Tensor) else tensor(list(weights), dtype=_C.dtype.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights, self.num_samples, self.replacement, self.generator = w.double(), num_samples, replacement, generator

    def __iter__(self):
        kw = {} if self.generator is None else {"generator": self.generator}
        return iter(_C.multinomial(self.weights, self.num_samples, self.replacement, **kw).tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
