"""Multi-device wrappers as a single-process, CPU-only PyTorch runs them: ``DataParallel``
calls its module directly, ``SyncBatchNorm`` is a batch norm over any ``(N, C, *)`` input."""

from __future__ import annotations

from .. import Tensor
from .batchnorm import _BatchNorm
from .module import Module

__all__ = ["DataParallel", "SyncBatchNorm"]


class DataParallel(Module):
    """Runs ``module`` on the inputs (no accelerators: there is nothing to split across)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        # A CPU-only PyTorch keeps no devices either and calls the module directly.
        self.device_ids = []
        self.output_device = None
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class SyncBatchNorm(_BatchNorm):
    """Batch norm whose statistics would be reduced over ``process_group``; in one process,
    the batch norm of ``(N, C, *)`` input."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)  # fmt: skip
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """``module`` with every ``BatchNorm*d`` replaced by a ``SyncBatchNorm`` sharing its
        parameters and buffers (recursively)."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group)  # fmt: skip
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
