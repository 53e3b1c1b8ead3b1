"""jet_unary's forward and backward blocks (``jet_kernels``), and jet_act's for tanh (its
derivatives made in the pass), as one compiled pass each where numba is installed
(``_fused``), for the second-order layouts the PINN operators use: none, a Laplacian (one
row of ones: one sum of squares) and separate second derivatives (the identity over the
active directions).

Why: NumPy runs a block as five to nine passes over the (K, rows, width) channels (the
products with ``d1``, the channel sums, the squares, the curvature terms), each reading
arrays a large batch keeps out of cache; here each point's channels are read once. On the
d = 10 Laplacian training step (N = 1e4, float64) the two blocks were 46% of the step. Each
value is computed by the NumPy code's operations in its order (channel sums run from the
first channel on, as ``_channel_dot``'s einsum does on the CPUs measured), so results are
NumPy's to the bit there and to round-off anywhere (``tests/ops/test_fused_jets.py``).
"""

from __future__ import annotations

import threading

import numpy as np

from .._storage import storage_array, storage_offset
from . import _fused

NONE, LAPLACIAN, SEPARATE = 0, 1, 2  # second-order layouts, as ``_kind`` reads ``active``


def _kind(active) -> int | None:
    """The layout of ``active`` (``jet_kernels._active_or_none``), None for a general mix."""
    if active is None:
        return NONE
    _, _, _, ones, identity = active
    return LAPLACIAN if ones else SEPARATE if identity else None


def takes(p, active, *others, jets=(), tanh: bool = False) -> bool:
    """Whether a block of ``p`` (with per-point ``others`` and ``p``-shaped ``jets``; None
    among them stands for an absent array) takes the compiled pass: float64;
    float32 for tanh (its derivatives made in the pass) or a Laplacian's many channels.
    (float32 blocks of few channels with given derivatives ran as fast or faster in NumPy's
    passes, whose vector loops take twice as many float32s: (3, 2000, 20) blocks 44 against
    35 us forward, 103 against 88 backward; with tanh's derivatives made in the pass the
    float32 Burgers step at N = 1e4 took 30 against 36 ms.)"""
    if type(p) is not np.ndarray or p.ndim != 3 or p.size < _fused.MIN_SIZE:
        return False
    kind = _kind(active)
    pays = p.dtype.char == "d" or (p.dtype.char == "f" and (tanh or kind == LAPLACIAN))
    if kind is None or not pays:
        return False
    for shape, group in ((p.shape[1:], others), (p.shape, jets)):
        for a in group:
            if a is not None and (
                type(a) is not np.ndarray or a.dtype != p.dtype or a.shape != shape
            ):
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
    if jet.flags.c_contiguous:
        return jet, 0
    owner = storage_array(jet)
    channel, row, item = jet.strides
    width = jet.shape[2]
    if not owner.flags.c_contiguous or item != jet.itemsize or row != width * item:
        return jet, 0
    if channel % row or channel < row:
        return jet, 0
    offset = storage_offset(jet) * item  # bytes into the owner
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
    return _forward(p, d1, d2, first, active, out, False)


def tanh_block(p, y, first, active, out=None) -> np.ndarray:
    """``act_block`` of tanh at its result ``y``: ``unary_block`` with ``d1 = 1 - y^2`` and
    ``d2 = -2 y d1`` made in the loop (``_tanh_arrays``' operations)."""
    return _forward(p, y, y, first, active, out, True)


def _forward(p, d1, d2, first, active, out, tanh: bool) -> np.ndarray:
    if out is None:
        out = np.empty(p.shape, p.dtype)
    kind, rows, number = _kind(active), p.shape[1], p.dtype.type
    directions = _directions(active, len(p))
    jets = (*_in_parent(p), *_in_parent(out))
    _loops()["unary"](*jets, d1, d2, first, directions, kind, rows, tanh, number(1), number(-2))
    return out


def unary_backward_block(grad, p, d1, d2x2, first, active, outs=(None, None, None)):
    """``_backward_block``'s ``(g_p, g_d1, g_d2)`` (``g_d2`` None without ``active``)."""
    gp, gd1, gd2 = _backward_arrays(p, active, *outs)
    _run_backward(grad, p, d1, d2x2, first, active, gp, gd1, gd2, False, False)
    return gp, gd1, None if _kind(active) == NONE else gd2


def tanh_backward_block(grad, p, y, first, active, weighted: bool, outs=(None, None)):
    """``act_backward_block`` of tanh at its result ``y``: ``(g_p, g_z)``, ``g_z = g_d1 D1'
    (+ g_d2 D2' where the jet has second-order ``weighted`` rows)``, the derivatives made
    in the loop (``_tanh_arrays``' operations)."""
    gp, gz, gd2 = _backward_arrays(p, active, *outs, None)
    _run_backward(grad, p, y, y, first, active, gp, gz, gd2, True, weighted)
    return gp, gz


def _backward_arrays(p, active, gp, gd1, gd2):
    """The backward's outputs: those given, fresh ones for the rest (``g_d2`` only with a
    second-order layout; else ``g_d1`` stands in for it, unwritten)."""
    gp = np.empty(p.shape, p.dtype) if gp is None else gp
    gd1 = np.empty(p.shape[1:], p.dtype) if gd1 is None else gd1
    if gd2 is None:
        gd2 = gd1 if _kind(active) == NONE else np.empty(p.shape[1:], p.dtype)
    return gp, gd1, gd2


