"""Matrix functions: ``matrix_exp``, ``matrix_power``, the pseudoinverse, least squares,
``matrix_rank``, ``multi_dot``, ``householder_product``.

``matrix_exp``'s derivative is Mathias's block formula (the top-right block of
``exp([[A^T, G], [0, A^T]])``), so it is itself a ``matrix_exp`` and any order follows;
``pinv`` has PyTorch's formula (constant rank assumed); ``lstsq`` differentiates through
the pseudoinverse, as PyTorch's does. ``matrix_power``, ``multi_dot`` and
``householder_product`` are composites of products.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from .._warn import warn_once
from . import _matrices as mx
from ._batch_whole import batches_trailing
from ._matrices import absent, as_column, from_column, mT
from ._optable import Generic
from ._out import accepts_out
from ._primitive import primitive
from ._returned import returned
from .joining import cat
from .solvers import _broadcast, inv

_Lstsq = returned("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])

# ----- matrix_exp -----


def _matrix_exp_forward(a):
    if a.shape[-1] == 0:
        return a.copy()
    return sl.expm(a).astype(a.dtype, copy=False)


def _exp_differential(A, E):
    """``d exp(A)[E]``: the top-right block of ``exp([[A, E], [0, A]])`` (Mathias 1996)."""
    n = A._data.shape[-1]
    zeros = _wrap(np.zeros(np.broadcast_shapes(A._data.shape, E._data.shape), A._data.dtype))
    block = cat([cat([A + zeros, E + zeros], -1), cat([zeros, A + zeros], -1)], -2)
    return _matrix_exp(block).narrow(-2, 0, n).narrow(-1, n, n)


_matrix_exp = primitive(
    "linalg_matrix_exp",
    _matrix_exp_forward,
    lambda grad, A, *, result: _exp_differential(mT(A), grad),
    kind=Generic(jvp=lambda tA, A, *, result: _exp_differential(A, tA)),
    node_name="LinalgMatrixExpBackward0",
    dtype_rule="keep",
    inputs=("self",),
    saves=("self",),
)


@public()
def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential of a (batch of) square matrix."""
    mx.check_linalg("linalg.matrix_exp", A)
    return _matrix_exp(A)


# ----- matrix_power -----


@public()
@accepts_out(same_dtype=True)
def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """``A`` to the integer power ``n`` by repeated squaring (``n < 0``: of ``inv(A)``;
    ``n == 0``: the identity, with a zero gradient)."""
    mx.check_square("linalg.matrix_power", A)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power(): n must be an int, not {type(n).__name__}")
    if n == 0:
        return A.clone().copy_(mx.eye(A._data.shape[-1], A).expand(A._data.shape))
    if n == 1:
        return A.clone()
    a = inv(A) if n < 0 else A
    n = abs(n)
    if n == 1:
        return a
    if n == 2:
        return a @ a
    if n == 3:
        return (a @ a) @ a
    # The bits of n from the lowest, as PyTorch (hence its rounding)
    result = power = None
    while n > 0:
        bit, n = n % 2, n // 2
        power = a if power is None else power @ power
        if bit:
            result = power if result is None else result @ power
    return result


# ----- pseudoinverse -----


def _threshold(s_max, atol, rtol):
    return np.maximum(atol, rtol * s_max)


def _pinv_forward(a, atol, rtol, *, hermitian):
    atol, rtol = np.asarray(atol)[..., None], np.asarray(rtol)[..., None]
    if hermitian:
        w, v = np.linalg.eigh(a)
        keep = np.abs(w) > _threshold(np.abs(w).max(-1, keepdims=True, initial=0), atol, rtol)
        w_inv = np.where(keep, 1 / np.where(keep, w, 1), 0).astype(a.dtype)
        return (v * w_inv[..., None, :]) @ np.swapaxes(v, -1, -2)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    keep = s > _threshold(s[..., :1], atol, rtol)
    s_inv = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(a.dtype)
    return (np.swapaxes(vh, -1, -2) * s_inv[..., None, :]) @ np.swapaxes(u, -1, -2)


