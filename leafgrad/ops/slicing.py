"""Basic and advanced indexing: select, slice, narrow, alias and ``Tensor.__getitem__``.

``t[key]`` follows PyTorch step by step: ints, slices and None become select / slice /
unsqueeze views applied left to right (a full ``:`` inside a tuple is skipped), then any
tensor, list or mask indices become one ``index`` op (``IndexBackward0``) whose result
shape follows NumPy's rule for the dims that remain. Each view's backward writes the
gradient into zeros (``select_backward`` / ``slice_backward``); the index backward
scatter-adds with ``np.add.at`` so repeated indices accumulate, and its own backward is
the index again.
"""

from __future__ import annotations

import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim
from .._warn import warn_at_user
from ._add_at import add_at
from ._batch_loop import loops_over_examples
from ._index_adds import index_add_rows
from ._inputs import guard_indices
from ._optable import Linear
from ._primitive import adjoint_pair, primitive
from .shape import _unsqueeze

# ----- select / slice / narrow / alias -----


def _select_forward(x, *, dim, index):
    # The trailing Ellipsis keeps a 0-d result an array viewing ``x`` (not a NumPy scalar).
    return x[(slice(None),) * dim + (index, Ellipsis)]


def _select_backward_forward(grad, *, shape, dim, index):
    out = np.zeros(shape, dtype=grad.dtype)
    out[(slice(None),) * dim + (index,)] = grad
    return out


_select, _select_backward = adjoint_pair(
    "select",
    _select_forward,
    "select_backward",
    _select_backward_forward,
    overload="int",
    node_name="SelectBackward0",
    adjoint_node_name="SelectBackwardBackward0",
    view=True,
    metadata=("dim", "index", "self_sym_sizes"),
)


@public()
def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The view ``input[..., index, ...]`` at ``dim``; that dim is removed."""
    shape = input._data.shape
    if not shape:
        raise IndexError("select: a 0-dim tensor has no dim to select from; use tensor.item()")
    d = _normalize_dim(operator.index(dim), len(shape), "select")
    i = operator.index(index)
    if not -shape[d] <= i < shape[d]:
        raise IndexError(
            f"index {i} is out of bounds for dimension {d} with size {shape[d]} (select: tensor "
            f"shape {list(shape)}; use an index in [{-shape[d]}, {shape[d] - 1}])"
        )
    return _select(input, dim=d, index=i)  # as given (PyTorch shows a negative one saved)


def _slice_key(dim, start, stop, step):
    return (slice(None),) * dim + (slice(start, stop, step),)


def _slice_backward_forward(grad, *, shape, dim, start, stop, step):
    out = np.zeros(shape, dtype=grad.dtype)
    out[_slice_key(dim, start, stop, step)] = grad
    return out


def _slice_forward(x, *, dim, start, stop, step):
    if dim == 0:  # the common case, without building a key
        return x[start:stop:step]
    return x[_slice_key(dim, start, stop, step)]


_slice, _slice_backward = adjoint_pair(
    "slice",
    _slice_forward,
    "slice_backward",
    _slice_backward_forward,
    overload="Tensor",
    node_name="SliceBackward0",
    adjoint_node_name="SliceBackwardBackward0",
    view=True,
    metadata=(
        "dim",
        "start",
        ("end", lambda values, params: params["stop"]),
        "step",
        "self_sym_sizes",
    ),
)


@public()
def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    """The view of ``length`` entries of ``input`` along ``dim`` from ``start``."""
    shape = tuple(input.shape)  # an array too, in a plain rule
    if not shape:
        raise RuntimeError("narrow: a 0-dim tensor has no dim to narrow; unsqueeze it first")
    d = _normalize_dim(operator.index(dim), len(shape), "narrow")
    start, length, size = operator.index(start), operator.index(length), shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"narrow: start {start} is out of range for dim {d} of size {size}; use a start in "
            f"[{-size}, {size}]"
        )
    if length < 0:
        raise RuntimeError(f"narrow: length must be non-negative, got {length}")
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size}). (narrow: dim "
            f"{d} of a tensor of shape {list(shape)})"
        )
    return _slice(input, dim=d, start=start, stop=start + length, step=1)


alias = primitive(
    "alias",
    lambda x: x.view(),
    lambda grad, x, **_: grad,
    node_name="AliasBackward0",
    dtype_rule="keep",
    kind=Linear(),
    view=True,
    plain_rules=True,
)


# ----- advanced indexing: index and its scatter-add backward -----


def _index_key(indices):
    return tuple(slice(None) if i is None else i for i in indices)


def _index_put_forward(grad, *, shape, indices, accumulate):
    out = np.zeros(shape, dtype=grad.dtype)
    if accumulate:
        arrays = [k for k, i in enumerate(indices) if i is not None]
        one = indices[arrays[0]] if len(arrays) == 1 else None
        if type(one) is np.ndarray and one.dtype.kind in "iu":
            # one index array (x[idx], x[:, idx]): whole slices added in index order
            index_add_rows(out, arrays[0], one, grad)
        else:
            add_at(out, _index_key(indices), grad)
    else:  # indices known to be distinct (from a mask): plain assignment is faster
        out[_index_key(indices)] = grad
    return out


_index, _index_put = adjoint_pair(
    "index",
    lambda x, *, indices, accumulate: x[_index_key(indices)],
    # PyTorch's _index_put_impl_, the backward of index (the in-place index_put is inplace.py's).
    "index_put_impl",
    _index_put_forward,
    overload="Tensor",
    node_name="IndexBackward0",
    adjoint_node_name="IndexPutImplBackward0",
    saves=("indices",),  # index tensors (None where a dim is whole), freed with the graph
    metadata=("self_sym_sizes",),
    adjoint_absent_edges=(0,),  # PyTorch's _index_put_impl_ into zeros: (None, 0) for them
)

# ----- __getitem__ -----

_INDEX_DTYPES = "iu"  # int64/int32 index; uint8 and bool are masks


def _is_int(k) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _sequence_as_tuple(seq) -> bool:
    """PyTorch's legacy rule: a short list holding slices, None, ... or sequences is a tuple."""
    if len(seq) >= 32:
        return False
    return any(
        isinstance(k, (slice, list, tuple, Tensor, np.ndarray)) or k is None or k is Ellipsis
        for k in seq
    )


