"""torch.nn.utils.parametrize's counterpart: a parameter or buffer of a module replaced by a
function of unconstrained tensors. `register_parametrization(module, "weight", P)` moves the
tensor to `module.parametrizations.weight.original` (or `original0`, `original1`, ... when P's
right_inverse returns several), swaps the module's class for a subclass `Parametrized<Class>` with
a property `weight` that computes P(original) on each read (once per `cached()` block) and whose
setter runs the right_inverses; state_dict keys, checks and messages are torch's."""
from __future__ import annotations

import collections.abc
import copy
from contextlib import contextmanager

from ... import _C
from ...autograd import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

Tensor = _C.Tensor

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized", "remove_parametrizations",
           "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache_depth = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached():
    """Within the block each parametrized tensor is computed once, at its first read."""
    global _cache_depth, _cache
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_in_place(dest: Tensor, src: Tensor) -> None:
    """dest now holds src's values (and shape), the same object (an optimizer's reference stays good)."""
    with no_grad():
        dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor (module.parametrizations[name]) and its unconstrained
    original(s); calling it gives the parametrized tensor. Made by register_parametrization."""

    def __init__(self, modules, original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = tuple(original.shape), original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            _set_in_place(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(part).__name__}.")
                part = Parameter(part, original.requires_grad) if isinstance(original, Parameter) \
                    else part.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", part)
        if not self.unsafe:
            value = self()
            if not isinstance(value, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
            _check_same(value, dtype, shape, "Registering a parametrization may not change the {what} of the "
                        "tensor, unless `unsafe` flag is enabled.", "unparametrized {what}", "parametrized {what}")

    def right_inverse(self, value: Tensor) -> None:
        """Sets the original(s) so that the parametrization gives `value`: the right_inverses
        in the reverse order of registration."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _set_in_place(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for i, part in enumerate(value):
                original = getattr(self, f"original{i}")
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors or reference-type opaques. "
                                     f"Got element {i} of type {type(part).__name__}.")
                if original.dtype != part.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {part.dtype} while "
                                     f"`original{i}` has dtype {original.dtype}")
                _set_in_place(original, part)

    def forward(self) -> Tensor:
        layers = list(self)
        if self.is_tensor:
            x = layers[0](self.original)
        else:
            x = layers[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for layer in layers[1:]:
            x = layer(x)
        return x


def _size(shape) -> str:
    return str(tuple(int(s) for s in shape))


def _check_same(value: Tensor, dtype, shape, opening: str, before: str, after: str) -> None:
    """value must have this dtype and shape: torch's messages, `opening` ("... the {what} of the
    tensor"), then the two labelled values."""
    if value.dtype != dtype:
        raise ValueError(opening.format(what="dtype") + f"\n{before.format(what='dtype')}: {dtype}\n"
                         f"{after.format(what='dtype')}: {value.dtype}")
    if tuple(value.shape) != tuple(shape):
        raise ValueError(opening.format(what="shape") + f"\n{before.format(what='shape')}: {_size(shape)}\n"
                         f"{after.format(what='shape')}: {_size(value.shape)}")


def _inject_new_class(module: Module) -> None:
    """module's class becomes a subclass of its own, Parametrized<Class>, to hold the properties."""
    cls = module.__class__

    def getstate(self):
        raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                           "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                           "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    def deepcopy(self, memo):  # (a copy of its state: pickling is refused above)
        if id(self) in memo:
            return memo[id(self)]
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        return replica

    extra = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        extra["__deepcopy__"] = deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), extra)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """module.<tensor_name> becomes parametrization(original): the first registration moves
    the tensor into module.parametrizations[tensor_name]; a later one chains after it. The
    parametrization takes the module's training mode. Unless unsafe, it must keep the tensor's
    shape and dtype."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            value = parametrization(current)
            if not isinstance(value, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
            _check_same(value, current.dtype, current.shape, "Registering a parametrization may not change the "
                        "{what} of the tensor, unless the `unsafe` flag is enabled.", f"module.{tensor_name}.{{what}}",
                        f"parametrization(module.{tensor_name}).{{what}}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    back = parametrization.right_inverse(value)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(back, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                                         f"{type(back).__name__}")
                    _check_same(back, current.dtype, current.shape, "The tensor returned by "
                                "parametrization.right_inverse must have the same {what} as module." + tensor_name +
                                ", unless the `unsafe` flag is enabled.", f"module.{tensor_name}.{{what}}",
                                "returned {what}")
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
                         f"'{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """The tensor back as a plain parameter or buffer: with its current parametrized value
    (leave_parametrized), else its original; the module's own class again once nothing is
    parametrized."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_in_place(original, value)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        value = getattr(module, tensor_name)
        original = Parameter(value.detach()) if value.requires_grad else value
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrization (its own class when it has none)."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """from_module's parametrizations (of tensor_name, or all) registered on to_module too,
    their originals copied over (shared values, new tensors)."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    if not all(hasattr(from_module.parametrizations, n) for n in names):
        raise AssertionError(f"'from_module' has no parametrization for some of {names}")
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in from_module.parametrizations[name]:
            register_parametrization(to_module, name, parametrization)
        source, target = from_module.parametrizations[name], to_module.parametrizations[name]
        if source.is_tensor:
            target.original = source.original
        else:
            for i in range(source.ntensors):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
    return to_module
