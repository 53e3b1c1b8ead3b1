"""Small public utilities, as ``torch.utils``."""

from . import data, hooks

__all__ = ["data", "hooks"]