def _index_array(key, op_shape, dim) -> tuple:
    """``key`` (Tensor, ndarray or list) as index arrays for dims ``dim...``, and whether
    it was a mask."""
    # A copy: the backward reads the indices as they were (PyTorch snapshots an ndarray
    # index, and refuses a backward after an index tensor was changed in place).
    if isinstance(key, Tensor):
        arr = key._data.copy()
    elif isinstance(key, np.ndarray):
        arr = key.copy()
    else:
        arr = _as_index_array(key)
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)  # x[[]] is an empty long index
    kind = arr.dtype.kind
    if kind == "u" and arr.dtype.itemsize == 1:
        warn_at_user(
            "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
            "instead.",
        )
        arr, kind = arr.astype(bool), "b"
    if kind == "b":
        shape = op_shape[dim : dim + arr.ndim]
        if arr.ndim > len(op_shape) - dim or shape != arr.shape:
            raise IndexError(
                f"index: the mask of shape {list(arr.shape)} does not match the indexed tensor "
                f"of shape {list(op_shape)} at dims {dim}..{dim + arr.ndim - 1}; a mask must "
                "have exactly the sizes of the dims it covers"
            )
        return np.nonzero(arr), True
    if kind not in _INDEX_DTYPES or arr.dtype.itemsize < 4:
        raise IndexError(
            "tensors used as indices must be long, int, byte or bool tensors (index: got "
            f"{arr.dtype})"
        )
    if dim >= len(op_shape):
        raise IndexError(f"index: too many indices for a tensor of shape {list(op_shape)}")
    size = op_shape[dim]
    arr = arr.astype(np.int64, copy=False)
    if not arr.size:
        return (arr,), False
    # The ufuncs' reduce (ndarray.min's and max's own calls, without their Python wrappers);
    # the lowest once: it also says whether any index counts from the end.
    low = np.minimum.reduce(arr, axis=None)
    if low < -size or np.maximum.reduce(arr, axis=None) >= size:
        bad = arr[(arr < -size) | (arr >= size)].flat[0]
        raise IndexError(
            f"index {bad} is out of bounds for dimension {dim} with size {size} (index: use "
            f"indices in [{-size}, {size - 1}])"
        )
    return (np.where(arr < 0, arr + size, arr) if low < 0 else arr,), False


