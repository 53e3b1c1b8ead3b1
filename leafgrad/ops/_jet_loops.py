"""The compiled loops of the jet blocks (``_fused_jets``), in three layouts: over rows (each
row a layer's width of features), over tiles of a channel's consecutive rows, and over
points.

Why rows and tiles: a row holds few features (20 in the PINNs measured), too few for LLVM's
vector loops (16 float32 or 8 float64 lanes, unrolled), so the row loops run scalar code; a
tile of up to ``TILE_BYTES`` runs vectorised. In float32 the tiles won everywhere measured
(2-core EPYC, Zen 4): Burgers' (3, 1000, 20) blocks inside the training step, backward 74 ->
40 us and forward 36 -> 20 us; collapsed Burgers step ratio to PyTorch N = 1e3 0.878 ->
0.814, N = 1e4 0.749 -> 0.716 (``benchmarks/ab.py``, 3 processes each). In float64 they won
only on blocks already in cache (backward 78 -> 54 us) and lost inside the step, whose
blocks come from L3 or memory (N = 1e3: backward 81 -> 96 us; N = 1e4 step ratio 0.49 ->
0.55): a tile's loops touch two or three of a block's dozen streams at a time, where a row's
touch them all, so fewer cache misses are in flight at once, and float64 gains half as many
lanes to make up for it. So float64 takes the row loops, float32 the tiles
(``_fused_jets``).

A third layout reads a block as the tiles do but in one pass over its points, every channel
of a point in the loop's body, the layout's counts frozen in so that LLVM unrolls the channel
loops and vectorises over the points: one loop per layout, compiled on first use (session
36). It replaced the tiles and float64's backward rows, where it won inside the training
steps (``_fused_jets.MAX_POINT_CHANNELS`` has the figures); float64's unary keeps the rows.

Each element takes the same operations in the same order in every layout (channel sums from
the first channel on, as ``_channel_dot``'s einsum), so their results are bit for bit the
same (``tests/ops/test_fused_jets.py``). ``act``: ``GIVEN`` (``d1``, ``d2`` hold the
derivatives), or ``TANH`` or ``SIGMOID``: ``d1`` holds the activation's result y, and the
derivatives are made from it in the loop (``_result_pair``; the NumPy formulas'
operations, ``jet_activations``).
"""

from __future__ import annotations

import numpy as np

TILE_BYTES = 2048
GIVEN, TANH, SIGMOID = 0, 1, 2  # where a block's derivatives come from (``act``)


def _result_pair(y, act, one, minus_two, scale):
    """``(D1, D2 scale / -2)`` from the activation's result ``y``: -2 gives ``D2``, -4 twice
    it. tanh ``1 - y^2, y (1 - y^2) scale`` (``_tanh_arrays``'); sigmoid ``y (1 - y), y (1 -
    y) (1 - 2 y)``, doubled exactly (``_sigmoid``'s; ``1 - 2 y`` is ``1 + y (-2)`` bit for
    bit)."""
    if act == TANH:
        f1 = one - y * y
        return f1, y * f1 * scale
    f1 = y * (one - y)
    f2 = f1 * (one + y * minus_two)
    if scale != minus_two:
        f2 = f2 + f2
    return f1, f2


def _result_gz(s, g2, y, f1, act, weighted, one, minus_two, minus_six, four):
    """``g_z = g_d1 D1' (+ g_d2 D2')`` from ``y`` and ``f1 = D1``: tanh's ``D1' = -2 y``,
    ``D2' = -6 (1 - y^2) + 4``; sigmoid's ``1 - 2 y``, ``1 - 6 y (1 - y)``."""
    if act == TANH:
        gz = s * (y * minus_two)
        if weighted:
            gz += g2 * (f1 * minus_six + four)
        return gz
    gz = s * (one + y * minus_two)
    if weighted:
        gz += g2 * (one + f1 * minus_six)
    return gz


def _result_through(t, gz, y, f1, act, one):
    """The op's own rule on ``t + g_z`` (its output's gradient plus ``g_z``): tanh's ``(t +
    g_z) (1 - y^2)``, sigmoid's ``(t + g_z) (1 - y) y`` (``elementwise``'s, PyTorch's order)."""
    if act == TANH:
        return (t + gz) * f1
    return (t + gz) * (one - y) * y


