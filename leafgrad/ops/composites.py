"""Functions composed of primitives: differentiable to any order (and in forward and Taylor
mode) by construction, with no rules of their own.

Where an index is needed (sort, topk, diagonal ...) it is computed on arrays, without
gradient, and the values are taken with a differentiable gather or index.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import scipy.special as sp

from .. import _dtype
from .._dtype import result_type
from .._exposure import exports, public
from .._memory_format import contiguous_format
from .._tensor import Size, Tensor, _normalize_dim, _wrap
from .._warn import warn_once
from . import _stdsort
from . import addc as _addc
from . import moments as _moments
from . import pairwise as _pairwise
from . import pointwise_extra as _pointwise
from . import trace_diag as _trace_diag
from ._batch_whole import batches_along
from ._inputs import (
    _check_tensors,
    _dim_args,
    _varargs_or_keyword,
    guarding_indices,
    same_dtype,
    size_mismatch_words,
)
from ._out import accepts_out
from ._primitive import unary
from ._returned import returned
from ._triangles import _tril, _triu
from .arithmetic import mul_scalar
from .elementwise import exp
from .indexing import index_select, sort_stable_values, sort_values, topk_values
from .masked_select import masked_select as _masked_select
from .reorder import diagonal_view
from .shape import _unsafe_view

_SQRT_PI_2 = math.sqrt(math.pi) / 2

erfinv = unary(
    "erfinv",
    sp.erfinv,
    # PyTorch saves the input and recomputes erfinv for the derivative.
    d1=lambda x: _SQRT_PI_2 * exp(erfinv(x) ** 2),
    d2=lambda x, result: 2 * result * (_SQRT_PI_2 * exp(result * result)) ** 2,
    vjp=lambda grad, x, result: mul_scalar(exp(erfinv(x) ** 2), other=_SQRT_PI_2) * grad,
    expose=public(inplace=True),
    plain_rules=True,
)


def _tensor(x, op: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(x).__name__}")
    return x


def _is_number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _floating(*operands) -> bool:
    """Whether the operands are all tensors with a floating result dtype (then the op is
    recorded as one node; other operands take the composite, as nothing records there)."""
    return all(isinstance(t, Tensor) for t in operands) and result_type(*operands).is_floating_point


# ----- elementwise -----


@public(inplace=True)
@accepts_out
def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    """``input + weight * (end - input)``."""
    if isinstance(input, Tensor) and isinstance(end, Tensor):
        if input._data.dtype != end._data.dtype:
            raise RuntimeError(
                f"lerp: expected dtype {input.dtype} for `end` but got dtype {end.dtype}; "
                "convert end to input's dtype"
            )
        if input._data.dtype.kind != "f":
            raise NotImplementedError(
                f"lerp: not implemented for {input.dtype} tensors (PyTorch has no such "
                "kernel); convert to a floating dtype first"
            )
        if isinstance(weight, Tensor):
            # A 0-dim weight follows the operands' dtype; any other must have it already.
            if weight._data.ndim and weight._data.dtype != input._data.dtype:
                raise RuntimeError(
                    f"lerp: expected dtype {input.dtype} for `weight` but got dtype "
                    f"{weight.dtype}; convert weight to input's dtype"
                )
            return _addc.lerp_tensor(input, end, weight)
        if _is_number(weight):
            return _addc.lerp_scalar(input, end, weight=weight)
    return input + weight * (end - input)


@public(inplace=True)
@accepts_out
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """``input + value * tensor1 * tensor2``."""
    if _floating(input, tensor1, tensor2) and _is_number(value):
        return _addc.addcmul(input, tensor1, tensor2, value=value)
    if _is_number(value) and all(isinstance(t, Tensor) for t in (input, tensor1, tensor2)):
        return _integer_addcmul(input, tensor1, tensor2, value)
    return input + value * tensor1 * tensor2


def _integer_addcmul(input, tensor1, tensor2, value):
    """addcmul of integer or bool tensors in their promoted dtype, as PyTorch's kernel: the
    number cast to it (0.5 is 0; the composite made float32, and int64 of bools), bools
    refused."""
    dt = result_type(input, tensor1, tensor2)
    if not dt.is_floating_point:
        if dt is _dtype.bool:
            raise NotImplementedError(
                "\"addcmul_cpu_out\" not implemented for 'Bool' (addcmul: convert the bool "
                "tensors with .int() or .float() first)"
            )
        value = int(value)  # C++'s cast of the Scalar: toward zero
        input, tensor1, tensor2 = (t.to(dt) for t in (input, tensor1, tensor2))
    return input + value * tensor1 * tensor2


@public(inplace=True)
@accepts_out
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """``input + value * tensor1 / tensor2``."""
    if _integer_quotient(tensor1, tensor2):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. (addcdiv: convert "
            "tensor1 or tensor2 to a floating dtype, e.g. with .float().)"
        )
    if _floating(input, tensor1, tensor2) and _is_number(value):
        return _addc.addcdiv(input, tensor1, tensor2, value=value)
    return input + value * tensor1 / tensor2


def _integer_quotient(tensor1, tensor2) -> bool:
    """Whether addcdiv's tensors are both integer or bool (PyTorch refuses, whatever the
    input's dtype)."""
    return all(isinstance(t, Tensor) and t._data.dtype.kind in "biu" for t in (tensor1, tensor2))


