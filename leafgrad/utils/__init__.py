"""Small public utilities, as ``torch.utils``."""

from . import hooks

__all__ = ["hooks"]
