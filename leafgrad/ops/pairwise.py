"""Products and distances between rows as PyTorch records them: ``linalg_cross``
(``LinalgCrossBackward0``, saving ``self``, ``other`` and ``dim``), ``cdist``
(``CdistBackward0``, saving ``x1``, ``x2``, ``p`` and the result) and ``_euclidean_dist``
(``EuclideanDistBackward0``: cdist's p = 2 by one matrix product, which PyTorch takes for
more than 25 rows). The public functions (``composites.py``) check their arguments first.

cdist's gradient follows PyTorch's ``_cdist_backward`` (zero where a distance is zero), in
leafgrad ops, so it differentiates again where PyTorch's does not; ``_euclidean_dist``'s
follows ``_euclidean_dist_backward``, in leafgrad ops as PyTorch's is in ATen's.
"""

from __future__ import annotations

import math

import numpy as np

from ._optable import Composite
from ._primitive import primitive
from ._tangents import tangent_sum
from .joining import cat, stack
from .piecewise import where

# ----- cross -----


def _cross_composite(x, y, *, dim):
    """The cross product from its components (Taylor mode and vmap use it)."""
    shape = np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    a0, a1, a2 = x.expand(shape).unbind(dim)
    b0, b1, b2 = y.expand(shape).unbind(dim)
    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def _cross_jvp(tx, ty, x, y, *, result, dim):
    """The product rule with the op itself (it is bilinear)."""
    return tangent_sum(
        None if tx is None else linalg_cross(tx, y, dim=dim),
        None if ty is None else linalg_cross(x, ty, dim=dim),
    )


linalg_cross = primitive(
    "linalg_cross",
    lambda x, y, *, dim: np.cross(*np.broadcast_arrays(x, y), axis=dim),
    (
        lambda grad, x, y, result, *, dim: linalg_cross(y, grad, dim=dim),
        lambda grad, x, y, result, *, dim: linalg_cross(grad, x, dim=dim),
    ),
    kind=Composite(taylor_as=_cross_composite, jvp=_cross_jvp),
    saves=("self if other", "other if self", "dim"),
    node_name="LinalgCrossBackward0",
    broadcast=True,
)


# ----- cdist -----


def _cdist_forward(x1, x2, *, p):
    """Distances between the rows of ``x1`` (.., P, M) and ``x2`` (.., R, M): (.., P, R)."""
    return norms_of(np.abs(x1[..., :, None, :] - x2[..., None, :, :]), p)


def norms_of(size: np.ndarray, p) -> np.ndarray:
    """The ``p``-norms of ``size`` (absolute differences) over its last axis."""
    if p == 0:
        return np.sum(size != 0, axis=-1).astype(size.dtype)
    if p == 1:
        return np.sum(size, axis=-1)
    if p == 2:
        return np.sqrt(np.sum(size * size, axis=-1))
    if p == math.inf:
        return np.max(size, axis=-1, initial=0.0)
    return np.sum(size**p, axis=-1) ** (1.0 / p)


def _distance_slopes(x1, x2, result, p):
    """d result[.., i, j] / d x1[.., i, k] for every (i, j, k): (.., P, R, M), PyTorch's
    ``_cdist_backward`` (0 where the distance, or for p < 2 the difference, is 0)."""
    return slopes_of(x1.unsqueeze(-2) - x2.unsqueeze(-3), result.unsqueeze(-1), p)


def slopes_of(diff, dist, p):
    """d dist / d diff for the ``p``-norm ``dist`` (broadcast over ``diff``'s last axis) of
    the differences ``diff``, as PyTorch's distance backwards give it."""
    if p == 0:
        return diff * 0
    if p == 1:
        return diff.sign()
    if p == math.inf:
        return diff.sign() * (diff.abs() == dist)
    positive = dist > 0
    safe_dist = where(positive, dist, 1.0)
    if p == 2:
        return where(positive, diff / safe_dist, 0.0)
    size = diff.abs()
    nonzero = size > 0
    slope = diff.sign() * (where(nonzero, size, 1.0) / safe_dist) ** (p - 1)
    return where(positive & nonzero, slope, 0.0)


def _cdist_composite(x1, x2, *, p):
    """The distances from differentiable ops (Taylor mode and vmap use it); 0 where a
    distance is 0 (no ``0 ** (1 / p)`` derivative), each tie for p = inf the gradient whole."""
    return norms_composite(x1.unsqueeze(-2) - x2.unsqueeze(-3), p)


