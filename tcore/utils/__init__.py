"""tcore.utils: data loading (tcore.utils.data), hook handles (tcore.utils.hooks) and activation
checkpointing (tcore.utils.checkpoint, imported on first use: it needs autograd)."""
from . import data, hooks  # noqa: F401


def __getattr__(name: str):
    if name == "checkpoint":
        import importlib
        return importlib.import_module(".checkpoint", __name__)
    raise AttributeError(f"module 'tcore.utils' has no attribute '{name}'")
