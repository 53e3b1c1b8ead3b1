"""The LU family: ``linalg.lu``, ``lu_factor(_ex)``, ``lu_solve``, ``torch.lu_unpack`` and
the deprecated ``torch.lu`` / ``torch.lu_solve``.

``A = P L U`` with partial pivoting (LAPACK's getrf; pivots 1-based int32, as PyTorch's). The
permutation is locally constant, so the derivatives are those of ``P^T A = L U``: for a
square A, ``X = L^-1 P^T dA U^-1`` gives ``dL = L tril(X, -1)`` and ``dU = triu(X) U``; a tall
A's extra rows of L and a wide A's extra columns of U follow by a triangular solve.
``lu_solve`` and ``lu_unpack`` are composites of triangular solves and triangles of the
packed factor, so their derivatives follow from those.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from .._batched import all_values, map_values
from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from . import _matrices as mx
from ._matrices import mT
from ._optable import Generic
from ._out import accepts_out
from ._primitive import primitive
from ._returned import returned
from .joining import cat
from .solvers import _deprecated, solve_triangular

_LU = returned("linalg_lu", ["P", "L", "U"])
_LUFactor = returned("linalg_lu_factor", ["LU", "pivots"])
_LUFactorEx = returned("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_LUUnpack = returned("lu_unpack", ["P", "L", "U"])


def _getrf(a):
    """Packed factors, 1-based pivots (int32) and info per matrix of ``a: (*, m, n)``."""
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    lu = np.array(a, copy=True)
    piv = np.tile(np.arange(1, min(m, n) + 1, dtype=np.int32), batch + (1,))
    info = np.zeros(batch, np.int32)
    if lu.size:
        (getrf,) = sl.get_lapack_funcs(("getrf",), (a,))
        for i in np.ndindex(*batch):
            lu[i], p, info[i] = getrf(a[i])
            piv[i] = p + 1
    return lu, piv, info


def _permutations(piv, m: int, dtype) -> np.ndarray:
    """P with ``A = P L U`` from LAPACK's row interchanges."""
    P = np.zeros(piv.shape[:-1] + (m, m), dtype)
    for i in np.ndindex(*piv.shape[:-1]):
        order = np.arange(m)
        for row, other in enumerate(piv[i] - 1):
            order[row], order[other] = order[other], order[row]
        P[i][order, np.arange(m)] = 1  # row order[j] of A is row j of L U
    return P


def _unpack(LU: Tensor):
    """``(L, U)`` from the packed factor: L (*, m, k) unit lower, U (*, k, n) upper."""
    m, n = LU._data.shape[-2:]
    k = min(m, n)
    L = LU.tril(-1).narrow(-1, 0, k) + _wrap(np.eye(m, k, dtype=LU._data.dtype))
    return L, LU.triu().narrow(-2, 0, k)


def _pack(L: Tensor, U: Tensor) -> Tensor:
    """The packed factor of the tangents or gradients of L and U (the inverse of _unpack)."""
    m, k, n = L._data.shape[-2], L._data.shape[-1], U._data.shape[-1]
    dtype = L._data.dtype
    lower = L.tril(-1) @ _wrap(np.eye(k, n, dtype=dtype))
    return lower + _wrap(np.eye(m, k, dtype=dtype)) @ U.triu()


def _square_grad(L, U, gL, gU):
    gR = (mT(L) @ gL).tril(-1) + (gU @ mT(U)).triu()
    gA = solve_triangular(mT(L), gR, upper=True, unitriangular=True)
    return solve_triangular(mT(U), gA, upper=False, left=False)


def _lu_grad(P: Tensor, L: Tensor, U: Tensor, gL: Tensor, gU: Tensor) -> Tensor:
    """PyTorch's linalg_lu_backward: the gradient of A from those of L and U."""
    m, n = L._data.shape[-2], U._data.shape[-1]
    if m > n:  # L = [L1; L2] with L2 = A2 U^-1
        L1, L2 = L.narrow(-2, 0, n), L.narrow(-2, n, m - n)
        gL1, gL2 = gL.narrow(-2, 0, n), gL.narrow(-2, n, m - n)
        gA2 = solve_triangular(mT(U), gL2, upper=False, left=False)
        gA = cat([_square_grad(L1, U, gL1, gU - mT(L2) @ gA2), gA2], -2)
    elif m < n:  # U = [U1 U2] with U2 = L^-1 A2
        U1, U2 = U.narrow(-1, 0, m), U.narrow(-1, m, n - m)
        gU1, gU2 = gU.narrow(-1, 0, m), gU.narrow(-1, m, n - m)
        gA2 = solve_triangular(mT(L), gU2, upper=True, unitriangular=True)
        gA = cat([_square_grad(L, U1, gL - gA2 @ mT(U2), gU1), gA2], -1)
    else:
        gA = _square_grad(L, U, gL, gU)
    return P @ gA


