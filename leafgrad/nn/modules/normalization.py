"""``torch.nn.modules.normalization``: its classes, from where leafgrad defines them."""

from ..misc_layers import CrossMapLRN2d, LocalResponseNorm
from ..normalization import GroupNorm, LayerNorm, RMSNorm

__all__ = ["CrossMapLRN2d", "GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]
