"""``torch.optim.adamw``: ``AdamW`` (leafgrad's lives beside ``Adam``, sharing its update)."""

from .adam import AdamW

__all__ = ["AdamW"]
