"""The optimisers' fast path: update forms computed on the tensors' NumPy arrays in place.

An optimiser writes its update once, with the forms of ``_update._OnTensors`` (the general
path, leafgrad ops) or of ``_OnArrays`` here, which ``_update_forms`` picks per parameter.
``_OnArrays`` rounds exactly as the general path does (same NumPy operations, same order:
PyTorch's single-tensor order) and bumps each written tensor's version counter once per
in-place form, as the general path's in-place ops do; it only skips the Tensor wrappers, so
it applies only where those would record nothing and change nothing but the values.
"""

from __future__ import annotations

import numpy as np

from .. import Tensor
from .._engine import grad_mode
from .._engine.saved import write_watchers
from .._tensor import _wrap
from ..nn.parameter import Parameter
from ..ops.view_history import refresh_views
from ._update import _OnTensors

_grad_state = grad_mode._state
_SPECIAL = grad_mode.SPECIAL
_PLAIN_TYPES = (Tensor, Parameter)  # subclasses may override the in-place methods


def _written(t: Tensor, times: int = 1) -> None:
    """After ``times`` in-place writes into ``t``'s array: bump its version as often and
    refresh its views."""
    counter = t._version_counter
    if counter is None:
        counter = t._shared_version_counter()
    counter[0] += times
    if len(counter) > 1:  # live views share it: their history follows, as after any add_
        refresh_views(counter)


def _value(scalar):
    """A hyperparameter (a number or a one-element tensor, e.g. a tensor lr) as a Python float,
    which NumPy rounds to the array's dtype as PyTorch casts a scalar operand."""
    return scalar if type(scalar) is float else float(scalar)


def _operand(value):
    """A Tensor's array, or a number as ``_value`` gives it."""
    return value._data if isinstance(value, Tensor) else _value(value)


def _add_combined(t: Tensor, combine, tensor1: Tensor, tensor2: Tensor, value) -> Tensor:
    """``t += combine(tensor1 * value, tensor2)`` in place (addcmul_, addcdiv_: PyTorch's order)."""
    a = t._data
    np.add(a, combine(np.multiply(tensor1._data, _value(value)), tensor2._data), out=a)
    _written(t)
    return t


