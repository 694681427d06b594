"""torch.autograd.graph: hooks on what the graph saves for backward.

saved_tensors_hooks(pack_hook, unpack_hook): inside the block, every tensor a node saves for
backward (an output of the node detached) goes through pack_hook, whose result the node keeps
instead of the tensor; backward calls unpack_hook on it for the tensor back. The innermost block
applies; a hook's own operations save normally. save_on_cpu keeps saved tensors on the CPU;
disable_saved_tensors_hooks refuses such blocks (with its message) while it is active, and is
itself refused inside one (as torch's: hooks in force could not be switched off). The saving
is tcore's SavedVariable (csrc/autograd/Variable.cpp): a tensor given to a hook is not
version-checked (what the hook keeps is the hook's business, as in torch)."""
from __future__ import annotations

import threading

from .. import _C
from .._utilities import _ContextDecorator

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node"]

Node = getattr(_C, "Node", None)  # (None in a build without autograd)
# disabled: the message of the innermost disable_saved_tensors_hooks; depth: the blocks entered
_state = threading.local()


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) -> anything, unpack_hook(that) -> the tensor."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        message = getattr(_state, "disabled", None)
        if message is not None:
            raise RuntimeError(message)
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, *exc) -> None:
        _state.depth -= 1
        _C._pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and copied back to their device for backward."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(tensor):
            return tensor.device, tensor.cpu()

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks(_ContextDecorator):
    """Context manager (or decorator) under which saved_tensors_hooks raise error_message."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self):
        if getattr(_state, "depth", 0):
            raise RuntimeError(self.error_message)
        self._previous = getattr(_state, "disabled", None)
        _state.disabled = self.error_message
        return self

    def __exit__(self, *exc) -> None:
        _state.disabled = self._previous