@public()
@accepts_out
def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input**2 + other**2)``."""
    _check_tensors("hypot", input, other)  # PyTorch takes no Python number here
    kinds = {t._data.dtype.kind for t in (input, other) if isinstance(t, Tensor)}
    if kinds and "f" not in kinds:
        raise NotImplementedError(
            "hypot: not implemented for integer or bool tensors (PyTorch has no such kernel); "
            "convert to a floating dtype first"
        )
    return _pointwise.hypot(input, other)


@public(inplace=True)
@accepts_out
def exp2(input: Tensor) -> Tensor:
    """``2 ** input``."""
    return _pointwise.exp2(input)


@public(inplace=True)
@accepts_out
def sinc(input: Tensor) -> Tensor:
    """``sin(pi x) / (pi x)``, 1 at 0."""
    return _pointwise.sinc(input)


@public(inplace=True)
@accepts_out
def deg2rad(input: Tensor) -> Tensor:
    return input * (math.pi / 180.0)


@public(inplace=True)
@accepts_out
def rad2deg(input: Tensor) -> Tensor:
    return input * (180.0 / math.pi)


@public(inplace=True)
@accepts_out(same_dtype=True)
def frac(input: Tensor) -> Tensor:
    """The fractional part, ``input - trunc(input)`` (gradient 1)."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"frac: not implemented for {input.dtype} tensors (PyTorch has no such kernel); "
            "convert to a floating dtype first"
        )
    return _pointwise.frac(input)


