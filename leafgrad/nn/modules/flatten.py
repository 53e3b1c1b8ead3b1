"""``torch.nn.modules.flatten``: its classes, from where leafgrad defines them."""

from ..flatten import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
