"""``torch.nn.modules.module``: its classes, from where leafgrad defines them."""

# ruff: noqa: F401, F403  (private bases such as _Loss are kept: scripts import them)

from .._module_hooks import *  # the global hooks, register_module_* (its __all__)
from .._module_hooks import __all__ as _global_hooks
from ..module import Module, _IncompatibleKeys

__all__ = ["Module", *_global_hooks]
