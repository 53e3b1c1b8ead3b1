"""``torch.nn.modules.fold``: its classes, from where leafgrad defines them."""

from ..misc_layers import Fold, Unfold

__all__ = ["Fold", "Unfold"]
