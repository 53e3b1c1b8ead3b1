"""jet_unary's forward and backward blocks (``jet_kernels``) as one compiled pass each,
where numba is installed (``_fused``), for the second-order layouts the PINN operators use:
none, a Laplacian (one row of ones: one sum of squares) and separate second derivatives (the
identity over the active directions).

Why: NumPy runs a block as five to nine passes over the (K, rows, width) channels (the
products with ``d1``, the channel sums, the squares, the curvature terms), each reading
arrays a large batch keeps out of cache; here each point's channels are read once. On the
d = 10 Laplacian training step (N = 1e4, float64) the two blocks were 46% of the step. Each
value is computed by the NumPy code's operations in its order (channel sums run from the
first channel on), so results agree with it to round-off (``tests/ops/test_fused_jets.py``).
"""

from __future__ import annotations

import threading

import numpy as np

from . import _fused

NONE, LAPLACIAN, SEPARATE = 0, 1, 2  # second-order layouts, as ``_kind`` reads ``active``


def _kind(active) -> int | None:
    """The layout of ``active`` (``jet_kernels._active_or_none``), None for a general mix."""
    if active is None:
        return NONE
    _, _, _, ones, identity = active
    return LAPLACIAN if ones else SEPARATE if identity else None


def takes(p, active, *others) -> bool:
    """Whether a block of ``p`` (with per-point ``others``) takes the compiled pass: float64,
    and float32 with a Laplacian's many channels. (float32 blocks of few channels ran as
    fast or faster in NumPy's passes, whose vector loops take twice as many float32s: (3,
    2000, 20) blocks 44 against 35 us forward, 103 against 88 backward.)"""
    kind = _kind(active)
    if (
        type(p) is not np.ndarray
        or p.ndim != 3
        or p.size < _fused.MIN_SIZE
        or not (p.dtype.char == "d" or (p.dtype.char == "f" and kind == LAPLACIAN))
        or kind is None
    ):
        return False
    for a in others:
        if type(a) is not np.ndarray or a.dtype != p.dtype or a.shape != p.shape[1:]:
            return False
    return _fused.available()


def _directions(active, channels: int) -> np.ndarray:
    return np.arange(channels)[active[0]] if active is not None else np.arange(0)


