"""``beta * input + alpha * product``: ``addmv`` (matrix @ vector), ``addr`` (outer product),
``baddbmm`` (batched matrix products) and ``addbmm`` (their sum), with in-place twins.

As in PyTorch, ``beta == 0`` ignores ``input``'s values (nan and inf in it do not
propagate; its gradient is zero) and ``input`` broadcasts to the product's shape. ``addmv``,
``addr`` and ``baddbmm`` are one op each (AddmvBackward0, AddrBackward0, BaddbmmBackward0,
saving what PyTorch saves), their gradients written with products again, as addmm's;
``addbmm`` is composed (a sum of ``bmm``).
"""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._optable import Composite
from ._out import accepts_out
from ._primitive import primitive
from ._tangents import scaled, tangent_sum
from .linalg import _bmm, _matmul_forward, _mv, _outer, _swap_last_two, _t, bmm


def _check(op: str, **tensors) -> None:
    for what, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{what}' must be Tensor, not {type(t).__name__}")
    dtypes = {t._data.dtype for t in tensors.values()}
    if len(dtypes) > 1:
        got = ", ".join(f"{w} {t.dtype}" for w, t in tensors.items())
        raise RuntimeError(
            f"{op}: expected all tensors to have the same dtype, got {got}; convert them first"
        )


def _ndim(op: str, t: Tensor, n: int, what: str) -> None:
    if t._data.ndim != n:
        raise RuntimeError(
            f"{op}: {what} must be a {n}-D tensor, got {t._data.ndim}-D of shape {list(t.shape)}"
        )


def _check_scaled_sum(op: str, input: Tensor, shape: tuple, beta, alpha) -> None:
    """RuntimeError unless ``input`` broadcasts to the product's ``shape`` and, for integer
    tensors, ``beta`` and ``alpha`` are integers."""
    try:
        fits = np.broadcast_shapes(input._data.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"{op}: input of shape {list(input.shape)} cannot be broadcast to the product's "
            f"shape {list(shape)}"
        )
    if input._data.dtype.kind in "iub" and (isinstance(beta, float) or isinstance(alpha, float)):
        raise RuntimeError(
            f"{op}: for integer tensors beta and alpha must be integers, got beta={beta}, "
            f"alpha={alpha}"
        )


def _scaled_sum(input: Tensor, product: Tensor, beta, alpha) -> Tensor:
    """``beta * input + alpha * product`` composed (the ops' Taylor and vmap forms)."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # zeros with a zero gradient, whatever input holds
        term = input.masked_fill(_wrap(np.array(True)), 0)
    else:
        term = input if beta == 1 else input * beta
    return term + product


def _scaled_sum_forward(x, product, beta, alpha):
    """The same on arrays: ``product`` is fresh, ``x`` broadcasts to its shape."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # PyTorch ignores input entirely (nan and inf do not propagate)
        return product
    return (x if beta == 1 else x * beta) + product


def _scaled(t, factor):
    return t if factor == 1 else t * factor


def _product_op(name, product, on_arrays, grad_a, grad_b, names, node_name):
    """``beta * input + alpha * product(a, b)`` as one op: ``on_arrays`` is the product on
    arrays, ``grad_a(grad, a, b)`` and ``grad_b`` its VJPs; ``names``: PyTorch's names of its
    operands."""
    a_name, b_name = names

    def forward(x, a, b, *, beta=1, alpha=1):
        return _scaled_sum_forward(x, on_arrays(a, b), beta, alpha)

    def jvp(tx, ta, tb, x, a, b, result, *, beta=1, alpha=1):
        terms = (None if ta is None else product(ta, b), None if tb is None else product(a, tb))
        tangent = tangent_sum(*terms)
        return tangent_sum(scaled(tx, beta), None if tangent is None else _scaled(tangent, alpha))

    return primitive(
        name,
        forward,
        (
            lambda grad, x, a, b, result, *, beta=1, alpha=1: _scaled(grad, beta),
            lambda grad, x, a, b, result, *, beta=1, alpha=1: _scaled(grad_a(grad, a, b), alpha),
            lambda grad, x, a, b, result, *, beta=1, alpha=1: _scaled(grad_b(grad, a, b), alpha),
        ),
        kind=Composite(
            taylor_as=lambda x, a, b, *, beta=1, alpha=1: _scaled_sum(
                x, product(a, b), beta, alpha
            ),
            jvp=jvp,
        ),
        saves=(f"{b_name} if {a_name}", f"{a_name} if {b_name}", "alpha", "beta"),
        inputs=("self", a_name, b_name),
        node_name=node_name,
        dtype_rule="keep",
        broadcast=True,
        plain_rules=True,
    )