def _pinv_grad(grad, P, A):
    """PyTorch's pinv_backward, ``P = pinv(A)``."""
    m, n = A._data.shape[-2:]
    Pt, Gt = mT(P), mT(grad)
    if m <= n:
        K = Gt @ P
        KPt = K @ Pt
        return -mT(P @ K) + KPt - (A @ P) @ KPt + (Pt @ P) @ (Gt - K @ A)
    K = P @ Gt
    PtK = Pt @ K
    return -mT(K @ P) + ((Gt - A @ K) @ P) @ Pt + PtK - (PtK @ P) @ A


def _pinv_tangent(tA, P, A):
    """``dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P`` (Golub-Pereyra)."""
    tAt = mT(tA)
    return (
        -(P @ (tA @ P)) + (P @ mT(P)) @ (tAt - (tAt @ A) @ P) + (tAt - (P @ A) @ tAt) @ (mT(P) @ P)
    )


_pinv = primitive(
    "linalg_pinv",
    _pinv_forward,
    (lambda grad, A, atol, rtol, *, result, hermitian: _pinv_grad(grad, result, A), None, None),
    kind=Generic(
        jvp=lambda tA, tatol, trtol, A, atol, rtol, *, result, hermitian: _pinv_tangent(
            tA, result, A
        )
    ),
    overload="atol_rtol_tensor",
    inputs=("self", "atol", "rtol"),
    edgeless=(1, 2),  # the tolerances have no derivative and no edge, as in PyTorch
    saves=("self", "result"),
    node_name="LinalgPinvBackward0",
    dtype_rule="keep",
)


def _tolerances(A: Tensor, atol, rtol):
    """PyTorch's defaults: ``rtol = eps * max(m, n)`` unless only a positive atol is given."""
    m, n = A._data.shape[-2:]
    default = np.finfo(A._data.dtype).eps * max(m, n)
    a = 0.0 if atol is None else (atol._data if isinstance(atol, Tensor) else atol)
    if rtol is not None:
        r = rtol._data if isinstance(rtol, Tensor) else rtol
    elif atol is None:
        r = default
    else:
        r = np.where(np.asarray(a) > 0, 0.0, default)
    return np.asarray(a, np.float64), np.asarray(r, np.float64)


@accepts_out(same_dtype=True)
@batches_trailing(lambda a: {"A": 2, "atol": 0, "rtol": 0})
def pinv(A: Tensor, rcond=None, hermitian: bool = False, *, atol=None, rtol=None, out=None):
    """The Moore-Penrose pseudoinverse (through the SVD, or ``eigh`` when ``hermitian``):
    singular values at most ``max(atol, rtol * largest)`` count as zero (``rcond``: rtol)."""
    mx.check_linalg("linalg.pinv", A, square=hermitian)
    if rcond is not None:
        rtol = rcond if atol is not None or rtol is None else rtol
    a, r = _tolerances(A, atol, rtol)
    return _pinv(A, _wrap(a), _wrap(r), hermitian=hermitian)


