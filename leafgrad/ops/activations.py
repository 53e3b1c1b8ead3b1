"""Activations: relu (and its differentiable backward), leaky_relu, elu, silu, softplus.

The functional ones are not top-level in PyTorch (torch.nn.functional has them); they are
here for convenience.
"""

from __future__ import annotations

import numpy as np
import scipy.special as sp

from .._cpu import numpy_avx512
from .._exposure import exports, public
from .._tensor import Tensor, _wrap, _zeros_like
from . import _fused, _select, _vml
from ._optable import Generic, PiecewiseLinear
from ._plain import cast_like
from ._primitive import primitive, unary
from ._tangents import tangent_sum
from .arithmetic import add_scalar, one_like
from .elementwise import (
    FORMULA_MIN_SIZE,
    _exp_negative,
    _same_float_arrays,
    _sigmoid_forward,
    exp,
    log1p,
    sigmoid,
    sigmoid_backward,
    tanh,
)
from .piecewise import where


def _relu_forward(x):
    if x.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu (convert with .int() first)")
    # Zero first: NumPy's maximum then keeps -0.0 as PyTorch's relu (clamp_min) does.
    return np.maximum(0, x).astype(x.dtype, copy=False)


def _threshold_backward_forward(grad, x, *, negative_slope=None, threshold=0.0):
    """threshold_backward, or with a ``negative_slope`` (0 too: a NaN ``x`` then gives
    ``grad * 0`` as PyTorch's, not ``grad``) leaky_relu_backward."""
    if threshold != 0:  # F.threshold's: ``x <= threshold ? 0 : grad``
        closed = x <= threshold
        return _select.where(closed, 0, grad).astype(grad.dtype, copy=False)
    if _fused.fusable(x, grad):
        if negative_slope is None:
            return _fused.threshold_backward(grad, x)
        if type(negative_slope) is float or type(negative_slope) is int:  # weak: rounded first
            return _fused.leaky_relu_backward(grad, x, negative_slope)
    if negative_slope is not None:  # leaky_relu_backward: ``x > 0 ? grad : grad * slope``
        return _select.where(x > 0, grad, grad * negative_slope).astype(grad.dtype, copy=False)
    # threshold_backward: ``x <= 0 ? 0 : grad``, so a NaN result passes the gradient on
    return _select.where(x <= 0, 0, grad).astype(grad.dtype, copy=False)


def gate_backward(name: str, node_name: str, saves: tuple, forward=None):
    """A gate's backward as an op of both inputs, like PyTorch's threshold_backward /
    leaky_relu_backward (``forward``: ``grad`` where ``x > 0``, else ``negative_slope *
    grad``) and the shrinks': the first derivative stays in the graph (with zero second
    derivative), so grad(grad(relu(x)), x) gives zeros, not an error."""
    op = primitive(
        name,
        forward or _threshold_backward_forward,
        (
            lambda grad, g, x, result, **kw: op(grad, x, **kw),
            lambda grad, g, x, result, **kw: _zeros_like(x),
        ),
        kind=PiecewiseLinear(),
        saves=saves,
        inputs=("grad_output", "self"),
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )
    return op


threshold_backward = gate_backward("threshold_backward", "ThresholdBackwardBackward0", ("self",))
leaky_relu_backward = gate_backward(
    "leaky_relu_backward", "LeakyReluBackwardBackward0", ("self", "negative_slope")
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
    plain_rules=True,
)


def _leaky_relu_forward(x, *, negative_slope=0.01):
    if _fused.fusable(x) and type(negative_slope) in (float, int):  # weak: rounded first
        return _fused.leaky_relu(x, negative_slope)  # one pass: 49 -> 26 us at (256, 1000)
    scaled = x * negative_slope
    if 0 < negative_slope <= 1 and type(scaled) is np.ndarray and scaled.dtype == x.dtype:
        # ``x > 0 ? x : slope x`` is the larger of the two for such a slope, in every case
        # (signed zeros, infinities, NaN): one pass instead of a compare and a select.
        return np.maximum(x, scaled, out=scaled)
    return _select.where(x > 0, x, scaled).astype(x.dtype, copy=False)


_leaky_relu = primitive(
    "leaky_relu",
    _leaky_relu_forward,
    (
        lambda grad, x, result, *, negative_slope: leaky_relu_backward(
            grad, x, negative_slope=negative_slope
        ),
    ),
    kind=PiecewiseLinear(),
    saves=("self", "negative_slope"),
    node_name="LeakyReluBackward0",
    dtype_rule="float",
    plain_rules=True,
)