def _square_tangent(L, U, dA):
    X = solve_triangular(L, dA, upper=False, unitriangular=True)
    X = solve_triangular(U, X, upper=True, left=False)
    return L @ X.tril(-1), X.triu() @ U


def _lu_tangent(P: Tensor, L: Tensor, U: Tensor, dA: Tensor):
    """``(dL, dU)`` along ``dA``."""
    m, n = L._data.shape[-2], U._data.shape[-1]
    dA = mT(P) @ dA
    if m > n:
        L1, L2 = L.narrow(-2, 0, n), L.narrow(-2, n, m - n)
        dL1, dU = _square_tangent(L1, U, dA.narrow(-2, 0, n))
        dL2 = solve_triangular(U, dA.narrow(-2, n, m - n) - L2 @ dU, upper=True, left=False)
        return cat([dL1, dL2], -2), dU
    if m < n:
        U1, U2 = U.narrow(-1, 0, m), U.narrow(-1, m, n - m)
        dL, dU1 = _square_tangent(L, U1, dA.narrow(-1, 0, m))
        dU2 = solve_triangular(
            L, dA.narrow(-1, m, n - m) - dL @ U2, upper=False, unitriangular=True
        )
        return dL, cat([dU1, dU2], -1)
    return _square_tangent(L, U, dA)


def _P(piv: Tensor, A: Tensor) -> Tensor:
    m, dtype = A._data.shape[-2], A._data.dtype
    return map_values(lambda p: _permutations(p, m, dtype), piv)


# ----- lu_factor -----


def _lu_factor_forward(a):
    return _getrf(a)


def _lu_factor_vjp(grads, A, *, result, needs):
    LU, piv, _ = result
    L, U = _unpack(LU)
    k = min(A._data.shape[-2:])
    gL, gU = grads[0].tril(-1).narrow(-1, 0, k), grads[0].triu().narrow(-2, 0, k)
    return [_lu_grad(_P(piv, A), L, U, gL, gU)]


def _lu_factor_jvp(tA, A, *, result):
    LU, piv, _ = result
    L, U = _unpack(LU)
    return _pack(*_lu_tangent(_P(piv, A), L, U, tA)), None, None


_lu_factor_ex = primitive(
    "linalg_lu_factor_ex",
    _lu_factor_forward,
    vjp_all=_lu_factor_vjp,
    kind=Generic(jvp=_lu_factor_jvp),
    inputs=("self",),
    outputs=("LU", "pivots", "info"),
    saves=("LU", "pivots"),
    node_name="LinalgLuFactorExBackward0",
    dtype_rule="keep",
    num_outputs=3,
)


