"""``torch.cuda.graphs`` as a CPU-only build of PyTorch has it: the names exist, capturing a
graph fails (there is no device to capture on)."""

from __future__ import annotations

from .streams import CUDAGraph, is_current_stream_capturing


def graph_pool_handle():
    """Refused, as in a CPU-only build of PyTorch: no CUDA graph memory pools."""
    raise RuntimeError("Tried to instantiate dummy base class _graph_pool_handle")


class graph:
    """``with torch.cuda.graph(g):`` captures CUDA work; refused, as in a CPU-only build of
    PyTorch (it needs a CUDA stream)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global"):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


def make_graphed_callables(
    callables, sample_args, num_warmup_iters: int = 3, allow_unused_input: bool = False, pool=None
):
    """Refused, as in a CPU-only build of PyTorch: graphing needs a ``CUDAGraph``."""
    CUDAGraph()


__all__ = [
    "is_current_stream_capturing", "graph_pool_handle", "CUDAGraph", "graph",
    "make_graphed_callables",
]  # fmt: skip
