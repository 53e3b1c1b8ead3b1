"""Linear systems: inverse, solve, triangular solve (the namespace ``leafgrad.linalg`` and
PyTorch's top-level aliases ``inverse``, ``triangular_solve``).

Each solver is one primitive whose rules are written with solvers again, so gradients of any
order follow: ``inv``'s VJP is ``-A^-T G A^-T``, ``solve``'s ``G_B = A^-T G``,
``G_A = -G_B X^T``, and a triangular solve projects ``G_A`` onto its triangle (PyTorch's
formulas). Batch dimensions broadcast; float32 and float64 only, as PyTorch's CPU kernels.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np
import scipy.linalg as sl

from .._engine.grad_mode import _state as _grad_state
from .._exposure import exports, public
from .._tensor import Tensor
from .._warn import warn_once
from . import _matrices as mx
from ._matrices import mT
from ._optable import Generic
from ._out import accepts_out
from ._primitive import primitive
from ._returned import returned

_InvEx = returned("linalg_inv_ex", ["inverse", "info"])
_SolveEx = returned("linalg_solve_ex", ["result", "info"])
_TriangularSolve = returned("triangular_solve", ["solution", "cloned_coefficient"])

_SINGULAR = (
    "The diagonal element {} is zero, the {} could not be completed because the input matrix "
    "is singular."
)


def _broadcast(batch, *arrays):
    return [np.broadcast_to(a, batch + a.shape[-2:]) for a in arrays]


def _lu_solve_each(a, b):
    """``a^-1 b`` per matrix through LU, as LAPACK leaves it where ``a`` is singular (inf and
    nan, as PyTorch returns), and LAPACK's info per matrix."""
    batch = a.shape[:-2]
    x = np.empty(batch + b.shape[-2:], a.dtype)
    info = np.zeros(batch, np.int32)
    if a.shape[-1] == 0:
        return x, info
    getrf, getrs = sl.get_lapack_funcs(("getrf", "getrs"), (a,))
    for i in np.ndindex(*batch):
        lu, piv, info[i] = getrf(a[i])
        x[i] = getrs(lu, piv, b[i])[0]
    return x, info


# ----- inverse -----


