"""Forward mode inside the op machinery: pushing tangents through a primitive's JVP rule.

A JVP rule is ``jvp(*tangents, *inputs, result=result, **params)`` (None for inputs without
a tangent), the convention of every rule (``_primitive``). Kinds derive theirs: Linear ops
apply themselves to the tangents (``_linear_jvp``), Bilinear ones their product rule
(``product_rule``), PiecewiseLinear ones (diagonal Jacobians) their VJP rules
(``diagonal_jvp``). The helpers ``tangent_sum`` and ``scaled`` keep rules short where
tangents may be missing (``_tensor._zeros_like`` gives zeros outside the graph).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._engine.forward import before_writes as _before_writes
from .._engine.forward import set_tangent as _set_tangent
from .._engine.forward import state as _forward
from .._engine.forward import suspended as _suspended
from .._engine.forward import tangent_of as _tangent_of
from .._tensor import Tensor, _wrap


def _zeros_like_data(data) -> Tensor:
    # By shape and dtype only: ``data`` may be a freed placeholder after backward.
    return _wrap(np.zeros(data.shape, data.dtype))


def tangent_sum(*terms):
    """The sum of the terms that are not None (None when all are): JVP rules' ``+``."""
    return sum_present(terms)


def sum_present(terms):
    """The sum of the terms that are not None, None when all are; added left to right as they
    come, so a generator's terms are computed and added in turn."""
    out = None
    for t in terms:
        if t is not None:
            out = t if out is None else out + t
    return out


def scaled(t, factor):
    """``t * factor``, or None when the tangent ``t`` is None."""
    return None if t is None else t * factor


def diagonal_jvp(*vjp):
    """For a diagonal Jacobian the VJP rules applied to the tangents are the JVP."""
    n = len(vjp)

    def jvp(*tangents_and_args, result, **params):
        tangents, args = tangents_and_args[:n], tangents_and_args[n:]
        return through_diagonal(vjp, tangents, args, result, params)

    return jvp


def through_diagonal(vjp, tangents, args, result, params):
    """A diagonal Jacobian applied to ``tangents`` (each broadcast to ``result``'s shape) by
    its VJP rules: the sum of the terms, None when no input has a tangent and a rule."""
    shape = result._data.shape
    terms = []
    for rule, t in zip(vjp, tangents):
        if t is None or rule is None:
            continue
        if t._data.shape != shape:
            t = t.expand(shape)
        terms.append(rule(t, *args, result=result, **params))
    return tangent_sum(*terms)


def product_rule(op):
    """The JVP of a bilinear ``op``: ``op(tx, y) + op(x, ty)`` (None tangents are zero)."""

    def jvp(tx, ty, x, y, *, result, **params):
        return tangent_sum(
            None if tx is None else op(tx, y, **params),
            None if ty is None else op(x, ty, **params),
        )

    return jvp


def _is_number(a) -> bool:
    return isinstance(a, (int, float, np.number)) and not isinstance(a, bool)


def _linear_jvp(op, tangents, args, params):
    """A linear op's tangent is the op applied to the tangents (zeros where missing)."""
    tensor_positions = [
        i for i, a in enumerate(args) if (type(a) is Tensor or isinstance(a, Tensor))
    ]
    new_args = list(args)
    if op.primitive.affine:  # a number added to an operand is a constant: zero tangent
        new_args = [0 if _is_number(a) else a for a in args]
    for i in tensor_positions:
        t = tangents[i]
        if t is not None:
            new_args[i] = t
        elif args[i]._data.dtype.kind == "f":  # masks and indices stay as they are
            new_args[i] = _zeros_like_data(args[i]._data)
    if len(tensor_positions) > 1 and all(tangents[i] is None for i in tensor_positions):
        return None
    return op(*new_args, **params)


def _push_tangents(op, jvp, args, params, result, num_outputs) -> None:
    """Give ``result`` its tangent at every active dual level where an input has one."""
    if _forward.writing:  # inside an in-place op: its target as it was (original_self)
        args = _before_writes(args)
    levels = list(_forward.levels)
    # Innermost first: an outer level's rule then reads a ``result`` that already carries
    # its inner tangents. With nested levels, the inner ones are computed once more after
    # that, now seeing the outer tangents too, so rules that read ``result`` (exp, softmax)
    # give complete mixed derivatives along every path (forward over forward).
    order = levels[::-1] + (levels[-1:0:-1] if len(levels) > 1 else [])
    for level in order:
        tangents = [
            _tangent_of(a, level) if (type(a) is Tensor or isinstance(a, Tensor)) else None
            for a in args
        ]
        if all(t is None for t in tangents):
            continue
        if jvp is None:
            raise RuntimeError(
                f"{op.__name__}: this op has no forward-mode (JVP) rule, so it cannot be used "
                "with forward AD (dual tensors, jvp, jacfwd, Taylor mode)"
            )
        with _suspended(level):
            if jvp is _linear_jvp:
                out = _linear_jvp(op, tangents, args, params)
            else:
                out = jvp(*tangents, *args, result=result, **params)
        if out is None:
            continue
        if num_outputs == 1:
            if result._data.dtype.kind == "f":  # integer results carry no tangent
                _set_tangent(result, level, _fit_tangent(out, result))
        else:
            for r, t in zip(result, out):
                if t is not None and r._data.dtype.kind == "f":
                    _set_tangent(r, level, _fit_tangent(t, r))
        node = (result if num_outputs == 1 else result[0]).grad_fn
        if node is not None:
            # The saved output is rebuilt from arrays in backward; keep its tangent too.
            node.save_result_tangents(_tangent_maps(result))


def _tangent_maps(result):
    if type(result) is tuple:
        return tuple(r._tangents for r in result)
    return result._tangents


def _fit_tangent(tangent, result):
    if not isinstance(tangent, Tensor):
        tangent = _wrap(np.full_like(result._data, tangent))
    if tangent._data.shape != result._data.shape:
        tangent = tangent.expand(result._data.shape)
    if tangent._data.dtype != result._data.dtype:
        tangent = tangent.to(_dtype.from_numpy_dtype(result._data.dtype))
    return tangent
