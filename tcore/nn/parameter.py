"""nn.Parameter: a tensor that a Module registers as one of its parameters."""
from __future__ import annotations

from .. import _C

Tensor = _C.Tensor


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigning one to a Module attribute registers
    it, and it requires grad by default. Operations on it give plain Tensors, as in PyTorch."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = _C.empty([0])
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        obj = Tensor.__new__(cls)
        Tensor.__init__(obj, data.detach())
        obj.requires_grad_(requires_grad)
        return obj

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # __new__ did the work

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.detach().clone(), self.requires_grad)
        if self.grad is not None:
            result.grad = self.grad.clone()
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        raise TypeError("tcore tensors are not pickled; save them with tcore.save (safetensors)")



def is_parameter(obj) -> bool:
    return isinstance(obj, Parameter)
