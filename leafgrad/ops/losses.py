"""Losses as one op each, recorded as PyTorch records them: the pointwise regression losses
``mse_loss``, ``huber_loss`` and ``smooth_l1_loss`` (``MseLossBackward0`` ..., saving
``self``, ``target`` and the reduction as PyTorch's enum) on inputs of one shape, and
``nll_loss`` (``NllLossBackward0``; also cross-entropy's last op) on class indices, and
``binary_cross_entropy`` and ``binary_cross_entropy_with_logits``. The functional losses in
``nn`` check their arguments first.

The VJPs follow PyTorch's backward kernels operation for operation, in leafgrad ops so they
differentiate again; forward and Taylor mode use the losses' formulas.
"""

from __future__ import annotations

import math

import numpy as np

from .._engine import grad_mode
from .._tensor import _wrap
from ._optable import Composite, Linear
from ._plain import operand, values_of
from ._primitive import primitive
from ._tangents import tangent_sum
from .activations import _log_sigmoid_forward, log_sigmoid
from .arithmetic import add_scalar, div_scalar, mul_scalar
from .elementwise import sigmoid
from .piecewise import where
from .slicing import _index_put, _index_put_forward
from .special import logit

# PyTorch's reduction enum, as its loss nodes save it (``grad_fn._saved_reduction``).
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduce(loss, reduction: int):
    """``loss`` reduced (a tensor, or an array in a forward)."""
    if reduction == 1:
        if type(loss) is np.ndarray and not loss.size:
            return np.full((), np.nan, loss.dtype)  # PyTorch's mean of nothing, without a warning
        return loss.mean()
    return loss.sum() if reduction == 2 else loss


def _norm(x, scale: float, reduction: int) -> float:
    """``scale / numel`` for a mean (PyTorch's ``norm``), else ``scale``."""
    if reduction != 1:
        return scale
    n = math.prod(x.shape)
    return scale / n if n else math.inf  # an empty input's gradient is empty anyway


def _cast(value, like):
    """A weight array in the operands' dtype (None stays None), for a forward on arrays."""
    return None if value is None else value.astype(like.dtype, copy=False)


def _arg(value, like):
    """A weight array beside ``like`` in a rule: as it is beside an array, as a tensor (in
    ``like``'s dtype) beside a tensor."""
    if type(like) is np.ndarray:
        return value.astype(like.dtype, copy=False)
    return _wrap(value.astype(like._data.dtype, copy=False))


def _tangent_from_grads(grads, tx, ty, x, y, reduction, **params):
    """A two-operand loss's tangent from its VJP rule ``grads`` run unreduced with a unit
    gradient: the elementwise derivatives times the tangents, reduced."""
    needs = (tx is not None, ty is not None)
    gx, gy = grads(1.0, x, y, None, needs=needs, reduction=0, **params)
    terms = [g * t for g, t in ((gx, tx), (gy, ty)) if t is not None]
    return _reduce(terms[0] if len(terms) == 1 else terms[0] + terms[1], reduction)


def _difference(tx, ty):
    """The tangent of ``x - y`` (None where neither has one)."""
    if ty is None:
        return tx
    return -ty if tx is None else tx - ty


# ----- mean squared error -----


def _mse_forward(x, y, *, reduction):
    d = np.subtract(x, y)
    return _reduce(np.square(d, out=d) if type(d) is np.ndarray else np.square(d), reduction)


def _mse_backward_forward(grad, a, b, *, reduction):
    """PyTorch's ``mse_loss_backward(grad, a, b)``: ``norm (a - b) grad``, ``norm = 2 / n``."""
    return _norm(a, 2.0, reduction) * (a - b) * grad


def _mse_double_backward(grad, a, reduction):
    """PyTorch's mse_loss_double_backward: ``2 grad``, over n for a mean."""
    twice = mul_scalar(grad, other=2.0)
    return twice / math.prod(a.shape) if reduction == 1 else twice


def _grad_output_vjp(backward, gg, grad, a, b, reduction, **params):
    """PyTorch's ``*_loss_double_backward_grad_output`` (mse, huber): the backward at a unit
    gradient times ``gg``, summed for a reduced loss; unreduced, the backward of ``gg``."""
    if reduction == 0:
        return backward(gg, a, b, reduction=reduction, **params)
    ones = operand(np.ones_like(values_of(grad)), grad)
    return (backward(ones, a, b, reduction=reduction, **params) * gg).sum()


def _mse_backward_jvp(tg, ta, tb, grad, a, b, *, result, reduction):
    """The tangent of ``norm (a - b) grad``, linear in each operand."""
    difference = _difference(ta, tb)
    return tangent_sum(
        None if tg is None else mse_loss_backward(tg, a, b, reduction=reduction),
        None if difference is None else _mse_double_backward(grad * difference, a, reduction),
    )


# PyTorch's mse_loss_backward (MseLossBackwardBackward0): the loss's VJP as an op, so a
# second derivative records PyTorch's nodes.
mse_loss_backward = primitive(
    "mse_loss_backward",
    _mse_backward_forward,
    (
        # PyTorch's derivatives.yaml: mse_loss_backward of gg itself, at the input's shape
        # (summed to grad_output's by the rule's broadcast, as PyTorch's engine sums it).
        lambda gg, grad, a, b, result, *, reduction: mse_loss_backward(
            gg, a, b, reduction=reduction
        ),
        lambda gg, grad, a, b, result, *, reduction: _mse_double_backward(gg * grad, a, reduction),
        lambda gg, grad, a, b, result, *, reduction: -_mse_double_backward(gg * grad, b, reduction),
    ),
    kind=Composite(
        taylor_as=lambda grad, a, b, *, reduction: _norm(a, 2.0, reduction) * (a - b) * grad,
        jvp=_mse_backward_jvp,
    ),
    inputs=("grad_output", "self", "target"),
    saves=("grad_output", "self", "target", "reduction"),
    node_name="MseLossBackwardBackward0",
    broadcast=True,
    plain_rules=True,
)


mse_loss = primitive(
    "mse_loss",
    _mse_forward,
    (
        lambda grad, x, y, result, *, reduction: mse_loss_backward(grad, x, y, reduction=reduction),
        lambda grad, x, y, result, *, reduction: mse_loss_backward(grad, y, x, reduction=reduction),
    ),
    kind=Composite(
        taylor_as=lambda x, y, *, reduction: _reduce((x - y).square(), reduction),
        jvp=lambda tx, ty, x, y, result, *, reduction: _reduce(
            2 * (x - y) * _difference(tx, ty), reduction
        ),
    ),
    inputs=("self", "target"),
    saves=("self", "target", "reduction"),
    node_name="MseLossBackward0",
    plain_rules=True,
)


# ----- Huber and smooth L1 -----


def _huber_forward(x, y, *, reduction, delta):
    z = np.abs(np.subtract(x, y))
    return _reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


def _huber_backward_forward(grad, a, b, *, reduction, delta):
    """PyTorch's ``huber_loss_backward`` kernel: ``norm d grad`` inside ``|d| < delta``, else
    ``+-norm grad delta`` (a NaN difference is in neither tail: NaN)."""
    d = np.subtract(a, b)
    norm = _norm(a, 1.0, reduction)
    outside = np.where(d <= -delta, -norm * grad * delta, norm * grad * delta)
    return np.where((d <= -delta) | (d >= delta), outside, norm * d * grad)


def _huber_loss(x, y, reduction, delta):
    d = x - y
    z = abs(d)
    return _reduce(where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


def _huber_backward(grad, a, b, reduction, delta):
    """``_huber_backward_forward`` in leafgrad ops."""
    d = a - b
    norm = _norm(a, 1.0, reduction)
    outside = where(d <= -delta, -norm * grad * delta, norm * grad * delta)
    return where((d <= -delta) | (d >= delta), outside, norm * d * grad)


def _smooth_l1_forward(x, y, *, reduction, beta):
    z = np.abs(np.subtract(x, y))
    return _reduce(np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def _smooth_l1_backward_forward(grad, a, b, *, reduction, beta):
    """PyTorch's ``smooth_l1_loss_backward`` kernel: ``norm d grad / beta`` inside
    ``|d| < beta``, else ``+-norm grad``."""
    d = np.subtract(a, b)
    norm = _norm(a, 1.0, reduction)
    outside = np.where(d <= -beta, -norm * grad, norm * grad)
    inside = norm * d * grad / beta if beta else d  # (beta 0: every d is outside)
    return np.where((d <= -beta) | (d >= beta), outside, inside)


def _smooth_l1_loss(x, y, reduction, beta):
    z = abs(x - y)
    return _reduce(where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def _smooth_l1_backward(grad, a, b, reduction, beta):
    """``_smooth_l1_backward_forward`` in leafgrad ops."""
    d = a - b
    norm = _norm(a, 1.0, reduction)
    outside = where(d <= -beta, -norm * grad, norm * grad)
    return where((d <= -beta) | (d >= beta), outside, norm * d * grad / beta if beta else d)


def _inside(a, b, bound):
    """``|a - b| < bound`` in ``a``'s dtype, an operand beside ``a`` (no gradient)."""
    data = values_of(a)
    return operand((np.abs(data - values_of(b)) < bound).astype(data.dtype), a)


def _huber_double_backward(g, a, b, reduction, delta):
    """PyTorch's ``huber_loss_double_backward``: ``g`` where ``|a - b| < delta``."""
    return _weighted_mean(g * _inside(a, b, delta), a, None, reduction)


def _smooth_l1_double_backward(g, a, b, reduction, beta):
    """PyTorch's ``smooth_l1_loss_double_backward``: ``g / beta`` where ``|a - b| < beta``
    (zeros for beta 0)."""
    if beta == 0:
        return operand(np.zeros(values_of(g).shape, values_of(g).dtype), g)
    return _weighted_mean(g * _inside(a, b, beta) / beta, a, None, reduction)


def _kinked_loss(
    name, node_name, forward, backward_forward, double_backward, formulas, param, summed: bool
):
    """A loss of ``d = x - y`` with one shape parameter ``param`` (Huber's delta, smooth
    L1's beta), and its backward as an op of its own, as PyTorch records them: the loss's
    VJPs are ``backward(grad, x, y)`` and ``backward(grad, y, x)`` (the target's is the
    input's with the operands swapped); the backward's own VJPs ``double_backward(gg grad)``
    for the operands and the backward again for its gradient (PyTorch's formulas, in
    derivatives.yaml); Taylor mode through ``formulas``, the loss's and its backward's in
    differentiable ops. The backward's gradient in its incoming gradient: with ``summed``
    (Huber's) ``_grad_output_vjp``, else (smooth L1's) the backward of ``gg``."""
    formula, backward_formula = formulas

    def backward_jvp(tg, ta, tb, grad, a, b, *, result, reduction, **shape):
        difference = _difference(ta, tb)
        return tangent_sum(
            None if difference is None
            else double_backward(difference, a, b, reduction, shape[param]) * grad,
            None if tg is None else backward(tg, a, b, reduction=reduction, **shape),
        )  # fmt: skip

    def grad_output_vjp(gg, grad, a, b, result, *, reduction, **shape):
        if summed:
            return _grad_output_vjp(backward, gg, grad, a, b, reduction, **shape)
        return backward(gg, a, b, reduction=reduction, **shape)

    backward = primitive(
        f"{name}_backward",
        backward_forward,
        (
            grad_output_vjp,
            lambda gg, grad, a, b, result, *, reduction, **shape: double_backward(
                gg * grad, a, b, reduction, shape[param]
            ),
            lambda gg, grad, a, b, result, *, reduction, **shape: (
                -double_backward(gg * grad, a, b, reduction, shape[param])
            ),
        ),
        kind=Composite(
            taylor_as=lambda grad, a, b, *, reduction, **shape: backward_formula(
                grad, a, b, reduction, shape[param]
            ),
            jvp=backward_jvp,
        ),
        inputs=("grad_output", "self", "target"),
        saves=("grad_output", "self", "target", "reduction", param),
        node_name=node_name.replace("Backward0", "BackwardBackward0"),
        broadcast=True,
        plain_rules=True,
    )

    def input_vjp(grad, x, y, result, *, reduction, **shape):
        return backward(grad, x, y, reduction=reduction, **shape)

    def target_vjp(grad, x, y, result, *, reduction, **shape):
        return backward(grad, y, x, reduction=reduction, **shape)

    def jvp(tx, ty, x, y, result, *, reduction, **shape):
        return _reduce(backward(_difference(tx, ty), x, y, reduction=0, **shape), reduction)

    loss = primitive(
        name,
        forward,
        (input_vjp, target_vjp),
        kind=Composite(
            taylor_as=lambda x, y, *, reduction, **shape: formula(x, y, reduction, shape[param]),
            jvp=jvp,
        ),
        inputs=("self", "target"),
        saves=("self", "target", "reduction", param),
        node_name=node_name,
        plain_rules=True,
    )
    return loss, backward


huber_loss, huber_loss_backward = _kinked_loss(
    "huber_loss",
    "HuberLossBackward0",
    _huber_forward,
    _huber_backward_forward,
    _huber_double_backward,
    (_huber_loss, _huber_backward),
    "delta",
    summed=True,
)
smooth_l1_loss, smooth_l1_loss_backward = _kinked_loss(
    "smooth_l1_loss",
    "SmoothL1LossBackward0",
    _smooth_l1_forward,
    _smooth_l1_backward_forward,
    _smooth_l1_double_backward,
    (_smooth_l1_loss, _smooth_l1_backward),
    "beta",
    summed=False,
)


# ----- negative log-likelihood -----


def _picked(target, weight, ignore_index, dtype):
    """``(safe, w)``: the targets with ignored ones at class 0, and each one's weight
    (``weight[t]``, 1 without weights, 0 where ignored), in ``dtype``."""
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    w = valid.astype(dtype) if weight is None else np.where(valid, weight[safe], 0).astype(dtype)
    return safe, w


def total_weight(target, weight, ignore_index, dtype):
    """The summed weights of the targets that count (a mean's divisor), in ``dtype``."""
    return _picked(target, weight, ignore_index, dtype)[1].sum()


def _class_index(safe, class_dim: int) -> tuple:
    """The index of each target's entry in the input: ``safe`` along the class dim, every
    position along the others."""
    shape = safe.shape
    key = [np.arange(n).reshape((-1,) + (1,) * (len(shape) - 1 - i)) for i, n in enumerate(shape)]
    key.insert(class_dim, safe)
    return tuple(key)


def _rows_counted(ndim, dtype, target, weight, ignore_index, class_dim):
    """The common case, taken without ``_picked``'s masks and ``_class_index``'s grids: a
    float32/float64 ``(N, C)`` input, ``0 < N`` targets, no weights, none ignored (then every
    ``w`` is 1 and their sum is ``N``, exact below 2^24): (64, 10) 7.8 -> 4.5 us."""
    return (
        weight is None
        and class_dim == 1
        and target.ndim == 1
        and ndim == 2
        and dtype.char in "fd"
        and 0 < target.size < 1 << 24
        and not np.count_nonzero(target == ignore_index)
    )


def _nll_forward(logp, *, target, weight, ignore_index, reduction, class_dim):
    if _rows_counted(logp.ndim, logp.dtype, target, weight, ignore_index, class_dim):
        picked = logp[np.arange(target.size), target]
        if reduction == 0:
            return np.negative(picked, out=picked)  # -(picked * 1)
        # The sum's negative is the negatives' sum (but for the sign of a zero): NumPy scalars.
        loss = -np.add.reduce(picked)
        return loss / logp.dtype.type(target.size) if reduction == 1 else loss
    safe, w = _picked(target, weight, ignore_index, logp.dtype)
    picked = logp[_class_index(safe, class_dim)]
    loss = -(picked * w)
    if reduction == 1:
        return np.divide(loss.sum(), w.sum())  # 0 / 0 (everything ignored) is nan, quietly
    return loss.sum() if reduction == 2 else loss


def _nll_grad(grad, logp, result, *, target, weight, ignore_index, reduction, class_dim):
    """PyTorch's ``nll_loss_backward``: ``-w[t] grad`` (``grad / total_weight`` for a mean)
    at each target's entry, zeros elsewhere."""
    plain = type(grad) is np.ndarray  # (a 0-d one over the total weight is a NumPy scalar)
    dtype = grad.dtype if plain else grad._data.dtype  # logp's, not saved
    if plain and _rows_counted(len(logp.shape), dtype, target, weight, ignore_index, class_dim):
        n, minus_one = target.size, dtype.type(-1)
        out = np.zeros(tuple(logp.shape), dtype)
        out[np.arange(n), target] = (grad / dtype.type(n) if reduction == 1 else grad) * minus_one
        return out
    safe, w = _picked(target, weight, ignore_index, dtype)
    if reduction == 1:
        grad = grad / w.sum()
    key = _class_index(safe, class_dim)
    ignored = target == ignore_index
    if plain:  # a plain backward: index_put's forward, without recording machinery
        values = grad * -w
        if ignored.any():  # PyTorch skips them: 0 even where grad is not finite (all ignored)
            values = np.where(ignored, dtype.type(0), values)
        return _index_put_forward(values, shape=tuple(logp.shape), indices=key, accumulate=False)
    values = grad * _wrap(-w)
    if ignored.any():
        values = where(operand(ignored, values), 0.0, values)
    return _index_put(values, shape=tuple(logp.shape), indices=key, accumulate=False)


def _declare_nll(name: str, node_name: str):
    return primitive(
        name,
        _nll_forward,
        (_nll_grad,),
        kind=Linear(),
        inputs=("self",),
        saves=("target", "weight", "reduction", "ignore_index"),
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )


nll_loss = _declare_nll("nll_loss", "NllLossBackward0")
# PyTorch's nll_loss2d: the same loss over (N, C, H, W), what nll_loss_nd runs for an input of
# more than two dims (``nn/_loss_functions``' ``_nll`` views the other ranks as 4-D).
nll_loss2d = _declare_nll("nll_loss2d", "NllLoss2DBackward0")


# ----- binary cross-entropy -----

# PyTorch's floor for ``(1 - x) x`` in the input's gradient: a saturated probability (0 or 1)
# gets a large finite gradient, not an infinite one. Its kernel's constant is a float 1e-12
# (9.99999996e-13), whatever the dtype.
_BCE_EPSILON = float(np.float32(1e-12))


def _bce_forward(x, y, *, weight, reduction):
    """PyTorch's ``(y - 1) max(log1p(-x), -100) - y max(log(x), -100)``, times weight."""
    loss = (y - 1) * np.maximum(np.log1p(-x), -100) - y * np.maximum(np.log(x), -100)
    weight = _cast(weight, x)
    return _reduce(loss if weight is None else loss * weight, reduction)


def _bce_backward_forward(grad, x, y, *, weight, reduction):
    """PyTorch's ``binary_cross_entropy_backward`` kernel: ``grad (x - y) / max((1 - x) x,
    1e-12)``, then times weight, then over n for a mean."""
    out = grad * (x - y) / np.maximum((1 - x) * x, _BCE_EPSILON)
    weight = _cast(weight, x)
    if weight is not None:
        out = out * weight
    return out / math.prod(x.shape) if reduction == 1 else out


def _bce_backward(grad, x, y, weight, reduction):
    """``_bce_backward_forward`` in leafgrad ops (Taylor mode)."""
    out = grad * (x - y) / ((1 - x) * x).clamp_min(_BCE_EPSILON)
    if weight is not None:
        out = out * _arg(weight, x)
    return div_scalar(out, other=math.prod(x.shape)) if reduction == 1 else out


def _weighted_mean(g, x, weight, reduction):
    """``g`` times weight, over n for a mean (PyTorch's double backwards' last steps)."""
    if weight is not None:
        g = g * _arg(weight, x)
    return div_scalar(g, other=math.prod(x.shape)) if reduction == 1 else g


def _bce_target_backward(grad, x, y, weight, reduction):
    """PyTorch's ``binary_cross_entropy_target_backward``: ``-logit(x) grad``."""
    return _weighted_mean(-logit(x) * grad, x, weight, reduction)


# PyTorch's binary_cross_entropy double backwards (FunctionsManual.cpp), their 1e-12 added
# to the denominators.
_BCE_DOUBLE_EPS = 1e-12


def _bce_double_backward(grad_output, gg, x, y, weight, reduction):
    """``(x^2 - 2 x y + y) / ((x + eps)^2 (1 - x + eps)^2)``, times ``gg grad_output``."""
    eps = _BCE_DOUBLE_EPS
    numerator = x * x - mul_scalar(x, other=2) * y + y
    denominator = add_scalar(x, other=eps) ** 2 * add_scalar(1 - x, other=eps) ** 2
    return _weighted_mean(numerator / denominator * (gg * grad_output), x, weight, reduction)


def _bce_double_backward_grad_output(gg, x, y, weight, reduction):
    """``(x - y) / ((x + eps) (1 - x + eps))`` times ``gg``, summed for a reduced loss."""
    eps = _BCE_DOUBLE_EPS
    g = (x - y) / (add_scalar(x, other=eps) * add_scalar(1 - x, other=eps)) * gg
    if weight is not None:
        g = g * _arg(weight, x)
    if reduction == 1:
        return div_scalar(g.sum(), other=math.prod(x.shape))
    return g.sum() if reduction == 2 else g


def _bce_double_backward_target(gg, grad_output, x, y, weight, reduction):
    """``-gg grad_output / max((1 - x) x, 1e-12)``."""
    g = -gg * grad_output
    if weight is not None:
        g = g * _arg(weight, x)
    g = g / _clamped_below((1 - x) * x, 1e-12)
    return div_scalar(g, other=math.prod(x.shape)) if reduction == 1 else g


def _clamped_below(t, floor: float):
    """``t`` raised to ``floor`` outside the graph, as PyTorch's ``clamp_min_`` under a
    NoGradGuard: its derivative stays ``t``'s."""
    if type(t) is np.ndarray:
        return np.maximum(t, floor, out=t)
    with grad_mode.no_grad():
        t.clamp_min_(floor)
    return t


def _bce_backward_jvp(tg, tx, ty, grad, x, y, *, result, weight, reduction):
    return tangent_sum(
        None if tx is None else _bce_double_backward(grad, tx, x, y, weight, reduction),
        None if ty is None else _bce_double_backward_target(ty, grad, x, y, weight, reduction),
        None if tg is None else binary_cross_entropy_backward(
            tg, x, y, weight=weight, reduction=reduction
        ),
    )  # fmt: skip


# PyTorch's binary_cross_entropy_backward (BinaryCrossEntropyBackwardBackward0).
binary_cross_entropy_backward = primitive(
    "binary_cross_entropy_backward",
    _bce_backward_forward,
    (
        lambda gg, grad, x, y, result, *, weight, reduction: _bce_double_backward_grad_output(
            gg, x, y, weight, reduction
        ),
        lambda gg, grad, x, y, result, *, weight, reduction: _bce_double_backward(
            grad, gg, x, y, weight, reduction
        ),
        lambda gg, grad, x, y, result, *, weight, reduction: _bce_double_backward_target(
            gg, grad, x, y, weight, reduction
        ),
    ),
    kind=Composite(
        taylor_as=lambda grad, x, y, *, weight, reduction: _bce_backward(
            grad, x, y, weight, reduction
        ),
        jvp=_bce_backward_jvp,
    ),
    inputs=("grad_output", "self", "target"),
    saves=("grad_output", "self", "target", "weight", "reduction"),
    node_name="BinaryCrossEntropyBackwardBackward0",
    broadcast=True,
    plain_rules=True,
)


def _bce_loss(x, y, weight, reduction):
    """The loss in leafgrad ops (Taylor mode): logs clamped at -100 as the forward's."""
    loss = (y - 1) * (-x).log1p().clamp_min(-100.0) - y * x.log().clamp_min(-100.0)
    return _reduce(loss if weight is None else loss * _arg(weight, x), reduction)


def _bce_jvp(tx, ty, x, y, result, *, weight, reduction):
    """PyTorch's: both backwards of the tangents, unreduced, then reduced."""
    return _reduce(
        tangent_sum(
            None if tx is None
            else binary_cross_entropy_backward(tx, x, y, weight=weight, reduction=0),
            None if ty is None else _bce_target_backward(ty, x, y, weight, 0),
        ),
        reduction,
    )  # fmt: skip


binary_cross_entropy = primitive(
    "binary_cross_entropy",
    _bce_forward,
    (
        lambda grad, x, y, result, *, weight, reduction: binary_cross_entropy_backward(
            grad, x, y, weight=weight, reduction=reduction
        ),
        lambda grad, x, y, result, *, weight, reduction: _bce_target_backward(
            grad, x, y, weight, reduction
        ),
    ),
    kind=Composite(
        taylor_as=lambda x, y, *, weight, reduction: _bce_loss(x, y, weight, reduction),
        jvp=_bce_jvp,
    ),
    inputs=("self", "target"),
    saves=("self", "target", "weight", "reduction"),
    node_name="BinaryCrossEntropyBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


# ----- binary cross-entropy of logits -----


def _bce_logits_forward(x, y, *, weight, pos_weight, reduction):
    """PyTorch's ``(1 - y) x - l log_sigmoid(x)``, ``l = (pos_weight - 1) y + 1`` (or 1)."""
    weight, pos_weight = _cast(weight, x), _cast(pos_weight, x)
    log_sig = _log_sigmoid_forward(x)
    if pos_weight is not None:
        log_sig = ((pos_weight - 1) * y + 1) * log_sig
    loss = (1 - y) * x - log_sig
    return _reduce(loss if weight is None else loss * weight, reduction)


def _bce_logits_grads(grad, x, y, result, *, needs, weight, pos_weight, reduction):
    """PyTorch's ``binary_cross_entropy_with_logits_backward`` and ``..._target_backward``:
    ``(sigmoid(x) - y)`` (with pos_weight ``(p y + 1 - y) sigmoid(x) - p y``) and ``-x``
    (``log_sigmoid(-x) - p log_sigmoid(x)``), times weight and grad, over n for a mean."""
    scale = grad if reduction != 1 else grad / math.prod(x.shape)
    gx = gy = None
    if needs[0]:
        if pos_weight is None:
            gx = sigmoid(x) - y
        else:
            t = _arg(pos_weight, x) * y
            gx = (t + 1 - y) * sigmoid(x) - t
        gx = (gx if weight is None else gx * _arg(weight, x)) * scale
    if needs[1]:
        if pos_weight is None:
            gy = -x
        else:
            gy = log_sigmoid(-x) - log_sigmoid(x) * _arg(pos_weight, x)
        gy = (gy if weight is None else gy * _arg(weight, x)) * scale
    return gx, gy


def _bce_logits_loss(x, y, weight, pos_weight, reduction):
    """The loss in leafgrad ops (Taylor mode and vmap)."""
    log_sig = log_sigmoid(x)
    if pos_weight is not None:
        log_sig = ((_arg(pos_weight, x) - 1) * y + 1) * log_sig
    loss = (1 - y) * x - log_sig
    return _reduce(loss if weight is None else loss * _arg(weight, x), reduction)


binary_cross_entropy_with_logits = primitive(
    "binary_cross_entropy_with_logits",
    _bce_logits_forward,
    vjp_all=_bce_logits_grads,
    kind=Composite(
        taylor_as=lambda x, y, *, weight, pos_weight, reduction: _bce_logits_loss(
            x, y, weight, pos_weight, reduction
        ),
        jvp=lambda tx, ty, x, y, result, *, reduction, **params: _tangent_from_grads(
            _bce_logits_grads, tx, ty, x, y, reduction, **params
        ),
    ),
    inputs=("self", "target"),
    saves=("self", "target", "weight", "pos_weight", "reduction"),
    node_name="BinaryCrossEntropyWithLogitsBackward0",
    plain_rules=True,
)


__all__: list = []
