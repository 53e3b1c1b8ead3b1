"""The triangles ``tril`` and ``triu`` as ops of their own (their public functions are in
``composites``): a module of their own, below the linear algebra rules that take them."""

from __future__ import annotations

import functools

import numpy as np

from ._optable import Linear
from ._primitive import primitive


# The triangles as ops of their own, as PyTorch records them (TrilBackward0, TriuBackward0,
# saving ``diagonal``): each is linear and its own adjoint. NumPy's tril/triu take the last
# two dims, so a vmap batch in front needs nothing more.
def _triangle(name: str, keep, node_name: str):
    """tril or triu: ``keep(x, diagonal)`` (NumPy's) as a linear op, its own adjoint."""
    op = primitive(
        name,
        lambda x, *, diagonal: keep(x, diagonal),
        (lambda grad, x, result, *, diagonal: op(grad, diagonal=diagonal),),
        kind=Linear(),
        saves=("diagonal",),
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )
    return op


@functools.lru_cache(maxsize=64)
def _below(rows: int, cols: int, k: int) -> np.ndarray:
    """NumPy's ``tri(rows, cols, k)`` mask (True on and below the ``k``-th diagonal), made
    once per shape: making it is most of a small triangle's time."""
    mask = np.tri(rows, cols, k, dtype=bool)
    mask.setflags(write=False)
    return mask


def _keep_lower(x, k):
    """``np.tril`` with a cached mask: the same ``where``."""
    if x.ndim < 2:  # NumPy's own for what it makes of a vector
        return np.tril(x, k)
    return np.where(_below(*x.shape[-2:], k), x, np.zeros(1, x.dtype))


def _keep_upper(x, k):
    """``np.triu`` with a cached mask: the same ``where``."""
    if x.ndim < 2:
        return np.triu(x, k)
    return np.where(_below(*x.shape[-2:], k - 1), np.zeros(1, x.dtype), x)


_tril = _triangle("tril", _keep_lower, "TrilBackward0")
_triu = _triangle("triu", _keep_upper, "TriuBackward0")
