"""Plain rules: an op's backward rules run on NumPy arrays where nothing is recorded.

When a backward records nothing (no ``create_graph``, no special mode), ``OpNode.apply_plain``
runs the rules of ops declared ``plain_rules=True`` on the arrays themselves: operators act
on the arrays, and a leafgrad op handed an array inside such a rule runs its forward on it
(``_primitive``'s ``op``, while ``grad_mode._state.plain``). The same NumPy calls in the same
order as on tensors, so the same results, without an op's cost around each step.
"""

from __future__ import annotations

import numpy as np

from .._engine.grad_mode import _state as _grad_state
from .._tensor import _wrap
from . import _sums


def plain_backward(vjp, vjp_all, broadcast, num_outputs=1, materialize=True):
    """The op's rules run on NumPy arrays: what ``OpNode.apply_plain`` calls when nothing is
    recorded (no ``create_graph``, no special mode), so that each step of a rule is the NumPy
    call itself rather than an op. Operators act on the arrays directly; a leafgrad op that
    meets an array runs its forward on it (``op``, while ``grad_mode._state.plain``).
    Same NumPy calls in the same order as on tensors, so the same results.
    ``backward(grad, args, result, params, needs)``: ``grad`` an array, or for several outputs
    a list of arrays and Nones (then zeros, as on tensors, unless not ``materialize``; zeros
    need the outputs saved: without them the rule runs on tensors)."""
    if vjp_all is not None:

        def backward(grad, args, result, params, needs):
            if num_outputs > 1 and materialize:
                grad = _materialized(grad, result)
            outs = vjp_all(grad, *args, result=result, needs=needs, **params)
            fitted = []
            for g, like, need in zip(outs, args, needs):
                if g is None or not need:
                    g = None
                # Most gradients fit their input already: checked in that order, cheaply.
                elif not (
                    type(g) is np.ndarray and g.dtype is like.dtype and g.shape == like.shape
                ):
                    g = _fit_array(g, like, broadcast)
                fitted.append(g)
            return fitted

        return backward

    def backward(grad, args, result, params, needs):
        if num_outputs > 1:
            grad = _materialized(grad, result)
        outs = []
        for i, need in enumerate(needs):
            if need:
                g = vjp[i](grad, *args, result=result, **params)
                like = args[i]
                # Most gradients fit their input already: checked in that order, cheaply.
                if not (type(g) is np.ndarray and g.dtype is like.dtype and g.shape == like.shape):
                    g = _fit_array(g, like, broadcast)
                outs.append(g)
            else:
                outs.append(None)
        return outs

    return backward


def _materialized(grads: list, result: tuple | None) -> tuple:
    """Zeros for the outputs no gradient reached (``_primitive._materialize`` on arrays).
    Without the outputs (not saved) only when every gradient arrived; else TypeError, which
    sends the rule to tensors (``OpNode.apply_on_arrays``)."""
    if result is None:
        if any(g is None for g in grads):
            raise TypeError("no outputs saved to make zeros of")
        return grads
    return tuple(np.zeros(r.shape, r.dtype) if g is None else g for g, r in zip(grads, result))


def _fit_array(grad, like, broadcast):
    """``_fit`` on arrays: a NumPy scalar (0-d arithmetic gives them) made an array again."""
    if type(grad) is not np.ndarray:
        grad = np.asarray(grad)
    if broadcast and grad.shape != like.shape:
        grad = _sum_to_forward(grad, shape=like.shape)
    if grad.dtype != like.dtype:
        grad = grad.astype(like.dtype)
    return grad


def _sum_to_forward(x, *, shape):
    """``x`` summed over its broadcast dimensions to ``shape`` (sum_to's forward)."""
    lead = x.ndim - len(shape)
    if lead and shape and x.shape[lead:] == shape:  # leading axes: a bias's gradient, say
        total = _sums.over_leading(x, lead)
        return total if total is not None else np.add.reduce(x, axis=tuple(range(lead)))
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1
    )
    if not axes:
        return x.reshape(shape)
    total = _sums.over_axes(x, axes)  # leading axes: a bias's gradient, summed over rows
    if total is not None:
        return total.reshape(shape)
    return x.sum(axis=axes, keepdims=True).reshape(shape)


def _holds_array(args) -> bool:
    for a in args:
        if type(a) is np.ndarray or isinstance(a, np.generic):
            return True
    return False


# Helpers for rules that run both ways: on tensors, and on arrays in a plain rule.
def in_plain_rule() -> bool:
    """Whether a plain rule is running (its operands are arrays): public functions that
    check their arguments are Tensors let arrays through only then."""
    return _grad_state.plain


def values_of(x) -> np.ndarray:
    """The array of a tensor, or the array itself in a plain rule."""
    return x if type(x) is np.ndarray else x._data


def cast_like(x, like):
    """``x`` in ``like``'s dtype: ``Tensor.to`` on tensors, ``astype`` on arrays."""
    if type(x) is np.ndarray:
        return x.astype(like.dtype)
    return x.to(like.dtype)


def operand(array: np.ndarray, like):
    """A NumPy array computed inside a rule, as an operand beside ``like``: a tensor beside
    tensors, the array itself beside arrays."""
    return array if type(like) is np.ndarray else _wrap(array)
