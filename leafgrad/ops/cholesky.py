"""The Cholesky family: ``linalg.cholesky`` / ``cholesky_ex``, the deprecated
``torch.cholesky``, and ``cholesky_solve`` / ``cholesky_inverse`` that reuse a factor.

A factorization reads one triangle of A (the lower, or the upper when ``upper``), as LAPACK
does; its gradient is PyTorch's symmetric ``L^-T Phi(L^T G) L^-1`` (Murray 2016), so check
it on symmetric inputs (``A = B B^T + c I``), as PyTorch's own tests do.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from .._exposure import exports, public
from .._tensor import Tensor
from . import _matrices as mx
from ._matrices import mT
from ._optable import Generic
from ._out import accepts_out
from ._primitive import primitive
from ._returned import returned
from .solvers import _broadcast, _deprecated, solve_triangular

_CholeskyEx = returned("linalg_cholesky_ex", ["L", "info"])

_NOT_PD = (
    "The factorization could not be completed because the input is not positive-definite "
    "(the leading minor of order {} is not positive-definite)."
)


def _cholesky_forward(a, *, upper, check_errors):
    if upper:  # U^T U from A's upper triangle: the lower factor of A^T
        a = np.swapaxes(a, -1, -2)
    try:
        L, info = np.linalg.cholesky(a), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        # LAPACK's partial factor where it stopped, as PyTorch's cholesky_ex returns it
        L, info = np.empty_like(a), np.zeros(a.shape[:-2], np.int32)
        (potrf,) = sl.get_lapack_funcs(("potrf",), (a,))
        for i in np.ndindex(*a.shape[:-2]):
            L[i], info[i] = potrf(a[i], lower=1, clean=1)
        if check_errors:
            raise mx.failure("linalg.cholesky", info, _NOT_PD.format) from None
    return (np.swapaxes(L, -1, -2) if upper else L), info


def _lower(factor, upper):
    return mT(factor) if upper else factor


def _cholesky_grad(gL, L, upper):
    """PyTorch's cholesky_backward: symmetric, with half the diagonal of ``tril(L^T gL)``."""
    L, gL = _lower(L, upper), _lower(gL, upper)
    phi = (mT(L) @ gL).tril()
    phi = 0.5 * (phi + mT(phi.tril(-1)))
    gA = solve_triangular(mT(L), phi, upper=True)
    return solve_triangular(L, gA, upper=False, left=False)


def _cholesky_vjp(grads, A, *, result, needs, upper, check_errors=True):
    return [_cholesky_grad(grads[0], result[0], upper)]


def _cholesky_tangent(tA, factor, upper):
    """``dL = L Phi(L^-1 dA L^-T)``, Phi: the lower triangle with half its diagonal."""
    L = _lower(factor, upper)
    dL = solve_triangular(L, tA, upper=False)
    dL = solve_triangular(mT(L), dL, upper=True, left=False)
    dL = L @ (dL.tril() - 0.5 * mx.diag_embed(dL.diagonal(0, -2, -1)))
    return _lower(dL, upper)


def _cholesky_ex_jvp(tA, A, *, result, upper, check_errors):
    return _cholesky_tangent(tA, result[0], upper), None


_cholesky_ex = primitive(
    "linalg_cholesky_ex",
    _cholesky_forward,
    vjp_all=_cholesky_vjp,
    kind=Generic(jvp=_cholesky_ex_jvp),
    inputs=("self",),
    outputs=("L", "info"),
    saves=("L", "upper"),
    node_name="LinalgCholeskyExBackward0",
    dtype_rule="keep",
    num_outputs=2,
)


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    """``(L, info)``: info (int32) is the order of the first leading minor that is not
    positive-definite (0 when it factors); L is then LAPACK's partial factor."""
    mx.check_linalg("linalg.cholesky_ex", A)
    return _CholeskyEx(*_cholesky_ex(A, upper=upper, check_errors=check_errors))


@accepts_out(same_dtype=True)
def linalg_cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """The lower factor L of ``A = L L^T`` (upper U of ``A = U^T U`` when ``upper``);
    LinAlgError when A is not positive-definite."""
    mx.check_linalg("linalg.cholesky", A)
    return _cholesky_ex(A, upper=upper, check_errors=True)[0]


def _cholesky_deprecated_forward(a, *, upper):
    return _cholesky_forward(a, upper=upper, check_errors=True)[0]


_cholesky = primitive(
    "cholesky",
    _cholesky_deprecated_forward,
    lambda grad, A, *, result, upper: _cholesky_grad(grad, result, upper),
    kind=Generic(jvp=lambda tA, A, *, result, upper: _cholesky_tangent(tA, result, upper)),
    inputs=("self",),
    saves=("result", "upper"),
    node_name="CholeskyBackward0",
    dtype_rule="keep",
)


