"""``torch.utils.data._utils``: where PyTorch keeps collation (``_utils.collate``)."""

from . import collate

__all__ = ["collate"]
