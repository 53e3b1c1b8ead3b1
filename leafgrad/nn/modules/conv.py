"""``torch.nn.modules.conv``: its classes, from where leafgrad defines them."""

# ruff: noqa: F401  (private bases such as _Loss are kept: scripts import them)

from ..conv import Conv1d, Conv2d, Conv3d, _ConvNd
from ..conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, _ConvTransposeNd
from ..lazy import (
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
)

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]
