"""Determinants: ``det``, ``slogdet``, ``logdet`` (functions and Tensor methods; ``det`` and
``slogdet`` are also ``leafgrad.linalg``'s).

``d det / dA = det A^-T`` where A is invertible. Where it is singular (``|det| < 100 eps``,
PyTorch's threshold) the gradient follows PyTorch's two paths: with ``create_graph`` the
adjugate through the SVD, ``U diag(prod_{j != i} S_j) Vh`` times the signs of ``det U`` and
``det Vh`` (a finite gradient with a second derivative); without, ``det A^-T`` by A's LU
factors with zero pivots moved to eps, which is 0 where det is exactly 0.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.linalg

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from . import _matrices as mx
from ._matrices import diag_embed, mT
from ._optable import Generic
from ._out import accepts_out
from ._plain import values_of
from ._primitive import primitive
from ._returned import returned
from .broadcast import _expand
from .decompositions import _svd
from .joining import cat
from .piecewise import where
from .shape import unsqueeze
from .solvers import _solve
from .trace_diag import diag_embed as _diag_embed

_Slogdet = returned("linalg_slogdet", ["sign", "logabsdet"])
_SlogdetTop = returned("slogdet", ["sign", "logabsdet"])


def _others_product(S: Tensor) -> Tensor:
    """``out[..., i] = prod_{j != i} S[..., j]``, without dividing (S may hold zeros)."""
    n = S._data.shape[-1]
    on_diagonal = _wrap(np.eye(n, dtype=bool))
    return where(on_diagonal, 1.0, S.unsqueeze(-2).expand(S._data.shape + (n,))).prod(-1)


def _adjugate_by_svd(A: Tensor) -> Tensor:
    U, S, Vh = _svd(A, full_matrices=True)
    # det U and det Vh are +-1 and locally constant: constants, not part of the graph
    signs = np.linalg.det(U._data) * np.linalg.det(Vh._data)
    return (U * (_others_product(S) * _wrap(signs)[..., None]).unsqueeze(-2)) @ Vh


def _adjugate_by_solve(A: Tensor, det: Tensor) -> Tensor:
    n = A.shape[-1]
    return _solve(mT(A), unsqueeze(unsqueeze(det, -1), -1) * mx.eye(n, A))


def _cofactors(A: Tensor, det: Tensor) -> Tensor:
    """``d det(A) / dA`` (the transposed adjugate), batch by batch the stable formula.
    Invertible matrices also on a plain rule's arrays; the SVD's formula takes tensors."""
    a = values_of(A)
    if a.size == 0:
        return A * 0
    singular = np.abs(values_of(det)) < 100 * np.finfo(a.dtype).eps
    if not singular.any():
        return _adjugate_by_solve(A, det)
    if type(A) is np.ndarray:  # a plain rule (no create_graph): PyTorch's LU path
        return _cofactors_by_perturbed_lu(A, values_of(det))
    if singular.all():
        return _adjugate_by_svd(A)
    # Each formula on its own matrices: the solve has no answer for the singular ones.
    n = A._data.shape[-1]
    flat, dets = A.reshape(-1, n, n), det.reshape(-1)
    bad = np.flatnonzero(singular.reshape(-1))
    good = np.flatnonzero(~singular.reshape(-1))
    parts = cat(
        [
            _adjugate_by_svd(flat[_wrap(bad)]),
            _adjugate_by_solve(flat[_wrap(good)], dets[_wrap(good)]),
        ]
    )
    return parts[_wrap(np.argsort(np.concatenate([bad, good])))].reshape(A._data.shape)


def _cofactors_by_perturbed_lu(a: np.ndarray, det: np.ndarray) -> np.ndarray:
    """``det A^-T`` as PyTorch's backward without ``create_graph`` makes it: solved with A's
    LU factors, a zero pivot moved to eps (so 0 where det is exactly 0; the SVD's adjugate
    is only its ``create_graph`` path)."""
    n = a.shape[-1]
    flat, dets = a.reshape(-1, n, n), np.broadcast_to(det, a.shape[:-2]).reshape(-1)
    out = np.empty_like(flat)
    eps = np.finfo(a.dtype).eps
    for i in range(len(flat)):
        with warnings.catch_warnings():  # SciPy warns of the zero pivots PyTorch perturbs
            warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
            lu, pivots = scipy.linalg.lu_factor(flat[i], check_finite=False)
        pivot_row = np.diagonal(lu)
        lu[np.diag_indices(n)] = np.where(pivot_row == 0, eps, pivot_row)
        identity = np.eye(n, dtype=a.dtype) * dets[i]
        out[i] = scipy.linalg.lu_solve((lu, pivots), identity, trans=1, check_finite=False)
    return out.reshape(a.shape)


def _det_forward(a):
    """``np.linalg.det``, NaN where a matrix holds NaN (LAPACK's pivoting can give 0 there;
    PyTorch gives NaN)."""
    det = np.linalg.det(a)
    nan = np.isnan(a).any(axis=(-2, -1)) if a.size else False
    if np.any(nan):
        det = np.where(nan, np.nan, det).astype(det.dtype, copy=False)
    return det


def _det_vjp(grad, A, *, result):
    if values_of(A).size and not _any_singular(A, result):
        return _det_grad_by_solve(grad, A, result)
    return unsqueeze(unsqueeze(grad, -1), -1) * _cofactors(A, result)


def _any_singular(A: Tensor, det: Tensor) -> bool:
    """Whether a determinant is below PyTorch's threshold for the singular formula."""
    a = values_of(A)
    return bool((np.abs(values_of(det)) < 100 * np.finfo(a.dtype).eps).any())