@public(method=False)
def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """``x`` where positive, else ``negative_slope * x``."""
    return _leaky_relu(input, negative_slope=negative_slope)


def activation_backward(name, forward, dx, *, saves, node_name, input_name="self"):
    """PyTorch's ``<activation>_backward(grad_output, x)`` as one op (``node_name``): linear in
    the gradient, so its VJP in ``grad_output`` is the op itself; ``dx(gg, grad, x,
    **params)``, its VJP in ``x``, is the gradient times the activation's second derivative;
    the two make its JVP. ``forward(grad, x, **params)`` is the kernel on arrays."""

    def grad_output_vjp(gg, g, x, result, **params):
        return op(gg, x, **params)

    def input_vjp(gg, g, x, result, **params):
        return dx(gg, g, x, **params)

    def jvp(tg, tx, g, x, result, **params):
        return tangent_sum(
            None if tg is None else op(tg, x, **params),
            None if tx is None else dx(tx, g, x, **params),
        )

    op = primitive(
        name,
        forward,
        (grad_output_vjp, input_vjp),
        kind=Generic(jvp=jvp),
        saves=("grad_output", *saves),
        inputs=("grad_output", input_name),
        node_name=node_name,
        plain_rules=True,
    )
    return op


def _elu_forward(x, *, alpha=1.0, scale=1, input_scale=1):
    """PyTorch's ``x scale`` where positive, else ``alpha scale expm1(x input_scale)``
    (``selu`` and ``celu`` are elu with a scale, an input scale); -0.0 stays -0.0."""
    positive = x > 0
    negative = _select.where(positive, 0, x)  # a fresh array: the passes below run in it
    if input_scale != 1:
        negative *= input_scale
    np.expm1(negative, out=negative)
    if alpha * scale != 1:  # (a product by 1 changes no bits)
        negative *= alpha * scale
    return _select.where(positive, x * scale if scale != 1 else x, negative).astype(
        x.dtype, copy=False
    )


def _elu_d1(x, *, alpha=1.0, scale=1, input_scale=1):
    """PyTorch's ``elu_backward``: the negative branch where ``x <= 0`` (NaN: ``scale``)."""
    negative = (alpha * scale * input_scale) * exp(x * input_scale)
    return where(x <= 0, negative, scale)


def _elu_d2(x, *, alpha=1.0, scale=1, input_scale=1):
    """PyTorch's ``elu_double_backward``: nonzero only where ``x < 0``."""
    negative = (alpha * scale * input_scale * input_scale) * exp(x * input_scale)
    return where(x < 0, negative, 0.0)


def _elu_backward_forward(grad, x, *, alpha, scale, input_scale, is_result=False):
    """PyTorch's elu_backward kernel: ``grad input_scale (alpha scale) exp(x input_scale)``
    where ``x <= 0``, else ``grad scale``: its products in that order, its coefficients
    rounded to the dtype first (``alpha * scale`` multiplied there). From a saved result
    (``is_result``, the in-place elu_'s), ``grad input_scale (result + alpha scale)``."""
    if x.dtype.kind != "f":
        return grad * x  # (ints: refused before a rule runs; kept total)
    c = x.dtype.type
    negcoef, negipt = c(alpha) * c(scale), c(input_scale)
    if is_result:
        negative = np.multiply(grad, negipt, dtype=x.dtype)
        negative *= x + negcoef
        positive = grad * c(scale) if scale != 1 else grad
        return _select.where(x <= 0, negative, positive).astype(x.dtype, copy=False)
    exponent = np.multiply(x, negipt) if negipt != 1 else np.array(x)
    e = np.exp(exponent, out=exponent)
    # (a product by 1 changes no bits: skipped)
    negative = np.multiply(grad, negipt) if negipt != 1 else np.array(grad, dtype=x.dtype)
    if negcoef != 1:
        negative *= negcoef
    negative *= e
    positive = grad * c(scale) if scale != 1 else grad
    return _select.where(x <= 0, negative, positive).astype(x.dtype, copy=False)


def _elu_backward_dx(gg, grad, x, *, alpha, scale, input_scale, is_result=False):
    """PyTorch's ``elu_double_backward``: for a saved input ``elu_backward(gg grad
    input_scale, x)`` times ``x < 0`` (cast), so its graph is EluBackwardBackward0's again;
    for a saved result (``is_result``) ``gg grad input_scale`` times ``result < 0``."""
    mask = cast_like(x < 0, gg)
    scaled = gg * grad * input_scale  # mul.Scalar (MulBackward1), by 1 too, as there
    if is_result:
        return scaled * mask
    negative = elu_backward(
        scaled, x, alpha=alpha, scale=scale, input_scale=input_scale, is_result=False
    )
    return negative * mask