def _in_parent(jet: np.ndarray) -> tuple:
    """``(array, row)``: a block ``jet`` of rows of a C-contiguous (K, N, W) array as that
    array (over the memory ``jet`` lies in) and the block's first row, so that numba
    compiles the loops for unit strides (twice as fast as for a general layout, measured on
    (3, 2000, 20) float32 blocks); the loops touch only the block's rows. Any other array
    as it is, from row 0."""
    owner = jet.base
    if jet.flags.c_contiguous or type(owner) is not np.ndarray or not owner.flags.c_contiguous:
        return jet, 0
    channel, row, item = jet.strides
    width = jet.shape[2]
    if item != jet.itemsize or row != width * item or channel % row or channel < row:
        return jet, 0
    offset = jet.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    within = offset % channel  # where the block starts in its channel
    start = offset - within
    if within % row or not 0 <= start <= owner.nbytes - len(jet) * channel:
        return jet, 0
    shape = (len(jet), channel // row, width)
    parent = np.ndarray(shape, jet.dtype, owner, start, (channel, row, item))
    return parent, within // row


def unary_block(p, d1, d2, first, active, out=None) -> np.ndarray:
    """``_unary_block``'s result: ``p d1``, plus ``d2`` times the squares of the active
    directions in the second-order channels."""
    if out is None:
        out = np.empty(p.shape, p.dtype)
    kind, rows = _kind(active), p.shape[1]
    directions = _directions(active, len(p))
    loop = _loops()["unary"]
    loop(*_in_parent(p), d1, d2, first, directions, kind, *_in_parent(out), rows)
    return out


def unary_backward_block(grad, p, d1, d2x2, first, active, outs=(None, None, None)):
    """``_backward_block``'s ``(g_p, g_d1, g_d2)`` (``g_d2`` None without ``active``)."""
    gp, gd1, gd2 = outs
    gp = np.empty(p.shape, p.dtype) if gp is None else gp
    gd1 = np.empty(p.shape[1:], p.dtype) if gd1 is None else gd1
    kind, rows = _kind(active), p.shape[1]
    if kind != NONE and gd2 is None:
        gd2 = np.empty(p.shape[1:], p.dtype)
    scratch = gd1 if gd2 is None else gd2  # (unwritten when kind is NONE)
    directions = _directions(active, len(p))
    jets = (*_in_parent(grad), *_in_parent(p), *_in_parent(gp))
    _loops()["backward"](*jets, d1, d2x2, first, directions, kind, gd1, scratch, rows)
    return gp, gd1, None if kind == NONE else gd2


# The loops: each jet comes with the row its block starts at (``_in_parent``).
def _unary(p, pr, d1, d2, first, directions, kind, out, outr, rows):
    channels, width = p.shape[0], p.shape[2]
    squares = np.empty(width, p.dtype)
    for i in range(rows):
        for c in range(channels):
            for j in range(width):
                out[c, outr + i, j] = p[c, pr + i, j] * d1[i, j]
        if kind == 1:  # one sum of squares, added to every second-order channel
            k = directions[0]
            for j in range(width):
                squares[j] = p[k, pr + i, j] * p[k, pr + i, j]
            for m in range(1, len(directions)):
                k = directions[m]
                for j in range(width):
                    squares[j] += p[k, pr + i, j] * p[k, pr + i, j]
            for c in range(first, channels):
                for j in range(width):
                    out[c, outr + i, j] += squares[j] * d2[i, j]
        elif kind == 2:  # second-order channel m: direction m's square
            for m in range(channels - first):
                k = directions[m]
                for j in range(width):
                    out[first + m, outr + i, j] += p[k, pr + i, j] * p[k, pr + i, j] * d2[i, j]


def _backward(grad, gr, p, pr, gp, gpr, d1, d2x2, first, directions, kind, gd1, gd2, rows):
    channels, width = p.shape[0], p.shape[2]
    squares = np.empty(width, p.dtype)
    for i in range(rows):
        g, q, o = gr + i, pr + i, gpr + i  # the row in each jet
        for j in range(width):
            gd1[i, j] = grad[0, g, j] * p[0, q, j]
        for c in range(1, channels):
            for j in range(width):
                gd1[i, j] += grad[c, g, j] * p[c, q, j]
        for c in range(channels):
            for j in range(width):
                gp[c, o, j] = grad[c, g, j] * d1[i, j]
        if kind == 1:  # R = g_L for every direction: g_d2 = R sum_k J_k^2, g_J += J (R 2 d2)
            k = directions[0]
            for j in range(width):
                squares[j] = p[k, q, j] * p[k, q, j]
            for m in range(1, len(directions)):
                k = directions[m]
                for j in range(width):
                    squares[j] += p[k, q, j] * p[k, q, j]
            for j in range(width):
                gd2[i, j] = grad[first, g, j] * squares[j]
                squares[j] = grad[first, g, j] * d2x2[i, j]  # now R 2 d2
            for m in range(len(directions)):
                k = directions[m]
                for j in range(width):
                    gp[k, o, j] += p[k, q, j] * squares[j]
        elif kind == 2:  # R_m = g of channel first + m: g_d2 = sum_m R_m J_m^2
            for m in range(channels - first):
                k = directions[m]
                for j in range(width):
                    rj = grad[first + m, g, j] * p[k, q, j]
                    if m == 0:
                        gd2[i, j] = rj * p[k, q, j]
                    else:
                        gd2[i, j] += rj * p[k, q, j]
                    gp[k, o, j] += rj * d2x2[i, j]


_compiled: dict = {}
_compiling = threading.Lock()


def _loops() -> dict:
    """The compiled loops (``takes`` checked that numba is there)."""
    if not _compiled:
        with _compiling:
            if not _compiled:
                _compiled.update(unary=_fused.jit(_unary), backward=_fused.jit(_backward))
    return _compiled


__all__: list = []
