"""``torch.linalg``: every real-valued function, batched over leading dimensions.

The maths lives in ``leafgrad.ops`` (solvers, cholesky, lu, ldl, decompositions, determinants,
matrix_functions, norms); this module names it as PyTorch does and adds the few functions
that only rearrange others. ``eig`` and ``eigvals``, whose results are complex, raise
NotImplementedError (leafgrad has no complex dtype) pointing to ``eigh``.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype
from ._exposure import numpy_names
from ._tensor import Tensor, _wrap
from .ops._matrices import LinAlgError, check_tensor
from .ops.cholesky import cholesky_ex
from .ops.cholesky import linalg_cholesky as cholesky
from .ops.composites import cross as _cross
from .ops.decompositions import eigh, eigvalsh, svdvals
from .ops.decompositions import linalg_qr as qr
from .ops.decompositions import linalg_svd as svd
from .ops.determinants import det
from .ops.determinants import linalg_slogdet as slogdet
from .ops.joining import stack
from .ops.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from .ops.lu import linalg_lu as lu
from .ops.lu import linalg_lu_solve as lu_solve
from .ops.lu import lu_factor, lu_factor_ex
from .ops.matmul import matmul
from .ops.matrix_functions import (
    householder_product,
    lstsq,
    matrix_exp,
    matrix_power,
    matrix_rank,
    multi_dot,
    pinv,
)
from .ops.norms import cond
from .ops.norms import matrix_norm as _matrix_norm
from .ops.norms import norm as _norm
from .ops.norms import vector_norm as _vector_norm
from .ops.solvers import inv, inv_ex, solve, solve_ex, solve_triangular

# PyTorch's linalg functions are native: they take NumPy's axis= and keepdims= too.
matrix_norm, norm, vector_norm = map(numpy_names, (_matrix_norm, _norm, _vector_norm))


@numpy_names
def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """The cross product along ``dim`` (size 3); batch dimensions broadcast."""
    check_tensor("linalg.cross", input)
    check_tensor("linalg.cross", other, "other")
    if input.dim() != other.dim():  # PyTorch broadcasts sizes, not missing dims
        raise RuntimeError(
            "linalg.cross: inputs must have the same number of dimensions. (got "
            f"{input.dim()} and {other.dim()})"
        )
    return _cross(input, other, dim=dim)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The ``offset`` diagonal of the matrices spanned by ``dim1`` and ``dim2``."""
    check_tensor("linalg.diagonal", A)
    return A.diagonal(offset, dim1, dim2)


@numpy_names
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """The dot product along ``dim``; batch dimensions broadcast."""
    check_tensor("linalg.vecdot", x, "x")
    check_tensor("linalg.vecdot", y, "y")
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"linalg.vecdot: expected x and y of one dtype, got {x.dtype} and {y.dtype}"
        )
    if not x.is_floating_point():
        raise RuntimeError(
            f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {x.dtype}"
        )
    return (x * y).sum(dim)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """``(*, n)`` -> ``(*, n, N)``: the powers ``x^0, ..., x^(N-1)`` of each element."""
    check_tensor("linalg.vander", x, "x")
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    if x.dtype is _dtype.bool:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got Bool"
        )
    N = x.shape[-1] if N is None else N
    if N <= 1:  # PyTorch refuses the one- and no-column tables too
        raise RuntimeError(f"N must be greater than 1. (linalg.vander got N={N})")
    columns = [_wrap(np.ones(x.shape, x._data.dtype))] if N else []
    for _ in range(1, N):
        columns.append(columns[-1] * x)
    if not columns:
        return _wrap(np.empty(tuple(x.shape) + (0,), x._data.dtype))
    return stack(columns, -1)


def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """The inverse of A as a linear map from its first ``ind`` dims to the rest (reshaped)."""
    check_tensor("linalg.tensorinv", A)
    if ind <= 0:
        raise RuntimeError(f"linalg.tensorinv: ind must be positive, got {ind}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(
            f"linalg.tensorinv: the product of the first {ind} dims ({math.prod(rows)}) must "
            f"equal that of the rest ({math.prod(cols)})"
        )
    return inv(A.reshape(math.prod(rows), math.prod(cols))).reshape(*cols, *rows)


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """X with ``tensordot(A, X, X.ndim) = B``; ``dims``: A's dims to move to the end first."""
    check_tensor("linalg.tensorsolve", A)
    check_tensor("linalg.tensorsolve", B, "B")
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = A.permute(*[d for d in range(A.dim()) if d not in dims], *dims)
    rest = A.shape[B.dim() :]
    rows, cols = math.prod(B.shape), math.prod(rest)
    if rows != cols:
        raise RuntimeError(
            f"linalg.tensorsolve: expected prod(A.shape[B.ndim:]) ({cols}) to equal B.numel() "
            f"({rows})"
        )
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(*rest)


def _complex_results(op: str, A) -> NotImplementedError:
    shape = list(A.shape) if isinstance(A, Tensor) else type(A).__name__
    return NotImplementedError(
        f"linalg.{op}: the eigenvalues of a general real matrix (here {shape}) are complex, and "
        "PyTorch returns them as a complex tensor even when they are real; leafgrad has no "
        "complex dtype. For a symmetric matrix use linalg.eigh(A) or linalg.eigvalsh(A) (real "
        "and differentiable); otherwise compute without autograd with "
        "numpy.linalg.eig(A.detach().numpy())."
    )


# The notes PyTorch's linalg docstrings share, by the same keys (our words; nothing here
# runs on a device, so the synchronisation notes say so).
common_notes = {
    "experimental_warning": 'This function is "experimental" and may change in a future release.',
    "sync_note": "Inputs on a CUDA device would make this function synchronize with the CPU "
    "(leafgrad runs on the CPU only).",
    "sync_note_ex": "Inputs on a CUDA device would make this function synchronize only when "
    ":attr:`check_errors` is True (leafgrad runs on the CPU only).",
    "sync_note_has_ex": "Inputs on a CUDA device would make this function synchronize with the "
    "CPU; {} does not (leafgrad runs on the CPU only).",
}


def eig(A: Tensor, *, out=None):
    """Refused with NotImplementedError: its results are complex (see ``eigh``)."""
    raise _complex_results("eig", A)


def eigvals(A: Tensor, *, out=None):
    """Refused with NotImplementedError: its results are complex (see ``eigvalsh``)."""
    raise _complex_results("eigvals", A)


__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "common_notes",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]
