"""``torch.nn.modules.linear``: its classes, from where leafgrad defines them."""

from ..lazy import LazyLinear
from ..linear import Bilinear, Identity, Linear
from ..multihead import NonDynamicallyQuantizableLinear

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear", "NonDynamicallyQuantizableLinear"]
