"""Spectral normalization (https://arxiv.org/abs/1802.05957), torch.nn.utils.spectral_norm's
older form: the parameter <name>_orig, the power iteration's buffers <name>_u and <name>_v, and
<name> = <name>_orig / sigma set by a forward pre-hook (one power step per training forward, u
and v updated in place). Values, keys and messages as torch's; its state_dict version metadata
(and the conversion of the version-0 checkpoints it reads) are not kept: tcore's state_dict has
no metadata."""
from __future__ import annotations

from ... import _C
from ...autograd import no_grad
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from ..parameter import Parameter
from .weight_norm import _remove_parametrizing_hook

Tensor = _C.Tensor

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of spectral_norm."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):  # (v first, then u, as torch's)
                    F.normalize(_C.mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    F.normalize(_C.mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                u, v = u.clone(), v.clone()  # (the graph keeps these values, not the buffers)
        sigma = _C.dot(u, _C.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """module.<name> divided by its largest singular value (power iteration; the weight as a
    matrix of rows along `dim`: 1 for the transposed convolutions, else 0)."""
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """<name> a plain parameter again, with its current value."""
    return _remove_parametrizing_hook(module, SpectralNorm, name, "spectral_norm")
