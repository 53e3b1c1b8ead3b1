"""QR, symmetric eigendecomposition and SVD, with PyTorch's derivative formulas.

The rules are PyTorch's (``FunctionsManual.cpp``: ``linalg_qr_backward``,
``linalg_eig_backward``, ``svd_backward`` and their JVPs) written in leafgrad ops. Their
caveats are PyTorch's too: eigenvectors and singular vectors are defined up to sign, so only
losses invariant to those signs have meaningful gradients; repeated eigenvalues (singular
values) divide by zero in the vectors' gradients; a rectangular SVD needs full rank; the
``complete`` QR of a tall matrix and an SVD's extra ``full_matrices`` columns are not
differentiable. A gradient that reached only the values (``eigvalsh``, ``svdvals``) takes
PyTorch's shortcut, which has none of those divisions.
"""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from . import _matrices as mx
from ._matrices import absent, diag_embed, mT
from ._optable import Generic
from ._out import accepts_out
from ._plain import operand, values_of
from ._primitive import primitive
from ._returned import returned
from ._triangles import _tril, _triu
from .slicing import narrow
from .solvers import _deprecated, _solve_triangular, solve_triangular

_QR = returned("linalg_qr", ["Q", "R"])
_QRTop = returned("qr", ["Q", "R"])
_Eigh = returned("linalg_eigh", ["eigenvalues", "eigenvectors"])
_SVD = returned("linalg_svd", ["U", "S", "Vh"])
_SVDTop = returned("svd", ["U", "S", "V"])


def _embed(n: int, k: int, like: Tensor) -> Tensor:
    """The ``(n, k)`` identity block: pads (or cuts) a dimension by a matmul (an array beside
    a plain rule's arrays)."""
    return operand(np.eye(n, k, dtype=values_of(like).dtype), like)


# ----- QR -----


def _qr_forward(a, *, mode):
    if mode == "r":
        return np.empty((0,), a.dtype), np.linalg.qr(a, mode="r")
    return np.linalg.qr(a, mode=mode)


def _qr_check_differentiable(Q, R, mode):
    if mode == "r":
        raise RuntimeError(
            "linalg.qr: the derivative depends on Q, which mode='r' does not compute; use "
            "mode='reduced' to differentiate through the QR decomposition"
        )
    if mode == "complete" and Q.shape[-2] > R.shape[-1]:  # arrays too, in a plain rule
        raise RuntimeError(
            "linalg.qr: the QR decomposition is not differentiable when mode='complete' and "
            "the matrix has more rows than columns"
        )


def _zero(grad) -> bool:
    """Whether an output's gradient adds nothing: PyTorch's undefined gradient, which its rule
    skips (an array of zeros in a plain rule, the engine's zeros on tensors)."""
    if type(grad) is np.ndarray:
        return not grad.any()
    return absent(grad)


def _solve_right(A, B, *, upper):
    """``B A^-1`` for triangular ``A``: the solve's op itself, without the public checks (the
    rule's operands fit; arrays in a plain rule)."""
    return _solve_triangular(A, B, upper=upper, left=False, unitriangular=False)


def _qr_vjp(grads, A, *, result, needs, mode):
    """PyTorch's ``linalg_qr_backward``: a gradient of Q or R that is zero is skipped, as
    PyTorch skips an undefined one. Functions rather than methods (the triangles' ops,
    ``narrow``), so the rule also runs on arrays (``plain_rules``)."""
    (gQ, gR), (Q, R) = grads, result
    _qr_check_differentiable(Q, R, mode)
    m, n = Q.shape[-2], R.shape[-1]
    skip_q = _zero(gQ)
    skip_r = not skip_q and _zero(gR)  # both zero: the formula on gR's zeros, as before
    if skip_q:
        M = gR @ mT(R)
    elif skip_r:
        M = -(mT(Q) @ gQ)
    else:
        M = gR @ mT(R) - mT(Q) @ gQ
    if m >= n:
        T = _triu(M, diagonal=0)
        gA = Q @ (T + mT(T) - diag_embed(T.diagonal(0, -2, -1)))
        if not skip_q:
            gA = gA + gQ
        return [_solve_right(mT(R), gA, upper=False)]
    gA = Q @ _tril(mT(M) - M, diagonal=0)
    gA = _solve_right(mT(narrow(R, -1, 0, m)), gA, upper=False) @ _embed(m, n, Q)
    return [gA if skip_r else gA + Q @ gR]


