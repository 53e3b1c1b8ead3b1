"""In-place methods that are more than an out-of-place op written back: layout changes
(``squeeze_``, ``unsqueeze_``, ``swapaxes_``, ``as_strided_``), ``fill_diagonal_``,
``float_power_`` (whose result must already be float64), and ``ldexp``.
"""

from __future__ import annotations

import dataclasses
import operator

import numpy as np

from .._dtype import get_default_dtype, result_type
from .._engine import grad_mode
from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim, _wrap
from ._out import accepts_out
from ._primitive import _build
from .composites import hypot
from .indexing import masked_fill
from .inplace import _check_target, apply_inplace, original_self, value_to_write
from .pointwise_extra import ldexp_of_floats
from .power import float_power
from .reorder import _transpose
from .shape import _squeeze_all, _squeeze_dim, _squeeze_dims, _unsqueeze, squeeze_plan
from .strided import _as_strided, _input_positions, _take_view_history

# ----- layout changes: the tensor becomes its own view -----


def _recorded_as(op, node_name: str):
    """``op`` (a declared view primitive) recording its node under ``node_name``: PyTorch
    names the in-place layout changes' nodes apart (``SqueezeBackward3`` for ``squeeze_()``),
    though their key, rules and batching are the out-of-place op's."""
    return _build(dataclasses.replace(op.primitive, node_name=node_name))


_SQUEEZE_ = {
    "all": _recorded_as(_squeeze_all, "SqueezeBackward3"),
    "dim": _recorded_as(_squeeze_dim, "SqueezeBackward4"),
    "dims": _recorded_as(_squeeze_dims, "SqueezeBackward5"),
}
_unsqueeze_ = _recorded_as(_unsqueeze, "UnsqueezeBackward1")
_transpose_ = _recorded_as(_transpose, "TransposeBackward1")
_as_strided_ = _recorded_as(_as_strided, "AsStridedBackward1")


def _checked_view(make):
    """The view the out-of-place op would give (its checks and errors), without recording."""
    with grad_mode.no_grad():
        return make()


@public(function=False)
def squeeze_(self: Tensor, dim=None) -> Tensor:
    """``squeeze`` in place: size-1 dims dropped (all, or those among ``dim``)."""
    _checked_view(lambda: self.squeeze(dim))  # (its checks and errors)
    kind, params = squeeze_plan(self._data.shape, dim, "squeeze_")
    old = tuple(self._data.shape)
    return _take_view_history(
        self, _SQUEEZE_[kind](self, **params), "squeeze_", undo=lambda t: t.view(old)
    )


@public(function=False)
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """``unsqueeze`` in place: a size-1 dim inserted at ``dim``."""
    d = _normalize_dim(operator.index(dim), self._data.ndim + 1, "unsqueeze_")
    return _take_view_history(
        self, _unsqueeze_(self, dim=d), "unsqueeze_", undo=lambda t: t.squeeze(d)
    )


def _swapped(self: Tensor, dim0: int, dim1: int, op: str) -> Tensor:
    ndim = self._data.ndim
    d0 = _normalize_dim(operator.index(dim0), ndim, op)
    d1 = _normalize_dim(operator.index(dim1), ndim, op)
    undo = lambda t: t.transpose(d0, d1)
    return _take_view_history(self, _transpose_(self, dim0=d0, dim1=d1), op, undo=undo)


@public(function=False)
def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    """``transpose_(axis0, axis1)``."""
    return _swapped(self, axis0, axis1, "swapaxes_")


@public(function=False)
def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """``transpose_(dim0, dim1)``."""
    return _swapped(self, dim0, dim1, "swapdims_")


