"""Elementwise functions: exp/log, trigonometric and hyperbolic, activations, where and clamp.

Each unary op states its first derivative ``d1`` (and second, ``d2``, for Taylor mode) in
leafgrad ops; ``unary`` builds the VJP from it.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._optable import Generic, PiecewiseLinear
from ._primitive import primitive, unary
from ._tangents import diagonal_jvp

_SQRT_2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

exp = unary(
    "exp",
    np.exp,
    d1=lambda x, result: result,
    d2=lambda x, result: result,
    expose=public(inplace=True),
)
expm1 = unary(
    "expm1",
    np.expm1,
    d1=lambda x, result: result + 1,
    d2=lambda x, result: result + 1,
    expose=public(inplace=True),
)
log = unary(
    "log",
    np.log,
    d1=lambda x: x.reciprocal(),
    d2=lambda x: -(x * x).reciprocal(),
    expose=public(inplace=True),
)
log1p = unary(
    "log1p",
    np.log1p,
    node_name="Log1PBackward0",
    d1=lambda x: (x + 1).reciprocal(),
    d2=lambda x: -((x + 1) * (x + 1)).reciprocal(),
    expose=public(inplace=True),
)
log2 = unary(
    "log2",
    np.log2,
    d1=lambda x: (x * math.log(2.0)).reciprocal(),
    d2=lambda x: -(x * x * math.log(2.0)).reciprocal(),
    expose=public(inplace=True),
)
log10 = unary(
    "log10",
    np.log10,
    d1=lambda x: (x * math.log(10.0)).reciprocal(),
    d2=lambda x: -(x * x * math.log(10.0)).reciprocal(),
    expose=public(inplace=True),
)

sin = unary(
    "sin", np.sin, d1=lambda x: cos(x), d2=lambda x, result: -result, expose=public(inplace=True)
)
cos = unary(
    "cos", np.cos, d1=lambda x: -sin(x), d2=lambda x, result: -result, expose=public(inplace=True)
)
tan = unary(
    "tan",
    np.tan,
    d1=lambda x, result: 1 + result * result,
    d2=lambda x, result: 2 * result * (1 + result * result),
    expose=public(inplace=True),
)
asin = unary(
    "asin",
    np.arcsin,
    d1=lambda x: (1 - x * x).rsqrt(),
    d2=lambda x: x * (1 - x * x) ** -1.5,
    expose=public(inplace=True),
)
acos = unary(
    "acos",
    np.arccos,
    d1=lambda x: -(1 - x * x).rsqrt(),
    d2=lambda x: -x * (1 - x * x) ** -1.5,
    expose=public(inplace=True),
)
atan = unary(
    "atan",
    np.arctan,
    d1=lambda x: (1 + x * x).reciprocal(),
    d2=lambda x: -2 * x * (1 + x * x) ** -2,
    expose=public(inplace=True),
)
sinh = unary(
    "sinh", np.sinh, d1=lambda x: cosh(x), d2=lambda x, result: result, expose=public(inplace=True)
)
cosh = unary(
    "cosh", np.cosh, d1=lambda x: sinh(x), d2=lambda x, result: result, expose=public(inplace=True)
)
tanh = unary(
    "tanh",
    np.tanh,
    d1=lambda x, result: 1 - result * result,
    d2=lambda x, result: -2 * result * (1 - result * result),
    expose=public(inplace=True),
)
asinh = unary(
    "asinh",
    np.arcsinh,
    d1=lambda x: (x * x + 1).rsqrt(),
    d2=lambda x: -x * (x * x + 1) ** -1.5,
    expose=public(inplace=True),
)
acosh = unary(
    "acosh",
    np.arccosh,
    d1=lambda x: (x * x - 1).rsqrt(),
    d2=lambda x: -x * (x * x - 1) ** -1.5,
    expose=public(inplace=True),
)
atanh = unary(
    "atanh",
    np.arctanh,
    d1=lambda x: (1 - x * x).reciprocal(),
    d2=lambda x: 2 * x * (1 - x * x) ** -2,
    expose=public(inplace=True),
)

arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh


# scipy's expit keeps its relative accuracy for x < 0, where 0.5 * tanh(x / 2) + 0.5 (faster
# in float32) cancels: 44% off at x = -17, and 0 instead of 2e-9 at x = -20.
sigmoid = unary(
    "sigmoid",
    sp.expit,
    d1=lambda x, result: result * (1 - result),
    d2=lambda x, result: result * (1 - result) * (1 - 2 * result),
    expose=public(inplace=True),
)

erf = unary(
    "erf",
    sp.erf,
    d1=lambda x: _TWO_OVER_SQRT_PI * exp(-(x * x)),
    d2=lambda x: -2 * _TWO_OVER_SQRT_PI * x * exp(-(x * x)),
    expose=public(inplace=True),
)
erfc = unary(
    "erfc",
    sp.erfc,
    d1=lambda x: -_TWO_OVER_SQRT_PI * exp(-(x * x)),
    d2=lambda x: 2 * _TWO_OVER_SQRT_PI * x * exp(-(x * x)),
    expose=public(inplace=True),
)


def _relu_forward(x):
    return np.maximum(x, 0).astype(x.dtype, copy=False)


def _threshold_backward_forward(grad, x, *, negative_slope=0.0):
    scaled = grad * negative_slope if negative_slope else 0
    return np.where(x > 0, grad, scaled).astype(grad.dtype, copy=False)


# ``grad`` where ``x > 0``, else ``negative_slope * grad``, as a function of both inputs like
# PyTorch's threshold_backward / leaky_relu_backward: the first derivative of relu stays in
# the graph (with zero second derivative), so grad(grad(relu(x)), x) gives zeros, not an error.
threshold_backward = primitive(
    "threshold_backward",
    _threshold_backward_forward,
    (
        lambda grad, g, x, result, **kw: threshold_backward(grad, x, **kw),
        lambda grad, g, x, result, **kw: zeros_like_grad(x),
    ),
    kind=PiecewiseLinear(),
    node_name="ThresholdBackwardBackward0",
    dtype_rule="keep",
)

relu = primitive(
    "relu",
    _relu_forward,
    (lambda grad, x, result: threshold_backward(grad, result),),
    kind=PiecewiseLinear(),
    saves=("result",),
    node_name="ReluBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
)


def _leaky_relu_forward(x, *, negative_slope=0.01):
    return np.where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False)


_leaky_relu = primitive(
    "leaky_relu",
    _leaky_relu_forward,
    (
        lambda grad, x, result, *, negative_slope: threshold_backward(
            grad, x, negative_slope=negative_slope
        ),
    ),
    kind=PiecewiseLinear(),
    node_name="LeakyReluBackward0",
    dtype_rule="float",
)


@public(method=False)
def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """``x`` where positive, else ``negative_slope * x``."""
    return _leaky_relu(input, negative_slope=negative_slope)


def _elu_forward(x, *, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))).astype(x.dtype, copy=False)


_elu = unary(
    "elu",
    _elu_forward,
    d1=lambda x, result, *, alpha=1.0: where(x > 0, 1.0, result + alpha),
    d2=lambda x, result, *, alpha=1.0: where(x > 0, 0.0, result + alpha),
)


@public(method=False)
def elu(input, alpha: float = 1.0, inplace: bool = False):
    """``x`` where positive, else ``alpha * (exp(x) - 1)``."""
    return _elu(input, alpha=alpha)


def _gelu_forward(x, *, approximate="none"):
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
        return (0.5 * x * (1 + np.tanh(inner))).astype(x.dtype, copy=False)
    return (0.5 * x * (1 + sp.erf(x / _SQRT_2))).astype(x.dtype, copy=False)


def _gelu_d1(x, *, approximate="none"):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = tanh(k * (x + 0.044715 * x * x * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
    cdf = 0.5 * (1 + erf(x / _SQRT_2))
    return cdf + x * _INV_SQRT_2PI * exp(-0.5 * x * x)


def _gelu_d2(x, *, approximate="none"):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        c = 0.044715
        t = tanh(k * (x + c * x * x * x))
        du = k * (1 + 3 * c * x * x)
        sech2 = 1 - t * t
        return sech2 * du - x * t * sech2 * du * du + 0.5 * x * sech2 * k * 6 * c * x
    pdf = _INV_SQRT_2PI * exp(-0.5 * x * x)
    return pdf * (2 - x * x)


_gelu = unary("gelu", _gelu_forward, d1=_gelu_d1, d2=_gelu_d2)


@public(method=False)
def gelu(input, approximate: str = "none"):
    """Gaussian error linear unit; ``approximate="tanh"`` uses the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _gelu(input, approximate=approximate)


