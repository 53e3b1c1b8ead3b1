"""Extrema: amax/amin, max/min (whole tensor, per dim with indices, or elementwise against
another tensor) and argmax/argmin.

Gradients follow PyTorch: whole-tensor and amax/amin reductions share the gradient evenly
among tied elements; per-dim max/min send it to the returned index (the first occurrence,
a NaN winning over numbers).
"""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._optable import Composite, Generic, NonDifferentiable
from ._out import accepts_out, with_outs
from ._plain import operand, values_of
from ._primitive import primitive
from ._reduce import (
    _axes,
    _keepdims,
    _np_axis,
    _one_dim,
    _require_tensor,
    _restore,
    check_keepdim,
)
from ._returned import returned
from ._tangents import sum_present
from .piecewise import maximum, minimum, where

# ----- amax / amin / max / min -----


def _reduces_all(dim) -> bool:
    return dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0)


def _check_nonempty(x: Tensor, dims, op: str, error=RuntimeError) -> None:
    """Max-like reductions have no identity, so they cannot reduce over nothing.

    ``dims`` None: every element (``error`` when there are none); else each of ``dims``.
    """
    shape = x._data.shape
    if dims is None:
        if x._data.size == 0:
            raise error(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                "the reduction dim with the 'dim' argument."
            )
        return
    for d in dims:
        if x._data.ndim and shape[d] == 0:
            raise IndexError(
                f"{op}(): cannot reduce dimension {d} of a tensor of shape {list(shape)}: it "
                "has size 0 and the reduction has no identity"
            )


# The ufuncs' reduce: np.amax's and np.amin's own calls, without their ~2 us of argument
# handling (a hot forward).
def _amax_forward(x, *, dim, keepdim):
    return np.maximum.reduce(x, axis=_np_axis(x, dim), keepdims=keepdim)


def _amin_forward(x, *, dim, keepdim):
    return np.minimum.reduce(x, axis=_np_axis(x, dim), keepdims=keepdim)


def _even_split_grad(grad, x, result, *, dim, keepdim):
    # Ties share the gradient evenly (PyTorch's scale_grad_by_count).
    xd = values_of(x)
    shape = xd.shape
    picked = xd == values_of(_keepdims(result, shape, dim, keepdim))
    count = picked.sum(axis=_np_axis(xd, dim), keepdims=True)
    return (_keepdims(grad, shape, dim, keepdim) / operand(count, grad)) * operand(picked, grad)


def _even_split_jvp(tx, x, result, *, dim, keepdim):
    # PyTorch's amaxamin_jvp: the mean of the tangents at the tied extrema (a NaN extremum
    # matches nothing, so its tangent is NaN).
    xd, rd = x._data, result._data
    axis = _np_axis(xd, dim)
    if dim is not None and not keepdim and xd.ndim:
        rd = np.expand_dims(rd, dim)
    picked = xd == rd
    count = picked.sum(axis=axis, keepdims=keepdim)
    return where(_wrap(picked), tx, 0.0).sum(dim, keepdim=keepdim) / _wrap(np.asarray(count))


