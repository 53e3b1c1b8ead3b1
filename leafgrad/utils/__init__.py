"""Small public utilities, as ``torch.utils``, and ``tune_malloc`` for programs that opt in."""

from . import checkpoint, data, hooks
from .malloc import tune_malloc

__all__ = ["checkpoint", "data", "hooks", "tune_malloc"]
