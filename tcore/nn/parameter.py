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


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (a lazy module's, until its first
    forward): no data, no shape; materialize(shape) gives it both."""

    cls_to_become: type

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Storage for `shape` (uninitialized values, as torch.empty), of this tensor's device and
        dtype unless given; the object becomes a plain Parameter (the same object)."""
        self.data = _C.empty(list(shape), device=device or self.device, dtype=dtype or self.dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
                           "in `load_state_dict` when trying to load an uninitialized parameter into an initialized "
                           "one. Call `forward` to initialize the parameters before accessing their attributes.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of a lazy module before its first forward."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return Parameter.__new__(cls, _C.empty([0], device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass

    def __deepcopy__(self, memo: dict):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module before its first forward (the module replaces it by a plain
    tensor when it learns its shape)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None):
        obj = Tensor.__new__(cls)
        Tensor.__init__(obj, _C.empty([0], device=device, dtype=dtype))
        obj.requires_grad_(requires_grad)
        return obj

    def __init__(self, requires_grad: bool = False, device=None, dtype=None) -> None:
        pass

    def materialize(self, shape, device=None, dtype=None) -> None:
        raise RuntimeError("tcore: an UninitializedBuffer is replaced by its module (it cannot become a plain Tensor "
                           "in place); call the module's forward to initialize it")


def is_lazy(x) -> bool:
    """Whether x is an uninitialized parameter or buffer."""
    return isinstance(x, UninitializedTensorMixin)
