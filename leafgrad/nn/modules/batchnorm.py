"""``torch.nn.modules.batchnorm``: its classes, from where leafgrad defines them."""

# ruff: noqa: F401  (private bases such as _Loss are kept: scripts import them)

from ..batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm
from ..lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from ..parallel import SyncBatchNorm

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "SyncBatchNorm",
]
