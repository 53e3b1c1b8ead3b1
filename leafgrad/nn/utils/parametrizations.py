"""``torch.nn.utils.parametrizations``: weight and spectral normalisation as parametrizations."""

from __future__ import annotations

from ... import Tensor, no_grad, vdot
from .._normalization_functions import normalize
from ..module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["spectral_norm", "weight_norm"]


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


class _SpectralNorm(Module):
    """``weight / sigma`` with ``sigma`` the top singular value from power iteration on the
    buffers ``_u`` and ``_v`` (advanced in training mode, without gradient)."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place, as PyTorch's out=: the buffers keep their identity.
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(weight_mat @ self._v, dim=0, eps=self.eps))
                self._v.copy_(normalize(weight_mat.mT @ self._u, dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.dim() == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = vdot(u, weight_mat @ v)
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Parametrise ``module.<name>`` as itself divided by its spectral norm (estimated by
    power iteration; ``dim`` defaults to 1 for transposed convolutions, else 0)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        # Transposed convolutions keep output channels in dim 1.
        kind = parametrize.type_before_parametrizations(module).__name__
        dim = 1 if kind in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