@public(inplace=True)
@accepts_out(same_dtype=True)
def nan_to_num(input: Tensor, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:
    """NaN and infinities replaced by finite numbers (the dtype's extremes by default)."""
    info = np.finfo(input._data.dtype) if input._data.dtype.kind == "f" else None
    if info is None:
        return input.clone()
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    return _pointwise.nan_to_num(input, nan=nan, posinf=hi, neginf=lo)


@public()
def fmax(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum that ignores NaN (NaN only where both are)."""
    _check_tensors("fmax", input, other)
    return _pointwise.fmax(input, other)


@public()
def fmin(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum that ignores NaN (NaN only where both are)."""
    _check_tensors("fmin", input, other)
    return _pointwise.fmin(input, other)


# ----- triangles and diagonals -----


@public(inplace=True)
@accepts_out(same_dtype=True)
def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two dims (zeros below the ``diagonal``-th)."""
    _check_matrix(input, "triu")
    return _triu(input, diagonal=operator.index(diagonal))


@public(inplace=True)
@accepts_out(same_dtype=True)
def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two dims (zeros above the ``diagonal``-th)."""
    _check_matrix(input, "tril")
    return _tril(input, diagonal=operator.index(diagonal))


def _check_matrix(x, op):
    _tensor(x, op)
    if x._data.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions, got {x._data.ndim}")


@public()
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of dims ``dim1``/``dim2``, moved to the last dim."""
    _tensor(input, "diagonal")
    nd = input._data.ndim
    d1, d2 = _normalize_dim(dim1, nd, "diagonal"), _normalize_dim(dim2, nd, "diagonal")
    if d1 == d2:
        raise RuntimeError(f"diagonal: dim1 and dim2 must differ, both are {dim1}")
    return diagonal_view(input, offset=operator.index(offset), dim1=d1, dim2=d2)


@public()
@accepts_out(same_dtype=True)
def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D input becomes a square matrix with it on a diagonal; a 2-D input gives its
    diagonal."""
    _tensor(input, "diag")
    diagonal = operator.index(diagonal)
    if input._data.ndim == 2:  # a copy, as PyTorch's (DiagonalBackward0_copy)
        return _trace_diag.diagonal_copy(input, offset=diagonal, dim1=0, dim2=1)
    if input._data.ndim != 1:
        raise RuntimeError(f"diag: input must be 1-D or 2-D, got {input._data.ndim}-D")
    return _trace_diag.diag_embed(input, offset=diagonal, dim1=-2, dim2=-1)


@public()
def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    _tensor(input, "trace")
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, got a {input._data.ndim}-D tensor")
    if input._data.dtype.kind == "b":
        raise NotImplementedError(
            "trace: not implemented for torch.bool tensors (as in PyTorch); convert with .int()"
        )
    return _trace_diag.trace(input)


# ----- order statistics -----

_SortResult = returned("sort", ["values", "indices"])
_TopkResult = returned("topk", ["values", "indices"])


@public()
@batches_along("dim", "argsort")
def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """Indices that sort ``input`` along ``dim`` (int64, no gradient)."""
    _tensor(input, "argsort")
    d = _normalize_dim(dim, max(input._data.ndim, 1), "argsort")
    data = input._data if input._data.ndim else input._data.reshape(1)
    if not descending:
        order = np.argsort(data, axis=d, kind="stable")
    elif data.dtype.kind in "biu":  # ~x reverses the order without overflow (-x would not)
        order = np.argsort(~data, axis=d, kind="stable")
    else:
        order = _descending_floats(data, d)
    if not stable and _stdsort.sorts_unstably(data, d, descending):
        order = _stdsort.sort_order(data, d, int(descending), stable=order)
    return _wrap(order.reshape(input._data.shape).astype(np.int64))


def _descending_floats(data: np.ndarray, axis: int) -> np.ndarray:
    """A stable descending order of floats along ``axis``, NaNs first as in PyTorch (NumPy
    puts them last, also for ``-data``)."""
    nan = np.isnan(data)
    if not nan.any():
        return np.argsort(-data, axis=axis, kind="stable")
    keys = (np.moveaxis(-data, axis, -1), np.moveaxis(~nan, axis, -1))  # last key: primary
    return np.moveaxis(np.lexsort(keys, axis=-1), -1, axis)


# What sort's ``stable`` holds when the caller left it out (PyTorch's ``sort`` overload
# rather than ``sort.stable``).
_STABLE_NOT_GIVEN = object()


@public()
@accepts_out(same_dtype=True)
@batches_along("dim", "sort")
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable=_STABLE_NOT_GIVEN):
    """``(values, indices)`` sorted along ``dim``; values carry the gradient. Passing
    ``stable`` at all (even False or None) picks PyTorch's ``sort.stable`` overload, whose
    node is SortBackward1."""
    given = stable is not _STABLE_NOT_GIVEN
    stable = bool(stable) if given else False
    idx = argsort(input, dim, descending, stable)
    d = _normalize_dim(dim, max(input._data.ndim, 1), "sort") if input._data.ndim else 0
    values = (sort_stable_values if given else sort_values)(input, dim=d, indices=idx._data)
    return _SortResult(values, idx)


@public()
@accepts_out(same_dtype=True)
@batches_along("dim", "topk")
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices."""
    _tensor(input, "topk")
    if input._data.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU (convert with .int() first)")
    d = _normalize_dim(dim, max(input._data.ndim, 1), "topk")
    size = input._data.shape[d] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(
            f"selected index k out of range (topk: k = {k} for a dimension of size {size})"
        )
    if input._data.ndim == 0:
        idx = argsort(input)
    else:
        data = input._data

        def stable():
            first = _first_k(data, k, d, largest)
            if first is not None:
                return first
            return argsort(input, dim, descending=largest, stable=True).narrow(d, 0, k)._data, None

        if k:
            order = _stdsort.topk_order(data, k, d, largest, sorted, stable)
            idx = _wrap(order.astype(np.int64, order="C"))  # row-major, as PyTorch's
        else:
            idx = _wrap(np.zeros(data.shape[:d] + (0,) + data.shape[d + 1 :], np.int64))
    values = topk_values(input, dim=d if input._data.ndim else 0, indices=idx._data)
    return _TopkResult(values, idx)


def _first_k(data: np.ndarray, k: int, axis: int, largest: bool) -> tuple | None:
    """The first ``k`` of a stable sort's indices along ``axis`` (descending if ``largest``),
    found by a partition, and the rows (numbered with ``axis`` moved last) where the k-th
    value has an equal left out; or None where the full sort should run: not floats, NaNs,
    or ``k`` not small beside the dim. Why: ``topk(5)`` of (256, 1000) float32 sorted every row, 16
    ms against PyTorch's 1 ms; a partition and a sort of ``k`` values per row, 1.8 ms."""
    n = data.shape[axis]
    if data.dtype.kind != "f" or not 0 < k <= n // 4 or np.isnan(data).any():
        return None
    keys = np.moveaxis(data, axis, -1)
    keys = -keys if largest else keys
    keys = keys.reshape(-1, n)
    kth = np.partition(keys, k - 1, axis=-1)[:, k - 1 : k]
    chosen = keys <= kth
    extra = np.flatnonzero(np.count_nonzero(chosen, axis=-1) > k)
    if extra.size:  # rows with more ties of the k-th than room: the first ones by position
        rows = keys[extra]
        ties = rows == kth[extra]
        room = k - np.count_nonzero(rows < kth[extra], axis=-1, keepdims=True)
        chosen[extra] = (rows < kth[extra]) | (ties & (np.cumsum(ties, axis=-1) <= room))
    # k per row, by position (a 1-D nonzero: faster than a 2-D one).
    picked = (np.flatnonzero(chosen).reshape(-1, k) % n).reshape(
        data.shape[:axis] + data.shape[axis + 1 :] + (k,)
    )
    keys = keys.reshape(picked.shape[:-1] + (n,))
    order = np.argsort(np.take_along_axis(keys, picked, -1), axis=-1, kind="stable")
    return np.moveaxis(np.take_along_axis(picked, order, -1), -1, axis).astype(np.int64), extra


@public()
def msort(input: Tensor) -> Tensor:
    return sort(input, 0).values


# ----- selection and repetition -----


@public()
@guarding_indices("mask")
def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements where ``mask`` (broadcast) holds, as a 1-D tensor."""
    _check_tensors("masked_select", input, mask)
    if mask._data.dtype != bool:
        raise RuntimeError(
            f"masked_select: expected a bool mask, got {mask.dtype}; convert it with .bool()"
        )
    return _masked_select(input, mask)


@public()
def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element (along ``dim``; flattened when None) repeated ``repeats`` times; with
    ``input`` alone, the indices ``0 .. len(input) - 1`` each repeated ``input[i]`` times."""
    if repeats is None:  # torch.repeat_interleave(repeats)
        counts = input._data
        if counts.ndim != 1 or counts.dtype.kind not in "iu":
            raise RuntimeError(
                "repeat_interleave: a lone argument is the repeats and must be a 1-D integer "
                f"tensor, got shape {list(counts.shape)} and dtype {input.dtype}"
            )
        if (counts < 0).any():
            raise RuntimeError("repeat_interleave: repeats can not be negative")
        return _wrap(np.repeat(np.arange(len(counts), dtype=np.int64), counts))
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _normalize_dim(dim, x._data.ndim, "repeat_interleave")
    if not isinstance(repeats, Tensor):  # as PyTorch: a copy of an expanded view, reshaped
        count = operator.index(repeats)
        if count < 0:
            raise RuntimeError("repeat_interleave: repeats can not be negative")
        shape = x._data.shape
        spread = x.unsqueeze(d + 1).expand(*shape[: d + 1], count, *shape[d + 1 :])
        # (a row-major clone, as PyTorch's: a transposed input's layout would not view)
        spread = spread.clone(memory_format=contiguous_format)
        return spread.view(*shape[:d], shape[d] * count, *shape[d + 1 :])
    index = np.repeat(np.arange(x._data.shape[d]), repeats._data)
    return index_select(x, d, _wrap(index.astype(np.int64)))


@public()
def tile(input: Tensor, *dim_args, dims=None) -> Tensor:
    """``input`` repeated along each dim (``dims`` shorter than ndim is padded with 1s);
    ``t.tile(2, 1)`` as ``t.tile((2, 1))``."""
    dims = _dim_args(_varargs_or_keyword(dim_args, dims, "dims", "tile"))
    if len(dims) < input._data.ndim:
        dims = (1,) * (input._data.ndim - len(dims)) + dims
    return input.repeat(*dims)


@public()
def broadcast_to(input: Tensor, *sizes, size=None) -> Tensor:
    """``input`` expanded to ``size``; ``t.broadcast_to(2, 3)`` as ``t.broadcast_to((2, 3))``."""
    return input.expand(*_dim_args(_varargs_or_keyword(sizes, size, "size", "broadcast_to")))


@public(method=False)
def broadcast_tensors(*tensors) -> tuple:
    """``tensors`` expanded to one shape; as in PyTorch, one already of that shape is returned
    itself, with no ExpandBackward0 (so a leaf parameter stays a leaf and prints as one)."""
    shapes = [t._data.shape for t in tensors]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:  # PyTorch's RuntimeError and words, not NumPy's
        raise RuntimeError(
            f"{size_mismatch_words(shapes)} (broadcast_tensors: shapes {[list(s) for s in shapes]})"
        ) from None
    return tuple(t if t._data.shape == shape else t.expand(shape) for t in tensors)


@public(method=False)
def broadcast_shapes(*shapes) -> Size:
    """The shape tensors of ``shapes`` (ints or sequences of ints) broadcast to, without
    making tensors; PyTorch's errors for shapes that do not broadcast."""
    result: list = []
    for i, shape in enumerate(shapes):
        dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        for d in dims:
            if isinstance(d, (int, np.integer)) and d < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
        if len(dims) > len(result):
            result = [1] * (len(dims) - len(result)) + result
        for k in range(1, len(dims) + 1):
            d, r = dims[-k], result[-k]
            if not isinstance(d, (int, np.integer)) or (d != r and d != 1 and r != 1):
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {d} at {-k}! Mismatching "
                    f"argument at index {i} had {shape}; but expected shape should be "
                    f"broadcastable to {result}"
                )
            if r == 1:
                result[-k] = int(d)
    return Size(result)


