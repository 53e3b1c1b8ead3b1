"""``torch.distributions.utils``: broadcasting parameters, probs <-> logits, lazy properties."""

from __future__ import annotations

from numbers import Number

import leafgrad as _lg

from .. import Tensor
from ..ops._inputs import size_mismatch_words

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060


def broadcast_all(*values) -> tuple:
    """Tensors of one broadcast shape from tensors and Python numbers; numbers take the
    first tensor's dtype, else the default dtype. ValueError for anything else."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or objects "
            "implementing __torch_function__."
        )
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), _lg.get_default_dtype())
    tensors = [v if isinstance(v, Tensor) else _lg.tensor(v, dtype=dtype) for v in values]
    return broadcast_tensors(*tensors)


def broadcast_tensors(*tensors) -> tuple:
    """``torch.broadcast_tensors`` with its RuntimeError for shapes that do not broadcast."""
    # leafgrad.broadcast_tensors lets NumPy's ValueError through, and a user's
    # Normal(zeros(2), ones(3)) must fail as PyTorch's does
    shapes = [list(t.shape) for t in tensors]
    try:
        _lg.broadcast_shapes(*shapes)
    except RuntimeError:
        raise RuntimeError(size_mismatch_words(shapes)) from None
    return _lg.broadcast_tensors(*tensors)


def _standard_normal(shape, dtype) -> Tensor:
    return _lg.empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its rightmost ``dim`` dims."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """``sigmoid(logits)`` if binary, else ``softmax`` over the last dim."""
    if is_binary:
        return _lg.sigmoid(logits)
    return _lg.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` clamped into ``[eps, 1 - eps]`` of their dtype, so their logs are finite."""
    eps = _lg.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """``log(p) - log1p(-p)`` if binary, else ``log(p)``, on clamped probabilities."""
    clamped = clamp_probs(probs)
    if is_binary:
        return _lg.log(clamped) - _lg.log1p(-clamped)
    return _lg.log(clamped)


def _tril_flat_index(n: int, diag: int) -> Tensor:
    """Flat indices ``i * n + j`` of the entries with ``j <= i + diag``, row by row."""
    rows, cols = _lg.tril_indices(n, n, offset=diag)
    return rows * n + cols


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of ``mat: (..., n, n)`` on and below diagonal ``diag``, row by row;
    ValueError unless ``-n <= diag < n``."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    flat = mat.reshape(tuple(mat.shape[:-2]) + (n * n,))
    return flat.index_select(-1, _tril_flat_index(n, diag))


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of ``tril_matrix_to_vec``: ``(..., k) -> (..., n, n)`` with zeros above
    diagonal ``diag``; ValueError when ``k`` is no such count of entries."""
    # k = n (n + 1) / 2 + n diag - diag (diag + 1) / 2 for diag <= 0: solve for n
    k = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * k + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > _lg.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {k} which cannot be expressed as the "
            "lower triangular part of a square D x D matrix."
        )
    n = round(n)
    # gather from the vector padded with one zero: entries above the band read that zero
    index = _lg.full((n * n,), k, dtype=_lg.long)
    index[_tril_flat_index(n, diag)] = _lg.arange(k)
    padded = _lg.cat([vec, vec.new_zeros(tuple(vec.shape[:-1]) + (1,))], -1)
    return padded.index_select(-1, index).reshape(tuple(vec.shape[:-1]) + (n, n))


class lazy_property:
    """A property computed on first read (with grad enabled) and then stored on the
    instance, so ``probs`` and ``logits`` can each be derived from the other."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with _lg.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
