"""Stand-in arrays for batched tensors: an example's shape and dtype, values unreadable.

A ``BatchedTensor``'s ``_data`` (``_batched.py``) is one of these, so code that reads only
shapes and dtypes works per example, and code that would compute on the values raises a
vmap error instead of silently using something wrong.
"""

from __future__ import annotations

import numpy as np

ITEM_ERROR = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
    "calling .item() on a Tensor, please try to rewrite what you're doing with other "
    "operations."
)
CONTROL_FLOW_ERROR = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
    "flow. We don't support that yet; write it with torch.where or other tensor operations."
)
# NumPy functions that read only shapes and dtypes, so they may see a stand-in.
_SHAPE_ONLY = {
    np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.shape, np.ndim, np.size,
    np.result_type, np.may_share_memory, np.shares_memory, np.broadcast_shapes,
}  # fmt: skip


class _StandIn(np.ndarray):
    """An array with an example's shape and dtype whose values must not be read."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise _values_error(f"numpy.{ufunc.__name__}")

    def __array_function__(self, func, types, args, kwargs):
        if func is np.reshape:  # a view of an example: only the shape is computed
            plain = np.reshape(self.view(np.ndarray), *args[1:], **kwargs)
            return stand_in(plain.shape, self.dtype)
        if func in _SHAPE_ONLY:
            if func is np.may_share_memory or func is np.shares_memory:
                return False
            plain = [a.view(np.ndarray) if isinstance(a, _StandIn) else a for a in args]
            return func(*plain, **kwargs)
        raise _values_error(f"numpy.{func.__name__}")

    def __getitem__(self, key):
        raise _values_error("indexing its values")

    def __setitem__(self, key, value):
        raise _values_error("writing its values")

    def item(self, *args):
        raise RuntimeError(ITEM_ERROR)

    def tolist(self):
        raise RuntimeError(ITEM_ERROR)

    def __bool__(self):
        raise RuntimeError(CONTROL_FLOW_ERROR)

    def __float__(self):
        raise RuntimeError(ITEM_ERROR)

    __int__ = __index__ = __float__

    def astype(self, dtype, *args, **kwargs):
        return stand_in(self.shape, np.dtype(dtype))

    def copy(self, *args, **kwargs):
        raise _values_error("copying its values")

    def reshape(self, *args, **kwargs):
        raise _values_error("reshaping its values")


def _values_error(what: str) -> RuntimeError:
    return RuntimeError(
        f"vmap: {what} needs the values of a batched tensor, which leafgrad cannot give one "
        "example at a time; the operation that did this has no batching rule. Use leafgrad "
        "ops on the tensor (they batch), or move this computation out of vmap."
    )


_STAND_INS: dict = {}


def _poison(dtype: np.dtype):
    """The one value a stand-in holds: code reading it through a path NumPy does not let us
    intercept (an index array inside ``x[key]``) fails loudly with an out-of-bounds integer
    (or computes NaN), where zeros gave plausible wrong results."""
    if dtype.kind in "iu":
        return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max
    if dtype.kind in "fc":
        return np.nan
    return np.zeros((), dtype)[()]


def stand_in(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """A read-only stand-in array of ``shape`` and ``dtype`` (cached: they hold no data)."""
    key = (shape, dtype)
    arr = _STAND_INS.get(key)
    if arr is None:
        buf = np.array([_poison(np.dtype(dtype))], dtype)
        arr = np.ndarray.__new__(_StandIn, shape, dtype, buffer=buf, strides=(0,) * len(shape))
        arr.flags.writeable = False
        _STAND_INS[key] = arr
    return arr