def _scalar_kind(k) -> str:
    """For a 0-d tensor or array used as an index: "b" (bool or uint8), "i" (int), else ""."""
    data = k._data if isinstance(k, Tensor) else k if isinstance(k, np.ndarray) else None
    if data is None or data.ndim:
        return ""
    if data.dtype.kind == "b" or data.dtype == np.uint8:
        return "b"
    return "i" if data.dtype.kind in "iu" else ""


def _as_index_array(k) -> np.ndarray:
    try:
        return np.asarray(k)
    except ValueError:
        raise IndexError(
            f"index: the nested sequence {k!r} is ragged; use a rectangular one"
        ) from None


def _consumed(k) -> int:
    """How many dims of the input the index entry ``k`` uses up."""
    if type(k) is slice or type(k) is int:
        return 1
    if k is None or k is Ellipsis or isinstance(k, (bool, np.bool_)):
        return 0
    if isinstance(k, Tensor):
        data = k._data
        return data.ndim if data.dtype.kind == "b" or data.dtype == np.uint8 else 1
    if isinstance(k, (np.ndarray, list, tuple, range)):
        arr = _as_index_array(k)
        return arr.ndim if arr.dtype.kind == "b" else 1
    return 1


def _invalid_entry(k):
    if isinstance(k, (float, complex)):
        return IndexError(
            f"index: {type(k).__name__} {k!r} is not a valid index; use ints, slices, None, "
            "..., or int/bool tensors"
        )
    return TypeError(
        f"index: {type(k).__name__} is not a valid index; use ints, slices, None, ..., or tensors"
    )


@public(function=False, method=("__getitem__",))
@loops_over_examples("__getitem__", ("key",), refuse_masks=True)
def getitem(self: Tensor, key) -> Tensor:
    """``self[key]`` with PyTorch's semantics (a negative slice step is a ValueError)."""
    if type(key) is Tensor and self._data.ndim:
        out = _by_index_tensor(self, key)
        if out is not None:
            if out.grad_fn is not None:
                guard_indices(out, (key,))
            return out
    if not isinstance(key, tuple):
        if isinstance(key, slice):
            return _apply_slice(self, 0, key, False)
        if key is None:
            return _unsqueeze(self, dim=0)
        if key is Ellipsis:
            return alias(self)
        if type(key) is int:  # ``x[i]``, a sample at a time: select's checks, inline
            shape = self._data.shape
            if shape and -shape[0] <= key < shape[0]:
                return _select(self, dim=0, index=key)
        if _is_int(key):
            if self._data.ndim == 0:
                raise IndexError(
                    "index: a 0-dim tensor cannot be indexed by an int; use tensor.item()"
                )
            return select(self, 0, key)
        legacy = isinstance(key, list) and _sequence_as_tuple(key)
        if legacy:
            warn_at_user(
                "indexing with a non-tuple sequence of indices is deprecated; use x[tuple(seq)]",
            )
        key = tuple(key) if legacy else (key,)
    out = _getitem_tuple(self, key)
    if out.grad_fn is not None:
        guard_indices(out, key)  # index tensors: the backward refuses them once changed
    return out


def _by_index_tensor(x: Tensor, key: Tensor):
    """``x[key]`` for an int32/int64 (or uint32/uint64) ``key`` of one or more dims, the
    common ``x[L.tensor([0, 2])]``: what ``_getitem_tuple`` does for it, without its walk
    over the entries (~3 us); None for other keys (masks, 0-d), which take that walk."""
    dtype = key._data.dtype
    if not key._data.ndim or dtype.kind not in _INDEX_DTYPES or dtype.itemsize < 4:
        return None
    arrays, _ = _index_array(key, x._data.shape, 0)
    return _index(x, indices=arrays, accumulate=True)


