"""Set operations: unique, unique_consecutive and isin.

unique sorts (PyTorch's CPU kernels sort even with ``sorted=False``); NaNs never equal each
other, so each one is its own value. As in PyTorch the unique values of a tensor that
requires grad are recorded but have no derivative (backward raises NotImplementedError).
With ``dim``, slices holding NaNs are ordered as NumPy's lexsort orders them (PyTorch's
comparison treats NaN as equal to everything there, so its order is unspecified).
"""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim, _wrap
from ._optable import NoDerivative
from ._out import with_out
from ._primitive import primitive
from ._reduce import _require_tensor


def _groups(rows: np.ndarray, order: np.ndarray):
    """Runs of equal rows in ``rows[order]``: the first row of each run (in ``order``), the
    run each original row belongs to (the inverse) and the runs' lengths (the counts)."""
    n = rows.shape[0]
    ordered = rows[order]
    starts = np.ones(n, dtype=bool)
    if n > 1:
        starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, n)).astype(np.int64)
    return order[first], inverse, counts


def _unique_forward(x, *, dim, consecutive):
    """``(values, inverse, counts)``: over the flattened input when ``dim`` is None, else
    over slices along ``dim`` (compared whole, in lexicographic order)."""
    if dim is None:
        flat = x.reshape(-1)
        rows = flat.reshape(-1, 1)
    else:
        moved = np.moveaxis(x, dim, 0)
        rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    if consecutive:
        order = np.arange(rows.shape[0])
    elif rows.shape[1] == 1:
        order = np.argsort(rows[:, 0], kind="stable")
    else:
        order = np.lexsort(rows.T[::-1])  # column 0 is the primary key
    picked, inverse, counts = _groups(rows, order)
    if dim is None:
        return flat[picked], inverse.reshape(x.shape), counts
    return np.moveaxis(moved[picked], 0, dim), inverse, counts


def _declare(name, node_name):
    return primitive(
        name,
        _unique_forward,
        kind=NoDerivative(error=NotImplementedError),
        node_name=node_name,
        dtype_rule="keep",
        num_outputs=3,
    )


_unique2 = _declare("_unique2", "Unique2Backward0")
_unique_dim = _declare("unique_dim", "UniqueDimBackward0")
_unique_consecutive = _declare("unique_consecutive", "UniqueConsecutiveBackward0")


def _unique(op, prim, input, return_inverse, return_counts, dim, consecutive):
    _require_tensor(input, op)
    data = input._data
    d = None
    if dim is not None:
        d = _normalize_dim(dim, data.ndim, op)
        if any(s == 0 for i, s in enumerate(data.shape) if i != d):
            raise RuntimeError(
                f"{op}: there are 0 sized dimensions, and they aren't selected, so unique cannot "
                f"be applied (shape {list(data.shape)}, dim {dim})"
            )
    values, inverse, counts = prim(input, dim=d, consecutive=consecutive)
    if not (return_inverse or return_counts):
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())


@public()
def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim=None,
):
    """The distinct elements of ``input`` (flattened; or its distinct slices along ``dim``),
    sorted; with ``return_inverse`` where each element went, with ``return_counts`` how
    often each occurs. A tensor, or a tuple when either is asked for."""
    prim = _unique2 if dim is None else _unique_dim
    return _unique("unique", prim, input, return_inverse, return_counts, dim, False)


@public()
def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    """Each run of equal consecutive elements (or slices along ``dim``) reduced to one."""
    return _unique(
        "unique_consecutive", _unique_consecutive, input, return_inverse, return_counts, dim, True
    )


@public(method=False)
def isin(
    elements, test_elements, *, assume_unique: bool = False, invert: bool = False, out=None
) -> Tensor:
    """Whether each of ``elements`` occurs in ``test_elements`` (either may be a number, not
    both); bool, of ``elements``' shape. NaN is in nothing."""
    if out is not None:
        options = dict(assume_unique=assume_unique, invert=invert)
        compute = lambda: isin(elements, test_elements, **options)
        return with_out("isin", compute, (), out)  # bools: no grad to refuse
    if not (isinstance(elements, Tensor) or isinstance(test_elements, Tensor)):
        raise TypeError(
            f"isin(): expected a Tensor for elements or test_elements, got "
            f"({type(elements).__name__}, {type(test_elements).__name__})"
        )
    arrays = []
    for a in (elements, test_elements):
        array = a._data if isinstance(a, Tensor) else np.asarray(a)
        if array.dtype == np.bool_:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
        arrays.append(array)
    found = np.isin(arrays[0], arrays[1].reshape(-1), invert=invert)
    return _wrap(np.asarray(found, dtype=np.bool_))


__all__ = exports(globals())
