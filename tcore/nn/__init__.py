"""tcore.nn: torch.nn's Module, Parameter, layers and losses, in Python over tcore's
operators (autograd records what they call). See docs/torch_api.md."""
from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "functional", "init", "utils", *_modules_all]
