"""Indexing by index tensors: gather, index_select, take, masked_fill, take_along_dim.

Each backward scatters into zeros (``_index_adds``, or ``np.add.at``) so repeated indices
accumulate, and each scatter's own backward is the gather again. ``Tensor.__getitem__``
lives in ``slicing.py``.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .._batched import BatchedTensor
from .._dtype import c_type_name
from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim, _wrap, _zeros_like
from ._add_at import add_at, c_strides
from ._batch_loop import loops_over_examples
from ._batch_whole import batches_index
from ._index_adds import index_add_rows, scatter_add_rows
from ._inputs import fill_number, guarding_indices
from ._optable import Composite, Linear
from ._out import accepts_out, with_out
from ._plain import operand, values_of
from ._primitive import adjoint_pair, primitive
from .broadcast import expand
from .piecewise import where
from .shape import reshape

# ----- gather and its scatter-add backward -----


def _gather_key(index, dim):
    """``x[key]`` is gather's result: ``np.indices(index.shape, sparse=True)`` with ``index``
    at ``dim``; a 0-d index (into a 1-d tensor, PyTorch's 0-d as 1-d) is the key itself."""
    if not index.ndim:
        return (index,)
    key = list(_positions_along(index.shape, dim))
    key[dim] = index
    return tuple(key)


@functools.lru_cache(maxsize=64)
def _positions_along(shape: tuple, dim: int) -> tuple:
    """``np.indices(shape, sparse=True)`` without its ~1.5 us of Python, and None at ``dim``
    (replaced by the index): each other dim's ``arange`` shaped to broadcast, read-only (kept:
    a loop gathers with the same few shapes)."""
    ndim = len(shape)
    positions = []
    for axis, n in enumerate(shape):
        if axis == dim:
            positions.append(None)
            continue
        along = np.arange(n).reshape((1,) * axis + (n,) + (1,) * (ndim - axis - 1))
        along.flags.writeable = False
        positions.append(along)
    return tuple(positions)


def _gather_forward(x, *, dim, index):
    if x.ndim == 0:  # every index is 0
        return np.broadcast_to(x, index.shape).copy()
    if index.ndim == x.ndim and index.size >= TAKE_MIN_SIZE:
        source = _flat_source(x)
        if source is not None:
            flat, strides = source
            if flat.size == 1:  # one value broadcast (a ``sum()``'s gradient): all of it
                return np.full(index.shape, flat[0], x.dtype)
            return np.take(flat, gather_positions(strides, dim, index))
    out = x[_gather_key(index, dim)]
    # Row-major, as PyTorch's (NumPy follows a transposed index's layout).
    return out if out.flags.c_contiguous else out.copy(order="C")


# Index sizes from which gather takes flat positions: NumPy's indexing by a tuple of arrays
# (its general path) costs ~2.4 ns an element, one ``take`` by flat positions ~0.5 ns plus
# ~0.8 ns to make them ((256, 1000) int64 indices into (256, 100) float32: 611 -> 341 us on
# the 2-core VM, NumPy 2.4.6); below this size the two extra calls cost more.
TAKE_MIN_SIZE = 1024


def _flat_source(x: np.ndarray):
    """``(flat, strides)``: ``x``'s values as a 1-D array and each dim's stride in it
    (elements), for a C-contiguous ``x`` or one broadcast along some dims (a ``sum()``'s
    gradient: stride 0 there, its distinct values copied once); None for other layouts."""
    if x.flags.c_contiguous:
        return x.reshape(-1), c_strides(x.shape)
    keep = tuple(slice(0, 1) if s == 0 else slice(None) for s in x.strides)
    compact = np.ascontiguousarray(x[keep])
    if compact.size * 2 > x.size:  # mostly not broadcast: no saving in the copy
        return None
    strides = c_strides(compact.shape)
    return compact.reshape(-1), [0 if s == 0 else t for s, t in zip(x.strides, strides)]


def gather_positions(strides, dim: int, index: np.ndarray) -> np.ndarray:
    """Where each element of ``x[_gather_key(index, dim)]`` lies in a flat array whose dims
    have ``strides`` (elements): ``index`` (in range, non-negative, with ``x``'s number of
    dims) times ``dim``'s stride plus the other coordinates' offsets."""
    base = None
    for axis, size in enumerate(index.shape):
        if axis != dim and size > 1 and strides[axis]:
            term = np.arange(0, size * strides[axis], strides[axis], dtype=np.int64)
            term = term.reshape((1,) * axis + (size,) + (1,) * (index.ndim - axis - 1))
            base = term if base is None else base + term
    if strides[dim] == 0:
        positions = np.zeros((1,) * index.ndim, np.int64) if base is None else base
        return np.broadcast_to(positions, index.shape)
    if strides[dim] != 1:
        positions = np.multiply(index, strides[dim], dtype=np.int64)
        if base is not None:
            positions += base
        return positions
    if base is None:
        return index.astype(np.int64, copy=False)
    return np.add(index, base, dtype=np.int64)


def _scatter_add_forward(grad, *, shape, dim, index):
    if not shape:
        return np.asarray(grad.sum(), dtype=grad.dtype)
    out = np.zeros(shape, dtype=grad.dtype)
    scatter_add_into(out, dim, index, grad)
    return out


def scatter_add_into(out: np.ndarray, dim: int, index: np.ndarray, values) -> None:
    """``add_at(out, _gather_key(index, dim), values)``, by ``gather_positions`` (not
    add_at's own, which first looks for negative indices) where ``out`` is C-contiguous and
    ``values`` have ``index``'s shape: the same sums in the same order. Compiled
    (``_index_adds``) where ``index`` has ``out``'s shape outside ``dim``."""
    if getattr(values, "shape", None) == index.shape and scatter_add_rows(out, dim, index, values):
        return
    if (
        index.ndim == out.ndim
        and index.size >= TAKE_MIN_SIZE
        and out.flags.c_contiguous
        and getattr(values, "shape", None) == index.shape
    ):
        positions = gather_positions(c_strides(out.shape), dim, index)
        np.add.at(out.reshape(-1), positions.reshape(-1), values.reshape(-1))
    else:
        add_at(out, _gather_key(index, dim), values)


# The adjoint is ATen's gather_backward, which PyTorch computes with scatter_add (hence its
# node's name); the public scatter_add is a primitive of its own (ops/scatter.py).
_gather, _scatter_add = adjoint_pair(
    "gather",
    _gather_forward,
    "gather_backward",
    _scatter_add_forward,
    saves=("self", "dim", "index"),
    metadata=(("sparse_grad", lambda values, params: False),),  # (dense gradients only)
    node_name="GatherBackward0",
    adjoint_node_name="ScatterAddBackward0",
    adjoint_absent_edges=(0,),  # PyTorch's scatter_add into zeros: (None, 0) for them
)


def _take_sorted_forward(x, *, dim, indices):
    return _gather_forward(x, dim=dim, index=indices)


def _sorted_values_grad(grad, x, *, result, dim, indices):
    return _scatter_add(grad, shape=tuple(x.shape), dim=dim, index=indices)


def _sorted_values(name, node_name, saves=("dim", "indices"), overload=""):
    # The values of sort / topk, taken at the indices just computed: as PyTorch's nodes they
    # save the indices (and dim), not the input, which may then change in place. (cummax and
    # cummin's save the input too.)
    return primitive(
        name,
        _take_sorted_forward,
        _sorted_values_grad,
        kind=Linear(),
        saves=saves,
        node_name=node_name,
        overload=overload,
        dtype_rule="keep",
        plain_rules=True,
    )


sort_values = _sorted_values("sort", "SortBackward0")
sort_stable_values = _sorted_values("sort", "SortBackward1", overload="stable")
topk_values = _sorted_values("topk", "TopkBackward0")


def out_of_range(idx: np.ndarray, size: int) -> bool:
    """Whether an int64 ``idx`` holds a value outside ``[0, size)``: one pass, negatives
    read as unsigned (then above any size), not ``min()`` and ``max()``'s two."""
    # (the ufunc's reduce: ndarray.max's own call, without its Python wrapper)
    return bool(idx.size) and int(np.maximum.reduce(idx.view(np.uint64), axis=None)) >= size


def _index_tensor(index, op: str) -> np.ndarray:
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): index must be a Tensor, got {type(index).__name__}")
    data = index._data
    if data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index (got {index.dtype})")
    # Not copied: ``guarding_indices`` makes the backward refuse indices changed in place
    # since, as PyTorch's saved index does (a copy of 2 MB of indices took ~0.15-0.5 ms).
    return data.astype(np.int64, copy=False)


