"""tcore.backends: what the backends were built with and chose (as torch.backends)."""
from . import cpu

__all__ = ["cpu"]