def _det_grad_by_solve(grad, A, det):
    """PyTorch's linalg_det_backward on invertible matrices, op for op with grad mode on:
    ``solve(A^H, diag_embed(grad conj(det)))``, the diagonal expanded and transposed there
    (a second derivative differentiates each of those steps); on a plain rule's arrays too,
    so both give the same bits."""
    diagonal = _expand(unsqueeze(grad * det, -1), shape=values_of(A).shape[:-1])
    d = mT(_diag_embed(diagonal, offset=0, dim1=-2, dim2=-1))
    return _solve(mT(A), d)


def _det_jvp(tA, A, *, result):
    return (_cofactors(A, result) * tA).sum((-2, -1))


_det = primitive(
    "linalg_det",
    _det_forward,
    _det_vjp,
    kind=Generic(jvp=_det_jvp),
    inputs=("A",),
    saves=("A", "result"),  # PyTorch also saves its LU factors, made inside
    node_name="LinalgDetBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


@public()
@accepts_out(same_dtype=True)
def det(A: Tensor, *, out=None) -> Tensor:
    """The determinant of a (batch of) square matrix."""
    mx.check_linalg("linalg.det", A)
    return _det(A)


def _slogdet_forward(a):
    sign, logabsdet = np.linalg.slogdet(a)
    return sign.astype(a.dtype, copy=False), logabsdet.astype(a.dtype, copy=False)


def _slogdet_vjp(grads, A, *, result, needs):
    g = grads[1]  # the sign of a real matrix is locally constant
    n = A.shape[-1]
    # expand past its argument handling (the sizes are explicit): arrays too, in a plain rule
    return [_solve(mT(A), diag_embed(_expand(unsqueeze(g, -1), shape=tuple(g.shape) + (n,))))]


def _slogdet_jvp(tA, A, *, result):
    sign = result[0]
    return _wrap(np.zeros_like(sign._data)), _solve(A, tA).diagonal(0, -2, -1).sum(-1)


_slogdet = primitive(
    "linalg_slogdet",
    _slogdet_forward,
    vjp_all=_slogdet_vjp,
    kind=Generic(jvp=_slogdet_jvp),
    inputs=("A",),
    outputs=("sign", "logabsdet"),
    saves=("A", "sign"),  # PyTorch also saves its LU factors, made inside
    node_name="LinalgSlogdetBackward0",
    dtype_rule="keep",
    num_outputs=2,
    plain_rules=True,
)


@accepts_out(same_dtype=True)
def linalg_slogdet(A: Tensor, *, out=None):
    """``(sign, logabsdet)``: the sign of the determinant (0 if singular) and the log of its
    absolute value (-inf if singular); the gradient reaches A through ``logabsdet`` only."""
    mx.check_linalg("linalg.slogdet", A)
    return _Slogdet(*_slogdet(A))


@public()
def slogdet(input: Tensor):
    """``linalg.slogdet``, as ``torch.slogdet``'s named tuple."""
    mx.check_linalg("slogdet", input)
    return _SlogdetTop(*_slogdet(input))


@public()
def logdet(input: Tensor) -> Tensor:
    """The log of the determinant: nan where it is negative, -inf where it is 0."""
    mx.check_linalg("logdet", input)
    sign, logabsdet = _slogdet(input)
    return where(sign == -1, math.nan, logabsdet)


__all__ = exports(globals())
