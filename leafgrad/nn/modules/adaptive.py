"""``torch.nn.modules.adaptive``: its classes, from where leafgrad defines them."""

# ruff: noqa: F401  (private bases such as _Loss are kept: scripts import them)

from ..adaptive import AdaptiveLogSoftmaxWithLoss, _ASMoutput

__all__ = ["AdaptiveLogSoftmaxWithLoss"]
