"""Layer, group and batch norm's forward and plain backward as one compiled pass or two over
the input where numba is installed (``ops._fused``); the NumPy code in ``_layer_norm_op``,
``_group_norm_op`` and ``_batch_norm_op`` everywhere else.

Why: on the arrays of a layer (a (64, 128) layer norm, a (8, 16, 16, 16) group norm, a
(8, 3, 32, 32) batch norm) NumPy's passes cost a few microseconds each, most of them in
broadcasting a statistic and in reductions over axes that are neither leading nor trailing:
a forward and backward took 2.5x PyTorch's time (1.9x batch norm's), against PyTorch's one
fused loop per statistic.

Each value is the NumPy code's operations in its order (``(x - mean) * rstd * weight +
bias``; the VJP's ``rstd * ((g - mean(g)) - xhat * mean(g * xhat))``), each mean its sum
divided in float64 and rounded to the dtype, as NumPy's; only the sums are summed otherwise:
in blocks of ``BLOCK``, each block in LLVM's vector lanes (the one loop compiled to
reassociate, so the lanes depend on the CPU's vector width, as PyTorch's own vectorised
sums do), the blocks' totals added pairwise, in the precision PyTorch's CPU kernels
accumulate in: the input's dtype for layer and group norm, float64 for batch norm (its
``acc_type``). (Eight explicit running sums compiled without reassociation ran 3x slower:
LLVM kept them scalar.) Group norm's backward sums each channel's ``grad`` and
``grad * xhat`` once and takes the group's sums of ``grad * weight`` from those, as
PyTorch's does. Results agree with the NumPy path and PyTorch to round-off
(``tests/nn/test_norm_kernels.py``). Measured on those three arrays, forward and backward:
1.6x, 1.3x and 1.05x PyTorch's time, from 2.5x, 2.5x and 1.9x.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ..ops import _fused

BLOCK = 512  # elements summed in one block's vector lanes (the blocks then pairwise)


def _block_sum(a, zero):
    """The sum of the contiguous 1-D ``a`` in ``zero``'s type, compiled to reassociate
    (only this loop): LLVM's vector lanes, each a running sum."""
    total = zero
    for i in range(a.shape[0]):
        total += a[i]
    return total


def _sum(a, scratch, zero):
    """The sum of the contiguous 1-D ``a`` in ``zero``'s type: blocks of ``BLOCK`` summed
    in vector lanes, the block totals (kept in ``scratch``) added pairwise."""
    n = a.shape[0]
    if n <= BLOCK:
        return _block_sum(a, zero)
    blocks = 0
    for start in range(0, n, BLOCK):
        scratch[blocks] = _block_sum(a[start : min(start + BLOCK, n)], zero)
        blocks += 1
    while blocks > 1:
        half = blocks // 2
        for b in range(half):
            scratch[b] = scratch[2 * b] + scratch[2 * b + 1]
        if blocks % 2:
            scratch[half] = scratch[blocks - 1]
            half += 1
        blocks = half
    return scratch[0]


def _rounded(rounding, value):
    """``value`` rounded to ``rounding``'s dtype (a one-element array)."""
    rounding[0] = value
    return rounding[0]


def _scale_shift(o, s, w, b, has_weight, has_bias):
    """``o`` (1-D) normalised in place: ``o * s * w + b``, the factors present only (the
    NumPy code's operations, in its order)."""
    if has_weight and has_bias:
        for j in range(o.size):
            o[j] = o[j] * s * w + b
    elif has_weight:
        for j in range(o.size):
            o[j] = o[j] * s * w
    elif has_bias:
        for j in range(o.size):
            o[j] = o[j] * s + b
    else:
        for j in range(o.size):
            o[j] = o[j] * s


def _row_statistics(row, out, buf, scratch, zero, eps, one, stats, r):
    """``stats[0][r]`` and ``stats[1][r]``: the mean of ``row`` and ``1 / sqrt(var + eps)``
    (each rounded to the dtype as NumPy's mean is); ``out`` gets ``row - mean``."""
    mean, rstd = stats
    n = row.shape[0]
    mean[r] = _sum(row, scratch, zero) / np.float64(n)
    m = mean[r]
    for j in range(n):
        c = row[j] - m
        out[j] = c
        buf[j] = c * c
    rstd[r] = _sum(buf[:n], scratch, zero) / np.float64(n)
    rstd[r] = one / np.sqrt(rstd[r] + eps)