@public(function=False)
def as_strided_(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``as_strided`` in place: this tensor now looks at its storage with ``size``,
    ``stride`` and ``storage_offset``."""
    checked = _checked_view(lambda: self.as_strided(size, stride, storage_offset))
    size, stride = tuple(checked._data.shape), checked.stride()
    offset = checked.storage_offset()
    positions = _input_positions(self, size, stride, offset)
    view = _as_strided_(self, size=size, stride=stride, storage_offset=offset, positions=positions)
    return _take_view_history(self, view, "as_strided_")


# ----- writes -----


def _diagonal_positions(shape: tuple, wrap: bool) -> np.ndarray:
    """A bool mask of the main diagonal of ``shape`` (all sizes equal beyond 2-D); with
    ``wrap`` a tall matrix's diagonal starts again every ``cols + 1`` rows."""
    mask = np.zeros(int(np.prod(shape)), bool)
    if len(shape) == 2:
        rows, cols = shape
        step = cols + 1
        end = mask.size if wrap and rows > cols else min(rows, cols) * cols
        mask[:end:step] = True
    else:
        step = sum(int(np.prod(shape[k + 1 :])) for k in range(len(shape)))
        mask[::step] = True
    return mask.reshape(shape)


@public(function=False)
def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Fill the main diagonal with ``fill_value`` in place (every dim of equal size beyond
    2-D; ``wrap``: a tall matrix's diagonal restarts below the square part)."""
    # A Number, as PyTorch's argument parser takes it: a 0-d tensor that requires no grad
    # passes as its value; any other tensor is refused.
    if isinstance(fill_value, Tensor) and not fill_value.ndim and not fill_value.requires_grad:
        fill_value = fill_value.item()
    if not isinstance(fill_value, (int, float, complex, np.number)):
        raise TypeError(
            "fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    _check_target(self, "fill_diagonal_")
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError(
            f"fill_diagonal_: dimensions must larger than 1, got a {len(shape)}-D tensor; "
            "use fill_ or index a 2-D view"
        )
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError(
            f"fill_diagonal_: all dimensions of input must be of equal length, got shape "
            f"{list(shape)}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if self.grad_fn is None or not self._data.flags.c_contiguous:
        mask = _wrap(_diagonal_positions(shape, bool(wrap)))
        return apply_inplace(self, masked_fill(self, mask, fill_value), "fill_diagonal_")
    # In a graph, PyTorch's way: fill_ through strided views of the diagonal (and, with wrap,
    # of its continuation below the square part), so the history is CopySlices.
    size, stride, offset = min(shape[:2]), sum(self.stride()), self.storage_offset()
    self.as_strided((size,), (stride,), offset).fill_(fill_value)
    if wrap and len(shape) == 2 and shape[0] > shape[1] + 1:
        step = shape[1] + 1
        rest = (self._data.size + step - 1) // step - size
        self.as_strided((rest,), (stride,), offset + self.stride(0) * step).fill_(fill_value)
    return self


@public(function=False)
def float_power_(self: Tensor, exponent) -> Tensor:
    """``float_power`` in place; the tensor must be float64, the dtype of the result."""
    if isinstance(self, Tensor) and self._data.dtype != np.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self.dtype} but the operation's result "
            "requires dtype Double (torch.float64); convert it with .double() first"
        )
    _check_target(self, "float_power_")
    return apply_inplace(self, value_to_write(self, float_power, exponent), "float_power_")


def _before_write(target: Tensor) -> Tensor:
    """``target``'s current value with its history, for a composite that saves it in more
    than its last op (PyTorch's in-place ops save the original ``self`` where they need it)."""
    if not target._requires_grad or target.grad_fn is None:
        return target
    return original_self(target)  # its tangents too: the composite's JVP rules read them


@public(function=False)
def hypot_(self: Tensor, other: Tensor) -> Tensor:
    """``hypot`` in place."""
    _check_target(self, "hypot_")
    return apply_inplace(self, value_to_write(self, _hypot_of_original, other), "hypot_")


def _hypot_of_original(target: Tensor, other: Tensor) -> Tensor:
    return hypot(_before_write(target), other)


@public(inplace=True)
@accepts_out
def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other`` (integers give the default float dtype)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"ldexp(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not isinstance(other, Tensor):
        raise TypeError(f"ldexp(): argument 'other' must be Tensor, not {type(other).__name__}")
    # PyTorch's dtype: the operands' promoted type, integers and bools made the default float.
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        dtype = get_default_dtype()
    return ldexp_of_floats(input.to(dtype), other.to(dtype))


__all__ = exports(globals())