# PyTorch's elu_backward (EluBackwardBackward0, for elu, selu and celu).
elu_backward = activation_backward(
    "elu_backward",
    _elu_backward_forward,
    _elu_backward_dx,
    saves=("self_or_result", "alpha", "scale", "input_scale", "is_result"),
    node_name="EluBackwardBackward0",
    input_name="self_or_result",
)


_elu = unary(
    "elu",
    _elu_forward,
    # PyTorch saves the input (not the result) of elu.
    d1=_elu_d1,
    d2=_elu_d2,
    vjp=lambda grad, x, result, **params: elu_backward(grad, x, is_result=False, **params),
    saves=("self", "alpha", "scale", "input_scale"),
    plain_rules=True,
)


@public(method=False)
def elu(input, alpha: float = 1.0, inplace: bool = False):
    """``x`` where positive, else ``alpha * (exp(x) - 1)``."""
    return _elu(input, alpha=alpha, scale=1, input_scale=1)


def _silu_forward(x):
    """``x / (1 + exp(-x))``, PyTorch's CPU formula for float32 and float64 (see
    ``_sigmoid_forward``); ``x * expit(x)`` for small arrays and other dtypes."""
    if x.dtype.char not in "fd" or not x.ndim:
        return (x * sp.expit(x)).astype(x.dtype, copy=False)
    if x.size < FORMULA_MIN_SIZE:  # in expit's buffer (of x's dtype)
        s = sp.expit(x)
        return np.multiply(x, s, out=s)
    if x.dtype.char == "f" and _fused.fusable(x):  # exp inlined: one pass, not three
        return _fused.silu32(x)
    e = _exp_negative(x)
    if _fused.fusable(x, e):
        return _fused.silu(x, e)
    e += 1
    return np.divide(x, e, out=e)


def _silu_vjp(grad, x, result):
    """PyTorch's ``grad sigmoid(x) (1 + x (1 - sigmoid(x)))``, its products in that order
    (silu_backward's kernel; infinitely_differentiable_silu_backward's nodes when recorded);
    in a plain rule on arrays of one shape, in one buffer."""
    if not _same_float_arrays(grad, x):
        s = sigmoid(x)
        # The bracket first: GCC evaluates an overloaded operator's right operand first,
        # so PyTorch's nodes are made, and run in a second backward, in this order.
        bracket = add_scalar(x * (one_like(x) - s), other=1.0)
        return (grad * s) * bracket
    if _fused.fusable(x, grad):  # sigmoid's passes and the rule's in one: 254 -> 180 us
        if x.dtype.char == "f":  # and exp's too
            return _fused.silu32_backward(grad, x)
        return _fused.silu_backward(grad, x, _exp_negative(x))
    s = _sigmoid_forward(x)
    t = np.subtract(1, s)
    t *= x
    t += 1
    s *= grad  # (grad s), then times the bracket
    t *= s
    return t


silu = unary(
    "silu",
    _silu_forward,
    d1=lambda x: _silu_d1(x),
    d2=lambda x: _silu_d2(x),
    vjp=_silu_vjp,
    expose=public(method=False),
    plain_rules=True,
)


def _silu_d1(x):
    s = sigmoid(x)
    return s * (1 + x * (1 - s))


def _silu_d2(x):
    s = sigmoid(x)
    return s * (1 - s) * (2 + x * (1 - 2 * s))


def _softplus_forward(x, *, beta=1.0, threshold=20.0):
    """PyTorch's ``x`` where ``x beta > threshold``, else ``log1p(exp(x beta)) / beta``;
    float arrays by ``_softplus_in_place``."""
    if type(x) is np.ndarray and x.ndim and x.dtype.char in "fd" and type(beta) in (float, int):
        return _softplus_in_place(x, beta, threshold)
    bx = _times_beta(x, beta)
    soft = _log1p_exp(bx)
    return np.where(bx > threshold, x, soft / beta).astype(x.dtype, copy=False)


def _softplus_in_place(x, beta, threshold):
    """``_softplus_forward`` of a float32/float64 array of at least one dim and a Python
    number ``beta``, in the buffer of ``_log1p_exp``'s result (the products by a ``beta`` of
    1, exact, skipped), the select in a compiled pass where numba is: (256, 1000) float32
    442 -> 271 us."""
    bx = x if beta == 1 else np.multiply(x, beta)
    soft = _log1p_exp(bx)
    if type(threshold) in (float, int) and _fused.fusable(x, soft):
        return _fused.softplus(x, soft, beta, threshold)
    if beta != 1:
        soft /= beta
    np.copyto(soft, x, where=bx > threshold)
    return soft