# ---------------------------------------------------------------------------- over rows
# Each jet comes with the row its block starts at (``_fused_jets._in_parent``).
def _row_derivatives(d1, d2, i, act, one, minus_two, scale, d1r, d2r):
    """Row ``i``'s ``D1`` and ``D2`` into ``d1r``, ``d2r``: given, or from the activation's
    result y in ``d1`` (``_result_pair``)."""
    for j in range(len(d1r)):
        if act != GIVEN:
            d1r[j], d2r[j] = _result_pair(d1[i, j], act, one, minus_two, scale)
        else:
            d1r[j] = d1[i, j]
            d2r[j] = d2[i, j]


def _row_sum_of_squares(p, row, directions, squares):
    """``sum_k p[k, row]^2`` over the active directions into ``squares``, from the first
    direction on (``_channel_dot``'s order)."""
    k = directions[0]
    for j in range(len(squares)):
        squares[j] = p[k, row, j] * p[k, row, j]
    for m in range(1, len(directions)):
        k = directions[m]
        for j in range(len(squares)):
            squares[j] += p[k, row, j] * p[k, row, j]


def rows_unary(p, pr, out, outr, d1, d2, first, directions, kind, rows, act, one, minus_two):
    channels, width = p.shape[0], p.shape[2]
    squares = np.empty(width, p.dtype)
    d1r, d2r = np.empty(width, p.dtype), np.empty(width, p.dtype)
    for i in range(rows):
        _row_derivatives(d1, d2, i, act, one, minus_two, minus_two, d1r, d2r)
        for c in range(channels):
            for j in range(width):
                out[c, outr + i, j] = p[c, pr + i, j] * d1r[j]
        if kind == 1:  # one sum of squares, added to every second-order channel
            _row_sum_of_squares(p, pr + i, directions, squares)
            for c in range(first, channels):
                for j in range(width):
                    out[c, outr + i, j] += squares[j] * d2r[j]
        elif kind == 2:  # second-order channel m: direction m's square
            for m in range(channels - first):
                k = directions[m]
                for j in range(width):
                    out[first + m, outr + i, j] += p[k, pr + i, j] * p[k, pr + i, j] * d2r[j]


def rows_backward(
    grad, gr, p, pr, gp, gpr, d1, d2x2, first, directions, kind, gd1, gd2, rows,
    act, weighted, through, add_through, zero, one, minus_two, minus_four, minus_six, four,
):  # fmt: skip
    channels, width = p.shape[0], p.shape[2]
    squares = np.empty(width, p.dtype)
    d1r, d2r = np.empty(width, p.dtype), np.empty(width, p.dtype)
    for i in range(rows):
        g, q, o = gr + i, pr + i, gpr + i  # the row in each jet
        _row_derivatives(d1, d2x2, i, act, one, minus_two, minus_four, d1r, d2r)  # (twice D2)
        for j in range(width):
            gd1[i, j] = grad[0, g, j] * p[0, q, j]
        for c in range(1, channels):
            for j in range(width):
                gd1[i, j] += grad[c, g, j] * p[c, q, j]
        for c in range(channels):
            for j in range(width):
                gp[c, o, j] = grad[c, g, j] * d1r[j]
        if kind == 1:  # R = g_L for every direction: g_d2 = R sum_k J_k^2, g_J += J (R 2 d2)
            _row_sum_of_squares(p, q, directions, squares)
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
        if act != GIVEN:  # g_z = g_d1 D1' (+ g_d2 D2'), into g_d1
            for j in range(width):
                y = d1[i, j]
                g2 = gd2[i, j] if kind != 0 else zero
                gz = _result_gz(gd1[i, j], g2, y, d1r[j], act, weighted, one, minus_two,
                                minus_six, four)  # fmt: skip
                if add_through:  # the op's own rule on its output's gradient plus g_z
                    gz = _result_through(through[i, j], gz, y, d1r[j], act, one)
                gd1[i, j] = gz


