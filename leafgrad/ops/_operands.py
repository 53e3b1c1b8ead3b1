"""What Tensor's binary operators take, and how they give way to NumPy for the rest.

As in PyTorch, an operator meets an operand it does not take (an ndarray, a list, any other
object) by returning NotImplemented, so Python asks the other operand: ``tensor * ndarray``
then runs as NumPy's ``ndarray.__rmul__``, which reads the tensor through ``__array__`` (so a
tensor that requires grad raises there) and hands the result back through
``Tensor.__array_wrap__``: a tensor in NumPy's result dtype, outside any graph.
``ndarray * tensor`` raises TypeError: the ndarray defers to the tensor's higher
``__array_priority__`` and the tensor's reflected operator declines too. Comparisons decline
in both directions, except ``==``, which PyTorch answers for an ndarray as for a tensor
holding it.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap

# What every binary operator takes: tensors and numbers (NumPy scalars included).
_OPERANDS = (Tensor, int, float, complex, np.generic)

_BINARY = frozenset(
    f"__{prefix}{op}__"
    for op in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split())
    for prefix in ("", "r", "i")
) - {"__rtruediv__"} | {"__lt__", "__le__", "__gt__", "__ge__", "__ne__"}
# ``__rtruediv__`` does not decline: as in PyTorch it is ``reciprocal(self) * other``, whose
# ``*`` declines, so ``ndarray / tensor`` is NumPy's product with the reciprocal.


def operator_method(name: str, fn):
    """``fn`` as Tensor's method ``name``: binary operators decline foreign operands."""
    if name == "__eq__":
        return _equality(fn)
    if name not in _BINARY:
        return fn

    def method(self, other):
        if type(other) is Tensor or isinstance(other, _OPERANDS):
            return fn(self, other)
        return NotImplemented

    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn  # the declared op (tests/ops/test_declarations.py reads it)
    return method


def _equality(eq):
    def __eq__(self, other):
        if type(other) is Tensor or isinstance(other, _OPERANDS):
            return eq(self, other)
        if isinstance(other, np.ndarray) and other.dtype.kind in "biuf":
            # PyTorch compares with the array as a tensor of its own dtype (0-d stays weak).
            return eq(self, _wrap(other))
        return NotImplemented

    __eq__.__wrapped__ = eq
    return __eq__
