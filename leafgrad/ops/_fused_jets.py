"""jet_unary's forward and backward blocks (``jet_kernels``), and jet_act's for tanh and
sigmoid (their derivatives made in the pass from the result), as one compiled pass each
where numba is installed (``_fused``), for the second-order layouts the PINN operators use:
none, a Laplacian (one row of ones: one sum of squares) and separate second derivatives
(the identity over the active directions).

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

from .._storage import storage_array
from . import _fused, _jet_loops

NONE, LAPLACIAN, SEPARATE = 0, 1, 2  # second-order layouts, as ``_kind`` reads ``active``
# The activations whose derivatives the loops make from their result (``_jet_loops``).
FROM_RESULT = {"tanh": _jet_loops.TANH, "sigmoid": _jet_loops.SIGMOID}


def _kind(active) -> int | None:
    """The layout of ``active`` (``jet_kernels._active_or_none``), None for a general mix."""
    if active is None:
        return NONE
    _, _, _, ones, identity, _, _ = active
    return LAPLACIAN if ones else SEPARATE if identity else None


def takes(p, active, *others, jets=()) -> bool:
    """Whether a block of ``p`` (with per-point ``others`` and ``p``-shaped ``jets``; None
    among them stands for an absent array) takes the compiled pass: float64 or float32.
    (float32 blocks of few channels with given derivatives ran as fast or faster in NumPy's
    passes than in the tile loops, (3, 2000, 20) blocks 44 against 35 us forward, 103
    against 88 backward, and took NumPy's until session 36; the loops over points beat
    those passes: alone, evicted from the caches, (3, 1e3, 20) 42 -> 33 us forward and 84 ->
    58 us backward, (3, 1e4, 20) 503 -> 295 and 1022 -> 489 us.)"""
    if type(p) is not np.ndarray or p.ndim != 3 or p.size < _fused.MIN_SIZE:
        return False
    kind, char = _kind(active), p.dtype.char
    if kind is None or char not in ("d", "f"):
        return False
    shape = p.shape
    return (
        _alike(others, shape[1:], p.dtype) and _alike(jets, shape, p.dtype) and _fused.available()
    )


def _alike(arrays, shape, dtype) -> bool:
    """Whether each of ``arrays`` is None or an ndarray of ``shape`` and ``dtype``."""
    for a in arrays:
        if a is not None and (type(a) is not np.ndarray or a.shape != shape or a.dtype != dtype):
            return False
    return True


_NO_DIRECTIONS = np.arange(0)


def _directions(active) -> np.ndarray:
    """The active directions' indices, as the loops take them (none without ``active``)."""
    return active[5] if active is not None else _NO_DIRECTIONS


def _direction_key(active) -> tuple:
    """The active directions' indices as a tuple: what the loops over points freeze in."""
    return active[6] if active is not None else ()


_constants_by_type: dict = {}


def _constants(number) -> tuple:
    """The loops' constants ``0, 1, -2, -4, -6, 4`` in the jet's scalar type ``number``, made
    once per type (a NumPy scalar costs about 0.2 us to make)."""
    constants = _constants_by_type.get(number)
    if constants is None:
        constants = _constants_by_type[number] = tuple(number(c) for c in (0, 1, -2, -4, -6, 4))
    return constants


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
    offset = _loops()["byte_offset"](jet, owner)  # bytes into the owner
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
    return _forward(p, d1, d2, first, active, out, _jet_loops.GIVEN)


def result_block(p, y, act, first, active, out=None) -> np.ndarray:
    """``act_block`` of activation ``act`` (``FROM_RESULT``'s) at its result ``y``:
    ``unary_block`` with ``d1``, ``d2`` made in the loop (``jet_activations``' formulas'
    operations)."""
    return _forward(p, y, y, first, active, out, act)


