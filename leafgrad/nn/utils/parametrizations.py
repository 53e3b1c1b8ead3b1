"""``torch.nn.utils.parametrizations``: weight normalisation as a parametrization."""

from __future__ import annotations

from ... import Tensor
from ..module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["weight_norm"]


class _WeightNorm(Module):
    """``weight = g * v / ||v||`` from ``original0 = g`` and ``original1 = v``."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Parametrise ``module.<name>`` as ``g * v / ||v||``: ``g`` is
    ``parametrizations.<name>.original0``, ``v`` is ``original1``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