# The products' own VJPs (mm's, as addmm's): the ops past their public checks.
_addmv = _product_op(
    "addmv",
    _mv,
    _matmul_forward,
    lambda grad, mat, vec: _outer(grad, vec),
    lambda grad, mat, vec: _mv(_t(mat), grad),
    ("mat", "vec"),
    "AddmvBackward0",
)
_addr = _product_op(
    "addr",
    _outer,
    _outer,  # a[:, None] * b, on arrays as on tensors
    lambda grad, vec1, vec2: _mv(grad, vec2),
    lambda grad, vec1, vec2: _mv(_t(grad), vec1),
    ("vec1", "vec2"),
    "AddrBackward0",
)
_baddbmm = _product_op(
    "baddbmm",
    _bmm,
    _matmul_forward,
    lambda grad, b1, b2: _bmm(grad, _swap_last_two(b2)),
    lambda grad, b1, b2: _bmm(_swap_last_two(b1), grad),
    ("batch1", "batch2"),
    "BaddbmmBackward0",
)


@public(inplace=True)
@accepts_out(same_dtype=True)
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``; ``mat``: (n, m), ``vec``: (m,)."""
    _check("addmv", input=input, mat=mat, vec=vec)
    _ndim("addmv", mat, 2, "mat")
    _ndim("addmv", vec, 1, "vec")
    if mat._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(
            f"addmv: size mismatch, got input ({input._data.shape[0] if input._data.ndim else 1}"
            f"), mat ({mat._data.shape[0]}x{mat._data.shape[1]}), vec ({vec._data.shape[0]})"
        )
    _check_scaled_sum("addmv", input, mat._data.shape[:1], beta, alpha)
    return _addmv(input, mat, vec, beta=beta, alpha=alpha)


@public(inplace=True)
@accepts_out(same_dtype=True)
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``; ``vec1``: (n,), ``vec2``: (m,)."""
    _check("addr", input=input, vec1=vec1, vec2=vec2)
    _ndim("addr", vec1, 1, "vec1")
    _ndim("addr", vec2, 1, "vec2")
    shape = vec1._data.shape + vec2._data.shape
    _check_scaled_sum("addr", input, shape, beta, alpha)
    return _addr(input, vec1, vec2, beta=beta, alpha=alpha)


def _batched(op: str, batch1: Tensor, batch2: Tensor) -> None:
    _ndim(op, batch1, 3, "batch1")
    _ndim(op, batch2, 3, "batch2")
    (b1, _, k1), (b2, k2, _) = batch1._data.shape, batch2._data.shape
    if b1 != b2 or k1 != k2:
        raise RuntimeError(
            f"{op}: batch1 {list(batch1.shape)} and batch2 {list(batch2.shape)} must have the "
            "same batch size and inner size (b, n, k) @ (b, k, m)"
        )


@public(inplace=True)
@accepts_out(same_dtype=True)
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)``, per batch: (b, n, k) @ (b, k, m)."""
    _check("baddbmm", input=input, batch1=batch1, batch2=batch2)
    _batched("baddbmm", batch1, batch2)
    (b, n, _), m = batch1._data.shape, batch2._data.shape[2]
    _check_scaled_sum("baddbmm", input, (b, n, m), beta, alpha)
    return _baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


@public(inplace=True)
@accepts_out(same_dtype=True)
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]``: (b, n, k), (b, k, m)."""
    _check("addbmm", input=input, batch1=batch1, batch2=batch2)
    _batched("addbmm", batch1, batch2)
    product = bmm(batch1, batch2).sum(0)
    _check_scaled_sum("addbmm", input, product._data.shape, beta, alpha)
    return _scaled_sum(input, product, beta, alpha)


__all__ = exports(globals())
