"""``out=``: an op's result written into a tensor the caller gives, as PyTorch does.

Functions with ``out=`` are not differentiable: while grad mode is on, an input (or ``out``)
that requires grad is refused. ``out`` is resized when its shape differs (with PyTorch's
warning when it had elements), and the result is cast to its dtype where that is safe.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._engine import grad_mode
from .._tensor import Tensor

_state = grad_mode._state


def check_out(name: str, inputs, out) -> None:
    """TypeError unless ``out`` is a Tensor; RuntimeError if something requires grad while
    grad mode is on."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): out= must be a Tensor, got {type(out).__name__}")
    if _state.enabled and (
        out._requires_grad or any(isinstance(a, Tensor) and a._requires_grad for a in inputs)
    ):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad; drop out= and use the "
            "result, or compute it under torch.no_grad()"
        )


def write_out(name: str, result: Tensor, out: Tensor) -> Tensor:
    """Write ``result`` into ``out`` (resized if needed); returns ``out``."""
    data = result._data
    if not np.can_cast(data.dtype, out._data.dtype, casting="same_kind"):
        raise RuntimeError(
            f"{name}(): the result type {result.dtype} can't be cast to the out= tensor's "
            f"dtype {out.dtype}; give an out= tensor of a compatible dtype"
        )
    if out._data.shape == data.shape and out._data.flags.writeable:
        np.copyto(out._data, data, casting="same_kind")
    else:
        if out._data.size and out._data.shape != data.shape:
            warnings.warn(
                f"{name}(): an out= tensor with elements was resized from shape "
                f"{list(out._data.shape)} to {list(data.shape)}; this is deprecated in "
                "PyTorch (resize it to zero elements first with out.resize_(0))",
                UserWarning,
                stacklevel=3,
            )
        out._data = data.astype(out._data.dtype, copy=True)
    out._bump_version()
    return out


def with_out(name: str, compute, inputs, out) -> Tensor:
    """``compute()`` written into ``out`` (see ``write_out``), after ``check_out``."""
    check_out(name, inputs, out)
    return write_out(name, compute(), out)


def with_outs(name: str, compute, inputs, out, result_type):
    """For ops with several results (``cummax``'s values and indices): ``out`` a tuple of
    tensors, one per result; returns ``result_type`` of them."""
    if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
        raise TypeError(f"{name}(): out= must be a tuple of Tensors, got {type(out).__name__}")
    results = compute()
    if len(out) != len(results):
        raise TypeError(f"{name}(): out= must hold {len(results)} tensors, got {len(out)}")
    for o in out:
        check_out(name, inputs, o)
    return result_type(*(write_out(name, r, o) for r, o in zip(results, out)))
