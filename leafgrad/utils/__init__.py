"""Small public utilities, as ``torch.utils``, and ``tune_malloc`` for programs that opt in."""

from . import data, hooks
from .malloc import tune_malloc

__all__ = ["data", "hooks", "tune_malloc"]