@public(method=False)
def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-D tensors (``indexing="ij"`` or ``"xy"``); without
    ``indexing``, "ij" and PyTorch's warning that it will be required."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warn_once(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument."
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    for t in tensors:
        if _tensor(t, "meshgrid")._data.ndim > 1:
            raise RuntimeError("meshgrid: expects 0-D or 1-D tensors")
    flat = [t.reshape(-1) for t in tensors]
    shape = tuple(t._data.shape[0] for t in flat)
    grids = []
    for i, t in enumerate(flat):
        view = [1] * len(flat)
        view[i] = shape[i]
        grids.append(t.reshape(view).expand(shape))
    if indexing == "xy" and len(flat) >= 2:
        grids = [g.transpose(0, 1) for g in grids]  # "xy": the first two axes swapped
    return tuple(grids)


_CDIST_MODES = {
    None: 0,
    "use_mm_for_euclid_dist_if_necessary": 0,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}


@public(method=False)
def cdist(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """Pairwise ``p``-norm distances between the rows of ``x1`` (.., P, M) and ``x2`` (.., R, M).

    For p = 2 and more than 25 rows on a side (or ``compute_mode="use_mm_for_euclid_dist"``)
    by one matrix product, as PyTorch computes them (``_euclidean_dist``), else directly."""
    _check_tensors("cdist", x1, x2)
    same_dtype(x1, x2, lambda a, b: f"cdist: expected scalar type {a} but found {b}")
    if x1._data.ndim < 2 or x2._data.ndim < 2 or x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(
            f"cdist: x1 and x2 must be at least 2-D with rows of one length, got shapes "
            f"{list(x1.shape)} and {list(x2.shape)}"
        )
    if p < 0:
        raise RuntimeError(f"cdist: only non-negative p values are supported, got {p}")
    if x1._data.dtype.kind != "f":
        raise RuntimeError(f"cdist: only floating-point dtypes are supported, got {x1.dtype}")
    if x1._data.dtype == np.float16:  # PyTorch's CPU kernel has no half loop
        raise NotImplementedError("\"cdist\" not implemented for 'Half' (use float32)")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _CDIST_MODES[compute_mode]
    (r1, c), r2 = x1._data.shape[-2:], x2._data.shape[-2]
    batch = np.broadcast_shapes(x1._data.shape[:-2], x2._data.shape[:-2])
    size = math.prod(batch)
    if p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))) and r1 * r2 * size * c:
        if size == 1:
            dist = _pairwise.euclidean_dist(x1, x2)
        else:  # PyTorch's batch: both expanded to it, made contiguous, one batch dim
            dist = _pairwise.euclidean_dist(
                x1.expand(*batch, r1, c).contiguous().view(size, r1, c),
                x2.expand(*batch, r2, c).contiguous().view(size, r2, c),
            )
        return dist.view(*batch, r1, r2)
    return _pairwise.cdist(x1, x2, p=float(p))


