"""Piecewise-linear elementwise ops: rounding, maximum/minimum, clamp and where.

Their Jacobians are diagonal and constant between kinks (``PiecewiseLinear``), so their VJP
rules also give their forward-mode and Taylor rules.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .._dtype import keeps_floating_dtype, result_type, scalar_type_name
from .._exposure import exports, public
from .._factory import _checked_scalar
from .._tensor import Tensor, _wrap, _zeros_like
from .._warn import warn_once
from . import _select
from ._inputs import refusing_bool
from ._optable import PiecewiseLinear
from ._out import accepts_out
from ._plain import in_plain_rule
from ._primitive import primitive
from .comparison import nonzero


def _zero_grad(grad, x, result, **params):
    """The gradient through a piecewise-constant op: zeros, outside any graph."""
    return _zeros_like(grad)


floor = primitive(
    "floor",
    refusing_bool("floor", np.floor),
    (_zero_grad,),
    kind=PiecewiseLinear(),
    node_name="FloorBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
    plain_rules=True,
)
ceil = primitive(
    "ceil",
    refusing_bool("ceil", np.ceil),
    (_zero_grad,),
    kind=PiecewiseLinear(),
    node_name="CeilBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
    plain_rules=True,
)
trunc = primitive(
    "trunc",
    refusing_bool("trunc", np.trunc),
    (_zero_grad,),
    kind=PiecewiseLinear(),
    node_name="TruncBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
    plain_rules=True,
)
fix = trunc


@functools.partial(refusing_bool, "round")
def _round_forward(x, *, decimals=0):
    return np.round(x, decimals)


_round = primitive(
    "round",
    _round_forward,
    (_zero_grad,),
    kind=PiecewiseLinear(),
    node_name="RoundBackward0",
    dtype_rule="promote",
    plain_rules=True,
)
_round_decimals = primitive(
    "round",
    _round_forward,
    (_zero_grad,),
    kind=PiecewiseLinear(),
    overload="decimals",
    node_name="RoundBackward1",
    dtype_rule="promote",
    plain_rules=True,
)


@public(inplace=True)
@accepts_out(same_dtype=True)
def round(input, *, decimals: int | None = None):
    """Round half to even, like PyTorch; zero gradient. Given ``decimals`` (0 too), PyTorch's
    ``round.decimals`` overload (RoundBackward1), as ``torch.special.round`` always is."""
    if decimals is None:
        return _round(input)
    decimals = operator.index(decimals)
    if isinstance(input, Tensor) and input._data.dtype.kind != "f":
        # PyTorch's round.decimals has no integer or bool kernel (round without decimals has)
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{scalar_type_name(input._data.dtype)}' (round "
            "with decimals takes floating tensors; leave decimals out or convert first)"
        )
    return _round_decimals(input, decimals=decimals)


def special_round(input, *, decimals: int = 0, out=None):
    """``torch.special.round``: ``round`` with ``decimals`` (0 by default) given."""
    return round(input, decimals=decimals, out=out)


def _max_min_grad(pick_first, maximum):
    # PyTorch's formula, from the inputs (it saves them, not the result): the whole gradient
    # unless the other input wins (so both get it where one is NaN), half of it at ties.
    def rule(grad, x, y, result):
        mine, other = (x, y) if pick_first else (y, x)
        loses = mine < other if maximum else mine > other
        # selected, not multiplied: a loser gets 0 even from an inf or NaN gradient
        return where(loses, 0.0, where(mine == other, grad * 0.5, grad))

    return rule


maximum = primitive(
    "maximum",
    np.maximum,
    (_max_min_grad(True, True), _max_min_grad(False, True)),
    kind=PiecewiseLinear(),
    saves=("self", "other"),
    node_name="MaximumBackward0",
    broadcast=True,
    expose=public(),
    plain_rules=True,
)
minimum = primitive(
    "minimum",
    np.minimum,
    (_max_min_grad(True, False), _max_min_grad(False, False)),
    kind=PiecewiseLinear(),
    saves=("self", "other"),
    node_name="MinimumBackward0",
    broadcast=True,
    expose=public(),
    plain_rules=True,
)


def _integer_bound(bound, dtype):
    """A Python int bound as PyTorch converts it to an integer tensor's type: wrapped where
    its magnitude fits (-3 is 253 for uint8), RuntimeError where it does not."""
    info = np.iinfo(dtype)
    if bound > info.max or (bound < info.min and not (info.min == 0 and -bound <= info.max)):
        raise RuntimeError(
            f"value cannot be converted to type {dtype.name}_t without overflow (clamp: "
            f"bound {bound} for a {dtype.name} tensor)"
        )
    return np.array(bound % (info.max + 1) if bound < info.min else bound).astype(dtype)


def _clamp_forward(x, *, min=None, max=None):
    if x.dtype.kind in "iu":
        if type(min) is int:
            min = _integer_bound(min, x.dtype)
        if type(max) is int:
            max = _integer_bound(max, x.dtype)
    out = x
    if min is not None:
        out = np.maximum(out, min)
    if max is not None:
        fresh = out is not x and type(out) is np.ndarray  # (not a 0-d input's NumPy scalar)
        if fresh and x.dtype.kind == "f" and out.dtype == x.dtype:
            out = np.minimum(out, max, out=out)  # into the fresh result: one array, not two
        else:
            out = np.minimum(out, max)
    return out.astype(x.dtype, copy=False) if out is not x else x.copy()


def _clamp_mask(x, min, max):
    mask = None
    if min is not None:
        mask = x >= min
    if max is not None:
        upper = x <= max
        mask = upper if mask is None else mask & upper
    return mask


def _pass(mask, grad):
    """``grad`` where ``mask`` holds, else 0: selected, not multiplied, so an inf or NaN
    gradient reaching a clamped element gives 0 there, as in PyTorch."""
    return where(mask, grad, 0.0)


def _clamp_scalar_primitive(name, node_name):
    return primitive(
        name,
        _clamp_forward,
        (lambda grad, x, result, *, min=None, max=None: _pass(_clamp_mask(x, min, max), grad),),
        kind=PiecewiseLinear(),
        saves=("self", "min", "max"),
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )


# PyTorch's names: clamp with number bounds is ClampBackward1, with Tensor bounds
# ClampBackward0; clamp_min / clamp_max are ClampMin/MaxBackward0 (number) and ...1 (Tensor).
_clamp = _clamp_scalar_primitive("clamp", "ClampBackward1")
_clamp_min_scalar = _clamp_scalar_primitive("clamp_min", "ClampMinBackward0")
_clamp_max_scalar = _clamp_scalar_primitive("clamp_max", "ClampMaxBackward0")

_clamp_tensor = primitive(
    "clamp",
    lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
    (
        lambda grad, x, lo, hi, result: _pass((x >= lo) & (x <= hi), grad),
        lambda grad, x, lo, hi, result: _pass((x < lo) & (lo <= hi), grad),
        lambda grad, x, lo, hi, result: _pass((x > hi) | (lo > hi), grad),
    ),
    kind=PiecewiseLinear(),
    overload="Tensor",
    saves=("self", "min", "max"),
    inputs=("self", "min", "max"),
    node_name="ClampBackward0",
    broadcast=True,
    scalars=True,
    plain_rules=True,
)


def _clamp_bound_primitive(name, overload, node_name, upper: bool, bound: str, absent_edges=()):
    """Clamp by one Tensor bound: ``minimum(x, bound)`` when ``upper``, else ``maximum``."""
    if upper:
        rules = (
            lambda grad, x, bound, result: _pass(x <= bound, grad),
            lambda grad, x, bound, result: _pass(x > bound, grad),
        )
    else:
        rules = (
            lambda grad, x, bound, result: _pass(x >= bound, grad),
            lambda grad, x, bound, result: _pass(x < bound, grad),
        )
    return primitive(
        name,
        np.minimum if upper else np.maximum,
        rules,
        kind=PiecewiseLinear(),
        overload=overload,
        saves=("self", bound),
        inputs=("self", bound),
        node_name=node_name,
        plain_rules=True,
        broadcast=True,
        scalars=True,
        # clamp.Tensor's node lists the bound not given as (None, 0): min's before max's.
        absent_edges=absent_edges,
    )


# clamp with one Tensor bound is PyTorch's clamp.Tensor too (ClampBackward0), the other None.
_clamp_lower = _clamp_bound_primitive(
    "clamp", "Tensor_lower", "ClampBackward0", False, "min", absent_edges=(2,)
)
_clamp_upper = _clamp_bound_primitive(
    "clamp", "Tensor_upper", "ClampBackward0", True, "max", absent_edges=(1,)
)
_clamp_min_tensor = _clamp_bound_primitive("clamp_min", "Tensor", "ClampMinBackward1", False, "min")
_clamp_max_tensor = _clamp_bound_primitive("clamp_max", "Tensor", "ClampMaxBackward1", True, "max")


def _clamp_by_numbers(op, input, min, max):
    if not isinstance(input, Tensor):
        raise TypeError(f"clamp(): input must be a Tensor, not {type(input).__name__}")
    if keeps_floating_dtype(input, min, max):
        return op(input, min=min, max=max)
    dt = result_type(input, *(b for b in (min, max) if b is not None))
    x = input if dt.np == input._data.dtype else input.to(dt)
    return op(x, min=min, max=max)


# A bound clamp's common call takes: a Python number, or None (not both None).
_NUMBER_BOUND = frozenset({float, int, type(None)})


@public(inplace=True)
@accepts_out(same_dtype=True)
def clamp(input, min=None, max=None):
    """Limit ``input`` to [min, max]; either bound may be None, a number or a Tensor."""
    if (
        type(min) in _NUMBER_BOUND
        and type(max) in _NUMBER_BOUND
        and (min is not None or max is not None)
        and isinstance(input, Tensor)
        and input._data.dtype.kind == "f"
    ):  # the common call, its checks at once: Python numbers keep a floating dtype
        return _clamp(input, min=min, max=max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if max is None:
            return _clamp_lower(input, min)
        if min is None:
            return _clamp_upper(input, max)
        return _clamp_tensor(input, min, max)
    return _clamp_by_numbers(_clamp, input, min, max)


clip = clamp


@public(inplace=True)
def clamp_min(input, min):
    """``max(input, min)`` elementwise; ``min`` a number or a Tensor."""
    if isinstance(min, Tensor):
        return _clamp_min_tensor(input, min)
    return _clamp_by_numbers(_clamp_min_scalar, input, min, None)


@public(inplace=True)
def clamp_max(input, max):
    """``min(input, max)`` elementwise; ``max`` a number or a Tensor."""
    if isinstance(max, Tensor):
        return _clamp_max_tensor(input, max)
    return _clamp_by_numbers(_clamp_max_scalar, input, None, max)


def _where_forward(cond, x, y):
    return _select.where(cond, x, y)


_where = primitive(
    "where",
    _where_forward,
    (
        None,
        lambda grad, cond, x, y, result: where(cond, grad, 0.0),
        lambda grad, cond, x, y, result: where(cond, 0.0, grad),
    ),
    kind=PiecewiseLinear(),
    overload="self",
    saves=("condition",),
    inputs=("condition", "self", "other"),
    edgeless=(0,),
    node_name="WhereBackward0",
    dtype_rule="keep",
    broadcast=True,
    scalars=True,
    plain_rules=True,
)


@public(method=False)
@accepts_out(same_dtype=True)
def where(condition, input=None, other=None):
    """``input`` where ``condition`` holds, else ``other``; broadcasting; scalars allowed.

    With only ``condition``, returns its nonzero indices like ``torch.where``.
    """
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        # A rule's mask, on arrays (a NumPy bool for a 0-d one).
        if type(condition) in (np.ndarray, np.bool_) and in_plain_rule():
            return _where(condition, input, other)
        raise TypeError(f"where(): condition must be a bool Tensor, not {type(condition).__name__}")
    if condition._data.dtype == np.uint8:
        # Still accepted by PyTorch (nonzero is True), with a deprecation warned once.
        warn_once(
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead."
        )
        condition = _wrap(condition._data != 0)
    if condition._data.dtype.kind != "b":
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{scalar_type_name(condition._data.dtype)}"
        )
    if (
        isinstance(input, Tensor)
        and isinstance(other, Tensor)
        and input._data.dtype == other._data.dtype
    ):
        return _where(condition, input, other)  # one dtype: nothing to promote
    dt = result_type(input, other)
    x = _cast_operand(input, dt)
    y = _cast_operand(other, dt)
    return _where(condition, x, y)


def _cast_operand(v, dt):
    if isinstance(v, Tensor):
        return v if v._data.dtype == dt.np else v.to(dt)
    if type(v) in (bool, int, float):  # PyTorch's checked Scalar: -3 wraps into uint8, 300
        v = _checked_scalar(v, dt, "where")  # into int8 is a RuntimeError
    return dt.np.type(v)


@public(function=False, method=("where",))
def _where_method(self, condition, other):
    return where(condition, self, other)


__all__ = exports(globals())
