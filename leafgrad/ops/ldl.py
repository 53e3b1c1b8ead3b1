"""The LDL family: ``linalg.ldl_factor(_ex)`` and ``linalg.ldl_solve``.

``A = P L D L^T P^T`` for a symmetric A by Bunch-Kaufman pivoting (LAPACK's sytrf on the
lower triangle, as PyTorch calls it): ``LD`` packs L (unit diagonal, below) and the 1x1 and
2x2 blocks of D, with the strict upper triangle zeroed; ``pivots`` are LAPACK's 1-based
int32 interchanges, negative for a 2x2 block. PyTorch defines no derivative for either op:
results of inputs requiring grad are recorded, and backward raises. leafgrad has no complex
dtype, so ``hermitian`` changes nothing (for real matrices the two factorizations agree).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from .._batched import all_values
from .._tensor import Tensor
from . import _matrices as mx
from ._optable import NoDerivative
from ._primitive import primitive
from ._returned import returned

_LDLFactor = returned("linalg_ldl_factor", ["LD", "pivots"])
_LDLFactorEx = returned("linalg_ldl_factor_ex", ["LD", "pivots", "info"])


def _sytrf(a):
    """Packed LD (lower), 1-based int32 pivots and info per matrix of ``a: (*, n, n)``."""
    batch, n = a.shape[:-2], a.shape[-1]
    ld = np.zeros_like(a)
    piv = np.tile(np.arange(1, n + 1, dtype=np.int32), batch + (1,))
    info = np.zeros(batch, np.int32)
    if a.size:
        (sytrf,) = sl.get_lapack_funcs(("sytrf",), (a,))
        for i in np.ndindex(*batch):
            packed, piv[i], info[i] = sytrf(a[i], lower=1)
            ld[i] = np.tril(packed)
    return ld, piv, info


_ldl_factor_ex = primitive(
    "linalg_ldl_factor_ex", _sytrf, kind=NoDerivative(), dtype_rule="keep", num_outputs=3
)


def _sytrs(ld, piv, b):
    """X with ``A X = B`` from sytrf's factors; batch dimensions broadcast."""
    batch = np.broadcast_shapes(ld.shape[:-2], piv.shape[:-1], b.shape[:-2])
    ld = np.broadcast_to(ld, batch + ld.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]))
    if x.size:
        (sytrs,) = sl.get_lapack_funcs(("sytrs",), (ld,))
        for i in np.ndindex(*batch):
            x[i], _ = sytrs(ld[i], piv[i].astype(np.int32), x[i], lower=1)
    return x


_ldl_solve = primitive("linalg_ldl_solve", _sytrs, kind=NoDerivative(), dtype_rule="keep")


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out=None):
    """``(LD, pivots, info)`` of the symmetric ``A`` (its lower triangle is read); ``info =
    k > 0``: ``D[k-1, k-1]`` is exactly zero (the factors are still complete)."""
    op = "torch.linalg.ldl_factor_ex"
    mx.check_tensor(op, A)
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    mx.check_linalg(op, A)
    LD, pivots, info = _ldl_factor_ex(A)
    if check_errors:
        _raise_on_zero_pivot(op, all_values(info))
    return _LDLFactorEx(LD, pivots, info)


def _raise_on_zero_pivot(op: str, infos: np.ndarray) -> None:
    if infos.any():
        # PyTorch fails here too (a RuntimeError from an internal assert)
        raise RuntimeError(
            mx.failure(op, infos, lambda k: f"D[{k - 1},{k - 1}] is exactly zero, so A is "
                       "singular and ldl_solve would divide by it; use ldl_factor_ex without "
                       "check_errors to get the factors anyway").args[0]
        )  # fmt: skip


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None):
    """``(LD, pivots)`` of the symmetric ``A``; RuntimeError if D has an exact zero."""
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_on_zero_pivot("torch.linalg.ldl_factor", all_values(info))
    return _LDLFactor(LD, pivots)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out=None):
    """X with ``A X = B`` for A factored by ``ldl_factor``; batch dimensions broadcast."""
    op = "torch.linalg.ldl_solve"
    mx.check_tensor(op, LD, "LD")
    mx.check_tensor(op, pivots, "pivots")
    mx.check_tensor(op, B, "B")
    if B.dim() < 2:
        raise IndexError(
            f"{op}: B must be a (batch of) matrices (n, k), got shape {list(B.shape)}; for a "
            "vector b use B = b.unsqueeze(-1)"
        )
    mx.check_square(op, LD, "LD")
    if B.dtype != LD.dtype:
        raise RuntimeError(
            f"{op}: Expected b and A to have the same dtype, got B {B.dtype} and LD {LD.dtype}"
        )
    if pivots.dtype.is_floating_point:
        raise RuntimeError(f"{op}: pivots must be an integer tensor, got {pivots.dtype}")
    n = LD.shape[-1]
    if B.shape[-2] != n or pivots.shape[-1] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b "
            f"matrix is {B.shape[-2]} by {B.shape[-1]} (pivots: {pivots.shape[-1]})"
        )
    mx.batch_shape(op, tuple(LD.shape), tuple(pivots.shape) + (1,), tuple(B.shape))
    return _ldl_solve(LD, pivots, B)


__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]