# --------------------------------------------------------------------------- over tiles
# A jet is read as its (channels, points * width) array and the block's first row; a tile is
# ``A[c, at:at + n]``: 1-D slices numba knows to be contiguous (a 2-D slice's rows it does
# not, and those loops stayed scalar).
def _tile_derivatives(y, d2, act, one, minus_two, scale, d1t, d2t):
    """A tile's ``D1`` and ``D2`` into ``d1t``, ``d2t``: given (``y`` is D1), or from the
    activation's result ``y`` (``_result_pair``)."""
    if act != GIVEN:
        for j in range(len(d1t)):
            d1t[j], d2t[j] = _result_pair(y[j], act, one, minus_two, scale)
    else:
        for j in range(len(d1t)):
            d1t[j] = y[j]
            d2t[j] = d2[j]


def _product(out, a, b):
    for j in range(len(out)):
        out[j] = a[j] * b[j]


def _tile_sum_of_squares(P, at, n, directions, sq):
    """``sum_k J_k^2`` over the active directions into ``sq``, from the first direction on
    (``_channel_dot``'s order); direction k's tile is ``P[k, at:at + n]``."""
    x = P[directions[0], at : at + n]
    _product(sq, x, x)
    for q in range(1, len(directions)):
        x = P[directions[q], at : at + n]
        for j in range(n):
            sq[j] += x[j] * x[j]


def tiles_unary(p, pr, out, outr, d1, d2, first, directions, kind, rows, act, tile, one, minus_two):
    channels, width = p.shape[0], p.shape[2]
    n = rows * width
    P = p.reshape(channels, p.shape[1] * width)
    OUT = out.reshape(out.shape[0], out.shape[1] * width)
    D1, D2 = d1.reshape(n), d2.reshape(n)
    tile = min(n, tile)
    d1b, d2b, sqb = np.empty(tile, p.dtype), np.empty(tile, p.dtype), np.empty(tile, p.dtype)
    for s in range(0, n, tile):
        m = min(tile, n - s)
        d1t, d2t, sq = d1b[:m], d2b[:m], sqb[:m]
        _tile_derivatives(D1[s : s + m], D2[s : s + m], act, one, minus_two, minus_two, d1t, d2t)
        a, b = pr * width + s, outr * width + s  # the tile in p's and out's channels
        for c in range(channels):
            _product(OUT[c, b : b + m], P[c, a : a + m], d1t)
        if kind == 1:  # one sum of squares, added to every second-order channel
            _tile_sum_of_squares(P, a, m, directions, sq)
            for c in range(first, channels):
                o = OUT[c, b : b + m]
                for j in range(m):
                    o[j] += sq[j] * d2t[j]
        elif kind == 2:  # second-order channel q: direction q's square
            for q in range(channels - first):
                x, o = P[directions[q], a : a + m], OUT[first + q, b : b + m]
                for j in range(m):
                    o[j] += x[j] * x[j] * d2t[j]


def _backward_streams(grad, p, gp, d1, d2x2, gd1, gd2, through, rows):
    """A backward block's arrays as the tile and point loops read them: each jet as its
    (channels, points) array, each per-point array flat."""
    width = p.shape[2]
    n = rows * width
    return (
        grad.reshape(grad.shape[0], grad.shape[1] * width),
        p.reshape(p.shape[0], p.shape[1] * width),
        gp.reshape(gp.shape[0], gp.shape[1] * width),
        d1.reshape(n),
        d2x2.reshape(n),
        gd1.reshape(n),
        gd2.reshape(n),
        through.reshape(through.size),
    )


