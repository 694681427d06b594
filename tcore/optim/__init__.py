"""tcore.optim: SGD, Adam, AdamW and learning-rate schedulers (tcore.optim.lr_scheduler),
with torch.optim's options, zero_grad and state_dict."""
from . import lr_scheduler  # noqa: F401
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
