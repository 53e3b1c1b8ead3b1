"""Optimisers and learning-rate schedulers with ``torch.optim``'s API and arithmetic."""

from . import lr_scheduler
from .adam import Adam, AdamW
from .lbfgs import LBFGS
from .optimizer import (
    Optimizer,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = [
    "LBFGS",
    "SGD",
    "Adam",
    "AdamW",
    "Optimizer",
    "RMSprop",
    "lr_scheduler",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
]
