"""BatchNorm1d/2d/3d: batch statistics while training, running statistics in eval()."""

from __future__ import annotations

from .. import Tensor, empty, int64, no_grad, ones, tensor, zeros
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


class _BatchNorm(Module):
    """Normalise ``(N, C, *)`` per channel. Buffers ``running_mean`` (zeros), ``running_var``
    (ones) and ``num_batches_tracked`` when ``track_running_stats``; ``momentum=None`` makes
    the running statistics a cumulative average."""

    _input_dims: tuple[int, ...] = ()
    _version = 2  # PyTorch's: version 2 added num_batches_tracked

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(empty(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in self._input_dims:
            wanted = " or ".join(f"{d}D" for d in self._input_dims)
            raise ValueError(f"expected {wanted} input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        # Eval without running statistics falls back to the batch's, as PyTorch does.
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep_stats = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if keep_stats else None,
            self.running_var if keep_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args) -> None:
        # A state dict older than version 2 (or without _metadata, as a plain dict) predates
        # num_batches_tracked: PyTorch loads it keeping the current count. From version 2 on
        # the key is required, and its absence is a missing key.
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats:
            if key not in state_dict:
                count = self.num_batches_tracked
                state_dict[key] = tensor(0, dtype=int64) if count is None else count
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch norm of ``(N, C)`` or ``(N, C, L)`` input."""

    _input_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm of ``(N, C, H, W)`` input."""

    _input_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm of ``(N, C, D, H, W)`` input."""

    _input_dims = (5,)
