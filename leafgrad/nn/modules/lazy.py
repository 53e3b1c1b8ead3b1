"""``torch.nn.modules.lazy``: its classes, from where leafgrad defines them."""

from ..lazy import LazyModuleMixin

__all__ = ["LazyModuleMixin"]