def _row_sum(x, r, scratch, zero):
    """``_sum(x[r])`` of the 2-D ``x``; a short row summed in place (a view per row costs
    as much as a short row's sum)."""
    n = x.shape[1]
    if n > BLOCK:
        return _sum(x[r], scratch, zero)
    return _block_row_sum(x, r, zero)


def _block_row_sum(x, r, zero):
    """``_block_sum(x[r])``, compiled the same way."""
    total = zero
    for j in range(x.shape[1]):
        total += x[r, j]
    return total


def layer_forward(x, weight, bias, has_weight, has_bias, eps, one, out, mean, rstd, zero, scratch):
    """Layer norm of the rows of ``x`` (R, M): ``out``, ``mean`` and ``rstd`` (R,)."""
    rows, n = x.shape
    squares = np.empty((1, n), x.dtype)
    count = np.float64(n)
    for r in range(rows):
        mean[r] = _row_sum(x, r, scratch, zero) / count
        m = mean[r]
        for j in range(n):
            c = x[r, j] - m
            out[r, j] = c
            squares[0, j] = c * c
        rstd[r] = _row_sum(squares, 0, scratch, zero) / count
        rstd[r] = one / np.sqrt(rstd[r] + eps)
        s = rstd[r]
        if has_weight and has_bias:
            for j in range(n):
                out[r, j] = out[r, j] * s * weight[j] + bias[j]
        elif has_weight:
            for j in range(n):
                out[r, j] = out[r, j] * s * weight[j]
        elif has_bias:
            for j in range(n):
                out[r, j] = out[r, j] * s + bias[j]
        else:
            for j in range(n):
                out[r, j] = out[r, j] * s


def layer_backward(
    grad, x, weight, has_weight, mean, rstd, gx, dw, db, need_gx, need_dw, need_db, zero, scratch
):
    """Layer norm's VJP on the rows of ``x`` (R, M) from the forward's ``mean`` and ``rstd``:
    ``gx`` (R, M) and the column sums ``dw`` and ``db`` (M,, zeroed by the caller) where
    asked for."""
    rows, n = x.shape
    rounding = np.empty(1, x.dtype)
    g = np.empty((2, n), x.dtype)  # grad * weight, and that * xhat
    count = np.float64(n)
    for r in range(rows):
        m, s = mean[r], rstd[r]
        for j in range(n):
            xhat = (x[r, j] - m) * s
            gj = grad[r, j] * weight[j] if has_weight else grad[r, j]
            g[0, j] = gj
            g[1, j] = gj * xhat
        if need_dw:
            for j in range(n):
                dw[j] += grad[r, j] * ((x[r, j] - m) * s)
        if need_db:
            for j in range(n):
                db[j] += grad[r, j]
        if need_gx:
            mean_g = _rounded(rounding, _row_sum(g, 0, scratch, zero) / count)
            mean_gxhat = _rounded(rounding, _row_sum(g, 1, scratch, zero) / count)
            for j in range(n):
                xhat = (x[r, j] - m) * s
                gx[r, j] = s * ((g[0, j] - mean_g) - xhat * mean_gxhat)


def group_forward(x, weight, bias, has_weight, has_bias, eps, one, out, mean, rstd, zero, scratch):
    """Group norm of ``x`` (N, group, channels of the group, HxW): ``out`` (that shape),
    ``mean`` and ``rstd`` (N * group,), the affine map per channel."""
    batch, groups, channels, size = x.shape
    n = channels * size
    buf = np.empty(n, x.dtype)
    for b in range(batch):
        for k in range(groups):
            r = b * groups + k
            o = out[b, k].reshape(n)
            _row_statistics(x[b, k].reshape(n), o, buf, scratch, zero, eps, one, (mean, rstd), r)
            s = rstd[r]
            for c in range(channels):
                w = weight[k * channels + c] if has_weight else one
                bb = bias[k * channels + c] if has_bias else one
                _scale_shift(out[b, k, c], s, w, bb, has_weight, has_bias)