@public()
@accepts_out(same_dtype=True)
def cholesky(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Deprecated ``torch.cholesky``: ``linalg.cholesky`` with ``upper`` positional."""
    _deprecated("cholesky")
    mx.check_linalg("cholesky", input)
    return _cholesky(input, upper=upper)


# ----- solving with a factor -----


def _each(batch, fn, a, b):
    a, b = _broadcast(batch, a, b)
    x = np.empty(b.shape, a.dtype)
    if x.size:
        for i in np.ndindex(*batch):
            x[i] = fn(a[i], b[i])
    return x


def _cholesky_solve_forward(b, factor, *, upper):
    batch = np.broadcast_shapes(b.shape[:-2], factor.shape[:-2])
    (potrs,) = sl.get_lapack_funcs(("potrs",), (factor,))
    return _each(batch, lambda c, rhs: potrs(c, rhs, lower=int(not upper))[0], factor, b)


def _cholesky_solve_vjp(grad, B, factor, *, result, needs, upper):
    gB = cholesky_solve(grad, factor, upper)
    gL = None
    if needs[1]:
        common = gB @ mT(result)
        common = common + mT(common)
        gL = -(factor @ common) if upper else -(common @ factor)
    return [gB if needs[0] else None, gL]


def _factor_tangent(dF, F, upper):
    """The tangent of ``A = L L^T`` (``U^T U``) along the factor's tangent."""
    dK = mT(dF) @ F if upper else dF @ mT(F)
    return dK + mT(dK)


def _cholesky_solve_jvp(tB, tF, B, factor, *, result, upper):
    rhs = tB
    if tF is not None:
        change = _factor_tangent(tF, factor, upper) @ result
        rhs = -change if rhs is None else rhs - change
    return cholesky_solve(rhs, factor, upper)


_cholesky_solve = primitive(
    "cholesky_solve",
    _cholesky_solve_forward,
    vjp_all=_cholesky_solve_vjp,
    kind=Generic(jvp=_cholesky_solve_jvp),
    inputs=("self", "input2"),
    saves=("self", "input2", "result", "upper"),
    node_name="CholeskySolveBackward0",
    dtype_rule="keep",
    broadcast=True,
)


@public()
@accepts_out(same_dtype=True)
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """X with ``A X = input`` given A's Cholesky factor ``input2`` (lower, or upper when
    ``upper``); batch dimensions broadcast."""
    op = "cholesky_solve"
    mx.check_matrix(op, input, "input")
    mx.check_square(op, input2, "input2")
    mx.check_float(op, input, input2)
    n = input2._data.shape[-1]
    if input._data.shape[-2] != n:
        raise RuntimeError(f"{op}: the factor is {n} by {n} but input has {input.shape[-2]} rows")
    mx.batch_shape(op, input._data.shape, input2._data.shape)
    return _cholesky_solve(input, input2, upper=upper)


def _cholesky_inverse_forward(factor, *, upper):
    out = np.empty_like(factor)
    if out.size:
        (potri,) = sl.get_lapack_funcs(("potri",), (factor,))
        for i in np.ndindex(*factor.shape[:-2]):
            half = potri(factor[i], lower=int(not upper))[0]
            # potri fills one triangle; mirror it
            half = np.tril(half) if not upper else np.triu(half)
            out[i] = half + np.swapaxes(half, -1, -2) - np.diag(np.diagonal(half))
    return out


def _cholesky_inverse_vjp(grad, factor, *, result, upper):
    common = result @ ((grad + mT(grad)) @ result)
    return -(factor @ common) if upper else -(common @ factor)


def _cholesky_inverse_jvp(tF, factor, *, result, upper):
    return -(result @ (_factor_tangent(tF, factor, upper) @ result))


_cholesky_inverse = primitive(
    "cholesky_inverse",
    _cholesky_inverse_forward,
    _cholesky_inverse_vjp,
    kind=Generic(jvp=_cholesky_inverse_jvp),
    inputs=("self",),
    saves=("self", "result", "upper"),
    node_name="CholeskyInverseBackward0",
    dtype_rule="keep",
)


@public()
@accepts_out(same_dtype=True)
def cholesky_inverse(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """The inverse of ``A = L L^T`` (``U^T U`` when ``upper``) from its factor ``input``."""
    mx.check_linalg("cholesky_inverse", input)
    return _cholesky_inverse(input, upper=upper)


__all__ = exports(globals())
