"""Learning-rate schedulers with PyTorch's chainable update rules and state dicts.

Each scheduler recomputes the groups' ``lr`` from their current values (the chainable form),
with the same floating-point expressions as ``torch.optim.lr_scheduler``, so the sequences
match PyTorch's bit for bit; ``step(epoch)`` uses the closed form, as PyTorch does.
"""

from .base import EPOCH_DEPRECATION_WARNING as EPOCH_DEPRECATION_WARNING
from .base import LRScheduler
from .base import _LRScheduler as _LRScheduler
from .cosine import CosineAnnealingLR
from .decay import ExponentialLR, MultiStepLR, StepLR
from .lambda_lr import LambdaLR
from .plateau import ReduceLROnPlateau

__all__ = [
    "LambdaLR",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "ReduceLROnPlateau",
    "LRScheduler",
]