def group_backward(
    grad, x, weight, has_weight, mean, rstd, gx, dw, db, need_gx, need_dw, need_db, zero, scratch
):
    """Group norm's VJP on ``x`` (N, group, channels of the group, HxW) from the forward's
    ``mean`` and ``rstd`` (N * group,): ``gx`` and the per-channel ``dw`` and ``db``
    (zeroed by the caller) where asked for."""
    batch, groups, channels, size = x.shape
    rounding = np.empty(1, x.dtype)
    buf = np.empty(size, x.dtype)
    sum_g = np.empty(channels, x.dtype)  # per channel of the group: sum(grad)
    sum_gxhat = np.empty(channels, x.dtype)  # and sum(grad * xhat)
    count = np.float64(channels * size)
    for b in range(batch):
        for k in range(groups):
            r = b * groups + k
            m, s = mean[r], rstd[r]
            for c in range(channels):
                xc, gc = x[b, k, c], grad[b, k, c]
                sum_g[c] = _sum(gc, scratch, zero)
                for j in range(size):
                    buf[j] = gc[j] * ((xc[j] - m) * s)
                sum_gxhat[c] = _sum(buf, scratch, zero)
                if need_dw:
                    dw[k * channels + c] += sum_gxhat[c]
                if need_db:
                    db[k * channels + c] += sum_g[c]
            if not need_gx:
                continue
            total_g = zero
            total_gxhat = zero
            for c in range(channels):
                if has_weight:
                    w = weight[k * channels + c]
                    total_g += sum_g[c] * w
                    total_gxhat += sum_gxhat[c] * w
                else:
                    total_g += sum_g[c]
                    total_gxhat += sum_gxhat[c]
            mean_g = _rounded(rounding, total_g / count)
            mean_gxhat = _rounded(rounding, total_gxhat / count)
            for c in range(channels):
                xc, gc, o = x[b, k, c], grad[b, k, c], gx[b, k, c]
                if has_weight:
                    w = weight[k * channels + c]
                    for j in range(size):
                        xhat = (xc[j] - m) * s
                        o[j] = s * ((gc[j] * w - mean_g) - xhat * mean_gxhat)
                else:
                    for j in range(size):
                        xhat = (xc[j] - m) * s
                        o[j] = s * ((gc[j] - mean_g) - xhat * mean_gxhat)


def batch_forward(
    x, weight, bias, has_weight, has_bias, eps, one, out, mean, invstd, zero, scratch
):
    """Batch norm of ``x`` (N, C, HxW) on its own statistics: ``out``, ``mean`` and
    ``invstd`` (C,), the sums accumulated in ``zero``'s type (float64)."""
    batch, channels, size = x.shape
    buf = np.empty(size, x.dtype)
    count = np.float64(batch * size)
    for c in range(channels):
        total = zero
        for b in range(batch):
            total += _sum(x[b, c], scratch, zero)
        mean[c] = total / count
        m = mean[c]
        total = zero
        for b in range(batch):
            xc, o = x[b, c], out[b, c]
            for j in range(size):
                t = xc[j] - m
                o[j] = t
                buf[j] = t * t
            total += _sum(buf, scratch, zero)
        invstd[c] = total / count
        invstd[c] = one / np.sqrt(invstd[c] + eps)
        s = invstd[c]
        w = weight[c] if has_weight else one
        bb = bias[c] if has_bias else one
        for b in range(batch):
            _scale_shift(out[b, c], s, w, bb, has_weight, has_bias)


def batch_variance(x, mean, var, zero, scratch):
    """``var`` (C,): the biased variance of each channel of ``x`` (N, C, HxW) about ``mean``
    (C,), summed as ``batch_forward`` sums it (the running variance's update)."""
    batch, channels, size = x.shape
    buf = np.empty(size, x.dtype)
    count = np.float64(batch * size)
    for c in range(channels):
        m = mean[c]
        total = zero
        for b in range(batch):
            xc = x[b, c]
            for j in range(size):
                t = xc[j] - m
                buf[j] = t * t
            total += _sum(buf, scratch, zero)
        var[c] = total / count


