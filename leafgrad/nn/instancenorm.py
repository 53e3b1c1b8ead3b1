"""InstanceNorm1d/2d/3d: per-sample, per-channel normalisation over the spatial dims."""

from __future__ import annotations

import warnings

from .. import Tensor
from ._normalization_functions import instance_norm
from .batchnorm import _BatchNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    """Normalise ``(N, C, *spatial)`` or unbatched ``(C, *spatial)``; no affine parameters
    and no running statistics by default (PyTorch's defaults)."""

    _spatial = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:
        unbatched = self._spatial + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise ValueError(
                f"expected {unbatched}D or {unbatched + 1}D input (got {input.dim()}D input)"
            )
        feature_dim = input.dim() - unbatched
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        batched = input.unsqueeze(0) if input.dim() == unbatched else input
        out = instance_norm(
            batched,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )
        return out.squeeze(0) if input.dim() == unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of ``(N, C, L)`` or ``(C, L)``."""

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of ``(N, C, H, W)`` or ``(C, H, W)``."""

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _spatial = 3
