"""parameters_to_vector and vector_to_parameters, as torch.nn.utils'."""
from __future__ import annotations

from ... import _C


def _check_same_device(param, old_device):
    if old_device is not None and param.device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one vector (a differentiable copy)."""
    device, flat = None, []
    for p in parameters:
        device = _check_same_device(p, device)
        flat.append(p.reshape([-1]))
    return _C.cat(flat, 0)


def vector_to_parameters(vec, parameters) -> None:
    """Copies consecutive slices of vec into the parameters' data, in order."""
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device, offset = None, 0
    for p in parameters:
        device = _check_same_device(p, device)
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n
