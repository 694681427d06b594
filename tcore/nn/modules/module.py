"""nn.Module: parameters, buffers and submodules registered by attribute assignment, as in
PyTorch; train/eval, to(), state_dict/load_state_dict, forward and backward hooks and pre-hooks,
and torch's hooks common to all modules (register_module_forward_hook, ..., the registration
hooks), which run before each module's own."""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

from ... import _C
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter, is_lazy

Tensor = _C.Tensor

__all__ = [
    "register_module_forward_pre_hook", "register_module_forward_hook", "register_module_full_backward_pre_hook",
    "register_module_backward_hook", "register_module_full_backward_hook", "register_module_buffer_registration_hook",
    "register_module_module_registration_hook", "register_module_parameter_registration_hook", "Module",
]

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])

# The hooks common to all modules (torch's globals of the same names; for debugging and
# profiling). They run before each module's own hooks of the same kind.
_global_buffer_registration_hooks: dict[int, Callable] = OrderedDict()
_global_module_registration_hooks: dict[int, Callable] = OrderedDict()
_global_parameter_registration_hooks: dict[int, Callable] = OrderedDict()
_global_backward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_backward_hooks: dict[int, Callable] = OrderedDict()
_global_is_full_backward_hook: bool | None = None  # (None: no global backward hook yet; it stays set, as torch's)
_global_forward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = OrderedDict()
_global_forward_hooks_with_kwargs: dict[int, bool] = OrderedDict()


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """hook(module, name, buffer) runs whenever any module registers a buffer (register_buffer,
    or assignment to a buffer's name); a non-None result is registered instead."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """hook(module, name, submodule) runs whenever any module registers a submodule (add_module,
    register_module, assignment of a Module or of None to a submodule's name); a non-None result
    is registered instead."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """hook(module, name, param) runs whenever any module registers a Parameter (register_parameter
    or assignment; not for None); a non-None result is registered instead."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """hook(module, args) runs before every module's forward, before the module's own pre-hooks;
    a non-None result replaces the positional arguments (a non-tuple becomes a 1-tuple)."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """hook(module, args, output) (with_kwargs: hook(module, args, kwargs, output)) runs after
    every module's forward, before the module's own forward hooks; a non-None result replaces the
    output. always_call: also when the call raises (then torch's calls it as hook(module, args,
    output) whatever with_kwargs says, and a hook's own error is a warning)."""
    handle = RemovableHandle(_global_forward_hooks, extra=(_global_forward_hooks_always_called,
                                                           _global_forward_hooks_with_kwargs))
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _set_global_backward_hook_kind(full: bool) -> None:
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):  # (torch's: even once those hooks are removed)
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    _global_is_full_backward_hook = full


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    """Deprecated (torch's): register_backward_hook for every module (hook(module, grad_input,
    grad_output) on the node of each forward's last operation)."""
    _set_global_backward_hook_kind(False)
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """register_full_backward_pre_hook for every module (hook(module, grad_output)), run before
    the module's own backward pre-hooks."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """register_full_backward_hook for every module (hook(module, grad_input, grad_output)), run
    before the module's own full backward hooks."""
    _set_global_backward_hook_kind(True)
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def _registration_hooks(hooks: dict, module: Module, name: str, value):
    """value after the global registration hooks (each non-None result replaces it)."""
    for hook in list(hooks.values()):
        result = hook(module, name, value)
        if result is not None:
            value = result
    return value


def _shape(t: Tensor) -> str:
    return f"tcore.Size({list(t.shape)})"