def tiles_backward(
    grad, gr, p, pr, gp, gpr, d1, d2x2, first, directions, kind, gd1, gd2, rows,
    act, weighted, through, add_through, tile, zero, one, minus_two, minus_four, minus_six,
    four,
):  # fmt: skip
    channels, width = p.shape[0], p.shape[2]
    n = rows * width
    G, P, GP, D1, D2, GD1, GD2, THROUGH = _backward_streams(
        grad, p, gp, d1, d2x2, gd1, gd2, through, rows
    )
    tile = min(n, tile)
    d1b, d2b, sqb = np.empty(tile, p.dtype), np.empty(tile, p.dtype), np.empty(tile, p.dtype)
    for s in range(0, n, tile):
        m = min(tile, n - s)
        d1t, d2t, sq = d1b[:m], d2b[:m], sqb[:m]
        y, g1, g2 = D1[s : s + m], GD1[s : s + m], GD2[s : s + m]
        _tile_derivatives(y, D2[s : s + m], act, one, minus_two, minus_four, d1t, d2t)  # 2 D2
        a, b, o = gr * width + s, pr * width + s, gpr * width + s  # in grad, p and gp
        _product(g1, G[0, a : a + m], P[0, b : b + m])
        for c in range(1, channels):
            gc, pc = G[c, a : a + m], P[c, b : b + m]
            for j in range(m):
                g1[j] += gc[j] * pc[j]
        for c in range(channels):
            _product(GP[c, o : o + m], G[c, a : a + m], d1t)
        if kind == 1:  # R = g_L for every direction: g_d2 = R sum_k J_k^2, g_J += J (R 2 d2)
            _tile_sum_of_squares(P, b, m, directions, sq)
            r = G[first, a : a + m]
            _product(g2, r, sq)
            _product(sq, r, d2t)  # now R 2 d2
            for q in range(len(directions)):
                x, t = P[directions[q], b : b + m], GP[directions[q], o : o + m]
                for j in range(m):
                    t[j] += x[j] * sq[j]
        elif kind == 2:  # R_q = g of channel first + q: g_d2 = sum_q R_q J_q^2
            for q in range(channels - first):
                k = directions[q]
                r, x, t = G[first + q, a : a + m], P[k, b : b + m], GP[k, o : o + m]
                if q == 0:
                    for j in range(m):
                        g2[j] = r[j] * x[j] * x[j]
                else:
                    for j in range(m):
                        g2[j] += r[j] * x[j] * x[j]
                for j in range(m):
                    t[j] += r[j] * x[j] * d2t[j]
        if act != GIVEN:  # g_z = g_d1 D1' (+ g_d2 D2'), into g_d1
            if weighted and kind != 0:
                for j in range(m):
                    g1[j] = _result_gz(g1[j], g2[j], y[j], d1t[j], act, True, one, minus_two,
                                       minus_six, four)  # fmt: skip
            else:
                for j in range(m):
                    g1[j] = _result_gz(g1[j], zero, y[j], d1t[j], act, weighted, one,
                                       minus_two, minus_six, four)  # fmt: skip
            if add_through:  # the op's own rule on its output's gradient plus g_z
                t = THROUGH[s : s + m]
                for j in range(m):
                    g1[j] = _result_through(t[j], g1[j], y[j], d1t[j], act, one)


# -------------------------------------------------------------------------- over points
# A block read as in the tiles (each channel's rows one run of memory from the block's first
# row), but in one pass over its points (``e``: row * width + column), every channel of a
# point in the loop's body. The layout's counts and flags are frozen into each loop (a
# closure numba compiles once per layout and caches), so LLVM unrolls the channel loops and
# vectorises the pass over points. The same operations per element in the same order as
# the other two layouts, so the same bits.
def points_unary(channels, first, directions, kind, act):
    """The unary loop over points for a layout: ``channels`` (``first`` of them first-order),
    ``count`` active directions, second-order ``kind`` (``_fused_jets``), the derivatives'
    ``act``."""

    count = len(directions)

    def loop(p, pr, out, outr, d1, d2, rows, one, minus_two):
        width = p.shape[2]
        n = rows * width
        P = p.reshape(channels, p.shape[1] * width)
        OUT = out.reshape(out.shape[0], out.shape[1] * width)
        D1, D2 = d1.reshape(n), d2.reshape(n)
        # the block in p's and out's channels, as unsigned indices: numba adds a negative
        # index's wraparound to signed ones, which keeps LLVM from vectorising the loop
        a, b = np.uint64(pr * width), np.uint64(outr * width)
        for e in range(n):
            i, j = a + np.uint64(e), b + np.uint64(e)
            if act != GIVEN:
                f1, f2 = _result_pair(D1[e], act, one, minus_two, minus_two)
            else:
                f1, f2 = D1[e], D2[e]
            for c in range(channels):
                OUT[c, j] = P[c, i] * f1
            if kind == 1:  # one sum of squares, added to every second-order channel
                k = directions[0]
                sq = P[k, i] * P[k, i]
                for m in range(1, count):
                    k = directions[m]
                    sq += P[k, i] * P[k, i]
                for c in range(first, channels):
                    OUT[c, j] += sq * f2
            elif kind == 2:  # second-order channel m: direction m's square
                for m in range(channels - first):
                    k = directions[m]
                    OUT[first + m, j] += P[k, i] * P[k, i] * f2

    return loop


