"""Quantiles (quantile, nanquantile) and the NaN-ignoring sum and mean (nansum, nanmean).

As in PyTorch, quantiles and nanmean are composites: a quantile sorts, takes the two order
statistics around its rank with a differentiable gather and interpolates between them, so
the gradient goes to those two elements (weights ``1 - w`` and ``w``) and to nothing else;
nanmean is nansum over the count of numbers. nansum is a primitive whose gradient is the
incoming one times the not-NaN mask.
"""

from __future__ import annotations

import numpy as np

from .._dtype import as_dtype, from_numpy_dtype
from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._batch_whole import batches_quantile
from ._optable import Generic
from ._out import with_out
from ._plain import cast_like, operand, values_of
from ._primitive import primitive
from ._reduce import (
    _dims,
    _int_to_long,
    _np_axis,
    _one_dim,
    _require_tensor,
    _restore,
    check_keepdim,
)
from .composites import sort
from .indexing import gather
from .piecewise import where
from .reduction import sum as _sum

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _q_array(q, input: Tensor, op: str, rows: bool = False) -> np.ndarray:
    """``q`` as an array of the input's dtype (0-d or 1-D; with ``rows``, one such per entry of
    the input's dim 0), range-checked as PyTorch does."""
    dt = input._data.dtype
    if isinstance(q, Tensor):
        if q._data.ndim > 1 + rows:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor, got shape {list(q.shape)}")
        if q._data.dtype != dt:
            raise RuntimeError(
                f"{op}() q tensor must be same dtype as the input tensor: q is {q.dtype}, input "
                f"{input.dtype}; convert q with .to(input.dtype)"
            )
        values = q._data
        if not bool(np.all((values >= 0) & (values <= 1))):
            raise RuntimeError(
                f"{op}() q values must be in the range [0, 1], got {values.tolist()}"
            )
        return values
    if isinstance(q, (list, tuple)):
        raise TypeError(f"{op}(): q must be a float or a Tensor, not {type(q).__name__}")
    if not 0 <= q <= 1:
        raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
    return np.asarray(q, dtype=dt)


def _q_against(q, ndim: int, rows: bool):
    """``q`` shaped ``(quantiles, 1, ..., 1)`` against sorted rows of ``ndim`` dims; with
    ``rows`` (one q per entry of the rows' dim 0, vmap's batch) ``(quantiles, R, 1, ...)``."""
    if not rows:
        return q.reshape((-1,) + (1,) * ndim)
    q = q.reshape(q.shape[0], -1).T
    return q.reshape(tuple(q.shape) + (1,) * (ndim - 1))


def _ranks(sorted_data, q, ignore_nan: bool, interpolation: str, rows: bool = False):
    """Per quantile and row, the (fractional) position in the sorted row, as PyTorch's
    quantile_compute computes it in the input's dtype: shape ``(len(q), *rows, 1)``."""
    n = sorted_data.shape[-1]
    q = _q_against(q, sorted_data.ndim, rows)
    nan = np.isnan(sorted_data)
    if ignore_nan:
        # All-NaN rows get rank 0, whose value is NaN.
        count = (n - nan.sum(axis=-1, keepdims=True)).astype(sorted_data.dtype)
        ranks = np.maximum(q * (count - 1), 0)
    else:
        # A NaN anywhere in a row makes the rank the last index, where the NaN sorts.
        last = np.asarray(n - 1, dtype=sorted_data.dtype)
        ranks = np.where(nan.any(axis=-1, keepdims=True), last, q * last)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # half to even, as torch.round
    return ranks


def _rank_tangent(q: Tensor, sorted_data, ranks, ignore_nan: bool, rows: bool = False):
    """Zero in value, ``d rank / d q`` in gradient: the linear mode's weight is differentiable
    in ``q`` (as PyTorch's: the rank is ``q`` times the last index, or times the count of
    numbers less one; a constant where a NaN or an all-NaN row fixes it)."""
    n = sorted_data.shape[-1]
    nan = np.isnan(sorted_data)
    if ignore_nan:
        count = n - nan.sum(axis=-1, keepdims=True)
        fixed, scale = count == 0, count - 1
    else:
        fixed, scale = nan.any(axis=-1, keepdims=True), np.full(nan.shape[:-1] + (1,), n - 1)
    q = _q_against(q, sorted_data.ndim, rows)
    tangent = (q - q.detach()) * _wrap(scale.astype(ranks.dtype))
    # PyTorch's masked_fill cuts a fixed rank off from q: no gradient (not 0 times a NaN).
    return where(_wrap(np.broadcast_to(fixed, ranks.shape)), 0.0, tangent)