def _forward(p, d1, d2, first, active, out, act: int) -> np.ndarray:
    if out is None:
        out = np.empty(p.shape, p.dtype)
    kind, rows = _kind(active), p.shape[1]
    one, minus_two = _constants(p.dtype.type)[1:3]
    if _over_points(p, backward=False):
        target, written = _target(out, True)
        loop = _points_loop(_jet_loops.points_unary, p, first, _direction_key(active), kind, act)
        loop(*_jet(p, True), *_in_parent(target), _point(d1, True), _point(d2, True), rows,
             one, minus_two)  # fmt: skip
        return _written(out, target, written)
    tiles, tile = _layout(p)
    target, written = _target(out, tiles)
    jets = (*_jet(p, tiles), *_in_parent(target))
    points = _point(d1, tiles), _point(d2, tiles), first, _directions(active), kind
    loop = _loops()["tiles_unary" if tiles else "rows_unary"]
    loop(*jets, *points, rows, act, *tile, one, minus_two)
    return _written(out, target, written)


def unary_backward_block(grad, p, d1, d2x2, first, active, outs=(None, None, None)):
    """``_backward_block``'s ``(g_p, g_d1, g_d2)`` (``g_d2`` None without ``active``)."""
    gp, gd1, gd2 = _backward_arrays(p, active, *outs)
    gp, gd1, gd2 = _run_backward(
        grad, p, d1, d2x2, first, active, gp, gd1, gd2, _jet_loops.GIVEN, False
    )
    return gp, gd1, None if _kind(active) == NONE else gd2


def result_backward_block(
    grad, p, y, act, first, active, weighted: bool, outs=(None, None), through=None
):
    """``act_backward_block`` of activation ``act`` at its result ``y``: ``(g_p, g_z)``,
    ``g_z = g_d1 D1' (+ g_d2 D2' where the jet has second-order ``weighted`` rows)``, the
    derivatives made in the loop (the formulas' operations). With ``through`` (the gradient
    of ``y`` itself), ``(g_p, g_x)``: ``g_x`` by the op's own rule on ``through + g_z``."""
    gp, gz, gd2 = _backward_arrays(p, active, *outs, None)
    gp, gz, _ = _run_backward(grad, p, y, y, first, active, gp, gz, gd2, act, weighted, through)
    return gp, gz


def _backward_arrays(p, active, gp, gd1, gd2):
    """The backward's outputs: those given, fresh ones for the rest (``g_d2`` only with a
    second-order layout; else ``g_d1`` stands in for it, unwritten)."""
    gp = np.empty(p.shape, p.dtype) if gp is None else gp
    gd1 = np.empty(p.shape[1:], p.dtype) if gd1 is None else gd1
    if gd2 is None:
        gd2 = gd1 if _kind(active) == NONE else np.empty(p.shape[1:], p.dtype)
    return gp, gd1, gd2


def _run_backward(grad, p, d1, d2x2, first, active, gp, gd1, gd2, act, weighted, through=None):
    """The backward loop into ``gp``, ``gd1``, ``gd2``: those arrays, written (with
    ``through``, the activation's: see ``result_backward_block``)."""
    kind, rows = _kind(active), p.shape[1]
    over_points = _over_points(p, backward=True)  # read as the tiles are
    tiles, tile = (True, ()) if over_points else _layout(p)
    gp_target, gp_written = _target(gp, tiles)
    gd1_target, gd1_written = _target(gd1, tiles)
    gd2_target, gd2_written = (gd1_target, True) if gd2 is gd1 else _target(gd2, tiles)
    jets = (*_jet(grad, tiles), *_jet(p, tiles), *_in_parent(gp_target))
    points = _point(d1, tiles), _point(d2x2, tiles), first, _directions(active), kind
    constants = _constants(p.dtype.type)
    # (without ``through``, d1 stands in for it, unread: one compiled signature)
    added = (points[0], False) if through is None else (_point(through, tiles), True)
    if over_points:  # the layout and flags frozen into the loop
        flags = (act, weighted and act != _jet_loops.GIVEN, added[1])
        directions = _direction_key(active)
        loop = _points_loop(_jet_loops.points_backward, p, first, directions, kind, *flags)
        loop(*jets, *points[:2], gd1_target, gd2_target, rows, added[0], *constants)
    else:
        loop = _loops()["tiles_backward" if tiles else "rows_backward"]
        loop(*jets, *points, gd1_target, gd2_target, rows, act, weighted, *added, *tile,
             *constants)  # fmt: skip
    return (
        _written(gp, gp_target, gp_written),
        _written(gd1, gd1_target, gd1_written),
        _written(gd2, gd2_target, gd2_written),
    )