class Module:
    """Base class of every layer and model. Subclasses assign Parameters, buffers and
    submodules in __init__ (after super().__init__()) and define forward()."""

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", set())  # (hook ids called with kwargs)
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", set())
        object.__setattr__(self, "_forward_hooks_always_called", set())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)  # (None: no backward hook yet)
        object.__setattr__(self, "_load_state_dict_pre_hooks", OrderedDict())

    def __setstate__(self, state: dict) -> None:
        """(torch's: a module pickled before some hook store existed gets it empty, so __call__
        may read every store without a default)"""
        self.__dict__.update(state)
        for name in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        for name in ("_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs", "_forward_hooks_always_called"):
            self.__dict__.setdefault(name, set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ------------------------------------------------------------------ registration
    def _check_initialized(self, what: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        if isinstance(value, Parameter):
            self._check_initialized("parameters")
            self._forget(name, "_parameters")
            if _global_parameter_registration_hooks:
                value = _registration_hooks(_global_parameter_registration_hooks, self, name, value)
            d["_parameters"][name] = value
        elif isinstance(value, Module):
            self._check_initialized("module")
            self._forget(name, "_modules")
            if _global_module_registration_hooks:
                value = _registration_hooks(_global_module_registration_hooks, self, name, value)
            d["_modules"][name] = value
        elif "_parameters" in d and name in d["_parameters"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(tcore.nn.Parameter or None expected)")
            d["_parameters"][name] = None
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                "(tcore.nn.Module or None expected)")
            if _global_module_registration_hooks:
                value = _registration_hooks(_global_module_registration_hooks, self, name, value)
            d["_modules"][name] = value
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(tcore.Tensor or None expected)")
            if _global_buffer_registration_hooks:  # (torch's: the assignment is a register_buffer)
                value = _registration_hooks(_global_buffer_registration_hooks, self, name, value)
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """name leaves every other store; in `keep` it stays where it is, to be replaced in place
        (torch's: a replaced layer keeps its place in the forward order and the state_dict)."""
        d = self.__dict__
        d.pop(name, None)
        for key in ("_parameters", "_buffers", "_modules"):
            if key != keep:
                d[key].pop(name, None)
        d["_non_persistent_buffers"].discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if key in d and name in d[key]:
                return d[key][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if key in d and name in d[key]:
                del d[key][name]
                d["_non_persistent_buffers"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        d = self.__dict__
        return sorted(set(super().__dir__()) | set(d["_parameters"]) | set(d["_buffers"]) | set(d["_modules"]))

    @staticmethod
    def _check_name(name: Any, kind: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if name == "" or "." in name:
            raise KeyError(f"{kind} name can't be empty or contain \".\", got: {name!r}")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._check_initialized("parameters")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(tcore.nn.Parameter or None required)")
        self._forget(name, "_parameters")
        if param is not None and _global_parameter_registration_hooks:
            param = _registration_hooks(_global_parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        self._check_initialized("buffers")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(tcore.Tensor or None required)")
        self._forget(name, "_buffers")
        if _global_buffer_registration_hooks:
            tensor = _registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent_buffers.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        self._check_initialized("module")
        self._check_name(name, "module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._forget(name, "_modules")
        if _global_module_registration_hooks:
            module = _registration_hooks(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        module = self
        for item in target.split(".") if target else []:
            if item not in module._modules or module._modules[item] is None:
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = module._modules[item]
        return module

    def _get_entry(self, target: str, store: str, kind: str):
        path, _, name = target.rpartition(".")
        entries = self.get_submodule(path).__dict__[store]
        if name not in entries:
            raise AttributeError(f"`{name}` is not {kind}")
        return entries[name]

    def get_parameter(self, target: str) -> Parameter:
        return self._get_entry(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target: str) -> Tensor:
        return self._get_entry(target, "_buffers", "a buffer")

    def get_extra_state(self) -> Any:
        """What a subclass adds to its state_dict under `_extra_state` (it overrides this and
        set_extra_state)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report "
                           "this bug.")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report "
                           "this bug.")

    def _has_extra_state(self) -> bool:
        return type(self).get_extra_state is not Module.get_extra_state

    # ------------------------------------------------------------------ calling
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        """forward with the hooks, torch's order: the global forward pre-hooks, the module's (they
        may replace args/kwargs), forward, the global forward hooks, the module's (they may replace
        the output); the backward hooks (global ones first) are those registered before the call.
        When the call raises (an Exception), the always_call forward hooks not yet run still run."""
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"] or d["_backward_pre_hooks"]
                or _global_forward_pre_hooks or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)  # (no hook of this module's nor a global one: forward alone)
        result = None
        called_always = set()
        try:
            pre_hooks = full_hooks = legacy_hooks = None  # (the backward hooks of this call: those there now)
            if _global_backward_pre_hooks or d["_backward_pre_hooks"]:
                pre_hooks = [*_global_backward_pre_hooks.values(), *d["_backward_pre_hooks"].values()]
            if _global_backward_hooks or d["_backward_hooks"]:
                full_hooks, legacy_hooks = self._get_backward_hooks()
            module_pre_hooks = d["_forward_pre_hooks"]
            if _global_forward_pre_hooks or module_pre_hooks:
                with_kwargs = d["_forward_pre_hooks_with_kwargs"]  # (a global pre-hook has none)
                for key, hook in (*_global_forward_pre_hooks.items(), *module_pre_hooks.items()):
                    if key in with_kwargs:
                        new = hook(self, args, kwargs)
                        if new is not None:
                            if not (isinstance(new, tuple) and len(new) == 2):
                                raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                                   f"new_kwargs), but got {new}.")
                            args, kwargs = new
                    else:
                        new = hook(self, args)
                        if new is not None:
                            args = new if isinstance(new, tuple) else (new,)
            backward_hook = None
            if full_hooks or pre_hooks:
                backward_hook = _BackwardHook(self, full_hooks or [], pre_hooks or [])
                args = backward_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            module_hooks = d["_forward_hooks"]
            if _global_forward_hooks or module_hooks:
                always = d["_forward_hooks_always_called"]
                with_kwargs = d["_forward_hooks_with_kwargs"]
                for key, hook in (*_global_forward_hooks.items(), *module_hooks.items()):
                    if key in always or key in _global_forward_hooks_always_called:
                        called_always.add(key)
                    if key in with_kwargs or key in _global_forward_hooks_with_kwargs:
                        new = hook(self, args, kwargs, result)
                    else:
                        new = hook(self, args, result)
                    if new is not None:
                        result = new
            if backward_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                                  f"Tensors but received {type(result)}", stacklevel=2)
                result = backward_hook.setup_output_hook(result)
            if legacy_hooks:
                _legacy_backward_hooks(self, args, result, legacy_hooks)
            return result
        except Exception:
            for key, hook in list(_global_forward_hooks.items()):
                if key in _global_forward_hooks_always_called and key not in called_always:
                    try:  # (torch's: without kwargs, whatever with_kwargs said)
                        new = hook(self, args, result)
                        if new is not None:
                            result = new
                    except Exception as e:  # noqa: BLE001 - the call's own error is the one raised
                        warnings.warn("global module forward hook with ``always_call=True`` raised an exception that "
                                      f"was silenced as another error was raised in forward: {e}", stacklevel=2)
            always = d.get("_forward_hooks_always_called", ())
            with_kwargs = d.get("_forward_hooks_with_kwargs", ())
            for key, hook in list(d["_forward_hooks"].items()):
                if key in always and key not in called_always:
                    try:
                        new = hook(self, args, kwargs, result) if key in with_kwargs else hook(self, args, result)
                        if new is not None:
                            result = new
                    except Exception as e:  # noqa: BLE001
                        warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                      f"silenced as another error was raised in forward: {e}", stacklevel=2)
            raise

    _call_impl = __call__  # (torch's name for it)

    def _get_backward_hooks(self) -> tuple[list, list]:
        """(full backward hooks, non-full ones) for a call: the global ones, then the module's."""
        full: list[Callable] = []
        legacy: list[Callable] = []
        if _global_backward_hooks:
            (full if _global_is_full_backward_hook else legacy).extend(_global_backward_hooks.values())
        own = self.__dict__["_backward_hooks"]
        if own:
            kind = self.__dict__.get("_is_full_backward_hook")
            if kind is not None:
                (full if kind else legacy).extend(own.values())
        return full, legacy

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """hook(module, args, output) (with_kwargs: hook(module, args, kwargs, output)) runs after
        forward; a non-None result replaces the output. prepend: before the hooks registered so
        far; always_call: also when forward raises."""
        handle = RemovableHandle(self._forward_hooks, extra=(self._forward_hooks_with_kwargs,
                                                             self._forward_hooks_always_called))
        _add_hook(self._forward_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        return handle

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """hook(module, args) runs before forward; a non-None result replaces the arguments
        (with_kwargs: hook(module, args, kwargs) -> None or (args, kwargs))."""
        handle = RemovableHandle(self._forward_pre_hooks, extra=(self._forward_pre_hooks_with_kwargs,))
        _add_hook(self._forward_pre_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_output) runs when the gradients of the module's outputs are known; a
        non-None result replaces them."""
        handle = RemovableHandle(self._backward_pre_hooks)
        _add_hook(self._backward_pre_hooks, handle.id, hook, prepend)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) runs when the gradients of the module's tensor
        inputs are computed (None for inputs that need none); a non-None result replaces them."""
        self._set_backward_hook_kind(True)
        handle = RemovableHandle(self._backward_hooks)
        _add_hook(self._backward_hooks, handle.id, hook, prepend)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated (torch's): hook(module, grad_input, grad_output) on the node of the forward's
        last operation, whose inputs need not be the module's."""
        self._set_backward_hook_kind(False)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def _set_backward_hook_kind(self, full: bool) -> None:
        if self._is_full_backward_hook is not None and self._is_full_backward_hook != full and self._backward_hooks:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = full

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs) (with_module: the module first) runs in load_state_dict before the keys are
        matched, free to rename or rewrite this module's entries (prefix: its dotted name + ".")."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self) if with_module else hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    # ------------------------------------------------------------------ traversal
    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        memo = set() if memo is None else memo
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named_members(self, key: str, prefix: str, recurse: bool, remove_duplicate: bool = True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in module.__dict__[key].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ modes
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        from ..._utilities import _zero_grads
        _zero_grads(self.parameters(), set_to_none)

    # ------------------------------------------------------------------ conversion
    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """fn applied to every parameter and buffer; a Parameter keeps its identity (its data
        is replaced), so optimizers built before still hold it."""
        for module in self.children():
            module._apply(fn)
        for name, p in self._parameters.items():
            if p is None:
                continue
            new = fn(p.detach())
            if new is not p:
                grad = p.grad
                requires_grad = p.requires_grad
                p._set_data(new.detach())
                p.requires_grad_(requires_grad)
                p.grad = None if grad is None else fn(grad)
        for name, b in self._buffers.items():
            if b is None:
                continue
            if is_lazy(b):  # (a lazy module's buffer stays uninitialized, of the new dtype and device)
                converted = fn(b.detach())
                self._buffers[name] = type(b)(b.requires_grad, converted.device, converted.dtype)
            else:
                self._buffers[name] = fn(b)
        return self

    def to_empty(self, *, device=None, recurse: bool = True) -> Module:
        """Parameters and buffers replaced by uninitialized tensors (on `device`)."""
        return self._apply(lambda t: _C.empty_like(t, device=device if device is not None else t.device))

    def share_memory(self) -> Module:
        """(a no-op: tcore's CPU tensors are not shared across processes)"""
        return self

    def to(self, *args, **kwargs) -> Module:
        """to(device), to(dtype), to(device, dtype), to(tensor), to(memory_format=...): floating
        parameters and buffers take the dtype; every one moves to the device; the 4-D ones take
        the memory format (channels_last: convolution weights, as PyTorch's)."""
        device, dtype = None, kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        memory_format = kwargs.pop("memory_format", None)
        kwargs.pop("non_blocking", None)
        if memory_format is not None and not isinstance(memory_format, _C.memory_format):
            raise TypeError(f"to() expected a tcore.memory_format for memory_format, got {type(memory_format).__name__}")
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, _C.dtype):
                dtype = a
            elif isinstance(a, (str, _C.device)):
                device = a
            else:
                raise TypeError(f"to() received an invalid argument: {type(a).__name__}")
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            out = t
            if device is not None:
                out = out.to(device)
            if dtype is not None and out.dtype.is_floating_point:
                out = out.to(dtype)
            if memory_format is not None and out.dim() == 4:
                out = out.to(memory_format=memory_format)
            return out

        return self._apply(convert)

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.dtype.is_floating_point else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.dtype.is_floating_point else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.dtype.is_floating_point else t)

    def bfloat16(self) -> Module:
        return self._apply(lambda t: t.bfloat16() if t.dtype.is_floating_point else t)

    def cpu(self) -> Module:
        return self._apply(lambda t: t.to("cpu"))

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.to("cuda" if device is None else f"cuda:{int(device)}"))

    # ------------------------------------------------------------------ state
    def state_dict(self, destination: dict | None = None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Parameters and persistent buffers by dotted name (detached, sharing memory)."""
        out = OrderedDict() if destination is None else destination
        d = self.__dict__
        for hook in list(d.get("_state_dict_pre_hooks", {}).values()):
            hook(self, prefix, keep_vars)
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                out[prefix + name] = b if keep_vars else b.detach()
        if self._has_extra_state():
            out[prefix + "_extra_state"] = self.get_extra_state()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=out, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in list(d.get("_state_dict_hooks", {}).values()):
            result = hook(self, out, prefix, {})
            if result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return out

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, prefix, keep_vars) runs before the module's state_dict is gathered."""
        hooks = self.__dict__.setdefault("_state_dict_pre_hooks", OrderedDict())
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata) runs after the module's (and its
        children's) entries are in; it may change state_dict in place."""
        hooks = self.__dict__.setdefault("_state_dict_hooks", OrderedDict())
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copies the tensors of `state_dict` into the parameters and buffers (shapes must
        match); with strict, missing and unexpected keys are errors. Returns the keys."""
        if not hasattr(state_dict, "items"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}.")
        state_dict = OrderedDict(state_dict)  # (the hooks rewrite this copy, never the caller's)
        hooked_missing: list[str] = []
        hooked_unexpected: list[str] = []
        errors: list[str] = []
        for name, module in self.named_modules():
            for hook in list(module.__dict__.get("_load_state_dict_pre_hooks", {}).values()):
                hook(state_dict, name + "." if name else "", {}, strict, hooked_missing, hooked_unexpected, errors)
        expected = self.state_dict(keep_vars=True)
        missing = [k for k in expected if k not in state_dict] + [k for k in hooked_missing if k not in expected]
        unexpected = [k for k in state_dict if k not in expected] + hooked_unexpected
        for key, target in expected.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            path, _, leaf = key.rpartition(".")
            if leaf == "_extra_state" and self.get_submodule(path)._has_extra_state():
                self.get_submodule(path).set_extra_state(value)
                continue
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected tcore.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value).__name__}")
                continue
            if tuple(value.shape) != tuple(target.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape {_shape(value)} from checkpoint, "
                              f"the shape in current model is {_shape(target)}.")
                continue
            if assign:
                self._assign(key, value)
            else:
                with _no_grad():
                    target.copy_(value)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _assign(self, key: str, value: Tensor) -> None:
        path, _, name = key.rpartition(".")
        module = self.get_submodule(path)
        if name in module._parameters:  # (by assignment, as torch's: the global registration hooks run)
            old = module._parameters[name]
            setattr(module, name, Parameter(value, old.requires_grad if old is not None else True))
        else:
            setattr(module, name, value)

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, module in self._modules.items():
            text = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        if not self._modules and "\n" not in extra:  # (torch's one-line form)
            return f"{self._get_name()}({extra})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _no_grad():
    from ...autograd import no_grad
    return no_grad()


def _add_hook(hooks: OrderedDict, key: int, hook: Callable, prepend: bool) -> None:
    hooks[key] = hook
    if prepend:
        hooks.move_to_end(key, last=False)


def _tensors_of(value) -> list[tuple[int, Tensor]]:
    """(position, tensor) of a value's top-level tensors (itself, or a tuple's elements)."""
    items = value if isinstance(value, tuple) else (value,)
    return [(i, t) for i, t in enumerate(items) if isinstance(t, Tensor)]


def _replace(value, positions: list[int], tensors):
    if not isinstance(value, tuple):
        return tensors[0]
    items = list(value)
    for i, t in zip(positions, tensors):
        items[i] = t
    return type(value)(items) if type(value) is tuple else type(value)(*items)


class _BackwardHook:
    """A module call's full backward hooks (torch's BackwardHook): identity custom Functions on
    the positional tensor inputs and on the outputs; the outputs' node sees grad_output (the
    pre-hooks may replace it), the inputs' node grad_input (the hooks may replace it). The hooks
    are the lists taken when the module was called (global ones first), as torch's."""

    def __init__(self, module: Module, hooks: list, pre_hooks: list) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0  # (every positional argument has a slot: None for those that are no tensor)
        self.input_metas: dict[int, tuple] = {}  # (zeros for the tensor inputs that get no gradient)
        self.input_slots: list[int] | None = None  # (None: no input needs a gradient)
        self.output_slots: list[int] = []
        self.n_outputs = 0

    def setup_input_hook(self, args):
        if not isinstance(args, tuple):
            return args
        tensors = _tensors_of(args)
        self.n_inputs = len(args)
        self.input_metas = {i: (list(t.shape), t.dtype, t.device) for i, t in tensors}
        needing = [(i, t) for i, t in tensors if t.requires_grad]
        if not needing or not _C.is_grad_enabled():
            return args
        self.input_slots = [i for i, _ in needing]
        new = _identity(*[t for _, t in needing])
        new[0].grad_fn.register_prehook(self._input_grads)
        return _replace(args, self.input_slots, new)

    def setup_output_hook(self, out):
        if not isinstance(out, (Tensor, tuple)):  # (a list or dict: torch's hooks see nothing either)
            return out
        needing = [(i, t) for i, t in _tensors_of(out) if t.requires_grad]
        if not needing or not _C.is_grad_enabled():
            return out
        self.n_outputs = len(out) if isinstance(out, tuple) else 1
        self.output_slots = [i for i, _ in needing]
        new = _identity(*[t for _, t in needing])
        new[0].grad_fn.register_prehook(self._output_grads)
        return _replace(out, self.output_slots, new)

    def _output_grads(self, node_grads: tuple):
        grads = [None] * self.n_outputs  # (None for the outputs that need no gradient, or are no tensor)
        for k, g in zip(self.output_slots, node_grads):
            grads[k] = g
        grads = tuple(grads)
        module = self.module
        for hook in self.pre_hooks:
            result = hook(module, grads)
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(grads):
                    raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                       f"{len(result)}, but expected {len(grads)}")
                grads = result
        self.grad_outputs = grads
        if self.input_slots is None:  # (no input needs a gradient: the hooks run now, on Nones)
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            for hook in self.hooks:
                result = hook(module, (None,) * self.n_inputs, grads)
                if result is not None and not (isinstance(result, tuple) and all(r is None for r in result)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(grads[k] for k in self.output_slots)

    def _input_grads(self, grads: tuple):
        if self.grad_outputs is None:  # (the gradient reached the inputs past the outputs' node: no hook)
            return grads
        got = dict(zip(self.input_slots, grads))
        full: list = [None] * self.n_inputs
        for i, (shape, dtype, device) in self.input_metas.items():  # torch's: a tensor without one gets zeros
            g = got.get(i)
            full[i] = g if g is not None else _C.zeros(shape, dtype=dtype, device=device)
        grad_input = tuple(full)
        module = self.module
        for hook in self.hooks:
            result = hook(module, grad_input, self.grad_outputs)
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(result)}, "
                                       f"but expected {len(grad_input)}")
                grad_input = result
        self.grad_outputs = None
        return tuple(grad_input[i] for i in self.input_slots)


def _identity(*tensors) -> tuple:
    from ...autograd.function import _BackwardHookFunction
    out = _BackwardHookFunction.apply(*tensors)
    return out if isinstance(out, tuple) else (out,)


def _legacy_backward_hooks(module: Module, args, out, hooks: list) -> None:
    """register_backward_hook's hooks (and register_module_backward_hook's, first) on the grad_fn
    of the module's output, found as torch's finds it (the first tensor down dicts' values and
    sequences' first items), with torch's deprecation warnings where that node is not the whole
    forward."""
    var = out
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(functools.partial(hook, module))
    _warn_non_full_backward_hook(args, out, grad_fn)


def _warn_non_full_backward_hook(inputs, result, grad_fn) -> None:
    def warn(message: str) -> None:
        warnings.warn(message + " Please use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=4)

    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
                 "Tensors is deprecated and will be removed in future versions. This hook will be missing some of "
                 "the grad_output.")
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            warn("Using non-full backward hooks on a Module that does not take as input a single Tensor or a tuple "
                 "of Tensors is deprecated and will be removed in future versions. This hook will be missing some "
                 "of the grad_input.")
            return
    else:
        inputs = (inputs,)
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_output.",
                      FutureWarning, stacklevel=4)
    elif len(out_grad_fn) > 1:
        warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is deprecated "
             "and will be removed in future versions. This hook will be missing some grad_output.")
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {n[0] for n in grad_fn.next_functions}:
        warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and "
             "will be removed in future versions. This hook will be missing some grad_input.")