_amax = primitive(
    "amax",
    _amax_forward,
    _even_split_grad,
    kind=Generic(jvp=_even_split_jvp),
    saves=("self", "result", "dim", "keepdim"),
    node_name="AmaxBackward0",
    dtype_rule="keep",
    plain_rules=True,
)
_amin = primitive(
    "amin",
    _amin_forward,
    _even_split_grad,
    kind=Generic(jvp=_even_split_jvp),
    saves=("self", "result", "dim", "keepdim"),
    node_name="AminBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


@public()
@accepts_out(same_dtype=True)
def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """Maximum over ``dim`` (all when ``()``); ties share the gradient evenly."""
    check_keepdim(keepdim, "amax")
    _require_tensor(input, "amax")
    dims = _axes(dim, input._data.ndim, "amax")
    _check_nonempty(input, None if _reduces_all(dim) else dims, "amax")
    return _amax(input, dim=dims, keepdim=keepdim)


@public()
@accepts_out(same_dtype=True)
def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """Minimum over ``dim`` (all when ``()``); ties share the gradient evenly."""
    check_keepdim(keepdim, "amin")
    _require_tensor(input, "amin")
    dims = _axes(dim, input._data.ndim, "amin")
    _check_nonempty(input, None if _reduces_all(dim) else dims, "amin")
    return _amin(input, dim=dims, keepdim=keepdim)


def _extreme_all_grad(grad, x, result):
    # Evenly among the elements equal to the result, or among the NaNs when it is NaN.
    xd, rd = values_of(x), values_of(result)
    picked = np.isnan(xd) if np.isnan(rd) else xd == rd
    return where(operand(picked, grad), grad / int(picked.sum()), 0.0)


def _evenly_read_jvp(tx, x, result):
    # PyTorch's evenly_read_jvp: as amax's, but the tangent is masked by multiplying, so a
    # non-finite tangent anywhere makes the result NaN.
    picked = (x._data == result._data).astype(x._data.dtype)
    return (tx / _wrap(np.asarray(picked.sum())) * _wrap(picked)).sum()


_max_all = primitive(
    "max",
    lambda x: np.maximum.reduce(x, axis=None),
    _extreme_all_grad,
    kind=Generic(jvp=_evenly_read_jvp),
    saves=("self", "result"),
    node_name="MaxBackward1",
    dtype_rule="keep",
    plain_rules=True,
)
_min_all = primitive(
    "min",
    lambda x: np.minimum.reduce(x, axis=None),
    _extreme_all_grad,
    kind=Generic(jvp=_evenly_read_jvp),
    saves=("self", "result"),
    node_name="MinBackward1",
    dtype_rule="keep",
    plain_rules=True,
)


def _select_forward(arg: str, extreme):
    """max/min over one dim: the index of the first extreme (NaN wins, as in np.argmax) and
    the value there. The values come from the ufunc's reduce (the same numbers: NaN where
    NaN won) except where one is a zero, whose sign among tied zeros is the index's element's:
    the methods' C calls, not np.argmax's and np.take_along_axis's Python (13.3 -> 10.2 us for
    an (8, 8) max(1) recorded)."""

    def forward(x, *, dim, keepdim):
        if x.ndim == 0:
            return x.copy(), np.zeros((), dtype=np.int64)
        idx = getattr(x, arg)(axis=dim, keepdims=keepdim)
        values = extreme.reduce(x, axis=dim, keepdims=keepdim)
        if np.count_nonzero(values) != values.size:  # (values.all() costs ~0.7 us more)
            picked = np.take_along_axis(x, idx if keepdim else np.expand_dims(idx, dim), dim)
            values = picked if keepdim else np.squeeze(picked, dim)
        return values, idx.astype(np.int64, copy=False)

    return forward


def _select_grad(grad, x, result, *, dim, keepdim):
    # Only the selected index receives the gradient (PyTorch's value_selecting_reduction).
    values_grad, indices = grad[0], values_of(result[1])
    shape = tuple(x.shape)
    if not shape:
        return values_grad
    idx = indices if keepdim else np.expand_dims(indices, dim)
    positions = np.arange(shape[dim]).reshape([-1 if i == dim else 1 for i in range(len(shape))])
    picked = operand(positions == idx, values_grad)
    return where(picked, _restore(values_grad, shape, (dim,), keepdim), 0.0)


def _select_jvp(tx, x, result, *, dim, keepdim):
    # The values' tangent is the tangent at the returned index; the indices have none.
    if x._data.ndim == 0:
        return tx, None
    indices = result[1]._data
    idx = indices if keepdim else np.expand_dims(indices, dim)
    shape = x._data.shape
    positions = np.arange(shape[dim]).reshape([-1 if i == dim else 1 for i in range(len(shape))])
    return where(_wrap(positions == idx), tx, 0.0).sum(dim, keepdim=keepdim), None


_max_dim = primitive(
    "max",
    _select_forward("argmax", np.maximum),
    _select_grad,
    kind=Generic(jvp=_select_jvp),
    overload="dim",
    saves=("indices", "dim", "keepdim"),
    outputs=("values", "indices"),
    node_name="MaxBackward0",
    dtype_rule="keep",
    num_outputs=2,
    plain_rules=True,
    metadata=("self_sym_sizes",),
)
_min_dim = primitive(
    "min",
    _select_forward("argmin", np.minimum),
    _select_grad,
    kind=Generic(jvp=_select_jvp),
    overload="dim",
    saves=("indices", "dim", "keepdim"),
    outputs=("values", "indices"),
    node_name="MinBackward0",
    dtype_rule="keep",
    num_outputs=2,
    plain_rules=True,
    metadata=("self_sym_sizes",),
)

_MaxResult = returned("max", ["values", "indices"])
_MinResult = returned("min", ["values", "indices"])


def _extreme(op, input, dim, keepdim, other, full, per_dim, elementwise, result_type):
    _require_tensor(input, op)
    if isinstance(dim, Tensor):
        dim, other = None, dim
    if other is not None:
        return elementwise(input, other)
    if dim is None:
        _check_nonempty(input, None, op)
        return full(input)
    shape = input._data.shape
    if type(dim) is int and 0 <= dim < len(shape) and shape[dim]:
        d = dim  # the common ``x.max(1)``: in range and non-empty, without the general checks
    else:
        d = _one_dim(dim, len(shape), op)
        _check_nonempty(input, (d,), op)
    values, indices = per_dim(input, dim=d, keepdim=keepdim)
    # The machinery links every output of a recorded multi-output op to its node; integer
    # indices never require grad, so, as in PyTorch, they stay leaves.
    indices.grad_fn = None
    return result_type(values, indices)


@public()
@accepts_out  # max(a, b, out=) casts; max(a, dim, out=(values, indices)) does not
def max(input: Tensor, dim=None, keepdim: bool = False, *, other=None):
    """``max(x)``: the largest value; ``max(x, dim)``: ``(values, indices)``; ``max(x, y)``:
    elementwise maximum. Full reductions split the gradient among ties; per-dim ones send it
    to the returned index (the first occurrence; NaN wins)."""
    check_keepdim(keepdim, "max")
    return _extreme("max", input, dim, keepdim, other, _max_all, _max_dim, maximum, _MaxResult)


@public()
@accepts_out  # max(a, b, out=) casts; max(a, dim, out=(values, indices)) does not
def min(input: Tensor, dim=None, keepdim: bool = False, *, other=None):
    """``min(x)``, ``min(x, dim)`` -> ``(values, indices)``, or ``min(x, y)`` elementwise."""
    check_keepdim(keepdim, "min")
    return _extreme("min", input, dim, keepdim, other, _min_all, _min_dim, minimum, _MinResult)


_Aminmax = returned("aminmax", ["min", "max"])
_AminmaxOut = returned("aminmax_out", ["min", "max"])


def _aminmax_forward(x, *, dim, keepdim):
    axis = None if x.ndim == 0 else dim
    return np.amin(x, axis=axis, keepdims=keepdim), np.amax(x, axis=axis, keepdims=keepdim)


def _reduced_dims(x, dim) -> tuple:
    """The dims ``aminmax`` reduces: ``dim``, or every dim when None."""
    return tuple(range(len(x.shape))) if dim is None else (dim,)


def _restore_reduced_dims(t, dims: tuple, keepdim: bool):
    """PyTorch's ``restore_reduced_dims``: ``t`` reshaped with a 1 at each of ``dims`` (always
    a reshape, so even a 0-d ``t`` of a full reduction records one)."""
    if keepdim:
        return t
    shape = [0] * (len(t.shape) + len(dims))
    for d in dims:
        shape[d] = 1
    sizes = iter(t.shape)
    return t.reshape(tuple(s or next(sizes) for s in shape))


def _scaled_by_count(grad, x, extreme, dim, keepdim):
    """PyTorch's ``scale_grad_by_count`` for one of ``aminmax``'s outputs: ``grad`` shared
    evenly among the elements equal to ``extreme``."""
    dims = () if dim is None else (dim,)  # (PyTorch's: a full reduction restores no dim)
    picked = values_of(x) == values_of(_restore_reduced_dims(extreme, dims, keepdim))
    axes = tuple(range(picked.ndim)) if dim is None else (dim,)
    count = picked.sum(axis=axes, keepdims=True)
    out = _restore_reduced_dims(grad, dims, keepdim) / operand(count, grad)
    return out * operand(picked, grad)


def _aminmax_grad(grads, x, *, result, needs, dim, keepdim):
    """PyTorch's ``aminmax_backward``: the min's share plus the max's, of those reached."""
    terms = (
        None if g is None else _scaled_by_count(g, x, r, dim, keepdim)
        for g, r in zip(grads, result)
    )
    total = sum_present(terms)
    # A 0-d input reduced over dim 0 gets a (1,) gradient, which PyTorch's engine sums to 0-d
    # (its sum_to: a SumBackward0)
    return (total.sum() if len(total.shape) != len(x.shape) else total,)


def _aminmax_jvp(tx, x, *, result, dim, keepdim):
    """PyTorch's ``aminmax_jvp``: amin's and amax's (the mean tangent at the ties)."""
    dims = _reduced_dims(x, dim) if x._data.ndim else None
    return tuple(_even_split_jvp(tx, x, r, dim=dims, keepdim=keepdim) for r in result)


def _aminmax_composite(x, *, dim, keepdim):
    """``aminmax`` as amin and amax (Taylor mode and vmap)."""
    dims = _reduced_dims(x, dim) if x.ndim else ()
    return _amin(x, dim=dims, keepdim=keepdim), _amax(x, dim=dims, keepdim=keepdim)


_aminmax = primitive(
    "aminmax",
    _aminmax_forward,
    vjp_all=_aminmax_grad,
    kind=Composite(taylor_as=_aminmax_composite, jvp=_aminmax_jvp),
    saves=("self", "min", "max", "dim", "keepdim"),
    outputs=("min", "max"),
    node_name="AminmaxBackward0",
    dtype_rule="keep",
    num_outputs=2,
    materialize_grads=False,
)


@public()
def aminmax(input: Tensor, *, dim=None, keepdim: bool = False, out=None):
    """``(min, max)`` over ``dim`` (all elements when None), recorded as PyTorch's one node
    (AminmaxBackward0); ties share each gradient evenly, as amin's and amax's."""
    check_keepdim(keepdim, "aminmax")
    if out is not None:
        compute = lambda: aminmax(input, dim=dim, keepdim=keepdim)
        return with_outs("aminmax", compute, (input,), out, _AminmaxOut)
    _require_tensor(input, "aminmax")
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError(
                "aminmax(): cannot reduce an empty tensor (the reduction has no identity); "
                "pass dim= to reduce a non-empty dimension"
            )
    else:
        dim = _one_dim(dim, input._data.ndim, "aminmax")
        _check_nonempty(input, (dim,), "aminmax")
    return _Aminmax(*_aminmax(input, dim=dim, keepdim=keepdim))


# ----- argmax / argmin -----


def _arg_forward(arg):
    def forward(x, *, dim, keepdim):
        if x.ndim == 0:
            return np.zeros((), dtype=np.int64)
        if dim is None:
            out = np.asarray(arg(x), dtype=np.int64)
            return out.reshape((1,) * x.ndim) if keepdim else out
        return arg(x, axis=dim, keepdims=keepdim).astype(np.int64, copy=False)

    return forward


_argmax = primitive("argmax", _arg_forward(np.argmax), kind=NonDifferentiable(), dtype_rule="keep")
_argmin = primitive("argmin", _arg_forward(np.argmin), kind=NonDifferentiable(), dtype_rule="keep")


def _arg(op, fn, input, dim, keepdim):
    _require_tensor(input, op)
    if input._data.dtype == np.bool_:
        raise RuntimeError(
            f"{op}(): not defined for bool tensors; convert with .int() or .float() first"
        )
    d = None if dim is None else _one_dim(dim, input._data.ndim, op)
    _check_nonempty(input, None if d is None else (d,), op, error=IndexError)
    return fn(input, dim=d, keepdim=keepdim)


@public()
@accepts_out(same_dtype=True)
def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the largest value: flat when ``dim`` is None; first of ties, NaN wins."""
    check_keepdim(keepdim, "argmax")
    return _arg("argmax", _argmax, input, dim, keepdim)


@public()
@accepts_out(same_dtype=True)
def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the smallest value: flat when ``dim`` is None; first of ties, NaN wins."""
    check_keepdim(keepdim, "argmin")
    return _arg("argmin", _argmin, input, dim, keepdim)


__all__ = exports(globals())
