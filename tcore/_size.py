"""tcore.Size, torch.Size's counterpart: what Tensor.shape and Tensor.size() return, a tuple of
ints with numel() and torch's repr; slices, sums and products of one are Sizes."""
from __future__ import annotations

import math
import operator


class Size(tuple):
    def __new__(cls, sizes=()):
        items = tuple(sizes)
        for i, s in enumerate(items):
            if not hasattr(s, "__index__"):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')")
        return super().__new__(cls, (operator.index(s) for s in items))

    def numel(self) -> int:
        """The number of elements of a tensor of this shape."""
        return math.prod(self)

    def __repr__(self) -> str:
        return f"tcore.Size({list(self)})"

    def __getitem__(self, key):
        item = super().__getitem__(key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __reduce__(self):
        return Size, (tuple(self),)
