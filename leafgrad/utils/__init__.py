"""Small public utilities, as ``torch.utils``, and ``tune_malloc`` for programs that opt in."""

from . import hooks
from .malloc import tune_malloc

__all__ = ["hooks", "tune_malloc"]