@public()
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``linalg.pinv`` with ``rcond`` as the relative tolerance."""
    return pinv(input, rtol=rcond)


# ----- rank -----


def _rank(A: Tensor, atol, rtol, hermitian: bool) -> Tensor:
    a, r = _tolerances(A, atol, rtol)
    a_ = A._data
    if hermitian:
        s = np.abs(np.linalg.eigvalsh(a_))
        s_max = s.max(-1, initial=0)
    else:
        s = np.linalg.svd(a_, compute_uv=False)
        s_max = s[..., 0] if s.shape[-1] else np.zeros(s.shape[:-1])
    # np.asarray: a 0-d count, not a NumPy scalar (whose .numpy() would not be an array)
    return _wrap(np.asarray((s > _threshold(s_max, a, r)[..., None]).sum(-1), np.int64))


@accepts_out(same_dtype=True)
def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None, out=None):
    """The number of singular values above ``max(atol, rtol * largest)`` (int64, no
    gradient); ``tol`` is an absolute tolerance."""
    mx.check_linalg("linalg.matrix_rank", A, square=hermitian)
    if tol is not None:
        atol, rtol = tol, 0.0
    return _rank(A, atol, rtol, hermitian)


# ----- least squares -----

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_forward(a, b, *, rcond, driver, vector):
    b = b[..., None] if vector else b
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = _broadcast(batch, a, b)
    (m, n), k = a.shape[-2:], b.shape[-1]
    x = np.zeros(batch + (n, k), a.dtype)
    full_rank = True
    if x.size and m:
        lapack_driver = "gelsy" if driver == "gels" else driver  # same solution at full rank
        for i in np.ndindex(*batch):
            x[i], _, rank, _ = sl.lstsq(
                a[i], b[i], rcond, check_finite=False, lapack_driver=lapack_driver
            )
            full_rank = full_rank and rank == n
    if m > n and (driver == "gels" or (driver != "gelsy" and full_rank)):
        residuals = np.square(a @ x - b).sum(-2)
    else:
        residuals = np.empty((0,), a.dtype)
    return (x[..., 0] if vector else x), residuals


def _lstsq_vjp(grads, A, B, *, result, needs, rcond, driver, vector):
    (gX, gR), (X, residuals) = grads, result
    Xm, Bm = as_column(X, vector), as_column(B, vector)
    gA = gB = None
    if not absent(gX):
        G, P = as_column(gX, vector), pinv(A)
        gA = _pinv_grad(G @ mT(Bm), P, A) if needs[0] else None
        gB = from_column(mT(P) @ G, vector) if needs[1] else None
    if residuals._data.size and not absent(gR):
        weighted = gR.unsqueeze(-2) * (A @ Xm - Bm)
        extra_a, extra_b = 2 * (weighted @ mT(Xm)), from_column(-2 * weighted, vector)
        gA = extra_a if gA is None else gA + extra_a
        gB = extra_b if gB is None else gB + extra_b
    return [gA if needs[0] else None, gB if needs[1] else None]


def _lstsq_jvp(tA, tB, A, B, *, result, rcond, driver, vector):
    X, residuals = result
    Xm, Bm, P = as_column(X, vector), as_column(B, vector), pinv(A)
    dX = _pinv_tangent(tA, P, A) @ Bm if tA is not None else None
    if tB is not None:
        dX = P @ as_column(tB, vector) if dX is None else dX + P @ as_column(tB, vector)
    if not residuals._data.size:
        return from_column(dX, vector), None
    dr = tA @ Xm if tA is not None else None
    if tB is not None:
        dr = -as_column(tB, vector) if dr is None else dr - as_column(tB, vector)
    return from_column(dX, vector), 2 * ((A @ Xm - Bm) * dr).sum(-2)


_lstsq = primitive(
    "linalg_lstsq",
    _lstsq_forward,
    vjp_all=_lstsq_vjp,
    kind=Generic(jvp=_lstsq_jvp),
    inputs=("self", "b"),
    outputs=("solution", "residuals"),
    saves=("self", "b", "solution"),
    node_name="LinalgLstsqBackward0",
    dtype_rule="keep",
    broadcast=True,
    num_outputs=2,
)


def _lstsq_is_vector(A: Tensor, B: Tensor) -> bool:
    """lstsq's own rule (not solve's): B is a (batch of) vector(s) when it has one dim less."""
    return A._data.ndim - B._data.ndim == 1


def _lstsq_cores(arguments) -> dict:
    A, B = arguments["A"], arguments["B"]
    return {"A": 2, "B": 1 if _lstsq_is_vector(A, B) else 2}


@batches_trailing(_lstsq_cores)
def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """``(solution, residuals, rank, singular_values)`` minimising ``||A X - B||``, as
    PyTorch's CPU drivers fill them: residuals (squared, per column) when m > n (and for
    gelsd/gelss at full rank), rank unless ``gels``, singular values for gelsd/gelss."""
    op = "linalg.lstsq"
    mx.check_matrix(op, A)
    mx.check_tensor(op, B, "B")
    mx.check_float(op, A, B)
    driver = driver or "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{op}: driver must be one of {_DRIVERS}, got {driver!r}")
    if not 0 <= A._data.ndim - B._data.ndim <= 1:
        raise RuntimeError(
            f"torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            f"(input.dim() - other.dim()) <= 1 (got {A._data.ndim} and {B._data.ndim})"
        )
    vector = _lstsq_is_vector(A, B)
    if (B._data.shape[-1] if vector else B._data.shape[-2]) != A._data.shape[-2]:
        raise RuntimeError(f"{op}: A and B must have the same number of rows")
    mx.batch_shape(op, A._data.shape, B._data.shape + ((1,) if vector else ()))
    m, n = A._data.shape[-2:]
    rcond = np.finfo(A._data.dtype).eps * max(m, n) if rcond is None else rcond
    X, residuals = _lstsq(A, B, rcond=rcond, driver=driver, vector=vector)
    batch = X._data.shape[: -1 if vector else -2]
    rank = _wrap(np.empty((0,), np.int64))
    singular_values = _wrap(np.empty((0,), A._data.dtype))
    if driver != "gels":
        a = np.broadcast_to(A._data, batch + A._data.shape[-2:])
        s = np.linalg.svd(a, compute_uv=False)
        largest = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
        rank = _wrap(np.asarray((s > rcond * largest).sum(-1), np.int64))
        if driver in ("gelsd", "gelss"):
            singular_values = _wrap(s)
    return _Lstsq(X, residuals, rank, singular_values)


# ----- products -----


def _chain_order(shapes):
    """The cheapest parenthesisation of a matrix chain (dynamic programming)."""
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    k = len(shapes)
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = float("inf")
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s
    return split


@accepts_out(same_dtype=True)
def multi_dot(tensors, *, out=None) -> Tensor:
    """The product of a chain of matrices in the cheapest order; the first may be a row
    vector and the last a column vector (1-D)."""
    op = "linalg.multi_dot"
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"{op}: expected at least 2 tensors, got {len(tensors)}")
    first_1d, last_1d = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = [tensors[0].unsqueeze(0) if first_1d else tensors[0], *tensors[1:-1]]
    mats.append(tensors[-1].unsqueeze(-1) if last_1d else tensors[-1])
    for i, t in enumerate(mats):
        if t.dim() != 2:
            raise RuntimeError(f"{op}: tensor {i} must be 2-D (the first and last may be 1-D)")
    split = _chain_order([tuple(t.shape) for t in mats])

    def product(i, j):
        if i == j:
            return mats[i]
        s = split[i][j]
        return product(i, s) @ product(s + 1, j)

    out = product(0, len(mats) - 1)
    if first_1d:
        out = out.squeeze(0)
    return out.squeeze(-1) if last_1d else out


@public(method=False)
def chain_matmul(*matrices, out=None) -> Tensor:
    """Deprecated in PyTorch too: the product of 2-D matrices in the cheapest order (as
    ``linalg.multi_dot``, which it warns to use instead); one matrix comes back as a copy."""
    warn_once(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters."
    )
    if not matrices:
        raise RuntimeError("chain_matmul: expected one or more matrices, got none")
    for i, m in enumerate(matrices):
        mx.check_tensor("chain_matmul", m, f"matrix {i}")
        if m.dim() != 2:
            raise RuntimeError(f"chain_matmul: matrix {i} is {m.dim()}-D; every one must be 2-D")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices, out=out)


@accepts_out(same_dtype=True)
def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """The first n columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` the
    i-th column of A below the diagonal and a 1 on it (LAPACK's orgqr)."""
    op = "linalg.householder_product"
    mx.check_matrix(op, A)
    mx.check_tensor(op, tau, "tau")
    mx.check_float(op, A, tau)
    m, n = A._data.shape[-2:]
    k = tau._data.shape[-1]
    if not k <= n <= m:
        raise RuntimeError(f"{op}: expected tau's size {k} <= columns {n} <= rows {m}")
    rows = np.arange(m)
    Q = _wrap(np.eye(m, n, dtype=A._data.dtype))
    for i in reversed(range(k)):
        below = _wrap((rows > i).astype(A._data.dtype))
        v = A.select(-1, i) * below + _wrap((rows == i).astype(A._data.dtype))
        t = tau.select(-1, i).unsqueeze(-1).unsqueeze(-1)
        Q = Q - t * (v.unsqueeze(-1) @ (v.unsqueeze(-2) @ Q))
    return Q


__all__ = exports(globals())
