"""``torch.nn.modules.module``: its classes, from where leafgrad defines them."""

# ruff: noqa: F401  (private bases such as _Loss are kept: scripts import them)

from ..module import Module, _IncompatibleKeys

__all__ = ["Module"]