@public()
@accepts_out(same_dtype=True)
def cross(input: Tensor, other: Tensor, dim=None) -> Tensor:
    """The cross product along ``dim`` (the first dim of size 3 when None)."""
    _check_tensors("cross", input, other)
    same_dtype(input, other, lambda a, b: f"cross: expected scalar type {a} but found {b}")
    shape = np.broadcast_shapes(input._data.shape, other._data.shape)
    if dim is None:
        warn_once(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
            "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
            "change to agree with that of linalg.cross in a future release."
        )
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError(f"cross: no dimension of size 3 in shape {list(shape)}")
    d = _normalize_dim(dim, len(shape), "cross")
    if shape[d] != 3:
        raise RuntimeError(f"cross: dimension {dim} must have size 3, got {shape[d]}")
    return _pairwise.linalg_cross(input, other, dim=operator.index(dim))


@public()
@accepts_out
def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product."""
    _check_tensors("kron", input, other)
    nd = max(input._data.ndim, other._data.ndim)
    shape_a = (1,) * (nd - input._data.ndim) + input._data.shape
    shape_b = (1,) * (nd - other._data.ndim) + other._data.shape
    inter_a = []
    inter_b = []
    for sa, sb in zip(shape_a, shape_b):
        inter_a += [sa, 1]
        inter_b += [1, sb]
    # PyTorch's recording: the operands and the product reshaped as unsafe views (of any
    # layout: a size-1 dim after each of theirs is a view of any strides).
    a = _unsafe_view(input, shape=tuple(inter_a))
    b = _unsafe_view(other, shape=tuple(inter_b))
    return _unsafe_view(a * b, shape=tuple(sa * sb for sa, sb in zip(shape_a, shape_b)))


# ----- statistics and counting -----


@public()
def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """The standard deviation and the mean over ``dim`` (all when None), one node; PyTorch's
    legacy forms ``std_mean(x, unbiased)`` and ``std_mean(x, dim, unbiased, keepdim)`` too."""
    return _moments.std_mean(input, dim, unbiased, keepdim, correction)


@public()
def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """The variance and the mean over ``dim`` (all when None), one node; the legacy forms as
    ``std_mean``."""
    return _moments.var_mean(input, dim, unbiased, keepdim, correction)


@public()
def count_nonzero(input: Tensor, *dims, dim=None) -> Tensor:
    """How many entries are not zero, over ``dim`` (all when None); ``t.count_nonzero(0, 1)``
    as ``t.count_nonzero((0, 1))``."""
    dims = _varargs_or_keyword(dims, dim, "dim", "count_nonzero")
    if not dims or dims == (None,):
        return (input != 0).sum()
    return (input != 0).sum(dims[0] if len(dims) == 1 else dims)


__all__ = exports(globals())