def _by_columns(x):
    """``x`` with each matrix laid out by columns, as LAPACK leaves PyTorch's results (their
    strides; mm's backward reads the layout)."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)


def _inv_forward(a, *, check_errors):
    try:
        return _by_columns(np.linalg.inv(a)), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        inverse, info = _lu_solve_each(a, eye)
        if check_errors:
            raise mx.failure(
                "linalg.inv", info, lambda i: _SINGULAR.format(i, "inversion")
            ) from None
        return _by_columns(inverse), info


def _inv_vjp(grads, A, *, result, needs, check_errors):
    """PyTorch's ``-matmul(inverse.mH(), matmul(grad, inverse.mH()))``: a transpose per use
    (a second derivative sums each use's gradient after its own), the right argument first
    as GCC evaluates them."""
    inner = grads[0] @ mT(result[0])
    return [-(mT(result[0]) @ inner)]


def _inv_jvp(tA, A, *, result, check_errors):
    R = result[0]
    return -(R @ (tA @ R)), None


_inv_ex = primitive(
    "linalg_inv_ex",
    _inv_forward,
    vjp_all=_inv_vjp,
    kind=Generic(jvp=_inv_jvp),
    inputs=("self",),
    outputs=("inverse", "info"),
    saves=("inverse",),
    node_name="LinalgInvExBackward0",
    dtype_rule="keep",
    num_outputs=2,
    plain_rules=True,
)


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    """``(inverse, info)``: info (int32, per matrix) is nonzero where A is singular, whose
    inverse then holds LAPACK's inf/nan; ``check_errors`` raises LinAlgError instead."""
    mx.check_linalg("linalg.inv_ex", A)
    return _InvEx(*_inv_ex(A, check_errors=check_errors))


@accepts_out(same_dtype=True)
def inv(A: Tensor, *, out=None) -> Tensor:
    """The inverse of a (batch of) square matrix; LinAlgError if one is singular."""
    mx.check_linalg("linalg.inv", A)
    return _inv_ex(A, check_errors=True)[0]


@public()
@accepts_out(same_dtype=True)
def inverse(input: Tensor, *, out=None) -> Tensor:
    """``linalg.inv``."""
    return inv(input)


# ----- solve -----


# A solve's LU factors, kept for its backward (PyTorch's saved LU and pivots): by the id of
# the result array, while it lives (an entry goes with its array). The backward's solve with
# the transposed matrix reuses them (one getrs) where the matrix is that same memory.
_FACTORS: dict = {}
_REUSE = threading.local()  # .factors: what the running rule's solve may reuse, or None


def _where(a) -> tuple:
    """What identifies a matrix's memory: its address, shape and strides."""
    return a.__array_interface__["data"][0], a.shape, a.strides


def _keep_factors(x, where, lu, piv) -> None:
    key = id(x)
    _FACTORS[key] = (weakref.ref(x, lambda _, key=key: _FACTORS.pop(key, None)), where, lu, piv)


def _factors_of(x):
    """The factors kept with the result ``x`` (a tensor, or an array in a plain rule), or
    None (a batched tensor's values are not the array the forward returned)."""
    data = x if type(x) is np.ndarray else getattr(x, "_data", None)
    entry = _FACTORS.get(id(data))
    return entry if entry is not None and entry[0]() is data else None


def _transposed_solve(a, b):
    """``a^-1 b`` with one getrs where ``a`` is the transpose of the matrix whose factors the
    running rule lent (``_REUSE``), else None."""
    factors = getattr(_REUSE, "factors", None)
    if factors is None:
        return None
    _, (address, shape, strides), lu, piv = factors
    if (a.dtype != lu.dtype or a.shape != shape[::-1] or a.strides != strides[::-1]
            or a.__array_interface__["data"][0] != address):  # fmt: skip
        return None
    (getrs,) = sl.get_lapack_funcs(("getrs",), (lu,))
    return np.ascontiguousarray(getrs(lu, piv, b, trans=1)[0])


def _solve_one(a, b, check_errors):
    """One system (2-D ``a`` and ``b``, one float dtype) through getrf and getrs, as LAPACK's
    gesv: ``(x, info, factors)``, the factors to keep for a backward (or None)."""
    x = _transposed_solve(a, b)
    if x is not None:
        return x, np.zeros((), np.int32), None
    getrf, getrs = sl.get_lapack_funcs(("getrf", "getrs"), (a,))
    lu, piv, info = getrf(a)
    info = np.array(info, np.int32)
    if info and check_errors:
        raise mx.failure("torch.linalg.solve", info, _singular_solve)
    x = np.ascontiguousarray(getrs(lu, piv, b)[0])  # C order, as NumPy's solve leaves it
    # Kept only where a backward may come (grad mode) and the factors are whole.
    return x, info, ((_where(a), lu, piv) if _grad_state.enabled and not info else None)


def _singular_solve(info: int) -> str:
    return "The solver failed because the input matrix is singular."


def _solve_forward(a, b, *, left, vector, check_errors):
    if vector:
        b = b[..., None]
    if not left:  # X A = B is A^T X^T = B^T
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    factors = None
    if a.ndim == 2 == b.ndim and a.dtype == b.dtype and a.shape[0] and b.shape[1]:
        x, info, factors = _solve_one(a, b, check_errors)
    else:
        x, info = _solve_batched(a, b, check_errors)
    if not left:
        x = np.swapaxes(x, -1, -2)
    if vector:
        x = x[..., 0]
    if factors is not None:  # by the array returned, which the backward is handed
        _keep_factors(x, *factors)
    return x, info


def _solve_batched(a, b, check_errors):
    a, b = _broadcast(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), a, b)
    try:
        return np.linalg.solve(a, b), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        x, info = _lu_solve_each(a, b)
        if check_errors:
            # PyTorch names this one with its module
            raise mx.failure("torch.linalg.solve", info, _singular_solve) from None
        return x, info


def _solve(A, B, left=True):
    return _solve_ex(A, B, left=left, vector=False, check_errors=False)[0]