def _getitem_tuple(x: Tensor, key: tuple) -> Tensor:
    ndim = x._data.ndim
    used = ellipses = 0
    for k in key:
        if type(k) is slice or type(k) is int:  # the common entries, checked first
            used += 1
        elif k is Ellipsis:
            ellipses += 1
        else:
            used += _consumed(k)
    if ellipses > 1:
        raise IndexError("index: an index can hold at most one ellipsis (...)")
    if used > ndim:
        raise IndexError(f"index: too many indices ({used}) for a tensor of dimension {ndim}")
    out, dim, advanced, from_mask = x, 0, {}, []
    for k in key:
        if type(k) is slice:  # (slice cannot be subclassed)
            # A bare ``:`` is skipped at once (as _apply_slice would skip it).
            if not (k.start is None and k.stop is None and k.step is None):
                out = _apply_slice(out, dim, k, True)
            dim += 1
        elif type(k) is int:
            out = select(out, dim, k)
        elif k is None:
            out, dim = _unsqueeze(out, dim=dim), dim + 1
        elif k is Ellipsis:
            dim += ndim - used
        elif isinstance(k, (bool, np.bool_)) or _scalar_kind(k) == "b":
            # True/False add a dim of size 1 and take all (1) or none (0) of it
            out = _unsqueeze(out, dim=dim)
            advanced[dim] = np.zeros(1 if bool(k) else 0, dtype=np.int64)
            dim += 1
        elif _is_int(k) or _scalar_kind(k) == "i":
            out = select(out, dim, operator.index(k))
        elif isinstance(k, (Tensor, np.ndarray, list, tuple, range)):  # (a range: a sequence)
            arrays, is_mask = _index_array(k, out._data.shape, dim)
            for a in arrays:
                advanced[dim] = a
                from_mask.append(is_mask)
                dim += 1
        else:
            raise _invalid_entry(k)
    if not advanced:
        return alias(x) if out is x else out
    try:
        if len(advanced) > 1:  # (one index has nothing to broadcast with)
            np.broadcast_shapes(*(a.shape for a in advanced.values()))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in advanced.values())
        raise IndexError(
            f"index: the index tensors cannot be broadcast together (shapes {shapes}); make "
            "their shapes compatible"
        ) from None
    indices = tuple(advanced.get(d) for d in range(max(advanced) + 1))
    # Indices from one mask are distinct, so their backward can assign instead of accumulate.
    accumulate = not (all(from_mask) and len(from_mask) == len(advanced))
    return _index(out, indices=indices, accumulate=accumulate)


def _apply_slice(x: Tensor, dim: int, s: slice, skip_full: bool) -> Tensor:
    """``x`` sliced by ``s`` at ``dim``; inside a tuple index (``skip_full``) a slice that
    keeps the whole dim is skipped, as PyTorch skips it."""
    step = s.step
    if step is not None:
        step = operator.index(step)
        if step == 0:
            raise ValueError("index: a slice step cannot be zero")
        if step < 0:
            raise ValueError(
                "index: a slice step must be positive (negative steps are not supported); "
                "use flip()"
            )
    shape = x._data.shape
    if not shape:
        raise IndexError("index: a 0-dim tensor cannot be sliced; unsqueeze it first")
    size = shape[dim]
    start, stop = s.start, s.stop
    if start is not None and type(start) is not int:
        start = operator.index(start)
    if stop is not None and type(stop) is not int:
        stop = operator.index(stop)
    if skip_full and (start is None or start == 0) and (stop is None or stop >= size):
        if step is None or step == 1:
            return x
    # The bounds as given, clipped where the slice is taken (Python's rule, PyTorch's): its
    # node shows them so (``_saved_start``, ``_saved_end``; an open end is the largest int64).
    start = 0 if start is None else start
    stop = _INT64_MAX if stop is None else stop
    return _slice(x, dim=dim, start=start, stop=stop, step=1 if step is None else step)


_INT64_MAX = 2**63 - 1


__all__ = exports(globals())
