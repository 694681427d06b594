"""Python indexing of tensors, as PyTorch does it (`t[...]` and `t[...] = v`).

An index is split in two: the basic part (ints select, slices narrow, None and Python
bools add a dim, `...` stands for the dims not named) gives a view; the advanced part
(integer and bool tensors, lists, numpy arrays) is one call of the `index` operator on
that view, or `index_put_` to write. As in PyTorch, ints are applied as selections first,
so `x[0, :, [0, 1]]` has shape (3, 2) for x of shape (2, 3, 4).
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _C

_INDEX_TYPES = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                "(got {})")


def _is_sequence(obj) -> bool:
    return isinstance(obj, (list, tuple))


def _as_tuple(index) -> tuple:
    """PyTorch's rule for a non-tuple sequence: a list holding sequences, slices, None,
    `...` or tensors is a tuple of indices (numpy's legacy); otherwise it is one index."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32 and any(
            _is_sequence(i) or isinstance(i, (slice, _C.Tensor)) or i is None or i is Ellipsis for i in index):
        return tuple(index)
    return (index,)


def _index_tensor(obj) -> _C.Tensor:
    """A list, tuple or numpy array used as an index, as a tensor (ints: int64, bools and a uint8 array:
    a mask, as torch's)."""
    arr = np.asarray(obj)
    if arr.dtype == np.bool_ or (arr.dtype == np.uint8 and isinstance(obj, np.ndarray)):  # a uint8 array masks
        return _C.from_numpy(np.ascontiguousarray(arr))
    if arr.size == 0:
        return _C.from_numpy(np.zeros(arr.shape, dtype=np.int64))
    if arr.dtype.kind not in "iu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return _C.from_numpy(np.ascontiguousarray(arr.astype(np.int64)))


_SELECTING = frozenset({"int8", "int16", "int32", "int64"})


def _normalize(items: tuple) -> list:
    out = []
    for i in items:
        if isinstance(i, _C.Tensor) and i.ndim == 0 and i.dtype.name in _SELECTING:
            out.append(builtins.int(i.item()))  # torch's: a 0-dim integer tensor selects, as an int
        elif i is None or i is Ellipsis or isinstance(i, (slice, _C.Tensor, builtins.bool)):
            out.append(i)
        elif isinstance(i, np.bool_):
            out.append(builtins.bool(i))
        elif isinstance(i, (list, tuple, np.ndarray)):
            out.append(_index_tensor(i))
        elif isinstance(i, builtins.int) or hasattr(i, "__index__"):
            out.append(i.__index__())
        else:
            raise IndexError(_INDEX_TYPES.format(type(i).__name__))
    return out


def _consumed(i) -> int:
    """How many dims of the tensor an index item uses."""
    if i is None or i is Ellipsis or isinstance(i, builtins.bool):
        return 0
    if isinstance(i, _C.Tensor) and i.dtype in (_C.dtype.bool, _C.dtype.uint8):
        return i.ndim
    return 1


def _slice(t: _C.Tensor, dim: int, s: slice) -> _C.Tensor:
    step = 1 if s.step is None else s.step.__index__()
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start = None if s.start is None else s.start.__index__()
    stop = None if s.stop is None else s.stop.__index__()
    return _C.slice(t, dim, start, stop, step)


def _mask_of(flag) -> _C.Tensor:
    """A Python bool or a 0-dim bool tensor as a 1-element mask over a new dim of size 1."""
    if isinstance(flag, _C.Tensor):
        return flag.view([1])
    return _C.full([1], flag, dtype=_C.dtype.bool)


def split(self: _C.Tensor, index) -> tuple[_C.Tensor, list | None]:
    """(view, indices): `view` from the basic part of `index`; `indices` for the index
    operator (one entry per dim of the view, None for a dim kept whole), or None."""
    items = _normalize(_as_tuple(index))
    named = sum(_consumed(i) for i in items)
    if named > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    if Ellipsis in items:
        # torch's: each `...` passes over the dims no other item names (x[..., ...] is x[...]);
        # whole slices past the last dim change nothing and are dropped
        spread = []
        for i in items:
            spread.extend([slice(None)] * (self.ndim - named) if i is Ellipsis else [i])
        while sum(_consumed(i) for i in spread) > self.ndim and spread[-1] == slice(None):
            spread.pop()
        items = spread
    view, dim, entries, advanced = self, 0, [], False
    for i in items:
        if i is None:
            view = view.unsqueeze(dim)
            entries.append(None)
            dim += 1
        elif isinstance(i, builtins.bool) or (isinstance(i, _C.Tensor) and i.ndim == 0 and
                                              i.dtype in (_C.dtype.bool, _C.dtype.uint8)):
            view = view.unsqueeze(dim)
            entries.append(_mask_of(i))
            advanced = True
            dim += 1
        elif isinstance(i, slice):
            view = _slice(view, dim, i)
            entries.append(None)
            dim += 1
        elif isinstance(i, builtins.int):
            view = view.select(dim, i)
        else:  # an index tensor: a mask covers its dims, an integer tensor one
            if i.device != view.device:
                i = i.to(view.device)
            entries.append(i)
            advanced = True
            dim += _consumed(i)
    while entries and entries[-1] is None:
        entries.pop()
    return view, (entries if advanced else None)


def getitem(self: _C.Tensor, index) -> _C.Tensor:
    view, entries = split(self, index)
    if entries is not None:
        return _C.index(view, entries)
    if view is self:  # t[...] or t[()]: a new view of the same elements, as in PyTorch
        return _C.slice(self, 0) if self.ndim else self.view([])
    return view


def _value_tensor(value, like: _C.Tensor) -> _C.Tensor:
    if isinstance(value, _C.Tensor):
        if value.dtype != like.dtype or value.device != like.device:
            value = value.to(like.device, like.dtype)
        return value
    if isinstance(value, (builtins.bool, builtins.int, builtins.float)):
        return _number_tensor(value, like)
    if isinstance(value, (list, tuple, np.ndarray, np.generic)):
        from ._tensor import tensor
        return tensor(value).to(like.device, like.dtype)
    raise TypeError(f"can't assign a {type(value).__name__} to a tcore tensor")


def _number_tensor(value, like: _C.Tensor) -> _C.Tensor:
    """A Python number as a 0-dim tensor of like's dtype, as torch's setitem makes it (scalar_tensor:
    checked against the dtype's range, except that float16 and bfloat16 round beyond it to inf)."""
    return _C.scalar_tensor(value, dtype=like.dtype, device=like.device)


def _drop_leading_ones(value: _C.Tensor, ndim: int) -> _C.Tensor:
    """PyTorch lets a value have extra leading dims of size 1: t[0] = ones(1, 3)."""
    while value.ndim > ndim and value.shape[0] == 1:
        value = value.squeeze(0)
    return value


def setitem(self: _C.Tensor, index, value) -> None:
    view, entries = split(self, index)
    if entries is not None:
        _C.index_put_(view, entries, _value_tensor(value, view))
        return
    if isinstance(value, (builtins.bool, builtins.int, builtins.float)):
        if view.dtype in (_C.dtype.float16, _C.dtype.bfloat16):  # no overflow error (scalar_tensor's rule)
            view.copy_(_number_tensor(value, view))
        else:
            view.fill_(value)
    elif isinstance(value, _C.Tensor):  # copy_ converts the dtype and broadcasts
        view.copy_(_drop_leading_ones(value, view.ndim))
    else:
        view.copy_(_drop_leading_ones(_value_tensor(value, view), view.ndim))