def _times_beta(x, beta):
    """``x beta``: a float array itself for a ``beta`` of 1 (the product changes no bits;
    0-d: a NumPy number as the product is, which ``_log1p_exp`` takes)."""
    if type(beta) in (float, int) and beta == 1 and np.ndim(x) and np.asarray(x).dtype.kind == "f":
        return x
    return np.multiply(x, beta)


# NumPy's float32/float64 ``log1p`` is vectorised only in its AVX-512 loops; else scalar,
# ~9 ns an element.
FAST_NUMPY_LOG1P = numpy_avx512()


def _log1p_exp(z):
    """``log(1 + exp(z))`` as PyTorch's softplus computes it, ``log1p(exp(z))`` (the caller
    takes ``x`` above the threshold), within 2 ulp: NumPy's ``logaddexp`` has no fast loop
    (~14 ns an element; 2000 float32: 21 us, against 2.5 us so with AVX-512 and 14 us
    without). Large float32 arrays where ``log1p`` is scalar take ``max(z, 0) +
    log1p(exp(-|z|))``, the ``log1p`` by Goldberg's ``log(u) * e / (u - 1)`` with ``u = 1 + e``
    (exact where ``u - 1`` is 0: ``e`` itself), within 4 ulp and 2-3x faster there (with
    numba, ``e`` and ``u`` in one pass by ``_exp32``'s exp, the log NumPy's). Other
    dtypes (float16: PyTorch rounds once from float32) keep ``logaddexp``."""
    if type(z) is not np.ndarray or z.dtype.char not in "fd":
        return np.logaddexp(0, z)
    if z.dtype.char == "f" and z.size >= 4096 and not FAST_NUMPY_LOG1P:
        return _log1p_exp_goldberg(z)
    out = _vml.exp(z)  # (VML's from 64 elements: float64 2.6x NumPy's speed)
    return np.log1p(out, out=out)


def _log1p_exp_goldberg(z):
    if z.dtype.char == "f" and _fused.fusable(z):  # NumPy's log, two compiled passes
        e, out = _fused.exp_minus_abs(z)  # exp(-|z|) by _exp32 (not NumPy's bits), 1 + it
        np.log(out, out=out)
        return _fused.log1p_exp_finish(z, e, out)
    e = np.abs(z)
    np.negative(e, out=e)
    _vml.exp_into(e)  # exp(-|z|), in (0, 1] (0 for -inf, NaN for NaN)
    u = e + 1.0
    out = np.log(u)
    out *= e
    u -= 1.0  # what was added to 1, exactly
    out /= u  # 0/0 where u - 1 = 0, replaced next
    np.copyto(out, e, where=u == 0)
    out += np.maximum(z, 0)
    return out


def _softplus_d1(x, *, beta=1.0, threshold=20.0):
    return where(x * beta > threshold, 1.0, sigmoid(x * beta))


def _softplus_d2(x, *, beta=1.0, threshold=20.0):
    """0 from the threshold on, as in PyTorch's softplus_double_backward (``x beta <
    threshold`` there, where the first derivative's test is ``x beta > threshold``)."""
    s = sigmoid(x * beta)
    return where(x * beta < threshold, beta * s * (1 - s), 0.0)


def _softplus_backward_forward(grad, x, *, beta=1.0, threshold=20.0):
    """PyTorch's CPU softplus_backward: ``grad`` where ``x beta > threshold``, else
    ``grad z / (z + 1)`` with ``z = exp(x beta)`` (so NaN where that overflows below a
    threshold above it, as in PyTorch). After NumPy's exp, one compiled pass where numba
    is: (256, 1000) float32 245 -> 152 us; float32's exp in the pass too (``_exp32``)."""
    if (
        x.dtype.char == "f"
        and _fused.fusable(x, grad)
        and type(beta) in (float, int)
        and type(threshold) in (float, int)
    ):  # exp in the pass too (_exp32's)
        return _fused.softplus_backward32(grad, x, beta, threshold)
    bx = _times_beta(x, beta)
    z = _vml.exp(bx)
    if (
        _fused.fusable(x, grad, z)
        and type(beta) in (float, int)
        and type(threshold) in (float, int)
    ):
        return _fused.softplus_backward(grad, x, z, beta, threshold)
    if _same_float_arrays(grad, x, z):
        soft = np.multiply(grad, z)
        z += 1
        soft /= z
        np.copyto(soft, grad, where=bx > threshold)
        return soft
    return np.where(bx > threshold, grad, grad * z / (z + 1)).astype(
        np.result_type(grad, x), copy=False
    )