def _solve_vjp(grads, A, B, *, result, needs, left, vector, check_errors):
    """PyTorch's ``linalg_solve_backward``: ``G_B = A^-T G`` (reusing the forward's LU factors
    where they were kept, as PyTorch's), ``G_A = -G_B X^T``."""
    G, X = mx.as_column(grads[0], vector), mx.as_column(result[0], vector)
    _REUSE.factors = _factors_of(result[0])
    try:
        gB = _solve(mT(A), G, left)  # A^-T G, or G A^-T for X A = B
    finally:
        _REUSE.factors = None
    gA = None
    if needs[0]:
        gA = -(gB @ mT(X)) if left else -(mT(X) @ gB)
    return [gA, mx.from_column(gB, vector) if needs[1] else None]


def _solve_jvp(tA, tB, A, B, *, result, left, vector, check_errors):
    X = mx.as_column(result[0], vector)
    rhs = None if tB is None else mx.as_column(tB, vector)
    if tA is not None:
        change = tA @ X if left else X @ tA
        rhs = -change if rhs is None else rhs - change
    return mx.from_column(_solve(A, rhs, left), vector), None


_solve_ex = primitive(
    "linalg_solve_ex",
    _solve_forward,
    vjp_all=_solve_vjp,
    kind=Generic(jvp=_solve_jvp),
    inputs=("A", "B"),
    outputs=("result", "info"),
    saves=("A", "result", "left"),  # PyTorch also saves A's LU factors, made inside
    node_name="LinalgSolveExBackward0",
    dtype_rule="keep",
    broadcast=True,
    num_outputs=2,
    plain_rules=True,
)


def _check_solve(op: str, A: Tensor, B: Tensor, left: bool) -> bool:
    mx.check_square(op, A)
    mx.check_tensor(op, B, "B")
    mx.check_float(op, A, B)
    vector = left and mx.is_vector_rhs(A, B)
    b = B._data.shape + ((1,) if vector else ())
    if len(b) < 2:
        raise RuntimeError(f"{op}: B must have at least 2 dimensions, got shape {list(b)}")
    n, size = A._data.shape[-1], (b[-2] if left else b[-1])
    if n != size:
        side = "rows" if left else "columns"
        raise RuntimeError(f"{op}: A is {n} by {n} but B has {size} {side}; they must match")
    mx.batch_shape(op, A._data.shape, b)
    return vector


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    """``(result, info)`` of ``solve``; info is nonzero where A is singular."""
    vector = _check_solve("linalg.solve_ex", A, B, left)
    return _SolveEx(*_solve_ex(A, B, left=left, vector=vector, check_errors=check_errors))


@accepts_out(same_dtype=True)
def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """X with ``A X = B`` (``X A = B`` when not ``left``); B is a vector or a batch of vectors
    when it has A's shape minus one dimension. LinAlgError if A is singular."""
    vector = _check_solve("linalg.solve", A, B, left)
    return _solve_ex(A, B, left=left, vector=vector, check_errors=True)[0]


# ----- triangular solve -----


def _trsm_forward(a, b, *, upper, left, unitriangular):
    # BLAS trsm, as PyTorch: no check for a zero on the diagonal (inf and nan come out).
    flags = {"side": int(not left), "lower": int(not upper), "diag": int(unitriangular)}
    if a.ndim == 2 and b.ndim == 2:  # one matrix, the common case: no batch to lay out
        x = np.empty(b.shape, a.dtype)
        if x.size:
            (trsm,) = sl.get_blas_funcs(("trsm",), (a, b))
            x[...] = trsm(1.0, a, b, **flags)
        return x
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = _broadcast(batch, a, b)
    x = np.empty(b.shape, a.dtype)
    if x.size == 0:
        return x
    (trsm,) = sl.get_blas_funcs(("trsm",), (a, b))
    for i in np.ndindex(*batch):
        x[i] = trsm(1.0, a[i], b[i], **flags)
    return x


def _triangle(M, upper, unitriangular):
    """The part of ``M`` a triangular solve reads (its tangent space)."""
    return M.triu(int(unitriangular)) if upper else M.tril(-int(unitriangular))


def _trsm_vjp(grad, A, B, *, result, needs, upper, left, unitriangular):
    gB = solve_triangular(mT(A), grad, upper=not upper, left=left, unitriangular=unitriangular)
    gA = None
    if needs[0]:
        X = result
        gA = _triangle(-(gB @ mT(X)) if left else -(mT(X) @ gB), upper, unitriangular)
    return [gA, gB if needs[1] else None]


