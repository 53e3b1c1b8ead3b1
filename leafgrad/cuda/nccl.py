"""``torch.cuda.nccl`` collectives, as a CPU-only build of PyTorch has them: NCCL is never
available, and the collectives fail."""

from __future__ import annotations

import warnings

from ._refusals import missing_binding

SUM = 0  # ncclRedOp_t's sum, the default reduction


def is_available(tensors) -> bool:
    """False: this is a CPU-only build, compiled without NCCL (warns as PyTorch does)."""
    warnings.warn("PyTorch is not compiled with NCCL support", stacklevel=2)
    return False


version = missing_binding("version", "_nccl_version")
unique_id = missing_binding("unique_id", "_nccl_unique_id")
init_rank = missing_binding("init_rank", "_nccl_init_rank")
all_reduce = missing_binding("all_reduce", "_nccl_all_reduce")
reduce = missing_binding("reduce", "_nccl_reduce")
broadcast = missing_binding("broadcast", "_nccl_broadcast")
all_gather = missing_binding("all_gather", "_nccl_all_gather")
reduce_scatter = missing_binding("reduce_scatter", "_nccl_reduce_scatter")

__all__ = ["all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter"]