@public()
@accepts_out(same_dtype=True)
@batches_index("gather", ("input", "index"))
@guarding_indices("index")
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` for dim 0 (likewise for other dims).

    ``index`` has ``input``'s number of dims and no larger size outside ``dim``.
    """
    idx = _index_tensor(index, "gather")
    shape = input._data.shape
    d = _normalize_dim(operator.index(dim), len(shape), "gather")
    if idx.ndim != len(shape) and not (idx.ndim <= 1 and len(shape) <= 1):
        raise RuntimeError(
            "Index tensor must have the same number of dimensions as input tensor (gather(): "
            f"index of shape {list(idx.shape)}, input of shape {list(shape)})"
        )
    if shape:
        for k, (i, s) in enumerate(zip(idx.shape, shape)):
            if k != d and i > s:
                raise RuntimeError(
                    f"gather(): index of shape {list(idx.shape)} is larger than the input of "
                    f"shape {list(shape)} at dim {k}; outside dim {d} it may be no larger"
                )
        size = shape[d]
    else:
        size = 1
    if out_of_range(idx, size):
        bad = idx[(idx < 0) | (idx >= size)].flat[0]
        raise RuntimeError(f"gather(): index {bad} is out of bounds for dim {d} with size {size}")
    return _gather(input, dim=d, index=idx)


@public()
def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    """Values of ``input`` at ``indices`` along ``dim``, both broadcast outside ``dim``;
    with ``dim=None`` both are flattened first."""
    if not isinstance(indices, Tensor) or indices._data.dtype != np.int64:
        raise RuntimeError("take_along_dim(): indices must be an int64 Tensor")
    if dim is None:
        return gather(reshape(input, -1), 0, reshape(indices, -1))
    shape, ishape = input._data.shape, indices._data.shape
    if len(shape) != len(ishape):
        raise RuntimeError(
            f"take_along_dim(): input of shape {list(shape)} and indices of shape "
            f"{list(ishape)} must have the same number of dims"
        )
    d = _normalize_dim(operator.index(dim), len(shape), "take_along_dim")
    try:
        bshape = np.broadcast_shapes(shape[:d] + (ishape[d],) + shape[d + 1 :], ishape)
    except ValueError:
        raise RuntimeError(
            f"take_along_dim(): input of shape {list(shape)} and indices of shape "
            f"{list(ishape)} cannot be broadcast outside dim {d}"
        ) from None
    x = expand(input, bshape[:d] + (shape[d],) + bshape[d + 1 :])
    # A tensor of its own for a copy of the indices (gather keeps the array it is given):
    # PyTorch's backward here does not watch ``indices`` for in-place changes but reads
    # their values as they were (with dim=None it watches them). Under vmap a batched
    # ``indices`` stays itself: its values are per example.
    own = indices if type(indices) is BatchedTensor else _wrap(indices._data.copy())
    return gather(x, d, expand(own, bshape))


def _take_backward_forward(grad, *, shape, index):
    out = np.zeros(shape, dtype=grad.dtype)
    np.add.at(out.reshape(-1), index.reshape(-1), grad.reshape(-1))
    return out


# take (TakeBackward0, saving self and index) and its adjoint, which adds a gradient into
# zeros at the flat positions, as PyTorch's put_(..., accumulate=True) (PutBackward0).
# ``index``: flat positions (negative ones count from the end), any shape (the result's).
_take, _take_backward = adjoint_pair(
    "take",
    lambda x, *, index: x.reshape(-1)[index],
    "take_backward",
    _take_backward_forward,
    saves=("self", "index"),
    node_name="TakeBackward0",
    adjoint_node_name="PutBackward0",
)


@public()
@loops_over_examples("take", ("index",))
@guarding_indices("index")
def take(input: Tensor, index: Tensor, *, out=None) -> Tensor:
    """The entries of the flattened ``input`` at ``index`` (int64, any shape; negative
    counts from the end), in ``index``'s shape."""
    if out is not None:
        return with_out("take", lambda: take(input, index), (input,), out)
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"take(): index must be an int64 Tensor, got {got}; use .long()")
    idx, n = index._data, input._data.size
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise IndexError(f"take(): index {bad} is out of range for a tensor of {n} elements")
    return _take(input, index=idx.copy())  # a copy: the backward reads them as they were


# ----- index_select and its index-add backward -----


def _index_add_forward(grad, *, shape, dim, index):
    if not shape:
        return grad.copy()
    out = np.zeros(shape, dtype=grad.dtype)
    index_add_rows(out, dim, index, grad)
    return out


# The adjoint is ATen's index_select_backward, computed with index_add (hence its node's name);
# the public index_add is a primitive of its own (ops/index_writes.py).
_index_select, _index_add = adjoint_pair(
    "index_select",
    lambda x, *, dim, index: np.take(x, index, axis=dim) if x.ndim else x.copy(),
    "index_select_backward",
    _index_add_forward,
    saves=("index",),
    metadata=("dim", "self_sym_sizes"),
    node_name="IndexSelectBackward0",
    adjoint_node_name="IndexAddBackward0",
)


@public()
@accepts_out(same_dtype=True)
@loops_over_examples("index_select", ("index",))
@guarding_indices("index")
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries of ``input`` at positions ``index`` (1-D) along ``dim``."""
    idx = _index_tensor(index, "index_select")
    if idx.ndim > 1:
        raise IndexError(f"index_select(): index must be 1-D, got shape {list(idx.shape)}")
    idx = idx.reshape(-1)
    shape = input._data.shape
    d = _normalize_dim(operator.index(dim), len(shape), "index_select")
    size = shape[d] if shape else 1
    if out_of_range(idx, size) or (not shape and idx.size != 1):
        raise IndexError(
            f"index out of range in self (index_select(): index {idx.tolist()} for dim {d} of "
            f"size {size}, tensor shape {list(shape)}; negative indices are not allowed)"
        )
    return _index_select(input, dim=d, index=idx)


# ----- masked_fill -----


def _masked_fill_forward(x, mask, value=None, *, fill=None):
    if type(fill) is float and x.dtype.kind == "f":  # a Python float takes x's dtype itself
        out = np.where(mask, fill, x)
    else:
        v = fill if value is None else value
        out = np.where(mask, np.asarray(v).astype(x.dtype), x)
    # PyTorch fills a row-major clone (np.where follows a transposed x's layout).
    return out if out.flags.c_contiguous else out.copy(order="C")


# The op itself, as the public masked_fill only checks its arguments (valid here).
def _masked_fill_grad_input(grad, x, mask, *args, **_):
    return _masked_fill_scalar(grad, mask, fill=0)


def _masked_fill_grad_value(grad, x, mask, value, **_):
    return _masked_fill_scalar(grad, operand(~values_of(mask), grad), fill=0).sum()


def _masked_fill_jvp_scalar(tx, _tmask, x, mask, result, *, fill):
    return None if tx is None else masked_fill(tx, mask, 0)


def _masked_fill_jvp_tensor(tx, _tmask, tv, x, mask, value, result):
    tx = tx if tx is not None else _zeros_like(x)
    return masked_fill(tx, mask, tv if tv is not None else 0)


def _masked_fill_as_where(x, mask, value=None, *, fill=None):
    """The same op as a ``where`` (piecewise linear), for Taylor mode."""
    return where(mask, fill if value is None else value.to(x.dtype), x)


_masked_fill_scalar = primitive(
    "masked_fill",
    _masked_fill_forward,
    (_masked_fill_grad_input, None),
    kind=Composite(taylor_as=_masked_fill_as_where, jvp=_masked_fill_jvp_scalar),
    overload="Scalar",
    saves=("mask",),
    inputs=("self", "mask"),
    edgeless=(1,),
    node_name="MaskedFillBackward0",
    dtype_rule="keep",
    broadcast=True,
    plain_rules=True,
)
_masked_fill_tensor = primitive(
    "masked_fill",
    _masked_fill_forward,
    (_masked_fill_grad_input, None, _masked_fill_grad_value),
    kind=Composite(taylor_as=_masked_fill_as_where, jvp=_masked_fill_jvp_tensor),
    overload="Tensor",
    saves=("mask",),
    inputs=("self", "mask", "value"),
    edgeless=(1,),
    node_name="MaskedFillBackward1",
    dtype_rule="keep",
    broadcast=True,
    plain_rules=True,
)


@public(inplace=True)
def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``input`` with ``value`` where the bool ``mask`` (broadcast against it) is True."""
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        if not isinstance(mask, Tensor):
            raise TypeError(
                f"masked_fill(): argument 'mask' must be Tensor, not {type(mask).__name__}"
            )
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{c_type_name(mask._data.dtype)} (compare to get one)"
        )
    try:
        if mask._data.shape != input._data.shape:  # (NumPy's check costs ~1 us)
            np.broadcast_shapes(input._data.shape, mask._data.shape)
    except ValueError:
        raise RuntimeError(
            f"masked_fill(): mask of shape {list(mask._data.shape)} cannot be broadcast with "
            f"the input of shape {list(input._data.shape)}"
        ) from None
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                f"masked_fill(): value must be a number or a 0-dim tensor, got shape "
                f"{list(value._data.shape)}"
            )
        if input._data.dtype.kind in "iu":  # checked as a number would be
            fill_number(value._data.item(), input, "masked_fill")
        return _masked_fill_tensor(input, mask, value)
    return _masked_fill_scalar(input, mask, fill=fill_number(value, input, "masked_fill"))


__all__ = exports(globals())
