"""``linalg``'s norms and condition number, composed as PyTorch composes them: vector norms
are the one norm primitive (``LinalgVectorNormBackward0``); matrix 1- and inf-norms reduce a
vector 1-norm with amax/amin; the 2-norm, -2-norm and nuclear norm go through ``svdvals``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._tensor import Tensor, _normalize_dim
from . import _matrices as mx
from ._out import accepts_out
from .decompositions import svdvals
from .piecewise import where
from .solvers import inv_ex


@accepts_out(same_dtype=True)
def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None):
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (every element when None); ``ord`` any number,
    inf and -inf (max, min of ``|x|``) and 0 (the count of nonzeros) included."""
    mx.check_tensor("linalg.vector_norm", x, "x")
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise TypeError(f"linalg.vector_norm(): ord must be a number, not {ord!r}")
    if isinstance(dim, int):
        dim = (dim,)
    return x.norm(float(ord), dim, keepdim, dtype=dtype)


def _matrix_dims(op: str, A: Tensor, dim) -> tuple:
    mx.check_tensor(op, A)
    if A.dim() < 2:
        raise RuntimeError(
            f"{op}: The input tensor A must have at least 2 dimensions. (It has {A.dim()}.)"
        )
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        got = " ".join(str(d) for d in dim) if isinstance(dim, (tuple, list)) else dim
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {got}")
    d0, d1 = (_normalize_dim(d, A.dim(), op) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different, got {tuple(dim)}")
    return d0, d1


def _over_singular_values(A: Tensor, dims: tuple, keepdim: bool, reduce) -> Tensor:
    """``reduce`` of the singular values of the matrices spanned by ``dims``."""
    nd = A.dim()
    rest = [d for d in range(nd) if d not in dims]
    permutation = rest + list(dims)
    out = reduce(svdvals(A.permute(*permutation)))
    if not keepdim:
        return out
    out = out.unsqueeze(-1).unsqueeze(-1)
    return out.permute(*np.argsort(permutation).tolist())


@accepts_out(same_dtype=True)
def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None):
    """Matrix norm over the two ``dim``: 'fro', 'nuc', 1 / -1 (max / min column sum of
    ``|A|``), inf / -inf (row sums), 2 / -2 (largest / smallest singular value)."""
    op = "linalg.matrix_norm"
    d0, d1 = _matrix_dims(op, A, dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if dtype is not None:
        A = A.to(dtype)
    mx.check_float(op, A)
    if ord == "nuc":
        return _over_singular_values(A, (d0, d1), keepdim, lambda s: s.sum(-1))
    if isinstance(ord, str) or ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"{op}: order {ord!r} is not supported")
    if ord > 0 and A.numel() == 0:
        # PyTorch gives 0 for the positive orders of empty matrices (the Frobenius norm's
        # zeros, of the reduced shape); the negative ones raise amin's IndexError below
        return vector_norm(A, 2, (d0, d1), keepdim)

    def extreme(t, d):
        return t.amax(d, keepdim) if ord > 0 else t.amin(d, keepdim)

    if abs(ord) == 2:
        largest = ord > 0
        return _over_singular_values(
            A, (d0, d1), keepdim, lambda s: s.amax(-1) if largest else s.amin(-1)
        )
    if math.isinf(ord):  # the inf norm is the 1 norm of the transpose
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    return extreme(vector_norm(A, 1, d0, keepdim), d1)


@accepts_out(same_dtype=True)
def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None, out=None):
    """A vector norm, or a matrix norm when ``dim`` has two dims (or A is 2-D and ``dim`` is
    None) and ``ord`` is given; ``ord=None``: the 2-norm of the flattened input."""
    op = "linalg.norm"
    mx.check_tensor(op, A)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(f"{op}: dim must have length 1 or 2 when given, got {tuple(dim)}")
    if isinstance(ord, str):
        if dim is None and A.dim() != 2:
            raise RuntimeError(f"{op}: ord {ord!r} needs a 2-D input or a 2-tuple dim")
        return matrix_norm(A, ord, dim or (0, 1), keepdim, dtype=dtype)
    if dim is None and ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(
            f"{op}: with ord and no dim the input must be 1-D or 2-D, got {A.dim()}-D"
        )
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2)):
        return matrix_norm(A, ord, dim or (0, 1), keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


@accepts_out(same_dtype=True)
def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """The condition number in the norm ``p``: through the singular values for None, 2 and
    -2 (any matrix), else ``norm(A) * norm(inv(A))`` (square; inf where singular)."""
    op = "linalg.cond"
    mx.check_linalg(op, A, square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        S = svdvals(A)
        largest, smallest = S.narrow(-1, 0, 1), S.narrow(-1, S.shape[-1] - 1, 1)
        ratio = smallest / largest if p == -2 else largest / smallest
        return ratio.squeeze(-1)
    inverse, info = inv_ex(A)
    singular = info > 0
    # the identity stands in for the missing inverses, whose norms would be nan, not inf
    inverse = where(singular.unsqueeze(-1).unsqueeze(-1), mx.eye(A.shape[-1], A), inverse)
    return where(singular, math.inf, matrix_norm(A, p) * matrix_norm(inverse, p))
