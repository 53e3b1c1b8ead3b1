"""Smooth elementwise functions: exp/log, trigonometric and hyperbolic, sigmoid, erf, atan2.

Each unary op states its first derivative ``d1`` (and second, ``d2``, for Taylor mode) in
leafgrad ops; ``unary`` builds the VJP from it. Activations live in ``activations.py``;
rounding, maximum/minimum, clamp and where (piecewise linear) in ``piecewise.py``.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from .._exposure import exports, public
from . import _fused, _vml
from ._optable import Composite, Generic
from ._primitive import primitive, unary
from ._tangents import tangent_sum
from .arithmetic import add_scalar, mul_scalar, one_like, reciprocal, rsqrt, sub_scalar
from .indexing import _masked_fill_scalar

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

exp = unary(
    "exp",
    _vml.exp,  # MKL's vector math where installed: PyTorch's values (ops/_vml.py)
    d1=lambda x, result: result,
    d2=lambda x, result: result,
    expose=public(inplace=True),
    plain_rules=True,
)
expm1 = unary(
    "expm1",
    np.expm1,
    d1=lambda x, result: result + 1,
    d2=lambda x, result: result + 1,
    vjp=lambda grad, x, result: grad * add_scalar(result, other=1),
    expose=public(inplace=True),
    plain_rules=True,
)
log = unary(
    "log",
    _vml.log,
    d1=lambda x: reciprocal(x),
    d2=lambda x: -reciprocal(x * x),
    vjp=lambda grad, x, result: grad / x,  # PyTorch's formulas (their nodes, their rounding)
    expose=public(inplace=True),
    plain_rules=True,
)
log1p = unary(
    "log1p",
    np.log1p,
    node_name="Log1PBackward0",
    d1=lambda x: reciprocal(x + 1),
    d2=lambda x: -reciprocal((x + 1) * (x + 1)),
    vjp=lambda grad, x, result: grad / add_scalar(x, other=1),
    expose=public(inplace=True),
    plain_rules=True,
)
log2 = unary(
    "log2",
    _vml.log2,
    d1=lambda x: reciprocal(x * math.log(2.0)),
    d2=lambda x: -reciprocal(x * x * math.log(2.0)),
    vjp=lambda grad, x, result: grad / mul_scalar(x, other=math.log(2.0)),
    expose=public(inplace=True),
    plain_rules=True,
)
log10 = unary(
    "log10",
    _vml.log10,
    d1=lambda x: reciprocal(x * math.log(10.0)),
    d2=lambda x: -reciprocal(x * x * math.log(10.0)),
    vjp=lambda grad, x, result: grad / mul_scalar(x, other=math.log(10.0)),
    expose=public(inplace=True),
    plain_rules=True,
)

sin = unary(
    "sin",
    _vml.sin,
    d1=lambda x: cos(x),
    d2=lambda x, result: -result,
    expose=public(inplace=True),
    plain_rules=True,
)
cos = unary(
    "cos",
    _vml.cos,
    d1=lambda x: -sin(x),
    d2=lambda x, result: -result,
    expose=public(inplace=True),
    plain_rules=True,
)
tan = unary(
    "tan",
    _vml.tan,
    d1=lambda x, result: 1 + result * result,
    d2=lambda x, result: 2 * result * (1 + result * result),
    vjp=lambda grad, x, result: grad * add_scalar(result**2, other=1),
    expose=public(inplace=True),
    plain_rules=True,
)
asin = unary(
    "asin",
    _vml.asin,
    d1=lambda x: rsqrt(add_scalar(-x * x, other=1)),  # PyTorch's (-x * x + 1).rsqrt()
    d2=lambda x: x * (1 - x * x) ** -1.5,
    expose=public(inplace=True),
    plain_rules=True,
)
acos = unary(
    "acos",
    np.arccos,
    d1=lambda x: -rsqrt(add_scalar(-x * x, other=1)),
    d2=lambda x: -x * (1 - x * x) ** -1.5,
    expose=public(inplace=True),
    plain_rules=True,
)
atan = unary(
    "atan",
    _vml.atan,
    d1=lambda x: reciprocal(1 + x * x),
    d2=lambda x: -2 * x * (1 + x * x) ** -2,
    vjp=lambda grad, x, result: grad / add_scalar(x * x, other=1),
    expose=public(inplace=True),
    plain_rules=True,
)
sinh = unary(
    "sinh",
    np.sinh,
    d1=lambda x: cosh(x),
    d2=lambda x, result: result,
    expose=public(inplace=True),
    plain_rules=True,
)
cosh = unary(
    "cosh",
    np.cosh,
    d1=lambda x: sinh(x),
    d2=lambda x, result: result,
    expose=public(inplace=True),
    plain_rules=True,
)


def _act_backward(name, formula, kernel, output_grad, node_name):
    """``name(grad_output, output)``: the first derivative of an activation from its output,
    as one op (PyTorch's tanh_backward, sigmoid_backward). It is linear in ``grad_output``;
    ``output_grad(grad, grad_output, output)``, linear in ``grad``, is its VJP in ``output``
    (and with a tangent for ``grad``, its JVP). ``formula(g, y)`` in operators (Taylor mode
    runs it on tensors); ``kernel(g, y)``, the forward on arrays: the same operations."""

    def grad_output_vjp(grad, g, y, result):
        return op(grad, y)

    def output_vjp(grad, g, y, result):
        return output_grad(grad, g, y)

    def jvp(tg, ty, g, y, result):
        return tangent_sum(
            None if tg is None else op(tg, y), None if ty is None else output_grad(ty, g, y)
        )

    op = primitive(
        name,
        kernel,
        (grad_output_vjp, output_vjp),
        kind=Composite(taylor_as=formula, jvp=jvp),
        saves=("grad_output", "output"),
        inputs=("grad_output", "output"),
        node_name=node_name,
        # Under vmap the graph is recorded on the batched values, where a batched gradient
        # meets an unbatched output: the output's gradient is summed back to its shape.
        broadcast=True,
        plain_rules=True,
    )
    return op


# One op for the backward of tanh and of sigmoid, as in PyTorch (whose second-order graphs
# show TanhBackwardBackward0): a backward or a nested derivative then records one node, not
# three. Both compute in PyTorch's order: grad * (1 - y * y) and grad * (1 - y) * y.
def _tanh_backward_kernel(g, y):
    """``g * (1 - y * y)`` in one buffer: the same three operations, a quarter faster on
    large arrays than with a fresh array for each; one compiled pass where numba is."""
    if _fused.fusable(y, g):
        return _fused.tanh_backward(g, y)
    t = np.multiply(y, y)
    # 0-d, or g broadcasts y (``g.shape``, not ``np.shape(g)``: a call less per node)
    if type(t) is not np.ndarray or type(g) is not np.ndarray or t.shape != g.shape:
        return g * (1 - t)
    np.subtract(1, t, out=t)
    return np.multiply(g, t, out=t)


def _sigmoid_backward_kernel(g, y):
    """``g * (1 - y) * y`` in one buffer (the same operations in PyTorch's order)."""
    if _fused.fusable(y, g):
        return _fused.sigmoid_backward(g, y)
    t = np.subtract(1, y)
    if type(t) is not np.ndarray or type(g) is not np.ndarray or t.shape != g.shape:
        return g * t * y
    np.multiply(g, t, out=t)
    return np.multiply(t, y, out=t)


def _same_arrays(*arrays) -> bool:
    """Whether a rule got ndarrays of one shape and dtype, at least 1-d (a plain rule's
    common case, where a kernel may reuse one buffer)."""
    first = arrays[0]
    if type(first) is not np.ndarray or not first.ndim:
        return False
    for a in arrays[1:]:
        if type(a) is not np.ndarray or a.shape != first.shape or a.dtype != first.dtype:
            return False
    return True


def _same_float_arrays(*arrays) -> bool:
    """``_same_arrays`` of float32 or float64: the in-place kernels' case."""
    return _same_arrays(*arrays) and arrays[0].dtype.char in "fd"


def _tanh_output_grad(grad, g, y):
    """``grad * (-2 * y * g)``, tanh_backward's VJP in ``y`` (PyTorch's formula). On arrays
    in one buffer: the same products, the exact scaling by -2 last (a nested PINN's final
    backward runs it once per layer and derivative order, on (N, width) arrays)."""
    if _fused.fusable(y, grad, g):
        return _fused.tanh_output_grad(grad, g, y)
    if _same_arrays(grad, g, y):
        t = np.multiply(y, g)
        np.multiply(grad, t, out=t)
        t *= -2
        return t
    return grad * (mul_scalar(y, other=-2) * g)  # -2 * y: mul.Scalar, as in PyTorch


def _sigmoid_output_grad(grad, g, y):
    """``grad * g * (-2 * y + 1)``, sigmoid_backward's VJP in ``y``; on arrays in two
    buffers instead of four (the same operations)."""
    if _fused.fusable(y, grad, g):
        return _fused.sigmoid_output_grad(grad, g, y)
    if _same_arrays(grad, g, y):
        t = np.multiply(y, -2)
        t += 1
        u = np.multiply(grad, g)
        u *= t
        return u
    return grad * g * add_scalar(mul_scalar(y, other=-2), other=1)  # mul/add.Scalar


tanh_backward = _act_backward(
    "tanh_backward",
    lambda g, y: g * (1 - y * y),
    _tanh_backward_kernel,
    _tanh_output_grad,
    "TanhBackwardBackward0",
)
sigmoid_backward = _act_backward(
    "sigmoid_backward",
    lambda g, y: g * (1 - y) * y,
    _sigmoid_backward_kernel,
    _sigmoid_output_grad,
    "SigmoidBackwardBackward0",
)

tanh = unary(
    "tanh",
    _vml.tanh,
    # In a plain rule (arrays) the op's forward directly, as the op would run it there.
    vjp=lambda grad, x, result: (
        _tanh_backward_kernel(grad, result)
        if type(grad) is np.ndarray
        else tanh_backward(grad, result)
    ),
    d1=lambda x, result: 1 - result * result,
    d2=lambda x, result: -2 * result * (1 - result * result),
    expose=public(inplace=True),
    plain_rules=True,
)
asinh = unary(
    "asinh",
    np.arcsinh,
    d1=lambda x: rsqrt(x * x + 1),
    d2=lambda x: -x * (x * x + 1) ** -1.5,
    vjp=lambda grad, x, result: grad * rsqrt(add_scalar(x**2, other=1)),
    expose=public(inplace=True),
    plain_rules=True,
)
acosh = unary(
    "acosh",
    np.arccosh,
    d1=lambda x: rsqrt(x * x - 1),
    d2=lambda x: -x * (x * x - 1) ** -1.5,
    vjp=lambda grad, x, result: grad * rsqrt(sub_scalar(x * x, other=1)),
    expose=public(inplace=True),
    plain_rules=True,
)
atanh = unary(
    "atanh",
    np.arctanh,
    d1=lambda x: reciprocal(1 - x * x),
    d2=lambda x: 2 * x * (1 - x * x) ** -2,
    vjp=lambda grad, x, result: grad / (one_like(x) - x**2),
    expose=public(inplace=True),
    plain_rules=True,
)

arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh


def _exp_negative(x, min_size: int = _vml.MIN_SIZE):
    """``exp(-x)`` in a fresh buffer (NumPy quiet: ops run so; ``exp`` overflows to inf
    below about -88 in float32, -709 in float64, where the sigmoid is then 0 as PyTorch's),
    by VML from ``min_size`` elements (``_vml.exp_into``)."""
    t = np.negative(x)
    return _vml.exp_into(t, min_size)


FORMULA_MIN_SIZE = 256  # ``expit`` and the formula cost alike at ~300 float64 elements


def _sigmoid_forward(x):
    """``1 / (1 + exp(-x))``: PyTorch's CPU formula for float32 and float64 (within 4 ulp of
    it; relative accuracy kept for x < 0, where ``exp(-x)`` is large, not cancelled), on
    NumPy's vectorised ``exp``: 3.4x (float32) and 2.3x (float64) SciPy's ``expit`` speed on
    (1e4, 32) arrays. Arrays of fewer than ``FORMULA_MIN_SIZE`` elements (the formula's four
    NumPy calls cost ~1 us more than ``expit``'s one there; 3 ulp of PyTorch) and other
    dtypes (float16: PyTorch computes it in float32 and rounds once, as ``expit`` does, in its
    result's dtype: its float16 loop returns float64) take ``expit``. float32 arrays that take
    a compiled kernel run the formula in one pass, ``_exp32``'s exp inlined (within 2 ulp, as
    NumPy's passes and PyTorch's are; (256, 1000) 227 us against the passes' 425 and
    PyTorch's 215)."""
    if x.dtype.char not in "fd" or x.size < FORMULA_MIN_SIZE:
        return sp.expit(x).astype(x.dtype, copy=False)
    if x.dtype.char == "f" and _fused.fusable(x):  # exp inlined: one pass, not four
        return _fused.sigmoid32(x)
    return _sigmoid_passes(x)


def _sigmoid_passes(x, min_size: int = _vml.MIN_SIZE):
    """``1 / (1 + exp(-x))`` of a float32 or float64 array by NumPy's passes (``exp`` by VML
    from ``min_size`` elements)."""
    t = _exp_negative(x, min_size)
    t += 1
    # 1 / t, not np.reciprocal: the same bits (every float32, 5e7 random float64), but a
    # vectorised loop: 28 us against 54 at (256, 1000) float32.
    return np.divide(t.dtype.type(1), t, out=t)


def sigmoid_any(x):
    """The sigmoid of an array by ``_sigmoid_forward``'s formula whatever its size and layout
    (the Taylor path's derivative blocks, whose values must not depend on how rows were cut;
    and ``expit``, which the small arrays there took, calls libm's exp one element at a time:
    a quarter of a float32 SiLU network's collapsed step)."""
    char = x.dtype.char
    if char not in "fd":
        return sp.expit(x).astype(x.dtype, copy=False)
    if not x.ndim:  # (NumPy's passes would make a scalar of it)
        return sigmoid_any(x.reshape(1)).reshape(())
    if char == "f" and x.size and _fused.available():
        return _fused.sigmoid32(np.ascontiguousarray(x))
    return _sigmoid_passes(x, 1)


sigmoid = unary(
    "sigmoid",
    _sigmoid_forward,
    vjp=lambda grad, x, result: (
        _sigmoid_backward_kernel(grad, result)
        if type(grad) is np.ndarray
        else sigmoid_backward(grad, result)
    ),
    d1=lambda x, result: result * (1 - result),
    d2=lambda x, result: result * (1 - result) * (1 - 2 * result),
    expose=public(inplace=True),
    plain_rules=True,
)

erf = unary(
    "erf",
    sp.erf,
    d1=lambda x: _TWO_OVER_SQRT_PI * exp(-(x * x)),
    d2=lambda x: -2 * _TWO_OVER_SQRT_PI * x * exp(-(x * x)),
    vjp=lambda grad, x, result: mul_scalar(exp(-(x**2)), other=_TWO_OVER_SQRT_PI) * grad,
    expose=public(inplace=True),
    plain_rules=True,
)
erfc = unary(
    "erfc",
    sp.erfc,
    d1=lambda x: -_TWO_OVER_SQRT_PI * exp(-(x * x)),
    d2=lambda x: 2 * _TWO_OVER_SQRT_PI * x * exp(-(x * x)),
    vjp=lambda grad, x, result: mul_scalar(exp(-(x**2)), other=-_TWO_OVER_SQRT_PI) * grad,
    expose=public(inplace=True),
    plain_rules=True,
)


def _atan2_reciprocal(x, y):
    """``1 / (x^2 + y^2)``, 0 where that sum is 0 (PyTorch's atan2_backward masks it: the
    gradient at the origin, or where the squares underflow, is 0, not NaN)."""
    denom = x * x + y * y
    return _masked_fill_scalar(reciprocal(denom), denom == 0, fill=0)  # masked_fill_, as there


def _atan2_jvp(tx, ty, x, y, result):
    """PyTorch's ``(-x t_y + y t_x) / (x^2 + y^2)``: unmasked (NaN at the origin)."""
    numerator = tangent_sum(None if ty is None else -x * ty, None if tx is None else y * tx)
    return numerator / (x * x + y * y)


def _atan2_vjp(grad, x, y, result, needs):
    """PyTorch's atan2_backward: one reciprocal for both gradients, self's made first."""
    recip = _atan2_reciprocal(x, y)
    return (grad * y * recip if needs[0] else None, grad * -x * recip if needs[1] else None)


atan2 = primitive(
    "atan2",
    np.arctan2,
    vjp_all=_atan2_vjp,
    kind=Generic(jvp=_atan2_jvp),
    saves=("self", "other"),
    node_name="Atan2Backward0",
    dtype_rule="float",
    broadcast=True,
    expose=public(inplace=True),
    plain_rules=True,
)
arctan2 = atan2

__all__ = exports(globals())
