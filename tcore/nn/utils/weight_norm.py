"""Weight normalization (https://arxiv.org/abs/1602.07868), torch.nn.utils.weight_norm's older
form: the parameter <name> replaced by <name>_g (the norms) and <name>_v (the direction), and
<name> recomputed as g v / ||v|| by a forward pre-hook; also norm_except_dim and _weight_norm,
the functions both forms compute with (torch's, including dim -1: the norm of the whole tensor)."""
from __future__ import annotations

import warnings

from ... import _C
from ..modules.module import Module
from ..parameter import Parameter

Tensor = _C.Tensor

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The pow-norm of v over every dim but `dim` (keeping v's rank, 1 elsewhere); dim -1: the
    norm of the whole tensor (a scalar), as torch's."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.shape[0], -1).norm(pow, dim=1).view([v.shape[0]] + [1] * (v.ndim - 1))
    if dim == v.ndim - 1:
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, dim=0).view([1] * (v.ndim - 1) + [v.shape[-1]])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """v g / ||v||, the norm as norm_except_dim's."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook of weight_norm: sets module.<name> from <name>_g and <name>_v."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """module.<name> as g v / ||v|| (the norm per slice along `dim`; None: of the whole tensor),
    g and v the parameters <name>_g and <name>_v. Deprecated in torch for
    nn.utils.parametrizations.weight_norm, which loads this form's state_dict."""
    WeightNorm.apply(module, name, dim)
    return module


def _remove_hook(module: Module, is_it, missing: str) -> Module:
    """The forward pre-hook is_it(hook) picks undone and dropped (remove_weight_norm's,
    remove_spectral_norm's, prune.remove's); ValueError(missing) when there is none."""
    for key, hook in module._forward_pre_hooks.items():
        if is_it(hook):
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(missing)


def _remove_parametrizing_hook(module: Module, kind: type, name: str, label: str) -> Module:
    return _remove_hook(module, lambda hook: isinstance(hook, kind) and hook.name == name,
                        f"{label} of '{name}' not found in {module}")


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """<name> a plain parameter again, with its current value."""
    return _remove_parametrizing_hook(module, WeightNorm, name, "weight_norm")