def _qr_jvp(tA, A, *, result, mode):
    Q, R = result
    _qr_check_differentiable(Q, R, mode)
    m, n = Q._data.shape[-2], R._data.shape[-1]
    if m >= n:
        dARinv = solve_triangular(R, tA, upper=True, left=False)
        X = mT(Q) @ dARinv
        sym = X + mT(X)
        dR = sym.triu() - 0.5 * diag_embed(sym.diagonal(0, -2, -1))
        return dARinv - Q @ dR, dR @ R
    QtdA = mT(Q) @ tA
    X = solve_triangular(R.narrow(-1, 0, m), QtdA.narrow(-1, 0, m), upper=True, left=False)
    X = X.tril(-1)
    dQ = X - mT(X)
    return Q @ dQ, QtdA - dQ @ R


_qr = primitive(
    "linalg_qr",
    _qr_forward,
    vjp_all=_qr_vjp,
    kind=Generic(jvp=_qr_jvp),
    inputs=("self",),
    outputs=("Q", "R"),
    saves=("Q", "R", "mode"),
    node_name="LinalgQrBackward0",
    dtype_rule="keep",
    num_outputs=2,
    plain_rules=True,
)


@accepts_out(same_dtype=True)
def linalg_qr(A: Tensor, mode: str = "reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``: ``reduced`` (Q: (*, m, k), R: (*, k, n), k = min(m, n)),
    ``complete`` (Q square) or ``r`` (Q empty, not differentiable)."""
    mx.check_linalg("linalg.qr", A, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"linalg.qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    return _QR(*_qr(A, mode=mode))


@public()
@accepts_out(same_dtype=True)
def qr(input: Tensor, some: bool = True, *, out=None):
    """Deprecated ``torch.qr``: ``linalg.qr`` with ``some`` for the reduced mode."""
    _deprecated("qr")
    return _QRTop(*linalg_qr(input, "reduced" if some else "complete"))


# ----- eigh -----


def _eigh_forward(a, *, UPLO):
    return np.linalg.eigh(a, UPLO=UPLO)


def _gaps(values: Tensor) -> Tensor:
    """``E[i, j] = values[j] - values[i]``, with ones on the diagonal (a safe divisor)."""
    n = values._data.shape[-1]
    return values.unsqueeze(-2) - values.unsqueeze(-1) + mx.eye(n, values)


def _eigh_vjp(grads, A, *, result, needs, UPLO):
    (gL, gV), (L, V) = grads, result
    if absent(gV):  # eigvalsh: no division by eigenvalue gaps
        return [(V * gL.unsqueeze(-2)) @ mT(V)]
    VtgV = mT(V) @ gV
    inner = 0.5 * (VtgV - mT(VtgV)) / _gaps(L) + diag_embed(gL)
    return [V @ (inner @ mT(V))]


def _eigh_jvp(tA, A, *, result, UPLO):
    L, V = result
    dP = mT(V) @ (tA @ V)
    off = 1 - mx.eye(L._data.shape[-1], L)
    return dP.diagonal(0, -2, -1), V @ (dP / _gaps(L) * off)


_eigh = primitive(
    "linalg_eigh",
    _eigh_forward,
    vjp_all=_eigh_vjp,
    kind=Generic(jvp=_eigh_jvp),
    inputs=("self",),
    outputs=("eigenvalues", "eigenvectors"),
    saves=("eigenvalues", "eigenvectors"),
    node_name="LinalgEighBackward0",
    dtype_rule="keep",
    num_outputs=2,
)


def _check_uplo(op: str, UPLO: str) -> None:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{op}: UPLO must be 'L' or 'U', got {UPLO!r}")


@accepts_out(same_dtype=True)
def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    """``(eigenvalues, eigenvectors)`` of a symmetric matrix, ascending, from its lower (or
    upper, ``UPLO='U'``) triangle; the eigenvectors are the columns."""
    mx.check_linalg("linalg.eigh", A)
    _check_uplo("linalg.eigh", UPLO)
    return _Eigh(*_eigh(A, UPLO=UPLO))


@accepts_out(same_dtype=True)
def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """The eigenvalues of a symmetric matrix, ascending."""
    mx.check_linalg("linalg.eigvalsh", A)
    _check_uplo("linalg.eigvalsh", UPLO)
    return _eigh(A, UPLO=UPLO)[0]


# ----- SVD -----


def _svd_forward(a, *, full_matrices):
    return np.linalg.svd(a, full_matrices=full_matrices)


def _reduced(U, Vh, k, full_matrices):
    if not full_matrices:
        return U, Vh
    return U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)


def _skew(X):
    return X - mT(X)


def _svd_vjp(grads, A, *, result, needs, full_matrices):
    (gU, gS, gVh), (U, S, Vh) = grads, result
    m, n = A._data.shape[-2:]
    k = S._data.shape[-1]
    U, Vh = _reduced(U, Vh, k, full_matrices)
    with_u, with_v = not absent(gU), not absent(gVh)
    if not with_u and not with_v:  # svdvals: U diag(gS) Vh
        return [U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh]
    gU, gVh = _reduced(gU, gVh, k, full_matrices)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + mx.eye(k, S)
    if with_u and with_v:
        inner = (_skew(mT(U) @ gU) * S.unsqueeze(-2) + S.unsqueeze(-1) * _skew(Vh @ mT(gVh))) / E
    elif with_u:
        inner = (_skew(mT(U) @ gU) / E) * S.unsqueeze(-2)
    else:
        inner = S.unsqueeze(-1) * (_skew(Vh @ mT(gVh)) / E)
    inner = inner + diag_embed(gS)
    if m > n and with_u:
        gUSinv = gU / S.unsqueeze(-2)
        return [(U @ inner + gUSinv - U @ (mT(U) @ gUSinv)) @ Vh]
    if m < n and with_v:
        SinvgVh = gVh / S.unsqueeze(-1)
        return [U @ (inner @ Vh + SinvgVh - (SinvgVh @ mT(Vh)) @ Vh)]
    return [U @ (inner @ Vh) if m >= n else (U @ inner) @ Vh]


def _svd_jvp(tA, A, *, result, full_matrices):
    U, S, Vh = result
    m, n = A._data.shape[-2:]
    k = S._data.shape[-1]
    U, Vh = _reduced(U, Vh, k, full_matrices)
    V = mT(Vh)
    dP = mT(U) @ (tA @ V) if m < n else (mT(U) @ tA) @ V
    dS = dP.diagonal(0, -2, -1)
    dX = dP - diag_embed(dS)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + mx.eye(k, S)
    Y = dX * S.unsqueeze(-2)
    dU = U @ ((Y + mT(Y)) / E)
    if m > n:
        dAVSinv = tA @ (V / S.unsqueeze(-2))
        dU = dU + dAVSinv - U @ (mT(U) @ dAVSinv)
        if full_matrices:  # PyTorch's choice: no tangent for the extra columns
            dU = dU @ _embed(k, m, dU)
    Z = dX * (-S).unsqueeze(-1)
    dVh = ((Z + mT(Z)) / E) @ Vh
    if m < n:
        UtdASinv = (mT(U) / S.unsqueeze(-1)) @ tA
        dVh = dVh + UtdASinv - (UtdASinv @ V) @ Vh
        if full_matrices:
            dVh = _embed(n, k, dVh) @ dVh
    return dU, dS, dVh


_svd = primitive(
    "linalg_svd",
    _svd_forward,
    vjp_all=_svd_vjp,
    kind=Generic(jvp=_svd_jvp),
    inputs=("self",),
    outputs=("U", "S", "Vh"),
    saves=("U", "S", "Vh", "full_matrices"),
    node_name="LinalgSvdBackward0",
    dtype_rule="keep",
    num_outputs=3,
)


@accepts_out(same_dtype=True)
def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, S descending; U: (*, m, m) and Vh: (*, n, n)
    when ``full_matrices`` (the default), else (*, m, k) and (*, k, n), k = min(m, n)."""
    mx.check_linalg("linalg.svd", A, square=False)
    if driver is not None:
        raise RuntimeError("linalg.svd: driver= selects a CUDA solver; leave it None on the CPU")
    return _SVD(*_svd(A, full_matrices=full_matrices))


@accepts_out(same_dtype=True)
def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """The singular values, descending."""
    mx.check_linalg("linalg.svdvals", A, square=False)
    return _svd(A, full_matrices=False)[1]


@public()
@accepts_out(same_dtype=True)
def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` with ``A = U diag(S) V^T`` (V, not Vh); without
    ``compute_uv``, U and V are zero matrices (m, m) and (n, n)."""
    mx.check_linalg("svd", input, square=False)
    if not compute_uv:
        S = svdvals(input)
        batch, (m, n) = input._data.shape[:-2], input._data.shape[-2:]
        dtype = input._data.dtype
        zeros_u, zeros_v = np.zeros(batch + (m, m), dtype), np.zeros(batch + (n, n), dtype)
        return _SVDTop(_wrap(zeros_u), S, _wrap(zeros_v))
    U, S, Vh = _svd(input, full_matrices=not some)
    return _SVDTop(U, S, mT(Vh))


__all__ = exports(globals())
