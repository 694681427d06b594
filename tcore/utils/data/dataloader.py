"""DataLoader: batches of a dataset (default_collate stacks samples), shuffled through a
Generator, drop_last; in the calling process (num_workers is accepted, no worker
processes are started)."""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from ... import _C
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

Tensor = _C.Tensor


def default_collate(batch):
    """A list of samples -> one batch: tensors stacked, numbers and numpy arrays made tensors,
    tuples/lists/dicts collated field by field, strings kept as lists."""
    first = batch[0]
    if isinstance(first, Tensor):
        return _C.stack(list(batch), 0)
    if isinstance(first, np.ndarray):
        return _C.stack([_C.from_numpy(np.ascontiguousarray(b)) for b in batch], 0)
    if isinstance(first, (bool, np.bool_)):
        return _C._from_private_array(np.array(batch, dtype=np.bool_))
    if isinstance(first, numbers.Integral):
        return _C._from_private_array(np.array(batch, dtype=np.int64))
    if isinstance(first, numbers.Real):
        return _C._from_private_array(np.array(batch, dtype=np.float64))
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, Mapping):
        return {k: default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(first, Sequence):
        if any(len(b) != len(first) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        out = [default_collate(list(s)) for s in zip(*batch)]
        return tuple(out) if isinstance(first, tuple) else out
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(first).__name__}")


class DataLoader:
    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor=None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if num_workers > 0:
            warnings.warn("tcore's DataLoader loads in the calling process: num_workers is ignored", UserWarning,
                          stacklevel=2)
        if isinstance(dataset, IterableDataset):
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, but got "
                                     f"{name}={value}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_size is not None or batch_sampler is not None else (lambda x: x))

    def _fast_batches(self):
        """TensorDataset with the default collate: each batch is one index of every tensor
        (the same values as stacking the samples, without a Python call per sample)."""
        tensors = self.dataset.tensors
        order = self.sampler.order() if isinstance(self.sampler, RandomSampler) else _C.arange(len(self.dataset))
        bs, n = self.batch_size, order.shape[0]
        stop = n - n % bs if self.drop_last else n
        for start in range(0, stop, bs):
            idx = order[start:start + bs]
            yield tuple(t[idx] for t in tensors)

    def _stream_batches(self):
        """An IterableDataset's samples as they come, batch_size at a time (no sampler)."""
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            yield from self._stream_batches()
            return
        fast = (isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate
                and isinstance(self.batch_sampler, BatchSampler) and self.batch_sampler.sampler is self.sampler
                and isinstance(self.sampler, (SequentialSampler, RandomSampler)))
        if fast:
            yield from self._fast_batches()
            return
        if self.batch_sampler is None:
            for idx in self.sampler:
                yield self.collate_fn(self.dataset[idx])
            return
        for indices in self.batch_sampler:
            getitems = getattr(self.dataset, "__getitems__", None)
            samples = getitems(indices) if getitems is not None else [self.dataset[i] for i in indices]
            yield self.collate_fn(samples)

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # (a TypeError when the stream has no length, as torch's)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)


def get_worker_info():
    """None: tcore's DataLoader loads in the calling process (torch's answer outside a worker)."""
    return None
