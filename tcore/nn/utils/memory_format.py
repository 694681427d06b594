"""torch.nn.utils.convert_conv2d_weight_memory_format's counterpart: every Conv2d and
ConvTranspose2d weight of a module (recursively) laid out in a memory format, in place (the same
Parameter objects, so an optimizer's references stay good). tcore has no channels_last_3d, so
its conv3d counterpart is left out."""
from __future__ import annotations

from ..modules.conv import Conv2d, ConvTranspose2d
from ..modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format"]


def convert_conv2d_weight_memory_format(module: Module, memory_format) -> Module:
    """module, its convolutions' 4-D weights now in memory_format (tcore.channels_last or
    tcore.contiguous_format)."""
    if isinstance(module, (Conv2d, ConvTranspose2d)):
        module.weight.data = module.weight.detach().contiguous(memory_format=memory_format)
    for child in module.children():
        convert_conv2d_weight_memory_format(child, memory_format)
    return module
