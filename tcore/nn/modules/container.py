"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
from __future__ import annotations

from collections import OrderedDict

from ... import Tensor
from ..parameter import Parameter
from .module import Module


def _insert(modules: dict, index: int, module: Module) -> None:
    """module at position index of the numbered modules, the later ones renumbered; written into
    the dict directly, as torch's (no registration hooks fire)."""
    items = list(modules.values())
    items.insert(index, module)
    modules.clear()
    modules.update((str(i), m) for i, m in enumerate(items))


class Sequential(Module):
    """Calls its modules in order; built from modules or one OrderedDict of named modules."""

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (OrderedDict, dict)):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def _index(self, idx: int) -> str:
        n = len(self._modules)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return list(self._modules)[idx % n]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._index(idx), module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._index(idx)]
        for k in keys:
            del self._modules[k]
        items = list(self._modules.values())  # renumber, as PyTorch does
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> Sequential:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        _insert(self._modules, index, module)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules whose parameters the owner sees; it has no forward."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, idx: int) -> str:
        n = len(self._modules)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[self._index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._index(idx), module)

    def __delitem__(self, idx) -> None:
        items = list(self._modules.values())
        del items[idx]
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __repr__(self) -> str:
        """torch's: a run of consecutive modules with one repr is shown once, as (i-j): n x ..."""
        runs: list[list] = []  # [first, last, repr]
        for i, module in enumerate(self):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        if not runs:
            return self._get_name() + "()"
        lines = [(f"({a}): " if a == b else f"({a}-{b}): {b - a + 1} x ") + text.replace("\n", "\n  ")
                 for a, b, text in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __iadd__(self, modules) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other) -> ModuleList:
        return ModuleList(list(self) + list(other))

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        if isinstance(modules, Module) and not isinstance(modules, (ModuleList, Sequential)):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        _insert(self._modules, index, module)


class ModuleDict(Module):
    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        for key, module in (modules.items() if hasattr(modules, "items") else modules):
            self[key] = module

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)


def _as_parameter(value):
    """A plain tensor held by a ParameterList/Dict becomes a Parameter, as torch's."""
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


def _describe(value) -> str:
    if isinstance(value, Tensor):
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        size = "x".join(str(n) for n in value.shape)
        device = f" ({value.device})" if value.device.type != "cpu" else ""
        return f"{kind} containing: [{value.dtype} of size {size}{device}]"
    return f"Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of parameters (plain tensors are made Parameters) that its owner registers."""

    def __init__(self, values=None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _index(self, idx: int) -> str:
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % self._size)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(self._size)[idx]])
        return getattr(self, self._index(idx))

    def __setitem__(self, idx: int, param) -> None:
        setattr(self, self._index(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(self._size))

    def __iadd__(self, parameters) -> ParameterList:
        return self.extend(parameters)

    def append(self, value) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values) -> ParameterList:
        if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({i}): {_describe(p)}" for i, p in enumerate(self))


class ParameterDict(Module):
    """A dict of parameters (plain tensors are made Parameters) that its owner registers, in
    insertion order."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, got {type(key).__name__}")
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self):
        return list(self._keys)

    def values(self):
        return [self[k] for k in self._keys]

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def update(self, parameters) -> None:
        for key, value in (parameters.items() if hasattr(parameters, "items") else parameters):
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p)}" for k, p in self.items())