def _silu_forward(x):
    return (x * sp.expit(x)).astype(x.dtype, copy=False)


silu = unary(
    "silu",
    _silu_forward,
    d1=lambda x: _silu_d1(x),
    d2=lambda x: _silu_d2(x),
    expose=public(method=False),
)


def _silu_d1(x):
    s = sigmoid(x)
    return s * (1 + x * (1 - s))


def _silu_d2(x):
    s = sigmoid(x)
    return s * (1 - s) * (2 + x * (1 - 2 * s))


def _softplus_forward(x, *, beta=1.0, threshold=20.0):
    bx = x * beta
    soft = np.logaddexp(0, bx) / beta
    return np.where(bx > threshold, x, soft).astype(x.dtype, copy=False)


_softplus = unary(
    "softplus",
    _softplus_forward,
    d1=lambda x, *, beta=1.0, threshold=20.0: where(x * beta > threshold, 1.0, sigmoid(x * beta)),
    d2=lambda x, *, beta=1.0, threshold=20.0: where(
        x * beta > threshold, 0.0, beta * sigmoid(x * beta) * (1 - sigmoid(x * beta))
    ),
)


@public(method=False)
def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold``."""
    return _softplus(input, beta=beta, threshold=threshold)


def zeros_like_grad(t: Tensor) -> Tensor:
    """Zeros shaped like ``t`` outside any graph: the derivative of a piecewise-constant op."""
    return _wrap(np.zeros_like(t._data))


def _zero_grad(grad, x, result, **params):
    return zeros_like_grad(grad)


floor = primitive(
    "floor",
    np.floor,
    (_zero_grad,),
    kind=PiecewiseLinear(),
    node_name="FloorBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
)
ceil = primitive(
    "ceil",
    np.ceil,
    (_zero_grad,),
    kind=PiecewiseLinear(),
    node_name="CeilBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
)
trunc = primitive(
    "trunc",
    np.trunc,
    (_zero_grad,),
    kind=PiecewiseLinear(),
    node_name="TruncBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
)
fix = trunc


def _round_forward(x, *, decimals=0):
    return np.round(x, decimals)


_round = primitive(
    "round",
    _round_forward,
    (_zero_grad,),
    kind=PiecewiseLinear(),
    node_name="RoundBackward0",
    dtype_rule="promote",
)
_round_decimals = primitive(
    "round",
    _round_forward,
    (_zero_grad,),
    kind=PiecewiseLinear(),
    overload="decimals",
    node_name="RoundBackward1",
    dtype_rule="promote",
)


@public(inplace=True)
def round(input, *, decimals: int = 0):
    """Round half to even, like PyTorch; zero gradient."""
    return _round_decimals(input, decimals=decimals) if decimals else _round(input)


_ATAN2_RULES = (
    lambda grad, x, y, result: grad * y / (x * x + y * y),
    lambda grad, x, y, result: grad * -x / (x * x + y * y),
)
atan2 = primitive(
    "atan2",
    np.arctan2,
    _ATAN2_RULES,
    kind=Generic(jvp=diagonal_jvp(*_ATAN2_RULES)),
    node_name="Atan2Backward0",
    dtype_rule="float",
    broadcast=True,
    expose=public(inplace=True),
)
arctan2 = atan2


def _max_min_grad(pick_first):
    # Ties split the gradient evenly, as PyTorch does.
    def rule(grad, x, y, result):
        mine, other = (x, y) if pick_first else (y, x)
        return grad * (where(mine == other, 0.5, (mine == result).to(grad.dtype)))

    return rule


maximum = primitive(
    "maximum",
    np.maximum,
    (_max_min_grad(True), _max_min_grad(False)),
    kind=PiecewiseLinear(),
    saves=("result",),
    node_name="MaximumBackward0",
    broadcast=True,
    expose=public(),
)
minimum = primitive(
    "minimum",
    np.minimum,
    (_max_min_grad(True), _max_min_grad(False)),
    kind=PiecewiseLinear(),
    saves=("result",),
    node_name="MinimumBackward0",
    broadcast=True,
    expose=public(),
)


def _clamp_forward(x, *, min=None, max=None):
    out = x
    if min is not None:
        out = np.maximum(out, min)
    if max is not None:
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


def _clamp_scalar_primitive(name, node_name):
    return primitive(
        name,
        _clamp_forward,
        (lambda grad, x, result, *, min=None, max=None: grad * _clamp_mask(x, min, max),),
        kind=PiecewiseLinear(),
        node_name=node_name,
        dtype_rule="keep",
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
        lambda grad, x, lo, hi, result: grad * ((x >= lo) & (x <= hi)),
        lambda grad, x, lo, hi, result: grad * ((x < lo) & (lo <= hi)),
        lambda grad, x, lo, hi, result: grad * ((x > hi) | (lo > hi)),
    ),
    kind=PiecewiseLinear(),
    overload="Tensor",
    node_name="ClampBackward0",
    broadcast=True,
    scalars=True,
)


def _clamp_bound_primitive(name, overload, node_name, upper: bool):
    """Clamp by one Tensor bound: ``minimum(x, bound)`` when ``upper``, else ``maximum``."""
    if upper:
        rules = (
            lambda grad, x, bound, result: grad * (x <= bound),
            lambda grad, x, bound, result: grad * (x > bound),
        )
    else:
        rules = (
            lambda grad, x, bound, result: grad * (x >= bound),
            lambda grad, x, bound, result: grad * (x < bound),
        )
    return primitive(
        name,
        np.minimum if upper else np.maximum,
        rules,
        kind=PiecewiseLinear(),
        overload=overload,
        node_name=node_name,
        broadcast=True,
        scalars=True,
    )


# clamp with one Tensor bound is PyTorch's clamp.Tensor too (ClampBackward0), the other None.
_clamp_lower = _clamp_bound_primitive("clamp", "Tensor_lower", "ClampBackward0", upper=False)
_clamp_upper = _clamp_bound_primitive("clamp", "Tensor_upper", "ClampBackward0", upper=True)
_clamp_min_tensor = _clamp_bound_primitive("clamp_min", "Tensor", "ClampMinBackward1", upper=False)
_clamp_max_tensor = _clamp_bound_primitive("clamp_max", "Tensor", "ClampMaxBackward1", upper=True)


def _clamp_by_numbers(op, input, min, max):
    if not isinstance(input, Tensor):
        raise TypeError(f"clamp(): input must be a Tensor, not {type(input).__name__}")
    from .._dtype import result_type

    dt = result_type(input, *(b for b in (min, max) if b is not None))
    x = input if dt.np == input._data.dtype else input.to(dt)
    return op(x, min=min, max=max)


@public(inplace=True)
def clamp(input, min=None, max=None):
    """Limit ``input`` to [min, max]; either bound may be None, a number or a Tensor."""
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of min and max must be given")
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
    return np.where(cond, x, y)


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
    node_name="WhereBackward0",
    dtype_rule="keep",
    broadcast=True,
    scalars=True,
)


@public(method=False)
def where(condition, input=None, other=None):
    """``input`` where ``condition`` holds, else ``other``; broadcasting; scalars allowed.

    With only ``condition``, returns its nonzero indices like ``torch.where``.
    """
    if input is None and other is None:
        from .indexing import nonzero

        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): condition must be a bool Tensor, not {type(condition).__name__}")
    if condition._data.dtype != np.bool_:
        raise RuntimeError(f"where: condition must be a bool tensor, got {condition.dtype}")
    from .._dtype import result_type

    dt = result_type(input, other)
    x = _cast_operand(input, dt)
    y = _cast_operand(other, dt)
    return _where(condition, x, y)


def _cast_operand(v, dt):
    if isinstance(v, Tensor):
        return v if v._data.dtype == dt.np else v.to(dt)
    return dt.np.type(v)


@public(function=False, method=("where",))
def _where_method(self, condition, other):
    return where(condition, self, other)


# Not top-level in PyTorch (torch.nn.functional has them): leaky_relu, elu, gelu, silu,
# softplus are here for convenience.
__all__ = exports(globals())
