"""skip_init (torch.nn.utils.skip_init): a module built without running its initializers."""
from __future__ import annotations

import inspect


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with its parameters and buffers left uninitialized (their
    values unspecified, as torch's). The class must take a `device` argument, as torch requires."""
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    return module_cls(*args, device=device, **kwargs).to_empty(device=device)