def _trsm_jvp(tA, tB, A, B, *, result, upper, left, unitriangular):
    rhs = tB
    if tA is not None:
        dA = _triangle(tA, upper, unitriangular)
        change = dA @ result if left else result @ dA
        rhs = -change if rhs is None else rhs - change
    return solve_triangular(A, rhs, upper=upper, left=left, unitriangular=unitriangular)


_solve_triangular = primitive(
    "linalg_solve_triangular",
    _trsm_forward,
    vjp_all=_trsm_vjp,
    kind=Generic(jvp=_trsm_jvp),
    inputs=("self", "B"),
    saves=("self", "result", "upper", "left", "unitriangular"),
    node_name="LinalgSolveTriangularBackward0",
    dtype_rule="keep",
    broadcast=True,
)


@accepts_out(same_dtype=True)
def solve_triangular(
    A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False, out=None
) -> Tensor:
    """X with ``A X = B`` (``X A = B`` when not ``left``) for triangular A, reading only its
    upper or lower triangle (and taking its diagonal as ones when ``unitriangular``)."""
    op = "linalg.solve_triangular"
    mx.check_square(op, A)
    mx.check_matrix(op, B, "B")
    if A._data.dtype.kind != "f":  # PyTorch's kernel has no integer loop
        raise NotImplementedError(f'"triangular_solve_cpu" not implemented for {A.dtype}')
    mx.check_float(op, A)
    if B.dtype != A.dtype:  # PyTorch solves in A's dtype, casting B (integers included)
        B = B.to(A.dtype)
    n, size = A._data.shape[-1], B._data.shape[-2 if left else -1]
    if n != size:
        raise RuntimeError(
            f"{op}: A is {n} by {n} but B has {size} {'rows' if left else 'columns'}"
        )
    mx.batch_shape(op, A._data.shape, B._data.shape)
    return _solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


# PyTorch's words (its typos included: a test may match them), without the C++ source line
# PyTorch appends.
_REMOVED = " and will be removed in a future PyTorch release.\n"
_DEPRECATIONS = {
    "qr": "torch.qr is deprecated in favor of torch.linalg.qr"
    + _REMOVED
    + "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
    "Q, R = torch.qr(A, some)\nshould be replaced with\n"
    "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
    "cholesky": "torch.cholesky is deprecated in favor of torch.linalg.cholesky"
    + _REMOVED
    + "L = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
    "U = torch.cholesky(A, upper=True)\nshould be replaced with\n"
    "U = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for all "
    "valid (symmetric positive definite) inputs.",
    "triangular_solve": "torch.triangular_solve is deprecated in favor of "
    "torch.linalg.solve_triangular"
    + _REMOVED[1:]
    + "torch.linalg.solve_triangular has its arguments reversed and does not return a copy of "
    "one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
    "X = torch.linalg.solve_triangular(A, B).",
    "lu": "torch.lu is deprecated in favor of torch.linalg.lu_factor / "
    "torch.linalg.lu_factor_ex"
    + _REMOVED
    + "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
    "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
    "lu_solve": "torch.lu_solve is deprecated in favor of torch.linalg.lu_solve"
    + _REMOVED[1:]
    + "Note that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B)",
}


def _deprecated(name: str) -> None:
    """PyTorch's deprecation warning for ``torch.<name>``, once per process."""
    warn_once(_DEPRECATIONS[name])


@public()
def triangular_solve(
    input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular=False
):
    """Deprecated ``(solution, cloned_coefficient)``: X with ``op(A) X = input``, where op
    transposes when ``transpose``."""
    _deprecated("triangular_solve")
    if isinstance(input, Tensor) and isinstance(A, Tensor) and input.dtype != A.dtype:
        # unlike linalg.solve_triangular, the legacy function casts neither
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {input.dtype} and "
            f"A of type {A.dtype} instead."
        )
    coefficient = mT(A) if transpose else A
    x = solve_triangular(coefficient, input, upper=upper != transpose, unitriangular=unitriangular)
    # PyTorch's copy of A has the broadcast batch dims
    batch = tuple(x.shape[:-2])
    return _TriangularSolve(x, A.expand(*batch, *A.shape[-2:]).clone())


__all__ = exports(globals())