def points_backward(channels, first, directions, kind, act, weighted, add_through):
    """The backward loop over points for a layout (``points_unary``'s), the activation's
    flags frozen in too."""

    count = len(directions)

    def loop(grad, gr, p, pr, gp, gpr, d1, d2x2, gd1, gd2, rows, through,
             zero, one, minus_two, minus_four, minus_six, four):  # fmt: skip
        width = p.shape[2]
        n = rows * width
        G, P, GP, D1, D2, GD1, GD2, THROUGH = _backward_streams(
            grad, p, gp, d1, d2x2, gd1, gd2, through, rows
        )
        # the block in grad, p and gp (unsigned: see points_unary)
        a, b, o = np.uint64(gr * width), np.uint64(pr * width), np.uint64(gpr * width)
        for e in range(n):
            u = np.uint64(e)
            g, q, t = a + u, b + u, o + u
            y = D1[e]
            if act != GIVEN:
                f1, f2 = _result_pair(y, act, one, minus_two, minus_four)  # (twice D2)
            else:
                f1, f2 = y, D2[e]
            s = G[0, g] * P[0, q]
            for c in range(1, channels):
                s += G[c, g] * P[c, q]
            for c in range(channels):
                GP[c, t] = G[c, g] * f1
            g2 = zero
            if kind == 1:  # R = g_L for every direction: g_d2 = R sum_k J_k^2, g_J += J (R 2 d2)
                k = directions[0]
                sq = P[k, q] * P[k, q]
                for m in range(1, count):
                    k = directions[m]
                    sq += P[k, q] * P[k, q]
                r = G[first, g]
                g2 = r * sq
                GD2[e] = g2
                r2 = r * f2
                for m in range(count):
                    k = directions[m]
                    GP[k, t] += P[k, q] * r2
            elif kind == 2:  # R_m = g of channel first + m: g_d2 = sum_m R_m J_m^2
                for m in range(channels - first):
                    k = directions[m]
                    rj = G[first + m, g] * P[k, q]
                    if m == 0:
                        g2 = rj * P[k, q]
                    else:
                        g2 += rj * P[k, q]
                    GP[k, t] += rj * f2
                GD2[e] = g2
            if act != GIVEN:  # g_z = g_d1 D1' (+ g_d2 D2'), into g_d1
                gz = _result_gz(s, g2, y, f1, act, weighted, one, minus_two, minus_six, four)
                if add_through:  # the op's own rule on its output's gradient plus g_z
                    gz = _result_through(THROUGH[e], gz, y, f1, act, one)
                GD1[e] = gz
            else:
                GD1[e] = s

    return loop


# ------------------------------------------------------------------------ where a block lies
def byte_offset(view, owner):
    """Where ``view`` starts in ``owner``'s memory, in bytes (``_fused_jets._in_parent``, for
    each block of every layer). NumPy tells an address only through ``__array_interface__``,
    a dict built per read: 1.3 us each, two per block, against 0.3 us for this whole call
    (the lookup took 3.5% of a collapsed Burgers step at N = 1e4 float64 before)."""
    return np.intp(view.ctypes.data) - np.intp(owner.ctypes.data)


# The helpers the loops call, compiled into them (``register_jitable``).
HELPERS = (
    _result_pair,
    _result_gz,
    _result_through,
    _row_derivatives,
    _row_sum_of_squares,
    _tile_derivatives,
    _product,
    _tile_sum_of_squares,
    _backward_streams,
)