def _softplus_backward_dx(gg, grad, x, beta=1.0, threshold=20.0):
    """PyTorch's softplus_double_backward: ``sigmoid_backward(gg grad, sigmoid(x beta))``
    times ``x beta < threshold`` (cast, so a NaN stays NaN) and ``beta``."""
    bx = x * beta
    return sigmoid_backward(gg * grad, sigmoid(bx)) * cast_like(bx < threshold, gg) * beta


# PyTorch's softplus_backward (SoftplusBackwardBackward0).
softplus_backward = activation_backward(
    "softplus_backward",
    _softplus_backward_forward,
    _softplus_backward_dx,
    saves=("self", "beta", "threshold"),
    node_name="SoftplusBackwardBackward0",
)


_softplus = unary(
    "softplus",
    _softplus_forward,
    d1=_softplus_d1,
    d2=_softplus_d2,
    vjp=lambda grad, x, result, **params: softplus_backward(grad, x, **params),
    saves=("self", "beta", "threshold"),
    plain_rules=True,
)


@public(method=False)
def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold``."""
    return _softplus(input, beta=beta, threshold=threshold)


# mish and log-sigmoid as ops of their own, as PyTorch records them (MishBackward0,
# LogSigmoidBackward0), not reachable as torch.* functions: nn.functional calls them.
def _mish_forward(x):
    """PyTorch's ``x tanh(log1p(exp(x)))`` (an overflowing exp gives tanh(inf) = 1)."""
    return (x * np.tanh(np.log1p(np.exp(x)))).astype(x.dtype, copy=False)


def _mish_d1(x):
    """PyTorch's ``infinitely_differentiable_mish_backward`` factor, op for op: ``t + x
    sigmoid(x) (1 - t^2)`` with ``t = tanh(log1p(exp(x)))``."""
    s = sigmoid(x)  # made first, as there
    t = tanh(log1p(exp(x)))
    bracket = one_like(t) - t * t  # GCC evaluates ``x s (1 - t^2)``'s right operand first
    return t + x * s * bracket


def _mish_d2(x):
    t, s = tanh(softplus(x)), sigmoid(x)
    return (1 - t * t) * s * (2 + x * (1 - s) - 2 * x * s * t)


mish = unary("mish", _mish_forward, d1=_mish_d1, d2=_mish_d2, plain_rules=True)


def _log_sigmoid_forward(x):
    """PyTorch's ``min(x, 0) - log1p(exp(-|x|))``: no overflow for large ``|x|``."""
    return (np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))).astype(x.dtype, copy=False)


def _log_sigmoid_backward_forward(grad, x):
    """PyTorch's CPU log_sigmoid_backward: ``(max_deriv - sign z / (1 + z)) grad`` with
    ``z = exp(-|x|)`` (its saved ``buffer``, made again here), ``max_deriv`` 1 and ``sign``
    1 where ``x < 0``, else 0 and -1."""
    z = np.exp(-np.abs(x))
    ratio = z / (1 + z)
    return (np.where(x < 0, 1 - ratio, 0 + ratio) * grad).astype(
        np.result_type(grad, x), copy=False
    )


# PyTorch's log_sigmoid_backward (LogSigmoidBackwardBackward0); its derivative in ``x`` is
# log_sigmoid_double_backward, ``grad (z - 1) z`` with ``z = sigmoid(x)``.
log_sigmoid_backward = activation_backward(
    "log_sigmoid_backward",
    _log_sigmoid_backward_forward,
    lambda gg, grad, x: (gg * grad) * (sigmoid(x) - 1) * sigmoid(x),
    saves=("self",),
    node_name="LogSigmoidBackwardBackward0",
)


log_sigmoid = unary(
    "log_sigmoid",
    _log_sigmoid_forward,
    d1=lambda x: sigmoid(-x),
    d2=lambda x: -sigmoid(x) * sigmoid(-x),
    vjp=lambda grad, x, result: log_sigmoid_backward(grad, x),
    node_name="LogSigmoidBackward0",
    plain_rules=True,
    metadata=(("buffer", lambda values, params: _log_sigmoid_buffer(values[0])),),
)


def _log_sigmoid_buffer(x) -> Tensor:
    """PyTorch's CPU forward also returns ``exp(-|x|)`` (its node's ``_saved_buffer``), which
    its backward reads; leafgrad's backward makes it again, so it is shown made from ``x``."""
    return _wrap(np.exp(-np.abs(x._data)))


__all__ = exports(globals())
