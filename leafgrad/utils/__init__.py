"""Small public utilities, as ``torch.utils``, and ``tune_malloc`` for programs that opt in."""

from . import checkpoint, data, hooks
from ._swap import swap_tensors
from .malloc import tune_malloc

__all__ = ["checkpoint", "data", "hooks", "swap_tensors", "tune_malloc"]
