"""LayerNorm, RMSNorm and GroupNorm: normalisation over features, the same in train and eval."""

from __future__ import annotations

from collections.abc import Sequence

from .. import Tensor, empty
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["GroupNorm", "LayerNorm", "RMSNorm"]


def _as_shape(normalized_shape: Sequence[int] | int) -> tuple[int, ...]:
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    return tuple(normalized_shape)


def _affine_parameters(module, shape, affine: bool, bias: bool, dtype, device) -> None:
    """``weight`` (and ``bias`` unless ``bias=False``) of ``shape``, or both None without affine."""
    weight = Parameter(empty(shape, dtype=dtype, device=device)) if affine else None
    module.register_parameter("weight", weight)
    with_bias = affine and bias
    module.register_parameter(
        "bias", Parameter(empty(shape, dtype=dtype, device=device)) if with_bias else None
    )


def _reset_affine(module) -> None:
    """Weight ones and bias zeros, as PyTorch's normalization layers start."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """Normalise over the trailing ``normalized_shape`` dims; ``weight`` (ones) and ``bias``
    (zeros) of that shape when ``elementwise_affine``."""

    def __init__(
        self,
        normalized_shape: Sequence[int] | int,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` dims;
    ``eps=None`` is the dtype's machine epsilon."""

    def __init__(
        self,
        normalized_shape: Sequence[int] | int,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class GroupNorm(Module):
    """Normalise ``(N, C, *)`` over groups of ``num_channels / num_groups`` channels; per-channel
    ``weight`` (ones) and ``bias`` (zeros) when ``affine``. ValueError unless ``num_groups``
    divides ``num_channels``."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, (num_channels,), affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )
