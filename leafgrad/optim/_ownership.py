"""Whether a tensor alone refers to its array, read from CPython's reference counts.

Never compiled (not in ``_compiled.MODULES``), as ``_engine/accumulation.py``: a compiled
function borrows its arguments instead of holding them, so the same count would mean
something else. The count is of this function's own local, so its callers may be compiled.
"""

from __future__ import annotations

import sys

import numpy as np

from .._engine.accumulation import _ONLY_ITS_TENSORS
from .._tensor import Tensor


def own_array(t, shape: tuple) -> bool:
    """Whether ``t`` is a plain tensor outside any graph whose C-contiguous ``shape`` array
    only ``t`` refers to."""
    a = t._data
    return (
        type(t) is Tensor
        and not t._requires_grad
        and t._base is None
        and not t._is_inference
        and type(a) is np.ndarray
        and a.shape == shape
        and a.flags.c_contiguous
        and a.flags.writeable
        and sys.getrefcount(a) == _ONLY_ITS_TENSORS  # _data, ``a``, the argument
    )


__all__: list = []