@batches_quantile
def _quantile(op, input, q, dim, keepdim, interpolation, ignore_nan, q_rows=False) -> Tensor:
    """The quantiles; ``q_rows``: ``q`` has one (0-d or 1-D) q per entry of the input's dim 0
    (vmap's batch, which ``dim`` then never names)."""
    _require_tensor(input, op)
    if input._data.dtype not in (np.float32, np.float64):
        raise RuntimeError(
            f"{op}() input tensor must be either float or double dtype, got {input.dtype}; "
            "convert with .float() or .double() first"
        )
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    qs = _q_array(q, input, op, q_rows)
    if input._data.size == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty (shape {list(input.shape)})")
    ndim = input._data.ndim
    if dim is None:
        rows = input.reshape(-1)
        out_shape = (1,) * ndim if keepdim else ()
    else:
        d = _one_dim(dim, ndim, op)
        rows = input.movedim(d, -1) if ndim else input.reshape(1)
        shape = list(input._data.shape)
        if shape:
            shape[d] = 1
            out_shape = tuple(shape) if keepdim else tuple(shape[:d] + shape[d + 1 :])
        else:
            out_shape = ()
    ordered = sort(rows, -1).values
    ranks = _ranks(ordered._data, qs, ignore_nan, interpolation, q_rows)
    expanded = ordered.unsqueeze(0).expand((ranks.shape[0],) + ordered._data.shape)
    below_idx = ranks.astype(np.int64)
    values = gather(expanded, -1, _wrap(below_idx))
    if interpolation in ("linear", "midpoint"):
        above = gather(expanded, -1, _wrap(np.ceil(ranks).astype(np.int64)))
        if interpolation == "midpoint":
            weights = _wrap(np.full_like(ranks, 0.5))
        else:
            weights = _wrap(ranks - below_idx.astype(ranks.dtype))
            if isinstance(q, Tensor) and q.requires_grad:
                weights = weights + _rank_tangent(q, ordered._data, ranks, ignore_nan, q_rows)
        values = values + weights * (above - values)
    values = values.reshape((ranks.shape[0],) + out_shape)
    return values.squeeze(0) if qs.ndim == q_rows else values


def _into(op: str, compute, out) -> Tensor:
    """``out=`` for the quantiles: PyTorch composes them, so writing a result that requires
    grad into ``out`` is a differentiable copy (CopyBackwards), not a refusal."""
    result = compute()
    if not result.requires_grad:
        return with_out(op, lambda: result, (), out)
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): out= must be a Tensor, got {type(out).__name__}")
    if out._data.shape != result._data.shape:
        out.resize_(result._data.shape)
    return out.copy_(result)


@public()
def quantile(
    input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None
) -> Tensor:
    """The ``q``-th quantiles (a float or a 0-d/1-D tensor in [0, 1]) of ``input`` along
    ``dim`` (all elements when None); a 1-D ``q`` adds a leading dimension. A row with a NaN
    gives NaN. ``interpolation``: linear, lower, higher, midpoint or nearest."""
    check_keepdim(keepdim, "quantile")
    if out is not None:
        compute = lambda: quantile(input, q, dim, keepdim, interpolation=interpolation)
        return _into("quantile", compute, out)
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@public()
def nanquantile(
    input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None
) -> Tensor:
    """As ``quantile``, ignoring NaNs (NaN only where a whole row is NaN)."""
    check_keepdim(keepdim, "nanquantile")
    if out is not None:
        compute = lambda: nanquantile(input, q, dim, keepdim, interpolation=interpolation)
        return _into("nanquantile", compute, out)
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# ----- nansum / nanmean -----


def _nansum_forward(x, *, dim, keepdim, dtype):
    return np.nansum(x, axis=_np_axis(x, dim), keepdims=keepdim, dtype=dtype)


def _not_nan(x: Tensor) -> Tensor:
    """1 where ``x`` is not NaN, else 0, in its dtype (a tensor, or an array in a plain rule)."""
    mask = np.asarray(~np.isnan(values_of(x)))  # an array even for 0-d x
    return cast_like(operand(mask, x), x)


_nansum = primitive(
    "nansum",
    _nansum_forward,
    # PyTorch multiplies by the mask, so an infinite gradient still makes NaN at a NaN.
    lambda grad, x, result, *, dim, keepdim, dtype: (
        _restore(grad, tuple(x.shape), dim, keepdim) * _not_nan(x)
    ),
    kind=Generic(
        jvp=lambda tx, x, result, *, dim, keepdim, dtype: where(x.isnan(), 0.0, tx).sum(
            dim, keepdim=keepdim, dtype=None if dtype is None else from_numpy_dtype(dtype)
        )
    ),
    saves=("self", "dim", "keepdim"),
    node_name="NansumBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


@public()
def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``sum`` treating NaNs as zero (they get no gradient); integers sum in int64."""
    check_keepdim(keepdim, "nansum")
    if out is not None:
        return with_out("nansum", lambda: nansum(input, dim, keepdim, dtype=dtype), (input,), out)
    _require_tensor(input, "nansum")
    x = input._data
    dims = _dims(dim, x.ndim, "nansum")
    if dims is None and keepdim:
        dims = tuple(range(x.ndim))
    np_dtype = _int_to_long(x, None if dtype is None else as_dtype(dtype).np)
    return _nansum(input, dim=dims, keepdim=keepdim, dtype=np_dtype)


@public()
def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The mean of the non-NaN elements over ``dim`` (NaN where there are none); floating
    inputs and dtypes only."""
    check_keepdim(keepdim, "nanmean")
    if out is not None:
        return with_out("nanmean", lambda: nanmean(input, dim, keepdim, dtype=dtype), (input,), out)
    _require_tensor(input, "nanmean")
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            f"nanmean(): expected input to have floating point dtype but got {input.dtype}; "
            "convert with .float() or .double() first"
        )
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError(
            f"nanmean(): could not infer output dtype. Optional dtype must be a floating "
            f"point dtype, got {dtype}"
        )
    count = _sum(input.isnan().logical_not(), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


__all__ = exports(globals())
