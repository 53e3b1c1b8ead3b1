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
- ``diagonal(func, x)``: the value, the gradient and every ``d2u/dx_i^2`` in one pass.

Everything runs in leafgrad ops, so the results keep their graph: ``backward()`` through
them gives parameter gradients, as a PINN loss needs. Up to second order the derivative
channels travel packed in one tensor and Linear layers and activations map them with one
primitive each (``ops.fused_jets``); other ops, and higher orders, use the generic rules.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._tensor import Tensor, _wrap, _zeros_like
from ..ops._jets import jet_pass
from ..ops.fused_jets import PackedJet, fusable
from ..ops.joining import stack
from ..ops.reorder import movedim


def _check_input(x, name: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"taylor.{name}: x must be a Tensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"taylor.{name}: x must be floating point, got {x.dtype}")


def _seeded(x: Tensor, jet) -> Tensor:
    """``x`` (keeping its graph) carrying ``jet`` into the function (inside a jet_pass)."""
    return jet_pass.carry(x.view_as(x) if x._requires_grad else _wrap(x._data), jet)


def _run(func, seeded: list, mode, zero_jet):
    """``(u, u's jet)`` of ``func(*seeded)`` in one pass of ``mode``."""
    with jet_pass(mode):
        u = func(*[_seeded(x, jet) for x, jet in seeded])
        if not isinstance(u, Tensor):
            raise TypeError(f"taylor: func must return a Tensor, got {type(u).__name__}")
        jet = u._jet
    return u, zero_jet(u) if jet is None else jet  # None: u does not depend on x


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
        jet = (vi,) + (zeros,) * (order - 1)
        if fusable(("taylor", order)):
            jet = PackedJet(stack(list(jet)), ("taylor", order))
        seeded.append((xi, jet))
    u, jet = _run(
        func, seeded, ("taylor", order), lambda u: tuple(_zeros_like(u) for _ in range(order))
    )
    if type(jet) is PackedJet:
        jet = jet.unpack()
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
    rows, scales, basis = _seed(weights, x._data.shape[1], x._data.dtype)
    mode = ("collapsed", scales)
    # The same row at every point: a broadcast view (no (K, N, d) array), which the first
    # layer's jet_linear maps with one row per channel (jet_kernels._constant_rows).
    channels = np.broadcast_to(rows, (len(rows),) + x._data.shape)
    u, jet = _run(
        func,
        [(x, PackedJet(_wrap(channels), mode))],
        mode,
        lambda u: (tuple(_zeros_like(u) for _ in scales), _zeros_like(u)),
    )
    if type(jet) is PackedJet:  # derivatives along the directions on the last axis
        channels = _own(jet.channels)
        along, second = movedim(channels[: len(scales)], 0, -1), channels[len(scales)]
    else:
        along, second = stack(list(jet[0]), dim=-1), _own(jet[1])
    return u, along if basis is None else along @ _wrap(basis), second


def laplacian(func, x: Tensor):
    """``(u, grad_u, laplacian_u)`` of a row-wise ``func`` at points ``x`` (N, d).

    For ``u`` of shape (N, m): ``grad_u`` is (N, m, d) and ``laplacian_u`` (N, m); for ``u``
    of shape (N,): (N, d) and (N,). All three keep their graph for ``backward()``.
    """
    return collapsed(func, x, None)


def diagonal(func, x, dims=None):
    """``(u, grad, diag)``: ``diag[..., k] = d2u/dx_i^2`` for ``i = dims[k]``, one pass.

    ``x``: (N, d) points, or a tuple of (N, k) column blocks (then ``func(*x)``, the columns
    numbered across the blocks in order). ``dims``: the columns whose second derivatives are
    wanted (all by default); ``grad`` always has every column: shape ``u.shape + (d,)``, and
    ``diag`` ``u.shape + (len(dims),)``.
    """
    xs = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    for xi in xs:
        _check_input(xi, "diagonal")
        if xi._data.ndim != 2:
            raise ValueError(
                f"taylor.diagonal: x must be (N, d) points or a tuple of (N, k) blocks, got "
                f"shape {list(xi._data.shape)}"
            )
    d = sum(xi._data.shape[1] for xi in xs)
    dims = tuple(range(d)) if dims is None else tuple(int(i) % d for i in dims)
    rows = tuple(tuple(float(i == j) for j in range(d)) for i in dims)
    # One second-order row is the collapsed mode, whose generic rules are the cheaper ones.
    mode = ("seconds", rows) if len(rows) > 1 else ("collapsed", rows[0] if rows else (0.0,) * d)
    s = max(len(rows), 1)
    seeded, start = [], 0
    for xi in xs:
        k = xi._data.shape[1]
        seed = np.zeros((d + s, 1, k), dtype=xi._data.dtype)  # broadcast, as in collapsed
        for j in range(k):
            seed[start + j, 0, j] = 1
        start += k
        channels = np.broadcast_to(seed, (d + s,) + xi._data.shape)
        seeded.append((xi, PackedJet(_wrap(channels), mode)))
    u, jet = _run(
        func,
        seeded,
        mode,
        lambda u: (
            tuple(_zeros_like(u) for _ in range(d)),
            tuple(_zeros_like(u) for _ in range(s)),
        ),
    )
    if type(jet) is PackedJet:
        channels = _own(jet.channels)
        firsts, seconds = channels[:d], channels[d : d + len(rows)]
        return u, movedim(firsts, 0, -1), movedim(seconds, 0, -1)
    second = (jet[1] if isinstance(jet[1], tuple) else (jet[1],))[: len(rows)]
    diag = (
        stack(list(second), dim=-1)
        if second
        else _wrap(np.zeros(u._data.shape + (0,), u._data.dtype))
    )
    return u, stack(list(jet[0]), dim=-1), diag


def _seed(weights, d: int, dtype) -> tuple:
    """``(rows, scales, basis)`` for ``collapsed``: the seed's rows (K + 1, 1, d) (unit
    directions, then a zero second-order row), the weights, and the (K, d) directions to
    map the gradient back with (None when they are the unit ones); the same for every call
    with weights given as None or numbers (cached, read-only)."""
    if weights is None or (
        isinstance(weights, (list, tuple)) and all(type(w) in (float, int) for w in weights)
    ):
        return _seed_of(None if weights is None else tuple(map(float, weights)), d, dtype)
    return _seed_of.__wrapped__(weights, d, dtype)


@functools.lru_cache(maxsize=32)
def _seed_of(weights, d: int, dtype) -> tuple:
    directions, scales = _directions(weights, d)
    rows = np.zeros((len(directions) + 1, 1, d), dtype=dtype)
    rows[: len(directions), 0] = np.asarray(directions, dtype=dtype)
    basis = np.stack(directions, axis=0).astype(dtype)  # (k, d)
    if np.array_equal(basis, np.eye(d, dtype=dtype)):
        basis = None
    else:
        basis.flags.writeable = False
    rows.flags.writeable = False
    return rows, tuple(scales), basis


def _own(channels: Tensor) -> Tensor:
    """``channels``, cloned when still (a part of) a broadcast seed: results are writable."""
    return channels if channels._data.flags.writeable else channels.clone()


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


__all__ = ["coefficients", "derivatives", "collapsed", "laplacian", "diagonal"]
