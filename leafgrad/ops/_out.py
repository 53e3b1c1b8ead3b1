"""``out=``: an op's result written into a tensor the caller gives, as PyTorch does.

Functions with ``out=`` are not differentiable: while grad mode is on, an input (or ``out``)
that requires grad is refused. ``out`` is resized when its shape differs (with PyTorch's
warning when it had elements), and the result is cast to its dtype where that is safe.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import _dtype
from .._engine import grad_mode
from .._exposure import numpy_names
from .._tensor import Tensor
from .._warn import warn_at_user
from ._returned import out_kind

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


def write_out(name: str, result: Tensor, out: Tensor, same_dtype: bool = False) -> Tensor:
    """Write ``result`` into ``out`` (resized if needed); returns ``out``."""
    data = result._data
    if same_dtype and data.dtype != out._data.dtype:
        raise RuntimeError(
            f"{name}(): expected the out= tensor to have the result's dtype {result.dtype}, got "
            f"{out.dtype}; give an out= tensor of that dtype"
        )
    if not _dtype.casts_to(data.dtype, out._data.dtype):
        raise RuntimeError(
            f"{name}(): the result type {result.dtype} can't be cast to the out= tensor's "
            f"dtype {out.dtype}; give an out= tensor of a compatible dtype"
        )
    if out._data.shape == data.shape and out._data.flags.writeable:
        np.copyto(out._data, data, casting="unsafe")  # checked above; ints wrap
    else:
        if out._data.size and out._data.shape != data.shape:
            warn_at_user(
                f"{name}(): an out= tensor with elements was resized from shape "
                f"{list(out._data.shape)} to {list(data.shape)}; this is deprecated in "
                "PyTorch (resize it to zero elements first with out.resize_(0))",
            )
        out._data = data.astype(out._data.dtype, copy=True)
    out._bump_version()
    return out


def with_out(name: str, compute, inputs, out) -> Tensor:
    """``compute()`` written into ``out`` (see ``write_out``), after ``check_out``."""
    check_out(name, inputs, out)
    return write_out(name, compute(), out)


def accepts_out(fn=None, *, same_dtype: bool = False):
    """``fn`` with PyTorch's keyword-only ``out=``: its result written into ``out`` (a tuple of
    tensors for an op with several results), refused while anything requires grad.

    ``same_dtype``: ``out`` must have the result's dtype (PyTorch's matmul, softmax, linalg
    ...), where elementwise ops and sums cast into it; tuples of outs always must.
    """
    if fn is None:
        return functools.partial(accepts_out, same_dtype=same_dtype)
    name = fn.__name__.removeprefix("linalg_")

    @functools.wraps(fn)
    def with_out_param(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        inputs = _tensors(args, kwargs)
        if isinstance(out, (tuple, list)):
            for o in out:
                check_out(name, inputs, o)
            results = fn(*args, **kwargs)
            if not isinstance(results, tuple) or len(results) != len(out):
                raise TypeError(f"{name}(): out= must be one Tensor for this op, not a tuple")
            written = [write_out(name, r, o, same_dtype=True) for r, o in zip(results, out)]
            return (
                out_kind(type(results))(*written) if hasattr(results, "_fields") else tuple(written)
            )
        check_out(name, inputs, out)
        result = fn(*args, **kwargs)
        if isinstance(result, tuple):
            raise TypeError(
                f"{name}(): this op returns {len(result)} tensors, so out= must be a tuple of "
                f"{len(result)} tensors"
            )
        return write_out(name, result, out, same_dtype=same_dtype)

    with_out_param._without_out = fn  # what operators call (they pass no out=)
    return with_out_param


def without_out(fn):
    """``fn`` without its ``out=`` wrapper (NumPy keyword names kept): what a Tensor method
    binds, since PyTorch's Tensor methods take no ``out=``."""
    named = _code(fn) is _NUMPY_NAMES_CODE
    inner = fn.__wrapped__ if named else fn
    if _code(inner) is not _WITH_OUT_CODE:
        return fn
    return numpy_names(inner.__wrapped__) if named else inner.__wrapped__


def _code(fn):
    return getattr(fn, "__code__", None)


# The code of every out= wrapper and NumPy-names wrapper (wrappers are told apart by code, not
# by attributes, which functools.wraps copies onto any function wrapping them).
_WITH_OUT_CODE = accepts_out(lambda: None).__code__
_NUMPY_NAMES_CODE = numpy_names(lambda input: None).__code__


def _tensors(args, kwargs) -> list:
    """The tensors among the arguments, those inside lists and tuples included (cat)."""
    found = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(x for x in a if isinstance(x, Tensor))
    return found


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
