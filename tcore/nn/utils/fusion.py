"""torch.nn.utils.fusion's counterparts: a convolution or linear layer followed by a BatchNorm in
evaluation folded into one layer, w' = w gamma / sqrt(var + eps) (per output channel; per input
channel of a transposed convolution's weight), b' = (b - mean) gamma / sqrt(var + eps) + beta."""
from __future__ import annotations

import copy

from ... import _C
from ..parameter import Parameter

Tensor = _C.Tensor

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _folded(w: Tensor, b: Tensor | None, rm: Tensor, rv: Tensor, eps: float, bn_w: Tensor | None,
            bn_b: Tensor | None, shape: list[int]) -> tuple[Parameter, Parameter]:
    """(w times the normalization's scale reshaped to `shape`, the folded bias), as Parameters
    of w's and b's dtypes."""
    bias_dtype = b.dtype if b is not None else w.dtype
    b = _C.zeros_like(rm) if b is None else b
    bn_w = _C.ones_like(rm) if bn_w is None else bn_w
    bn_b = _C.zeros_like(rm) if bn_b is None else bn_b
    rsqrt = _C.rsqrt(rv + eps)
    fused_w = (w * (bn_w * rsqrt).reshape(shape)).to(w.dtype)
    fused_b = ((b - rm) * rsqrt * bn_w + bn_b).to(bias_dtype)
    return Parameter(fused_w, w.requires_grad), Parameter(fused_b, b.requires_grad)


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                         bn_w: Tensor | None, bn_b: Tensor | None, transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The convolution's (weight, bias) with the BatchNorm folded in."""
    rest = [1] * (conv_w.ndim - 2)
    return _folded(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, ([1, -1] if transpose else [-1, 1]) + rest)


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                           bn_w: Tensor, bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """The linear layer's (weight, bias) with the BatchNorm folded in."""
    return _folded(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, [-1, 1])


def _check_eval(layer, bn) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A new convolution: conv followed by bn (both in evaluation)."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_linear_bn_eval(linear, bn):
    """A new linear layer: linear followed by bn (both in evaluation; bn's features the linear
    layer's outputs, or 1)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused
