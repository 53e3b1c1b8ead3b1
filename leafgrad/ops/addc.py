"""``addcmul``, ``addcdiv`` and ``lerp`` as ops of their own, recorded as PyTorch records them
(``AddcmulBackward0``, ``AddcdivBackward0``, ``LerpBackward0`` for a number weight,
``LerpBackward1`` for a tensor one) with PyTorch's saves and derivative formulas.

The operands broadcast together; ``value`` and a number ``weight`` are parameters. The public
functions (``composites.py``) check their arguments and call these on floating tensors.
"""

from __future__ import annotations

import numpy as np

from ._optable import Composite, Linear
from ._plain import operand, values_of
from ._primitive import primitive
from ._tangents import scaled, tangent_sum
from .arithmetic import mul_scalar


def _times(t, value):
    """``t * value``, skipping a multiplication by one (exact either way)."""
    return t if value == 1 else t * value


def _filled(like, value):
    """``like``'s shape and dtype filled with the number ``value`` (an array beside arrays):
    PyTorch's ``value / t`` is ``empty_like(t).fill_(value).div_(t)``."""
    data = values_of(like)
    return operand(np.full(data.shape, value, data.dtype), like)


# ----- addcmul: input + value * tensor1 * tensor2 -----


def _addcmul_forward(x, t1, t2, *, value):
    return x + np.multiply(_times(t1, value), t2)


def _addcmul_jvp(tx, t1t, t2t, x, t1, t2, *, result, value):
    product = tangent_sum(None if t1t is None else t1t * t2, None if t2t is None else t1 * t2t)
    return tangent_sum(tx, scaled(product, value))


addcmul = primitive(
    "addcmul",
    _addcmul_forward,
    (
        lambda grad, x, t1, t2, result, *, value: grad,
        # (PyTorch's formulas: products by the number as mul.Scalar)
        lambda grad, x, t1, t2, result, *, value: grad * mul_scalar(t2, other=value),
        lambda grad, x, t1, t2, result, *, value: grad * mul_scalar(t1, other=value),
    ),
    kind=Composite(taylor_as=lambda x, t1, t2, *, value: x + value * t1 * t2, jvp=_addcmul_jvp),
    inputs=("self", "tensor1", "tensor2"),
    saves=("tensor2 if tensor1", "tensor1 if tensor2", "value"),
    node_name="AddcmulBackward0",
    broadcast=True,
    plain_rules=True,
)


# ----- addcdiv: input + value * tensor1 / tensor2 -----


def _addcdiv_forward(x, t1, t2, *, value):
    return x + np.true_divide(_times(t1, value), t2)


def _addcdiv_jvp(tx, t1t, t2t, x, t1, t2, *, result, value):
    quotient = tangent_sum(
        None if t1t is None else t1t / t2, None if t2t is None else -(t2t * (t1 / t2) / t2)
    )
    return tangent_sum(tx, scaled(quotient, value))


addcdiv = primitive(
    "addcdiv",
    _addcdiv_forward,
    (
        lambda grad, x, t1, t2, result, *, value: grad,
        # (PyTorch's formulas: ``value / t2`` a tensor of the number divided in place)
        lambda grad, x, t1, t2, result, *, value: grad * (_filled(t2, value) / t2),
        lambda grad, x, t1, t2, result, *, value: -grad * (mul_scalar(t1, other=value) / (t2 * t2)),
    ),
    kind=Composite(taylor_as=lambda x, t1, t2, *, value: x + value * t1 / t2, jvp=_addcdiv_jvp),
    inputs=("self", "tensor1", "tensor2"),
    saves=("tensor2", "tensor1 if tensor2", "value"),
    node_name="AddcdivBackward0",
    broadcast=True,
    plain_rules=True,
)


# ----- lerp: input + weight * (end - input) -----


def _lerp_forward(x, end, weight):
    """PyTorch's kernel: from ``x`` for a small weight, from ``end`` for a large one, so both
    ends are exact."""
    if isinstance(weight, np.ndarray):
        small = np.abs(weight) < 0.5
        return np.where(small, x + weight * (end - x), end - (end - x) * (1 - weight))
    weight = x.dtype.type(weight)  # in the operands' dtype, as PyTorch's kernel takes it
    if abs(weight) < 0.5:
        return x + weight * (end - x)
    return end - (end - x) * (1 - weight)


# A number weight: linear in ``input`` and ``end`` together (forward mode is lerp of the
# tangents, as PyTorch's).
lerp_scalar = primitive(
    "lerp",
    lambda x, end, *, weight: _lerp_forward(x, end, weight),
    (
        lambda grad, x, end, result, *, weight: grad * (1 - weight),
        lambda grad, x, end, result, *, weight: grad * weight,
    ),
    kind=Linear(),
    overload="Scalar",
    inputs=("self", "end"),
    saves=("weight",),
    node_name="LerpBackward0",
    broadcast=True,
    plain_rules=True,
)


def _lerp_jvp(tx, tend, tw, x, end, weight, *, result):
    return tangent_sum(
        scaled(tx, 1 - weight), scaled(tend, weight), None if tw is None else tw * (end - x)
    )


lerp_tensor = primitive(
    "lerp",
    _lerp_forward,
    (
        lambda grad, x, end, weight, result: grad * (1 - weight),
        lambda grad, x, end, weight, result: grad * weight,
        lambda grad, x, end, weight, result: grad * (end - x),
    ),
    kind=Composite(taylor_as=lambda x, end, weight: x + weight * (end - x), jvp=_lerp_jvp),
    overload="Tensor",
    inputs=("self", "end", "weight"),
    saves=("self if weight", "end if weight", "weight"),
    node_name="LerpBackward1",
    broadcast=True,
    plain_rules=True,
)