def _check_lu(op: str, A: Tensor, pivot: bool) -> None:
    mx.check_linalg(op, A, square=False)
    if not pivot:
        raise RuntimeError(f"{op}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):
    """``(LU, pivots, info)``: the packed factors of ``A = P L U``, LAPACK's 1-based pivots
    and info (int32; ``k > 0``: ``U[k-1, k-1]`` is zero)."""
    _check_lu("linalg.lu_factor_ex", A, pivot)
    LU, pivots, info = _lu_factor_ex(A)
    if check_errors and all_values(info).any():
        raise mx.failure("linalg.lu_factor_ex", all_values(info), lambda i: f"U[{i},{i}] is zero")
    return _LUFactorEx(LU, pivots, info)


@accepts_out(same_dtype=True)
def lu_factor(A: Tensor, *, pivot: bool = True, out=None):
    """``(LU, pivots)`` of ``lu_factor_ex``; RuntimeError if U has a zero on its diagonal."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    infos = all_values(info)
    if infos.any():
        i = int(infos.reshape(-1)[np.flatnonzero(infos)[0]])
        raise RuntimeError(
            f"linalg.lu_factor: U[{i},{i}] is zero and lu_solve would divide by it; "
            "linalg.lu or linalg.lu_factor_ex factor anyway"
        )
    return _LUFactor(LU, pivots)


# ----- lu -----


def _lu_forward(a):
    lu, pivots, _ = _getrf(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    L = np.tril(lu, -1)[..., :, :k] + np.eye(m, k, dtype=a.dtype)
    return L, np.triu(lu)[..., :k, :], pivots


def _lu_vjp(grads, A, *, result, needs):
    L, U, pivots = result
    return [_lu_grad(_P(pivots, A), L, U, *grads[:2])]


def _lu_jvp(tA, A, *, result):
    L, U, pivots = result
    return (*_lu_tangent(_P(pivots, A), L, U, tA), None)


# P is not differentiable (PyTorch: no grad_fn), so the primitive gives L, U and the pivots
# (integers: no gradient) that P is built from; the rules read those, not A.
_lu = primitive(
    "linalg_lu",
    _lu_forward,
    vjp_all=_lu_vjp,
    kind=Generic(jvp=_lu_jvp),
    inputs=("self",),
    outputs=("L", "U", "pivots"),
    saves=("L", "U"),
    node_name="LinalgLuBackward0",
    dtype_rule="keep",
    num_outputs=3,
)


@accepts_out(same_dtype=True)
def linalg_lu(A: Tensor, *, pivot: bool = True, out=None):
    """``(P, L, U)`` with ``A = P L U``: P (*, m, m) a permutation (no gradient), L
    (*, m, k) unit lower triangular, U (*, k, n) upper, k = min(m, n)."""
    _check_lu("linalg.lu", A, pivot)
    L, U, pivots = _lu(A)
    return _LU(_P(pivots, A), L, U)


@public(method=False)
def lu_unpack(
    LU_data: Tensor, LU_pivots: Tensor, unpack_data=True, unpack_pivots=True, *, out=None
):
    """``(P, L, U)`` from ``lu_factor``'s packed factors (empty where not asked for)."""
    mx.check_matrix("lu_unpack", LU_data, "LU_data")
    empty = _wrap(np.empty((0,), LU_data._data.dtype))
    L, U = _unpack(LU_data) if unpack_data else (empty, empty)
    P = _P(LU_pivots, LU_data) if unpack_pivots else empty
    return _LUUnpack(P, L, U)


# ----- solving with the factors -----


@accepts_out(same_dtype=True)
def linalg_lu_solve(
    LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False, out=None
):
    """X with ``A X = B`` for ``A = P L U`` given by ``lu_factor`` (``X A = B`` when not
    ``left``; A^T instead of A when ``adjoint``)."""
    op = "linalg.lu_solve"
    mx.check_square(op, LU, "LU")
    mx.check_matrix(op, B, "B")
    mx.check_float(op, LU, B)
    P = _P(pivots, LU)
    # The packed factor serves as both triangles: each solve reads only its own.
    if left and not adjoint:  # U^-1 L^-1 P^T B
        Y = solve_triangular(LU, mT(P) @ B, upper=False, unitriangular=True)
        return solve_triangular(LU, Y, upper=True)
    if left:  # P L^-T U^-T B
        Y = solve_triangular(mT(LU), B, upper=False)
        return P @ solve_triangular(mT(LU), Y, upper=True, unitriangular=True)
    if not adjoint:  # B U^-1 L^-1 P^T
        Y = solve_triangular(LU, B, upper=True, left=False)
        return solve_triangular(LU, Y, upper=False, left=False, unitriangular=True) @ mT(P)
    Y = solve_triangular(mT(LU), B @ P, upper=True, left=False, unitriangular=True)  # B P L^-T U^-T
    return solve_triangular(mT(LU), Y, upper=False, left=False)


@public()
def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, *, out=None):
    """Deprecated ``torch.lu``: ``(LU, pivots)``, with ``infos`` when ``get_infos``."""
    _deprecated("lu")
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


@public()
@accepts_out(same_dtype=True)
def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """Deprecated ``torch.lu_solve``: ``linalg.lu_solve(LU_data, LU_pivots, b)``."""
    _deprecated("lu_solve")
    return linalg_lu_solve(LU_data, LU_pivots, b)


__all__ = exports(globals())
