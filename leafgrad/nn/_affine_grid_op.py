"""``affine_grid`` as one op, recorded as PyTorch records it: ``affine_grid_generator``
(AffineGridGeneratorBackward0, one edge to theta, saving ``size`` and ``align_corners``).

Its forward is ATen's: a base grid of the output's positions, ``(x, y[, z], 1)`` from
``linspace_from_neg_one`` along each spatial dim, times ``theta`` transposed. It is linear in
theta, so its gradient is ATen's ``affine_grid_generator_backward``, the base grid
transposed times the gradient (a ``bmm`` of leafgrad ops, differentiable to any order).
"""

from __future__ import annotations

import math

import numpy as np

import leafgrad as _lg

from .._ranges import _linspace_values
from ..ops._optable import Linear
from ..ops._primitive import primitive

__all__ = ["affine_grid_generator", "affine_grid_composite"]


def _linspace_from_neg_one(steps: int, align_corners: bool, dt: np.dtype) -> np.ndarray:
    """ATen's ``linspace_from_neg_one``: ``linspace(-1, 1, steps)`` in ``dt``, scaled by
    ``(steps - 1) / steps`` without ``align_corners``; one step is 0."""
    if steps <= 1:
        return np.zeros(steps, dtype=dt)
    values = _linspace_values(-1.0, 1.0, steps, dt)
    if not align_corners:
        values = values * dt.type(steps - 1) / dt.type(steps)  # as ATen: range * (n-1) / n
    return values.astype(dt, copy=False)


def _base_grid(size, align_corners: bool, dt: np.dtype) -> np.ndarray:
    """``(prod(spatial), nd + 1)``: each output position's ``(x, y[, z], 1)``, x along the
    last spatial dim."""
    spatial = tuple(size[2:])
    nd = len(spatial)
    grid = np.empty((*spatial, nd + 1), dtype=dt)
    for j, steps in enumerate(reversed(spatial)):  # x: the last dim, then y, then z
        axis = _linspace_from_neg_one(steps, align_corners, dt)
        grid[..., j] = axis.reshape((-1,) + (1,) * j)
    grid[..., nd] = 1
    return grid.reshape(math.prod(spatial), nd + 1)


def _forward(theta, *, size, align_corners):
    """``(N, nd, nd + 1)`` affine maps: the grid ``(N, *size[2:], nd)``."""
    base = _base_grid(size, align_corners, theta.dtype)
    nd = len(size) - 2
    grid = np.matmul(base, theta.transpose(0, 2, 1))  # (N, P, nd)
    return grid.reshape(theta.shape[0], *size[2:], nd)


def _vjp(grad, theta, *, result, size, align_corners):
    """ATen's ``affine_grid_generator_backward``: ``base^T bmm grad``, transposed."""
    n, nd = size[0], len(size) - 2
    base = _lg.tensor(_base_grid(size, align_corners, theta.dtype.np), dtype=theta.dtype)
    points = base.shape[0]
    base = base.expand(n, points, nd + 1).transpose(1, 2)
    return _lg.bmm(base, grad.reshape(n, points, nd)).transpose(1, 2)


def affine_grid_composite(theta, *, size, align_corners):
    """The op from leafgrad ops (vmap takes this)."""
    nd = len(size) - 2
    base = _lg.tensor(_base_grid(size, align_corners, theta.dtype.np), dtype=theta.dtype)
    grid = base.matmul(theta.transpose(-2, -1))  # (N, P, nd)
    return grid.reshape(theta.shape[0], *size[2:], nd)


affine_grid_generator = primitive(
    "affine_grid_generator",
    _forward,
    (_vjp,),
    kind=Linear(),
    inputs=("theta",),
    saves=("size", "align_corners"),
    node_name="AffineGridGeneratorBackward0",
    dtype_rule="keep",
)
