"""``torch.utils.data._utils.collate``: ``default_collate`` where older scripts import it."""

from ..collate import default_collate, default_convert

__all__ = ["default_collate", "default_convert"]
