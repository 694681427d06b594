"""tcore.utils: data loading (tcore.utils.data) and hook handles (tcore.utils.hooks)."""
from . import data, hooks  # noqa: F401