def norms_composite(diff, p):
    """``norms_of`` the differences ``diff`` in differentiable ops."""
    if p == 0:
        return (diff != 0).to(diff.dtype).sum(-1) + (diff * 0).sum(-1)
    size = diff.abs()
    if p == 1:
        return size.sum(-1)
    if p == math.inf:
        top = size.amax(-1, keepdim=True).detach()
        return top.squeeze(-1) + ((size - top) * (size == top)).sum(-1)
    if p != 2:
        nonzero = size > 0
        size = where(nonzero, where(nonzero, size, 1.0) ** p, 0.0)
    total = (size * size).sum(-1) if p == 2 else size.sum(-1)
    positive = total > 0
    return where(positive, where(positive, total, 1.0) ** (1.0 / p), 0.0)


def _cdist_jvp(t1, t2, x1, x2, *, result, p):
    slopes = _distance_slopes(x1, x2, result, p)
    if t1 is None:
        moved = -t2.unsqueeze(-3)
    elif t2 is None:
        moved = t1.unsqueeze(-2)
    else:
        moved = t1.unsqueeze(-2) - t2.unsqueeze(-3)
    return (slopes * moved).sum(-1)


cdist = primitive(
    "_cdist_forward",
    _cdist_forward,
    (
        lambda grad, x1, x2, result, *, p: (
            grad.unsqueeze(-1) * _distance_slopes(x1, x2, result, p)
        ).sum(-2),
        lambda grad, x1, x2, result, *, p: (
            -(grad.unsqueeze(-1) * _distance_slopes(x1, x2, result, p)).sum(-3)
        ),
    ),
    kind=Composite(taylor_as=_cdist_composite, jvp=_cdist_jvp),
    inputs=("x1", "x2"),
    saves=("x1", "x2", "p", "result"),
    node_name="CdistBackward0",
    broadcast=True,
)


# ----- _euclidean_dist -----


def _euclidean_forward(x1, x2):
    """PyTorch's ``_euclidean_dist``: ``|a|^2 + |b|^2 - 2 a.b`` for every pair of rows as one
    product of ``[-2 x1, |x1|^2, 1]`` and ``[x2, 1, |x2|^2]``, clamped at 0, square-rooted:
    fast, but rounding leaves small nonzero distances between equal rows, as in PyTorch."""
    norm1 = np.sum(x1 * x1, axis=-1, keepdims=True)
    norm2 = np.sum(x2 * x2, axis=-1, keepdims=True)
    left = np.concatenate([x1 * x1.dtype.type(-2), norm1, np.ones_like(norm1)], axis=-1)
    right = np.concatenate([x2, np.ones_like(norm2), norm2], axis=-1)
    product = np.matmul(left, np.swapaxes(right, -1, -2))
    np.maximum(product, 0, out=product)
    return np.sqrt(product, out=product)


def _euclidean_composite(x1, x2):
    """The same from differentiable ops (Taylor mode and vmap use it)."""
    norm1 = (x1 * x1).sum(-1, keepdim=True)
    norm2 = (x2 * x2).sum(-1, keepdim=True)
    left = cat([x1 * -2.0, norm1, norm1 * 0 + 1], -1)
    right = cat([x2, norm2 * 0 + 1, norm2], -1)
    return (left @ right.mT).clamp_min(0).sqrt()


def _euclidean_ratio(grad, result):
    """``grad / result``, 0 where the distance is 0 (PyTorch's subgradient there)."""
    zero = result == 0
    return where(zero, 0.0, grad / where(zero, 1.0, result))


def _euclidean_jvp(t1, t2, x1, x2, *, result):
    """d result = ((x1 - x2) . (t1 - t2)) / result, expanded as the product form is."""
    total = None
    if t1 is not None:
        total = (x1 * t1).sum(-1, keepdim=True) - t1 @ x2.mT
    if t2 is not None:
        part = (x2 * t2).sum(-1).unsqueeze(-2) - x1 @ t2.mT
        total = part if total is None else total + part
    return _euclidean_ratio(total, result)


def _euclidean_vjp(grad, x1, x2, *, result, needs):
    """PyTorch's ``_euclidean_dist_backward``, in leafgrad ops (so it differentiates again)."""
    ratio = _euclidean_ratio(grad, result)
    return (
        x1 * ratio.sum(-1, keepdim=True) - ratio @ x2 if needs[0] else None,
        x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT @ x1 if needs[1] else None,
    )


euclidean_dist = primitive(
    "_euclidean_dist",
    _euclidean_forward,
    vjp_all=_euclidean_vjp,
    kind=Composite(taylor_as=_euclidean_composite, jvp=_euclidean_jvp),
    inputs=("x1", "x2"),
    saves=("x1", "x2", "result"),
    node_name="EuclideanDistBackward0",
    broadcast=True,
)