def batch_backward(
    grad, x, weight, has_weight, mean, invstd, gx, dw, db, need_gx, need_dw, need_db, zero, scratch
):
    """Batch norm's VJP on ``x`` (N, C, HxW) from the batch's ``mean`` and ``invstd`` (C,):
    ``gx`` and ``dw``, ``db`` (C,) where asked for, the sums in float64."""
    batch, channels, size = x.shape
    rounding = np.empty(1, x.dtype)
    buf = np.empty(size, x.dtype)
    count = np.float64(batch * size)
    for c in range(channels):
        m, s = mean[c], invstd[c]
        total_g = zero
        total_gxhat = zero
        for b in range(batch):
            xc, gc = x[b, c], grad[b, c]
            total_g += _sum(gc, scratch, zero)
            for j in range(size):
                buf[j] = gc[j] * ((xc[j] - m) * s)
            total_gxhat += _sum(buf, scratch, zero)
        if need_dw:
            dw[c] = total_gxhat
        if need_db:
            db[c] = total_g
        if not need_gx:
            continue
        mean_g = _rounded(rounding, total_g / count)
        mean_gxhat = _rounded(rounding, total_gxhat / count)
        scale = s * weight[c] if has_weight else s
        for b in range(batch):
            xc, gc, o = x[b, c], grad[b, c], gx[b, c]
            for j in range(size):
                xhat = (xc[j] - m) * s
                o[j] = scale * ((gc[j] - mean_g) - xhat * mean_gxhat)


_KERNELS = (
    layer_forward,
    layer_backward,
    group_forward,
    group_backward,
    batch_forward,
    batch_variance,
    batch_backward,
)
_compiled: dict = {}
_compiling = threading.Lock()


def kernels() -> dict | None:
    """The compiled kernels by name, or None where numba is not available."""
    if _compiled and _fused._numba:  # compiled, numba still on (tests turn it off): no lock
        return _compiled
    if not _fused.available():
        return None
    with _compiling:
        if not _compiled:
            from numba.extending import register_jitable  # why: optional (see ops._fused)

            # (the one loop that may reassociate: a sum, into the vector's lanes)
            for block_sum in (_block_sum, _block_row_sum):
                register_jitable(fastmath={"reassoc"}, error_model="numpy")(block_sum)
            register_jitable(_row_sum)
            register_jitable(_sum)
            register_jitable(_row_statistics)
            register_jitable(_scale_shift)
            register_jitable(_rounded)
            _compiled.update((fn.__name__, _fused.jit(fn)) for fn in _KERNELS)
    return _compiled


def takes(x, *others) -> dict | None:
    """The kernels where ``x`` takes them: a C-contiguous float32/float64 ndarray of at
    least ``_fused.MIN_SIZE`` elements, each of ``others`` (None: absent) a C-contiguous
    ndarray of its dtype; else None (the NumPy path)."""
    if (
        type(x) is not np.ndarray
        or x.size < _fused.MIN_SIZE
        or x.dtype.char not in "fd"
        or not x.flags.c_contiguous
    ):
        return None
    dtype = x.dtype
    for a in others:
        if a is not None and (
            type(a) is not np.ndarray
            or (a.dtype is not dtype and a.dtype != dtype)
            or not a.flags.c_contiguous
        ):
            return None
    return kernels()


def takes_grad(grad, x, *others) -> dict | None:
    """The kernels where a backward takes them: ``takes(x, *others)``, and ``grad`` an
    ndarray of ``x``'s shape and dtype (any layout: made contiguous, a ``sum()``'s broadcast
    one included)."""
    if type(grad) is not np.ndarray or grad.dtype != x.dtype or grad.shape != x.shape:
        return None
    return takes(x, *others)


_constants: dict = {}  # (dtype, wide) -> (empty array, zero, one-element scratch)


def _affine(x, weight, bias):
    """``(weight, bias, has_weight, has_bias)``, an absent one an empty array."""
    empty = _constants_of(x.dtype, False)[0]
    return (
        empty if weight is None else weight.reshape(-1),
        empty if bias is None else bias.reshape(-1),
        weight is not None,
        bias is not None,
    )


