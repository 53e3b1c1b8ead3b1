"""``_trilinear`` as PyTorch records it (TrilinearBackward0), the op under ``bilinear``: the
product of three operands, each unsqueezed at its ``expand`` dims, summed over ``sumdim``.
Its gradients are ``_trilinear`` again with the roles of ``sumdim`` and an operand's
``expand`` swapped (FunctionsManual's ``_trilinear_backward``), so every order records it.
"""

from __future__ import annotations

import string

import numpy as np

from ._optable import Composite
from ._primitive import primitive
from ._tangents import tangent_sum
from .einsum import einsum


def _terms(ndims, expand1, expand2, expand3, sumdim):
    """Einsum terms over the ``ndims`` dims (one letter each): the operands' (without their
    expanded dims) and the result's (without the summed dims)."""
    letters = string.ascii_letters[:ndims]
    kept = [[c for i, c in enumerate(letters) if i not in e] for e in (expand1, expand2, expand3)]
    return ["".join(k) for k in kept], "".join(c for i, c in enumerate(letters) if i not in sumdim)


def _check(operands, expands, unroll_dim) -> int:
    """The dims of the product; RuntimeError unless every operand and its ``expand`` make
    them, or for an ``unroll_dim`` outside them (PyTorch's checks)."""
    total = operands[0].ndim + len(expands[0])
    if not 0 <= unroll_dim < total:
        raise RuntimeError(f"_trilinear: unroll_dim must be in [0, {total - 1}], not {unroll_dim}")
    if any(x.ndim + len(e) != total for x, e in zip(operands[1:], expands[1:])):
        raise RuntimeError("_trilinear: number of dimensions must match")
    if operands[0].dtype == np.bool_:
        raise NotImplementedError("_trilinear: bmm has no kernel for 'Bool', as in PyTorch")
    return total


def _trilinear_forward(i1, i2, i3, *, expand1, expand2, expand3, sumdim, unroll_dim):
    """As PyTorch's kernel pairs them: ``i1`` with ``i2`` first, summing the dims ``i3``
    lacks, then that with ``i3``."""
    total = _check((i1, i2, i3), (expand1, expand2, expand3), unroll_dim)
    (t1, t2, t3), out = _terms(total, expand1, expand2, expand3, sumdim)
    pair = "".join(c for c in dict.fromkeys(t1 + t2) if c in t3 or c in out)
    buf = np.einsum(f"{t1},{t2}->{pair}", i1, i2, optimize=True)
    return np.ascontiguousarray(np.einsum(f"{pair},{t3}->{out}", buf, i3, optimize=True))


def _trilinear(i1, i2, i3, *, expand1, expand2, expand3, sumdim, unroll_dim):
    """The forward in leafgrad ops (Taylor mode)."""
    (t1, t2, t3), out = _terms(i1.dim() + len(expand1), expand1, expand2, expand3, sumdim)
    return einsum(f"{t1},{t2},{t3}->{out}", i1, i2, i3)


def _roles(expand1, expand2, expand3, sumdim) -> dict:
    return {"expand1": expand1, "expand2": expand2, "expand3": expand3, "sumdim": sumdim}


def _trilinear_backward(
    grad, i1, i2, i3, *, result, needs, expand1, expand2, expand3, sumdim, unroll_dim
):
    """PyTorch's ``_trilinear_backward``: each operand's gradient a ``_trilinear`` of the
    other two and ``grad`` (its default ``unroll_dim``), in the operands' order."""
    g1 = g2 = g3 = None
    if needs[0]:
        g1 = trilinear(grad, i2, i3, **_roles(sumdim, expand2, expand3, expand1), unroll_dim=1)
    if needs[1]:
        g2 = trilinear(i1, grad, i3, **_roles(expand1, sumdim, expand3, expand2), unroll_dim=1)
    if needs[2]:
        g3 = trilinear(i1, i2, grad, **_roles(expand1, expand2, sumdim, expand3), unroll_dim=1)
    return g1, g2, g3


def _trilinear_jvp(t1, t2, t3, i1, i2, i3, *, result, **params):
    """derivatives.yaml's: one ``_trilinear`` per tangent, the other operands as they are."""
    return tangent_sum(
        None if t1 is None else trilinear(t1, i2, i3, **params),
        None if t2 is None else trilinear(i1, t2, i3, **params),
        None if t3 is None else trilinear(i1, i2, t3, **params),
    )


# derivatives.yaml's: each operand only when another needs a gradient (its wrap_opt_if).
_SAVES = ("i1 if i2 or i3", "i2 if i1 or i3", "i3 if i1 or i2")
_SAVES += ("expand1", "expand2", "expand3", "sumdim")

trilinear = primitive(
    "_trilinear",
    _trilinear_forward,
    vjp_all=_trilinear_backward,
    kind=Composite(taylor_as=_trilinear, jvp=_trilinear_jvp),
    inputs=("i1", "i2", "i3"),
    saves=_SAVES,
    node_name="TrilinearBackward0",
)


__all__: list = []
