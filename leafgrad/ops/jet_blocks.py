"""Row blocks for the fused Taylor path's elementwise kernels, sized to stay in cache.

A packed jet ``(K, N, ...)`` at N = 1e4 points outgrows the caches (17.6 MB for K = 11,
20 features, float64), and a kernel made of several NumPy passes then writes every
temporary to memory and reads it back. Done over blocks of rows (the points axis, axis 1;
the channels are axis 0), each pass after the first reads its operands from cache. Every
kernel blocked here reduces over channels only, never over rows, so a blocked result is
bit-identical to the whole-array one; ``tests/ops/test_jet_blocks.py`` checks that.
``row_blocks`` gives the slices; ``forward_blocked`` / ``backward_blocked`` run a kernel's
block function over them (jet_unary, jet_act and their backwards).
"""

from __future__ import annotations

import numpy as np

# Bytes of the jet-sized arrays one block keeps live. Measured on the kernels at N = 1e4
# (2-core EPYC, 1 MiB L2, 32 MiB L3): smaller blocks spend their gain on NumPy's per-call
# overhead, larger ones fall out of cache.
BLOCK_BYTES = 4 * 1024 * 1024
_WHOLE = (slice(None),)


def row_blocks(jet: np.ndarray, live: float = 1.0) -> tuple:
    """Slices of ``jet``'s axis 1 over which a kernel keeping ``live`` arrays of ``jet``'s size
    (and dtype) fits in ``BLOCK_BYTES``; ``(slice(None),)`` when one block covers them all."""
    rows = jet.shape[1] if jet.ndim > 1 else 0
    if rows < 2 or live * jet.nbytes < BLOCK_BYTES:  # (the common case, told at once)
        return _WHOLE
    row_bytes = live * jet.nbytes / rows
    step = max(1, int(BLOCK_BYTES // row_bytes))
    if step >= rows:
        return (slice(None),)
    return tuple(slice(i, min(i + step, rows)) for i in range(0, rows, step))


def blockable(jet: np.ndarray, *arrays, jets=()) -> bool:
    """Whether ``arrays`` are ndarrays of one point per row of ``jet: (K, N, ...)`` and
    ``jets`` ndarrays of its shape, all in its dtype, so that a block of rows slices each of
    them alike (else the kernels take the whole arrays)."""
    if type(jet) is not np.ndarray or jet.ndim < 2:
        return False
    for shape, group in ((jet.shape[1:], arrays), (jet.shape, jets)):
        for a in group:
            if type(a) is not np.ndarray or a.shape != shape or a.dtype != jet.dtype:
                return False
    return True


def blocks(jet: np.ndarray, *arrays, jets=(), live: float = 1.0) -> tuple:
    """``row_blocks(jet, live)`` when ``blockable(jet, *arrays, jets=jets)``, else the one
    whole block."""
    if type(jet) is not np.ndarray:
        return (slice(None),)
    rows = row_blocks(jet, live)  # first: mostly one block, and then nothing to check
    if len(rows) == 1 or not blockable(jet, *arrays, jets=jets):
        return (slice(None),)
    return rows


def forward_blocked(block, p, z, live: float):
    """``block(p, *z, out=)`` over the row blocks of ``p`` (``z``: the per-point arrays),
    into one result; ``block(p, *z)`` itself when one block covers them."""
    rows = blocks(p, *z, live=live)
    if len(rows) == 1:
        return block(p, *z)
    out = np.empty(p.shape, p.dtype)
    for r in rows:
        block(p[:, r], *(a[r] for a in z), out=out[:, r])
    return out


def backward_blocked(block, grad, p, z, second: bool, live: float):
    """``block(grad, p, *z, outs=)`` over the row blocks of ``p`` (``z``: the per-point
    arrays, ``z[0]`` giving a point's shape): ``(g_p, g_d1, g_d2)``, ``g_d2`` None unless
    ``second``; ``block(grad, p, *z)`` itself when one block covers them."""
    rows = blocks(p, *z, jets=(grad,), live=live)
    if len(rows) == 1:
        return block(grad, p, *z)
    gp, gd1 = np.empty(p.shape, p.dtype), np.empty(z[0].shape, p.dtype)
    gd2 = np.empty(z[0].shape, p.dtype) if second else None
    for r in rows:
        outs = (gp[:, r], gd1[r], None if gd2 is None else gd2[r])
        block(grad[:, r], p[:, r], *(a[r] for a in z), outs=outs)
    return gp, gd1, gd2


__all__: list = []
