"""Optimisers and learning-rate schedulers with ``torch.optim``'s API and arithmetic."""

from . import lr_scheduler, swa_utils
from ._refused import Muon, SparseAdam
from ._swap_in import swap_in_optimizer_params_and_state
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import (
    Optimizer,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "RAdam",
    "Optimizer",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
    "swa_utils",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
]
__all__ += ["Muon", "SparseAdam", "swap_in_optimizer_params_and_state"]
