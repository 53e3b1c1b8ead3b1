"""Gradients added where nothing else can see them: in place, or by taking over their memory.

Whether anything else refers to a gradient is read from CPython's reference counts, and
those depend on who holds what. This module is never compiled (``_compiled.py``): a compiled
function borrows its arguments instead of holding them, so the same count would mean
something else. Its callers hand it the engine's own containers or locals, never a
temporary, so a count reads the same whether or not the engine calling it is compiled.
"""

from __future__ import annotations

import sys
import sysconfig

import numpy as np

from .._memory_format import copy_for_grad
from .._quiet import QUIET, QUIET_STATE
from .._tensor import Tensor, _wrap
from .grad_mode import SPECIAL

# What sys.getrefcount reads, inside add_gradients, for a gradient nothing else holds: the
# engine's buffer slot and its local (``old``) or the rule's results and its local (``g``),
# add_gradients' parameter and getrefcount's own argument; for its array, the tensor's
# ``_data``, add_gradients' local and the argument.
_ONLY_THE_ENGINES = 4
_ONLY_ITS_TENSORS = 3
# Counts as CPython 3.8-3.13 with the GIL keeps them; 3.14 may borrow references (lower
# counts), free-threaded builds bias them: there gradients are always added afresh.
_COUNTS_ARE_EXACT = (3, 8) <= sys.version_info < (3, 14) and not sysconfig.get_config_var(
    "Py_GIL_DISABLED"
)


def add_gradients(a: Tensor, b: Tensor) -> Tensor:
    """``a + b`` for two gradients arriving at one output. Two plain floating tensors of one
    shape and dtype that record nothing (neither requires grad, no special mode on) are added
    by NumPy directly, quietly as ops are: the op's own path costs more than the addition.
    Into one of them where nothing else refers to it or its array (as PyTorch's engine
    accumulates in place when it holds the only reference): writing into an array being read
    is half the memory traffic of a fresh one (2x faster on a (1e4, 20) float64 gradient), and
    ``x + y`` is ``y + x`` bit for bit."""
    x, y = a._data, b._data
    if (
        type(a) is Tensor
        and type(b) is Tensor
        and not (a._requires_grad or b._requires_grad or SPECIAL[0])
        and x.dtype == y.dtype
        and x.dtype.kind == "f"
        and x.shape == y.shape
    ):
        out = None
        # (Inline, not a helper: a call would add its own references to the counts.)
        if _COUNTS_ARE_EXACT:
            if (
                x.base is None
                and sys.getrefcount(a) == _ONLY_THE_ENGINES
                and sys.getrefcount(x) == _ONLY_ITS_TENSORS
                and x.flags.writeable
            ):
                out = a
            elif (
                y.base is None
                and sys.getrefcount(b) == _ONLY_THE_ENGINES
                and sys.getrefcount(y) == _ONLY_ITS_TENSORS
                and y.flags.writeable
            ):
                out = b
        # In a run of plain nodes NumPy is quiet already; else quiet for this addition.
        token = None if QUIET.get() is QUIET_STATE else QUIET.set(QUIET_STATE)
        try:
            if out is None:
                return _wrap(np.add(x, y))
            np.add(x, y, out=out._data)
            return out
        finally:
            if token is not None:
                QUIET.reset(token)
    return a + b


def accumulate_grad(var: Tensor, grad: Tensor, create_graph: bool) -> None:
    """Add ``grad`` into ``var.grad`` as PyTorch's AccumulateGrad does.

    Without ``create_graph`` the first gradient is stored as a detached copy and later ones
    are added *in place*, so a ``.grad`` tensor the user holds sees the new total. With it
    the gradient keeps its graph: a copy first (recorded as CopyBackwards, as PyTorch's
    copy into a fresh tensor is), then ``old + grad`` (a new tensor).
    """
    old = var._grad
    if create_graph:
        if old is None:
            empty = copy_for_grad(np.empty(grad._data.shape, var._data.dtype), var._data)
            var._grad = _wrap(empty).copy_(grad)
        else:
            var._grad = old + grad
    elif old is None:
        # Own the memory: never alias a gradient that someone else may modify. A gradient
        # nothing else can reach gives its memory instead, as PyTorch steals such a buffer;
        # a copy takes the leaf's layout, as PyTorch's does.
        var._grad = _wrap(
            grad._data
            if _unreachable_elsewhere(grad, var)
            else copy_for_grad(grad._data, var._data)
        )
    else:
        data = old._data
        add = grad._data
        if data.flags.writeable and data.shape == add.shape and data.dtype == add.dtype:
            np.add(data, add, out=data)
            old._shared_version_counter()[0] += 1
        else:  # e.g. a read-only broadcast view assigned to .grad by the user
            var._grad = _wrap(data + add)


def _unreachable_elsewhere(grad: Tensor, var: Tensor) -> bool:
    """Whether only the caller's gradient list holds ``grad``, and only ``grad`` holds its
    array, which owns contiguous writable memory laid out as ``var``'s: then no one else can
    see that memory, and it can be ``var``'s gradient as it is.

    The counts are CPython references: the gradient list, ``accumulate_grad``'s argument,
    this argument and ``getrefcount``'s own; for the array, the tensor's attribute and
    ``getrefcount``'s argument. tests/autograd/test_grad_buffers.py checks both ways.
    """
    data = grad._data
    return (
        sys.getrefcount(grad) <= 4
        and sys.getrefcount(data) <= 3  # the tensor's attribute, ``data``, getrefcount's
        and data.base is None
        and data.flags.c_contiguous
        and data.flags.writeable
        and data.strides == var._data.strides
    )


def accumulate_first(var: Tensor, grads: list, create_graph: bool) -> None:
    """``accumulate_grad(var, grads[0], ...)``, called from here so that no compiled caller
    holds ``grads[0]`` as a temporary while its count is read."""
    accumulate_grad(var, grads[0], create_graph)
