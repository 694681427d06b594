"""Tensor methods and attributes torch has that are compositions of tcore's operators:
is_cpu, itemsize, nbytes, layout, is_complex, is_signed, get_device, type, hardshrink, sum_to_size,
new_empty_strided, narrow_copy, unsafe_chunk / unsafe_split / unsafe_split_with_sizes,
fill_diagonal_, put / put_ and index_reduce / index_reduce_, with torch's results
and errors (installed on tcore.Tensor by tcore/_tensor.py)."""
from __future__ import annotations

from . import _C

Tensor = _C.Tensor
_UNSIGNED = ("uint8", "uint16", "uint32", "uint64", "bool")


def _sum_to_size(self: Tensor, *size) -> Tensor:
    """self summed over the dims `size` broadcasts to self's shape (kept as 1 where size has 1)."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else tuple(size)
    if not _expandable(shape, tuple(self.shape)):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(self.shape)}}}.")
    lead = self.ndim - len(shape)
    out = self.sum(list(range(lead))) if lead else self
    ones = [d for d, n in enumerate(shape) if n == 1 and out.shape[d] != 1]
    return out.sum(ones, keepdim=True) if ones else out


def _expandable(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(shape[::-1], target[::-1]))


def _fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """The main diagonal (i, i, ..., i) set to fill_value; a tall matrix with wrap continues it
    every (columns + 1) rows below, as torch's."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    height, width = self.shape[0], self.shape[1]
    size = min(self.shape)
    step = sum(self.stride())
    self.as_strided([size], [step]).fill_(fill_value)
    if wrap and self.ndim == 2 and height > width + 1:
        rest = (self.numel() + width) // (width + 1) - size
        self.as_strided([rest], [step], self.storage_offset() + self.stride(0) * (width + 1)).fill_(fill_value)
    return self


def _put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """self's elements at the flat (row-major) positions `index` set to (or, accumulate, added
    with) source's, in order; negative positions count from the end."""
    if index.dtype != _C.dtype.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {str(index.dtype).split('.')[-1]}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {self.dtype} and source.dtype = {source.dtype}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    flat = self.view(-1) if self.is_contiguous() else self.reshape(-1).clone()
    flat.index_put_((index.reshape(-1),), source.reshape(-1), accumulate)
    if not self.is_contiguous():
        self.copy_(flat.view(list(self.shape)))
    return self


def _index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str,
                   include_self: bool = True) -> Tensor:
    """self's slices along dim at index[i] reduced ("prod", "mean", "amax", "amin") with source's
    slice i: scatter_reduce with the index spread over source's other dims."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.ndim > 1:
        raise RuntimeError("index_reduce_(): Index is supposed to be a vector")
    dim = dim % max(self.ndim, 1)
    shape = [1] * source.ndim
    shape[dim] = index.numel()
    spread = index.reshape(shape).expand(list(source.shape))
    return self.scatter_reduce_(dim, spread, source, reduce, include_self=include_self)


_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _type(self: Tensor, dtype=None, non_blocking: bool = False, **kwargs):
    """x.type(): the legacy type name ('tcore.FloatTensor', 'tcore.cuda.FloatTensor'); x.type(d):
    x as dtype d (a dtype, or a name such as 'torch.DoubleTensor'), self when it already is."""
    if dtype is None:
        name = _TYPE_NAMES.get(str(self.dtype).split(".")[-1], str(self.dtype).split(".")[-1])
        return f"tcore.{'cuda.' if self.device.type == 'cuda' else ''}{name}Tensor"
    if isinstance(dtype, str):
        parts = dtype.split(".")
        by_name = {v + "Tensor": k for k, v in _TYPE_NAMES.items()}
        if len(parts) < 2 or parts[0] not in ("torch", "tcore") or parts[-1] not in by_name or \
                parts[1:-1] not in ([], ["cuda"]):
            raise ValueError(f"invalid type: '{dtype}'")
        target = getattr(_C.dtype, by_name[parts[-1]])
        if (parts[1:-1] == ["cuda"]) != (self.device.type == "cuda"):
            return self.to(device="cuda" if parts[1:-1] == ["cuda"] else "cpu", dtype=target)
        dtype = target
    return self.to(dtype, non_blocking=non_blocking)


def install(T) -> None:
    """The methods above, and the attributes, on tcore.Tensor (T)."""
    T.is_cpu = property(lambda self: self.device.type == "cpu")
    T.itemsize = property(lambda self: self.element_size())
    T.nbytes = property(lambda self: self.numel() * self.element_size())
    T.layout = property(lambda self: _C.layout.strided)
    T.is_complex = lambda self: False  # (tcore has no complex dtypes)
    T.is_signed = lambda self: str(self.dtype).split(".")[-1] not in _UNSIGNED
    T.get_device = lambda self: -1 if self.device.type == "cpu" else (self.device.index or 0)
    T.hardshrink = lambda self, lambd=0.5: _functional().hardshrink(self, lambd)
    T.sum_to_size = _sum_to_size
    T.type = _type
    T.new_empty_strided = lambda self, size, stride, *, dtype=None, device=None, requires_grad=False, **_: \
        _C.empty_strided(list(size), list(stride), dtype=dtype or self.dtype,
                         device=device or self.device).requires_grad_(requires_grad)
    T.narrow_copy = lambda self, dim, start, length: self.narrow(dim, start, length).clone()
    T.unsafe_chunk = lambda self, chunks, dim=0: self.chunk(chunks, dim)
    T.unsafe_split = lambda self, split_size, dim=0: self.split(split_size, dim)
    T.unsafe_split_with_sizes = lambda self, split_sizes, dim=0: self.split_with_sizes(split_sizes, dim)
    T.fill_diagonal_ = _fill_diagonal_
    T.put_ = _put_
    T.put = lambda self, index, source, accumulate=False: _put_(self.clone(), index, source, accumulate)
    T.index_reduce_ = _index_reduce_
    T.index_reduce = lambda self, dim, index, source, reduce, *, include_self=True: \
        _index_reduce_(self.clone(), dim, index, source, reduce, include_self)


def _functional():
    from .nn import functional  # (tcore.nn imports after the Tensor methods are installed)
    return functional
