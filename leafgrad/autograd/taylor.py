"""Taylor mode: many derivatives of a function of its inputs in one forward pass.

PyTorch has no counterpart. Two entry points:

- ``coefficients(func, x, v, order)``: the Taylor series of ``t -> func(x + t v)`` at 0,
  ``[u, u_1, ..., u_K]`` with ``u_k = (d/dt)^k u / k!``; ``derivatives`` gives the
  derivatives themselves (``k! u_k``): ``u, u', u'', ...`` along ``v``.
- ``laplacian(func, x)`` and ``collapsed(func, x, weights)``: for ``x`` of shape (N, d) and a
  ``func`` acting row by row, the value, the gradient with respect to the d inputs and the
  Laplacian (or ``sum_ij A_ij d2u/dx_i dx_j`` for a symmetric ``A``, e.g. a diffusion
  operator), propagated together ("forward Laplacian", Li et al. 2023; collapsed Taylor
  mode, Dangel et al. 2024). The cost grows with d, with no backward pass per input.

Everything runs in leafgrad ops, so the results keep their graph: ``backward()`` through
them gives parameter gradients, as a PINN loss needs.
"""

from __future__ import annotations

import math

import numpy as np

from .._engine.forward import jet_mode
from .._tensor import Tensor, _wrap, _zeros_like
from ..ops.joining import stack


def _check_input(x, name: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"taylor.{name}: x must be a Tensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"taylor.{name}: x must be floating point, got {x.dtype}")


def _seeded(x: Tensor, jet) -> Tensor:
    """``x`` (keeping its graph) carrying ``jet`` into the function."""
    seeded = x.view_as(x) if x._requires_grad else _wrap(x._data)
    seeded._jet = jet
    return seeded


def _output_jet(u: Tensor, zero_jet):
    if not isinstance(u, Tensor):
        raise TypeError(f"taylor: func must return a Tensor, got {type(u).__name__}")
    jet = u._jet
    u._jet = None
    return zero_jet(u) if jet is None else jet  # u does not depend on x


def coefficients(func, x, v, order: int) -> list:
    """``[u, u_1, ..., u_order]``: normalised Taylor coefficients of ``func(x + t v)``.

    ``x`` and ``v`` are Tensors of one shape, or equal-length tuples of them (then
    ``func(*x)``, every input moving along its own direction).
    """
    several = isinstance(x, (tuple, list))
    xs = tuple(x) if several else (x,)
    vs = tuple(v) if several and isinstance(v, (tuple, list)) else (v,)
    if len(xs) != len(vs):
        raise ValueError(f"taylor.coefficients: {len(xs)} inputs but {len(vs)} directions")
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"taylor.coefficients: order must be a positive int, got {order!r}")
    seeded = []
    for xi, vi in zip(xs, vs):
        _check_input(xi, "coefficients")
        if not isinstance(vi, Tensor) or vi._data.shape != xi._data.shape:
            raise ValueError(
                f"taylor.coefficients: the direction v must be a Tensor of x's shape "
                f"{list(xi._data.shape)}, got {getattr(vi, 'shape', type(vi).__name__)}"
            )
        vi = vi if vi._data.dtype == xi._data.dtype else vi.to(xi.dtype)
        zeros = _zeros_like(xi)
        seeded.append(_seeded(xi, (vi,) + (zeros,) * (order - 1)))
    with jet_mode(("taylor", order)):
        u = func(*seeded)
    jet = _output_jet(u, lambda u: tuple(_zeros_like(u) for _ in range(order)))
    return [u, *jet]


def derivatives(func, x: Tensor, v: Tensor, order: int) -> list:
    """``[u, u', u'', ...]``: derivatives of ``t -> func(x + t v)`` at 0 up to ``order``."""
    coeffs = coefficients(func, x, v, order)
    return [c if k < 2 else c * float(math.factorial(k)) for k, c in enumerate(coeffs)]


def collapsed(func, x: Tensor, weights=None):
    """``(u, grad, op_u)`` with ``op_u = sum_ij A_ij d2u/dx_i dx_j`` in one forward pass.

    ``x``: (N, d) points; ``func`` maps them row by row to ``u`` of shape (N,) or (N, m).
    ``weights``: the symmetric (d, d) matrix ``A`` (array or Tensor), a length-d vector for
    a diagonal ``A``, or None for the identity (the Laplacian). Returns ``grad`` of shape
    ``u.shape + (d,)`` and ``op_u`` of ``u``'s shape.
    """
    _check_input(x, "collapsed")
    if x._data.ndim != 2:
        raise ValueError(
            f"taylor.collapsed: x must be (N, d) points, got shape {list(x._data.shape)}"
        )
    d = x._data.shape[1]
    directions, scales = _directions(weights, d)
    eye = np.eye(d, dtype=x._data.dtype)
    seeds = tuple(
        _wrap(np.broadcast_to(q.astype(x._data.dtype), x._data.shape).copy()) for q in directions
    )
    with jet_mode(("collapsed", scales)):
        u = func(_seeded(x, (seeds, _zeros_like(x))))
    first, second = _output_jet(
        u,
        lambda u: (
            tuple(_zeros_like(u) for _ in scales),
            _zeros_like(u),
        ),
    )
    along = stack(list(first), dim=-1)  # derivatives along the directions, last axis
    basis = np.stack(directions, axis=0).astype(x._data.dtype)  # (k, d)
    if np.array_equal(basis, eye):
        grad = along
    else:
        grad = along @ _wrap(basis)
    return u, grad, second


def laplacian(func, x: Tensor):
    """``(u, grad_u, laplacian_u)`` of a row-wise ``func`` at points ``x`` (N, d).

    For ``u`` of shape (N, m): ``grad_u`` is (N, m, d) and ``laplacian_u`` (N, m); for ``u``
    of shape (N,): (N, d) and (N,). All three keep their graph for ``backward()``.
    """
    return collapsed(func, x, None)


def _directions(weights, d: int):
    """Unit directions and weights with ``A = sum_k w_k q_k q_k^T`` (eigendecomposition)."""
    if weights is None:
        return [np.eye(d)[i] for i in range(d)], [1.0] * d
    a = weights._data if isinstance(weights, Tensor) else np.asarray(weights, dtype=np.float64)
    if a.ndim == 1:
        if a.shape != (d,):
            raise ValueError(
                f"taylor.collapsed: a weight vector must have length d={d}, got {a.shape}"
            )
        return [np.eye(d)[i] for i in range(d)], [float(w) for w in a]
    if a.shape != (d, d) or not np.allclose(a, a.T):
        raise ValueError(
            f"taylor.collapsed: weights must be a symmetric ({d}, {d}) matrix, got shape "
            f"{list(a.shape)}"
        )
    if np.count_nonzero(a - np.diag(np.diagonal(a))) == 0:
        return [np.eye(d)[i] for i in range(d)], [float(w) for w in np.diagonal(a)]
    values, vectors = np.linalg.eigh(a.astype(np.float64))
    return [vectors[:, k] for k in range(d)], [float(w) for w in values]


__all__ = ["coefficients", "derivatives", "collapsed", "laplacian"]
