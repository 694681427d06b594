"""RemovableHandle: what register_*_hook returns (handle.remove() takes the hook out)."""
from __future__ import annotations

import itertools

_ids = itertools.count()


class RemovableHandle:
    def __init__(self, hooks: dict, *, extra: tuple = ()) -> None:
        self._hooks = hooks  # the dict only, never the module that owns it
        self._extra = extra  # sets or dicts that may hold the id too (hooks called with kwargs, ...)
        self.id = next(_ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)
        for store in self._extra:
            store.discard(self.id) if isinstance(store, set) else store.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
