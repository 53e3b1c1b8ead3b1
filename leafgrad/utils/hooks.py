"""Hook handles, as ``torch.utils.hooks``."""

from .._engine.graph import RemovableHandle

__all__ = ["RemovableHandle"]