class _OnArrays:
    """``_OnTensors``' forms on the arrays, written in place; new values are Tensors outside
    any graph. (Temporaries are not reused with ``out=``: a 0-d result is a NumPy scalar.)"""

    @staticmethod
    def neg(x: Tensor) -> Tensor:
        return _wrap(np.negative(x._data))

    @staticmethod
    def add(x: Tensor, y: Tensor, alpha) -> Tensor:
        return _wrap(np.add(x._data, np.multiply(y._data, _value(alpha))))

    @staticmethod
    def add_(t: Tensor, y: Tensor, alpha=1) -> Tensor:
        a = t._data
        np.add(a, y._data if alpha == 1 else np.multiply(y._data, _value(alpha)), out=a)
        _written(t)
        return t

    @staticmethod
    def mul_(t: Tensor, value) -> Tensor:
        a = t._data
        np.multiply(a, _value(value), out=a)
        _written(t)
        return t

    @staticmethod
    def lerp_(start: Tensor, end: Tensor, weight) -> Tensor:
        a, e = start._data, end._data
        weight = _value(weight)
        if abs(weight) < 0.5:
            np.add(a, np.multiply(np.subtract(e, a), weight), out=a)
        else:
            np.subtract(e, np.multiply(np.subtract(e, a), 1 - weight), out=a)
        _written(start)
        return start

    @staticmethod
    def addcmul_(t: Tensor, tensor1: Tensor, tensor2: Tensor, value) -> Tensor:
        return _add_combined(t, np.multiply, tensor1, tensor2, value)

    @staticmethod
    def addcdiv_(t: Tensor, tensor1: Tensor, tensor2: Tensor, value) -> Tensor:
        return _add_combined(t, np.divide, tensor1, tensor2, value)

    @staticmethod
    def maximum_(t: Tensor, other: Tensor) -> Tensor:
        a = t._data
        np.maximum(a, other._data, out=a)
        _written(t)
        return t

    @staticmethod
    def sqrt_div_add(x: Tensor, divisor, eps) -> Tensor:
        return _wrap(np.add(np.divide(np.sqrt(x._data), _value(divisor)), _value(eps)))

    @staticmethod
    def sqrt_add(x: Tensor, eps) -> Tensor:
        return _wrap(np.add(np.sqrt(x._data), _value(eps)))

    @staticmethod
    def div_sqrt_add(x: Tensor, divisor, eps) -> Tensor:
        return _wrap(np.add(np.sqrt(np.divide(x._data, _value(divisor))), _value(eps)))

    @staticmethod
    def sqrt_var_add(square_avg: Tensor, avg: Tensor, eps) -> Tensor:
        a = avg._data
        return _wrap(np.add(np.sqrt(np.subtract(square_avg._data, a * a)), _value(eps)))

    @staticmethod
    def abs_add(x: Tensor, eps) -> Tensor:
        return _wrap(np.add(np.abs(x._data), _value(eps)))

    @staticmethod
    def add_sqrt(x: Tensor, eps) -> Tensor:
        return _wrap(np.sqrt(np.add(x._data, _value(eps))))

    @staticmethod
    def sub(x: Tensor, y: Tensor) -> Tensor:
        return _wrap(np.subtract(x._data, y._data))

    @staticmethod
    def mul(x: Tensor, y) -> Tensor:
        return _wrap(np.multiply(x._data, _operand(y)))

    @staticmethod
    def div(x: Tensor, y) -> Tensor:
        return _wrap(np.divide(x._data, _operand(y)))

    @staticmethod
    def rdiv(number, x: Tensor) -> Tensor:
        return _wrap(np.divide(_value(number), x._data))

    @staticmethod
    def copy_(t: Tensor, src: Tensor) -> Tensor:
        np.copyto(t._data, src._data)
        _written(t)
        return t

    @staticmethod
    def fill_(t: Tensor, value) -> Tensor:
        np.copyto(t._data, _value(value))
        _written(t)
        return t

    clone = staticmethod(_OnTensors.clone)  # once per buffer: the general form is fine

    @staticmethod
    def increment(step: Tensor) -> float:
        a = step._data
        np.add(a, 1, out=a)
        _written(step)
        return float(a)


def _writable(t: Tensor) -> bool:
    """Whether ``t`` is a plain tensor (no subclass, not an inference tensor, not requiring
    grad) whose array can be written in place, element by element."""
    a = t._data
    return (
        type(t) in _PLAIN_TYPES
        and not t._is_inference
        and not t._requires_grad
        and type(a) is np.ndarray  # (a 0-d result may be a NumPy scalar)
        and a.flags.writeable
        and 0 not in a.strides  # an expanded array: elements share memory
    )


def _update_forms(group: dict, p: Tensor, grad: Tensor, *state: Tensor | None, scalars=()):
    """``_OnArrays`` (the fast path) where it gives what ``_OnTensors`` would, else that.

    The fast path needs a step that records nothing (not ``differentiable``, grad mode off,
    no vmap / forward / Taylor mode, no ``allow_mutation_on_saved_tensors``) and plain
    tensors: ``p`` (float), its ``grad`` and the ``state`` buffers of its dtype and shape,
    buffers and the 0-d float ``scalars`` (``step``...) not requiring grad; ``None`` buffers
    are skipped.
    """
    if group.get("differentiable") or _grad_state.enabled or _SPECIAL[0] or write_watchers:
        return _OnTensors
    a, g = p._data, grad._data
    dtype, shape = a.dtype, a.shape
    # (native float dtypes are singletons, so `is` compares them; anything else falls back)
    if dtype.kind != "f" or g.dtype is not dtype or g.shape != shape:
        return _OnTensors
    if type(grad) not in _PLAIN_TYPES or grad._is_inference:
        return _OnTensors
    if type(p) not in _PLAIN_TYPES or p._is_inference or type(a) is not np.ndarray:
        return _OnTensors
    if not a.flags.writeable or 0 in a.strides:
        return _OnTensors
    for buffer in state:
        if buffer is not None:
            b = buffer._data
            if b.dtype is not dtype or b.shape != shape or not _writable(buffer):
                return _OnTensors
    for scalar in scalars:
        if not _writable(scalar) or scalar._data.ndim or scalar._data.dtype.kind != "f":
            return _OnTensors
    return _OnArrays
