"""Optimizer: parameter groups with their options, per-parameter state, zero_grad,
state_dict/load_state_dict in PyTorch's layout (parameters by index); step() evaluates the closure
and updates each group (a subclass's _step_group) under no_grad, and _grads yields what an update
reads. Helpers shared by the optimizers: argument checks, weight decay, 0-d state."""
from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from typing import Any

from .. import _C

Tensor = _C.Tensor


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _to_scalar(x):
    """A 1-element tensor option (lr=tensor(0.01)) as a Python number."""
    return x.item() if isinstance(x, Tensor) else x


def _check_nonnegative(*checks) -> None:
    """torch's constructor checks: for each (value, name) in order, ValueError "Invalid {name}: {value}"
    unless 0 <= value (so NaN is refused)."""
    for value, name in checks:
        if not 0.0 <= value:
            raise ValueError(f"Invalid {name}: {value}")


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    _check_nonnegative((lr, "learning rate"))


def _check_fused(fused, foreach, differentiable: bool = False) -> None:
    """torch's checks of fused= against the other flags (fused=True is accepted: tcore's own update
    runs, as for foreach=)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _typename(obj) -> str:
    """torch.typename's spelling: a tensor's type() ("tcore.FloatTensor"), else the qualified class name
    (builtins without their module)."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ in ("builtins", "") else f"{cls.__module__}.{cls.__qualname__}"


def _check_unsupported(differentiable: bool = False, capturable: bool = False) -> None:
    """torch's differentiable= (autograd through the step) and capturable= (CUDA graphs) are kept as
    param_group keys with torch's defaults; turning them on is refused."""
    if differentiable:
        raise NotImplementedError("tcore.optim does not support differentiable=True")
    if capturable:
        raise NotImplementedError("tcore.optim does not support capturable=True")


def _scalar_dtype():
    """The dtype of 0-d state such as 'step': float64 when that is the default dtype, else float32."""
    return _C.dtype.float64 if _C._get_default_dtype() == _C.dtype.float64 else _C.dtype.float32


def _scalar_state(value: float) -> Tensor:
    """A 0-d tensor of _scalar_dtype() holding value (rounded to it), as torch's optimizers keep."""
    return _C.zeros([], dtype=_scalar_dtype()).fill_(value)


def _weight_decay(p: Tensor, grad: Tensor, weight_decay, lr=None, decoupled: bool = False) -> Tensor:
    """grad with weight decay: grad + weight_decay * p (L2), or, decoupled (AdamW's), grad as it is
    with p shrunk in place by 1 - lr * weight_decay. Nothing when weight_decay is 0."""
    if weight_decay != 0:
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(p, alpha=weight_decay)
    return grad


def _cast_state(p: Tensor, key, value):
    """One loaded state value, as torch.optim.Optimizer.load_state_dict: tensors copied onto p's
    device and, when p is floating, cast to p's dtype (all but 'step', which stays as it is);
    lists, tuples and dicts recursively."""
    if isinstance(value, Tensor):
        value = value.detach().clone()
        if key == "step":
            return value
        if p.is_floating_point():
            return value.to(device=p.device, dtype=p.dtype)
        return value.to(p.device)
    if isinstance(value, dict):
        return {k: _cast_state(p, k, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(p, key, v) for v in value)
    return copy.deepcopy(value)


class Optimizer:
    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + _typename(params))
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        """As torch's: the dict itself is completed with the defaults and kept; its params may be a
        tensor, a list or another ordered iterable (not a set), of tensors or of (name, tensor) pairs
        (named_parameters(): the names are kept as 'param_names')."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        params = [params] if isinstance(params, Tensor) else list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        seen = set()
        for g in self.param_groups:
            seen.update(id(p) for p in g["params"])
            if ("param_names" in param_group) != ("param_names" in g):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        from .._utilities import _zero_grads
        _zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        """Evaluates closure (when given) with gradients enabled, then updates every parameter group
        (_step_group) under no_grad; returns the closure's loss."""
        loss = self._closure_loss(closure)
        from ..autograd import no_grad
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group: dict) -> None:
        """The update of one parameter group's parameters, each optimizer's own."""
        raise NotImplementedError

    def _closure_loss(self, closure):
        if closure is None:
            return None
        from ..autograd import enable_grad
        with enable_grad():
            return closure()

    def state_dict(self) -> dict:
        """{'state': {index: {...}}, 'param_groups': [{options..., 'params': [indices]}]}: as torch's, a
        parameter's index is its position over all groups (one repeated in its group: its last there)."""
        index: dict[int, int] = {}
        groups: list[dict] = []
        start = 0
        for g in self.param_groups:
            index.update({id(p): i for i, p in enumerate(g["params"], start) if id(p) not in index})
            start += len(g["params"])
            groups.append({**{k: v for k, v in g.items() if k != "params"},
                           "params": [index[id(p)] for p in g["params"]]})
        state = {(index[id(p)] if isinstance(p, Tensor) else p): s for p, s in self.state.items()
                 if not isinstance(p, Tensor) or id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """As torch's: the saved groups' options (deep copies) replace ours, parameters matched by
        position; each state tensor copied onto its parameter (_cast_state); state of no parameter kept."""
        groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, theirs in zip(self.param_groups, groups):
            if len(mine["params"]) != len(theirs["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
        by_index = {}
        for mine, theirs in zip(self.param_groups, groups):
            for p, i in zip(mine["params"], theirs["params"]):
                by_index[i] = p
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            if i in by_index:
                p = by_index[i]
                self.state[p] = {k: _cast_state(p, k, v) for k, v in s.items()}
            else:
                self.state[i] = s
        for mine, theirs in zip(self.param_groups, groups):
            mine.update((k, v) for k, v in theirs.items() if k != "params")

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"

    def _state(self, p: Tensor) -> dict[str, Any]:
        return self.state.setdefault(p, {})

    def _step_state(self, p: Tensor, group: dict, init) -> dict[str, Any]:
        """p's state, filled with init(p, group) (a dict) when empty, with its 'step' incremented."""
        state = self._state(p)
        if not state:
            state.update(init(p, group))
        state["step"].add_(1)
        return state

    def _grads(self, group: dict, init=None):
        """(p, grad, state) for each parameter of group that has a gradient: grad is p.grad, negated
        under group["maximize"]; state is _step_state(p, group, init), or None without init."""
        for p in group["params"]:
            if p.grad is None:
                continue
            state = None if init is None else self._step_state(p, group, init)
            yield p, (-p.grad if group["maximize"] else p.grad), state
