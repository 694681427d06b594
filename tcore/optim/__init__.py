"""tcore.optim: SGD, Adam, AdamW, Adamax, NAdam, RAdam, RMSprop, Adagrad, Adadelta, ASGD, Rprop,
LBFGS, learning-rate schedulers (tcore.optim.lr_scheduler) and stochastic weight averaging
(tcore.optim.swa_utils: AveragedModel, update_bn, SWALR), with torch.optim's options, update rules,
zero_grad and state_dict."""
from . import lr_scheduler, swa_utils  # noqa: F401
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta", "ASGD",
           "Rprop", "LBFGS", "lr_scheduler", "swa_utils"]
