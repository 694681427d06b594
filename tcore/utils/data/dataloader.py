"""DataLoader: batches of a dataset (default_collate stacks samples), shuffled through a
Generator, drop_last; in the calling process (num_workers is accepted, no worker
processes are started)."""
from __future__ import annotations

import copy
import re
import warnings
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence

import numpy as np

from ... import _C
from ..._tensor import tensor as _tensor
from ..._utilities import as_tensor as _numpy_as_tensor
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

Tensor = _C.Tensor


_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
_NUMPY_STR_OR_OBJECT = re.compile("[SaUO]")  # numpy dtype codes of strings and objects


def _is_numpy(obj) -> bool:
    """A numpy array or scalar other than a string (torch's test: the type's module is numpy)."""
    return type(obj).__module__ == "numpy" and type(obj).__name__ not in ("str_", "string_", "bytes_")


def _as_tensor(data):
    """A numpy array or scalar (or a list of scalars) as a tensor of its dtype, shape kept (0-d too)."""
    return _numpy_as_tensor(np.array(data) if isinstance(data, list) else data)


def _rebuild(sample, items: list):
    """items (one per field of a list-like or dict-like sample, in order) in sample's own type where it
    can hold them, as torch's collate: a mutable one copied and filled, another rebuilt from them, else
    a plain list/dict."""
    keys = list(sample) if isinstance(sample, Mapping) else range(len(items))
    try:
        if isinstance(sample, (MutableMapping, MutableSequence)):
            clone = copy.copy(sample)
            for k, v in zip(keys, items):
                clone[k] = v
            return clone
        return type(sample)(dict(zip(keys, items)) if isinstance(sample, Mapping) else items)
    except TypeError:
        return dict(zip(keys, items)) if isinstance(sample, Mapping) else items


def default_collate(batch):
    """A list of samples -> one batch, as torch's default_collate: tensors and numpy arrays stacked,
    numbers made a tensor (ints by inference, floats float64, numpy scalars keep their dtype), strings
    and bytes kept as they come, dicts/lists/namedtuples collated field by field in their own type
    (tuples become lists)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _C.stack(list(batch), 0)
    if _is_numpy(elem):
        if isinstance(elem, np.ndarray) and _NUMPY_STR_OR_OBJECT.search(elem.dtype.str) is not None:
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        if isinstance(elem, np.ndarray):
            return default_collate([_as_tensor(b) for b in batch])
        return _as_tensor(list(batch))  # numpy scalars: their dtype, as torch.as_tensor
    if isinstance(elem, float):
        return _tensor(list(batch), dtype=_C.dtype.float64)
    if isinstance(elem, int):  # (bool too: torch.tensor infers the dtype from all the values)
        return _tensor(list(batch))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return _rebuild(elem, [default_collate([d[k] for d in batch]) for k in elem])
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        items = [default_collate(s) for s in zip(*batch)]
        return items if isinstance(elem, tuple) else _rebuild(elem, items)
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_convert(data):
    """One sample without batching (batch_size=None), as torch's default_convert: numpy arrays and
    scalars made tensors, containers converted element by element (tuples become lists)."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if isinstance(data, np.ndarray) and _NUMPY_STR_OR_OBJECT.search(data.dtype.str) is not None:
            return data
        return _as_tensor(data)
    if isinstance(data, Mapping):
        return _rebuild(data, [default_convert(data[k]) for k in data])
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


class DataLoader:
    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor=None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
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
            default_collate if batch_size is not None or batch_sampler is not None else default_convert)

    def _fast_batches(self):
        """TensorDataset with the default collate: each batch is one index of every tensor
        (the same values as stacking the samples, without a Python call per sample)."""
        tensors = self.dataset.tensors
        order = self.sampler.order() if isinstance(self.sampler, RandomSampler) else _C.arange(len(self.dataset))
        bs, n = self.batch_size, order.shape[0]
        stop = n - n % bs if self.drop_last else n
        for start in range(0, stop, bs):
            idx = order[start:start + bs]
            yield [t[idx] for t in tensors]  # (a list, as default_collate makes of tuple samples)

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
                and (isinstance(self.sampler, SequentialSampler)
                     or isinstance(self.sampler, RandomSampler) and self.sampler._whole_permutation()))
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