def _constants_of(dtype, wide: bool) -> tuple:
    key = (dtype, wide)
    found = _constants.get(key)
    if found is None:
        sums = np.dtype(np.float64) if wide else dtype
        empty = np.empty(0, dtype)
        # (writeable, as numba types the kernels' arguments; neither is written: sums of
        # one block keep no totals)
        scratch = np.empty(1, sums)
        found = _constants[key] = (empty, sums.type(0), scratch)
    return found


def _accumulator(x, wide: bool, n: int) -> tuple:
    """``(zero, scratch)`` of the sums' type (float64 with ``wide``, else ``x``'s) for
    sums of at most ``n`` elements (the scratch keeps the totals of their blocks)."""
    _, zero, scratch = _constants_of(x.dtype, wide)
    return zero, scratch if n <= BLOCK else np.empty(n // BLOCK + 1, scratch.dtype)


# Layer norm's wrappers run once per op on a layer's small arrays, where each NumPy call
# around the kernel costs 0.1-0.5 us: they skip the reshapes a 2-D input and 1-D parameters
# do not need and keep their constants per dtype and eps (nn.LayerNorm(128) of (64, 128):
# forward wrapper 7.9 -> 6.8 us, backward 10.2 -> 8.8 us, the kernels ~5 us of each).
_layer_constants: dict = {}  # (dtype, eps) -> (eps, one, zero, one-element scratch, empty)


def _layer_args(dtype, eps) -> tuple:
    """``(eps, one, zero, scratch, empty)`` for layer norm's kernels in ``dtype``."""
    found = _layer_constants.get((dtype, eps))
    if found is None:
        if len(_layer_constants) > 64:  # bounded: a model meets a few eps and dtypes
            _layer_constants.clear()
        empty, zero, scratch = _constants_of(dtype, False)
        t = dtype.type
        found = _layer_constants[dtype, eps] = (t(eps), t(1), zero, scratch, empty)
    return found


def _rows(a, n):
    """``a`` as (rows, ``n``): itself where it is that already."""
    return a if a.ndim == 2 and a.shape[1] == n else a.reshape(-1, n)


def _flat(a, empty):
    """A parameter (or ``empty`` for an absent one) as the 1-D array the kernels take."""
    if a is None:
        return empty
    return a if a.ndim == 1 else a.reshape(-1)


def layer_norm(compiled, x, normalized_shape, weight, bias, eps):
    """``(out, mean, rstd)`` of ``x`` normalised over its trailing ``normalized_shape``, the
    statistics one per row (R,)."""
    n = normalized_shape[0] if len(normalized_shape) == 1 else math.prod(normalized_shape)
    eps, one, zero, scratch, empty = _layer_args(x.dtype, eps)
    if n > BLOCK:
        scratch = np.empty(n // BLOCK + 1, scratch.dtype)
    rows = x.size // n
    out = np.empty_like(x)
    mean = np.empty(rows, x.dtype)
    rstd = np.empty(rows, x.dtype)
    compiled["layer_forward"](
        _rows(x, n), _flat(weight, empty), _flat(bias, empty), weight is not None,
        bias is not None, eps, one, _rows(out, n), mean, rstd, zero, scratch,
    )  # fmt: skip
    return out, mean, rstd


def layer_norm_backward(compiled, grad, x, normalized_shape, weight, mean, rstd, needs):
    """``(gx, dw, db)`` (None where not needed) of layer norm over ``normalized_shape``."""
    n = normalized_shape[0] if len(normalized_shape) == 1 else math.prod(normalized_shape)
    _, _, zero, scratch, empty = _layer_args(x.dtype, 0.0)
    if n > BLOCK:
        scratch = np.empty(n // BLOCK + 1, scratch.dtype)
    if not grad.flags.c_contiguous:  # (a sum()'s broadcast gradient)
        grad = np.ascontiguousarray(grad, x.dtype)
    gx = np.empty_like(x) if needs[0] else np.empty((0, n), x.dtype)
    dw = np.zeros(normalized_shape, x.dtype)
    db = np.zeros(normalized_shape, x.dtype)
    compiled["layer_backward"](
        _rows(grad, n), _rows(x, n), _flat(weight, empty), weight is not None,
        _flat(mean, empty), _flat(rstd, empty), _rows(gx, n), _flat(dw, empty), _flat(db, empty),
        needs[0], needs[1], needs[2], zero, scratch,
    )  # fmt: skip
    return gx if needs[0] else None, dw if needs[1] else None, db if needs[2] else None


def group_norm(compiled, x, group, weight, bias, eps):
    """``(out, mean, rstd)`` of group norm of ``x`` (N, C, *), the statistics (N * group,)."""
    batch, channels = x.shape[0], x.shape[1]
    x4 = x.reshape(batch, group, channels // group, -1)
    out = np.empty_like(x)
    mean = np.empty(batch * group, x.dtype)
    rstd = np.empty(batch * group, x.dtype)
    t = x.dtype.type
    compiled["group_forward"](
        x4, *_affine(x, weight, bias), t(eps), t(1), out.reshape(x4.shape), mean, rstd,
        *_accumulator(x, False, x4[0, 0].size),
    )  # fmt: skip
    return out, mean, rstd


def group_norm_backward(compiled, grad, x, group, weight, mean, rstd, needs):
    """``(gx, dw, db)`` (None where not needed) of group norm."""
    batch, channels = x.shape[0], x.shape[1]
    x4 = x.reshape(batch, group, channels // group, -1)
    grad = np.ascontiguousarray(grad, x.dtype).reshape(x4.shape)
    gx = np.empty_like(x) if needs[0] else np.empty(x4.shape[:3] + (0,), x.dtype)
    dw = np.zeros(channels, x.dtype)
    db = np.zeros(channels, x.dtype)
    weight, _, has_weight, _ = _affine(x, weight, None)
    compiled["group_backward"](
        grad, x4, weight, has_weight, mean.reshape(-1), rstd.reshape(-1),
        gx.reshape(x4.shape[:3] + (-1,)), dw, db, *needs[:3],
        *_accumulator(x, False, x4.shape[3]),
    )  # fmt: skip
    return gx if needs[0] else None, dw if needs[1] else None, db if needs[2] else None


def batch_norm(compiled, x, weight, bias, eps):
    """``(out, mean, invstd)`` of batch norm of ``x`` (N, C, *) on its own statistics, the
    statistics (C,)."""
    x3 = x.reshape(x.shape[0], x.shape[1], -1)
    out = np.empty_like(x)
    mean = np.empty(x.shape[1], x.dtype)
    invstd = np.empty(x.shape[1], x.dtype)
    t = x.dtype.type
    compiled["batch_forward"](
        x3, *_affine(x, weight, bias), t(eps), t(1), out.reshape(x3.shape), mean, invstd,
        *_accumulator(x, True, x3.shape[2]),
    )  # fmt: skip
    return out, mean, invstd


def batch_norm_variance(compiled, x, mean):
    """The biased variance (C,) of each channel of ``x`` (N, C, *) about ``mean`` (C,)."""
    x3 = x.reshape(x.shape[0], x.shape[1], -1)
    var = np.empty(x.shape[1], x.dtype)
    compiled["batch_variance"](x3, mean.reshape(-1), var, *_accumulator(x, True, x3.shape[2]))
    return var


def batch_norm_backward(compiled, grad, x, weight, mean, invstd, needs):
    """``(gx, dw, db)`` (None where not needed) of batch norm on the batch's statistics."""
    x3 = x.reshape(x.shape[0], x.shape[1], -1)
    grad = np.ascontiguousarray(grad, x.dtype).reshape(x3.shape)
    gx = np.empty_like(x) if needs[0] else np.empty(x3.shape[:2] + (0,), x.dtype)
    dw = np.zeros(x.shape[1], x.dtype)
    db = np.zeros(x.shape[1], x.dtype)
    weight, _, has_weight, _ = _affine(x, weight, None)
    compiled["batch_backward"](
        grad, x3, weight, has_weight, mean.reshape(-1), invstd.reshape(-1),
        gx.reshape(x3.shape[:2] + (-1,)), dw, db, *needs[:3],
        *_accumulator(x, True, x3.shape[2]),
    )  # fmt: skip
    return gx if needs[0] else None, dw if needs[1] else None, db if needs[2] else None


__all__: list = []
