"""Parameters as one flat vector and back (optimizers that work on vectors need this)."""

from __future__ import annotations

from ... import cat, no_grad
from ..._tensor import Tensor


def parameters_to_vector(parameters) -> Tensor:
    """All parameters flattened and concatenated, in order (in the graph, as PyTorch)."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of ``vec`` into the parameters, in order."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    start = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[start : start + n].reshape(p.shape))
            start += n
