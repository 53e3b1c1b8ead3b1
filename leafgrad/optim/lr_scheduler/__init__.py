"""Learning-rate schedulers with PyTorch's chainable update rules and state dicts.

Each scheduler recomputes the groups' ``lr`` from their current values (the chainable form),
with the same floating-point expressions as ``torch.optim.lr_scheduler``, so the sequences
match PyTorch's bit for bit; ``step(epoch)`` uses the closed form, as PyTorch does.
"""

from .base import EPOCH_DEPRECATION_WARNING as EPOCH_DEPRECATION_WARNING
from .base import LRScheduler
from .base import _LRScheduler as _LRScheduler
from .composite import ChainedScheduler, SequentialLR
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .cyclic import CyclicLR, OneCycleLR
from .decay import ConstantLR, ExponentialLR, LinearLR, MultiStepLR, PolynomialLR, StepLR
from .lambda_lr import LambdaLR, MultiplicativeLR
from .plateau import ReduceLROnPlateau

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
]

# PyTorch defines every scheduler in this one module: type() and the default repr
# (<torch.optim.lr_scheduler.StepLR object at 0x...>) name it here, and pickles look it up here.
for _name in [*__all__, "_LRScheduler"]:
    globals()[_name].__module__ = __name__
del _name