def _run_backward(grad, p, d1, d2x2, first, active, gp, gd1, gd2, tanh, weighted):
    kind, rows, number = _kind(active), p.shape[1], p.dtype.type
    directions = _directions(active, len(p))
    jets = (*_in_parent(grad), *_in_parent(p), *_in_parent(gp))
    constants = number(0), number(1), number(-2), number(-4), number(-6), number(4)
    loop = _loops()["backward"]
    loop(*jets, d1, d2x2, first, directions, kind, gd1, gd2, rows, tanh, weighted, *constants)


def _derivative_row(d1, d2, i, tanh, one, scale, d1r, d2r):
    """Row ``i``'s ``D1`` and ``D2`` into ``d1r``, ``d2r``: given, or for tanh from its
    result y in ``d1``: ``1 - y^2``, then ``(y (1 - y^2)) scale`` (``_tanh_arrays``')."""
    for j in range(len(d1r)):
        if tanh:
            y = d1[i, j]
            d1r[j] = one - y * y
            d2r[j] = y * d1r[j] * scale
        else:
            d1r[j] = d1[i, j]
            d2r[j] = d2[i, j]


def _sum_of_squares(p, row, directions, squares):
    """``sum_k p[k, row]^2`` over the active directions into ``squares``, from the first
    direction on (``_channel_dot``'s order)."""
    k = directions[0]
    for j in range(len(squares)):
        squares[j] = p[k, row, j] * p[k, row, j]
    for m in range(1, len(directions)):
        k = directions[m]
        for j in range(len(squares)):
            squares[j] += p[k, row, j] * p[k, row, j]


# The loops: each jet comes with the row its block starts at (``_in_parent``); ``tanh``:
# ``d1`` holds tanh's result y, and the derivatives are made from it row by row.
def _unary(p, pr, out, outr, d1, d2, first, directions, kind, rows, tanh, one, minus_two):
    channels, width = p.shape[0], p.shape[2]
    squares = np.empty(width, p.dtype)
    d1r, d2r = np.empty(width, p.dtype), np.empty(width, p.dtype)
    for i in range(rows):
        _derivative_row(d1, d2, i, tanh, one, minus_two, d1r, d2r)
        for c in range(channels):
            for j in range(width):
                out[c, outr + i, j] = p[c, pr + i, j] * d1r[j]
        if kind == 1:  # one sum of squares, added to every second-order channel
            _sum_of_squares(p, pr + i, directions, squares)
            for c in range(first, channels):
                for j in range(width):
                    out[c, outr + i, j] += squares[j] * d2r[j]
        elif kind == 2:  # second-order channel m: direction m's square
            for m in range(channels - first):
                k = directions[m]
                for j in range(width):
                    out[first + m, outr + i, j] += p[k, pr + i, j] * p[k, pr + i, j] * d2r[j]


def _backward(
    grad, gr, p, pr, gp, gpr, d1, d2x2, first, directions, kind, gd1, gd2, rows,
    tanh, weighted, zero, one, minus_two, minus_four, minus_six, four,
):  # fmt: skip
    channels, width = p.shape[0], p.shape[2]
    squares = np.empty(width, p.dtype)
    d1r, d2r = np.empty(width, p.dtype), np.empty(width, p.dtype)
    for i in range(rows):
        g, q, o = gr + i, pr + i, gpr + i  # the row in each jet
        _derivative_row(d1, d2x2, i, tanh, one, minus_four, d1r, d2r)  # (twice D2)
        for j in range(width):
            gd1[i, j] = grad[0, g, j] * p[0, q, j]
        for c in range(1, channels):
            for j in range(width):
                gd1[i, j] += grad[c, g, j] * p[c, q, j]
        for c in range(channels):
            for j in range(width):
                gp[c, o, j] = grad[c, g, j] * d1r[j]
        if kind == 1:  # R = g_L for every direction: g_d2 = R sum_k J_k^2, g_J += J (R 2 d2)
            _sum_of_squares(p, q, directions, squares)
            for j in range(width):
                gd2[i, j] = grad[first, g, j] * squares[j]
                squares[j] = grad[first, g, j] * d2r[j]  # now R 2 d2
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
                    gp[k, o, j] += rj * d2r[j]
        if tanh:  # g_z = g_d1 (-2 y) (+ g_d2 (-6 (1 - y^2) + 4)), into g_d1
            for j in range(width):
                y = d1[i, j]
                gz = gd1[i, j] * (y * minus_two)
                if weighted:
                    gz += (gd2[i, j] if kind != 0 else zero) * (d1r[j] * minus_six + four)
                gd1[i, j] = gz


_compiled: dict = {}
_compiling = threading.Lock()


def _loops() -> dict:
    """The compiled loops (``takes`` checked that numba is there)."""
    if not _compiled:
        with _compiling:
            if not _compiled:
                from numba.extending import register_jitable  # why: optional (see _fused)

                register_jitable(_derivative_row)
                register_jitable(_sum_of_squares)
                _compiled.update(unary=_fused.jit(_unary), backward=_fused.jit(_backward))
    return _compiled


__all__: list = []