# The loops over points (``_jet_loops``) against the row and tile loops, on this project's
# Sapphire Rapids host, one thread: alone, on (3, N, 20) Burgers blocks evicted from the
# caches first, float32 N = 1e4 unary 304-348 -> 230-249 us and backward 580 -> 404-434 us
# against tiles, float64 N = 1e4 backward 904-1045 -> 839-874 us against rows; in the
# training steps (``benchmarks/ab.py``, ratio to PyTorch, 3 processes each) collapsed
# Burgers float32 N = 1e4 0.830 -> 0.711 and N = 1e3 0.829 -> 0.800, float64 N = 1e3 0.858
# -> 0.818 and N = 1e4 0.660 -> 0.664, the d = 10 Laplacian 0.316 -> 0.301. The float64
# unary over points left the float64 N = 1e4 step 2% slower (its blocks come hot from
# jet_dense's products, where the rows do as well): it keeps the rows. Up to 16 channels (a
# d = 15 Laplacian): one compiled loop per layout.
MAX_POINT_CHANNELS = 16


def _over_points(p, backward: bool) -> bool:
    """Whether a block takes the loops over points: few enough channels to unroll, and a
    backward, or a float32 unary (where each won, above)."""
    return p.shape[0] <= MAX_POINT_CHANNELS and (backward or p.dtype.char == "f")


def _points_loop(factory, p, first, directions: tuple, kind, *flags):
    """The compiled loop over points for this layout (``directions``: ``_direction_key``)
    and these flags, each compiled once."""
    key = (factory, p.shape[0], first, directions, kind, *flags)
    loop = _points_compiled.get(key)
    if loop is None:
        _loops()  # the helpers the loops call, registered with numba (once)
        with _compiling:
            loop = _points_compiled.get(key)
            if loop is None:
                loop = _points_compiled[key] = _fused.jit(factory(*key[1:]))
    return loop


def _layout(p) -> tuple:
    """``(tiles, (tile,))`` for float32 blocks, the tile in elements; ``(False, ())`` for
    float64's row loops (``_jet_loops`` says why)."""
    if p.dtype.char == "f":
        return True, (_jet_loops.TILE_BYTES // p.itemsize,)
    return False, ()


# The tile loops read each channel's rows of a block as one run of memory: a jet as its
# C-contiguous parent and the block's first row (``_in_parent``), a per-point array
# C-contiguous. Anything else (rare: the blocks come from C-contiguous jets) is copied. The
# row loops take any strides.
def _jet(jet: np.ndarray, tiles: bool) -> tuple:
    parent, row = _in_parent(jet)
    if tiles and not parent.flags.c_contiguous:
        return np.ascontiguousarray(jet), 0
    return parent, row


def _point(a: np.ndarray, tiles: bool) -> np.ndarray:
    return np.ascontiguousarray(a) if tiles and not a.flags.c_contiguous else a


def _target(out: np.ndarray, tiles: bool) -> tuple:
    """``(array the loop writes, whether that is out itself)``: out, unless the tile loops
    cannot write it in place (then a fresh array, copied into out afterwards)."""
    if not tiles or out.flags.c_contiguous:
        return out, True
    if out.ndim == 3 and _in_parent(out)[0].flags.c_contiguous:  # a jet's rows
        return out, True
    return np.empty(out.shape, out.dtype), False


def _written(out: np.ndarray, target: np.ndarray, written: bool) -> np.ndarray:
    if not written:
        out[...] = target
    return out


_compiled: dict = {}
_points_compiled: dict = {}
_compiling = threading.Lock()


def _loops() -> dict:
    """The compiled loops (``takes`` checked that numba is there)."""
    if not _compiled:
        with _compiling:
            if not _compiled:
                from numba.extending import register_jitable  # why: optional (see _fused)

                for helper in _jet_loops.HELPERS:
                    register_jitable(helper)
                names = (
                    "rows_unary",
                    "rows_backward",
                    "tiles_unary",
                    "tiles_backward",
                    "byte_offset",
                )
                # all at once: a thread that finds the dict filled finds every entry
                _compiled.update({name: _fused.jit(getattr(_jet_loops, name)) for name in names})
    return _compiled


__all__: list = []
