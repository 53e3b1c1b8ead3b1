"""Batching rules for ops whose parameters name example dims: reductions and shape ops.

The example's dims are the value's dims after the batch dim, so a named dim shifts by one
(negative dims, counted from the end, stay); a target shape gets the batch size in front.
"""

from __future__ import annotations

from .._tensor import Tensor
from ._batching import (
    aligned,
    all_dims,
    at_level,
    batch_size,
    batched_out,
    materialize_then,
    materialized,
    shift,
)


def with_dims(*names, none_means_all=True):
    """Ops of one batched tensor whose parameters ``names`` are example dims."""

    def rule(op, args, params, level):
        x = args[0]
        if not at_level(x, level) or any(at_level(a, level) for a in args[1:]):
            return materialize_then(rule_body, op, args, params, level)
        return rule_body(op, args, params, level)

    def rule_body(op, args, params, level):
        x, new = args[0], dict(params)
        value = x._value
        scalar = x._data.ndim == 0 and any(new.get(n) is not None for n in names)
        if scalar:  # a 0-d example's only dim (0 or -1): run it as a dim of size 1
            value = value.unsqueeze(-1)
        for name in names:
            if name in new:
                if new[name] is None and none_means_all:
                    new[name] = all_dims(x)
                elif scalar:
                    new[name] = (
                        type(new[name])([1] * len(new[name]))
                        if isinstance(new[name], (tuple, list))
                        else 1
                    )
                else:
                    new[name] = shift(new[name])
        out = op(value, *args[1:], **new)
        if scalar:
            out = (
                tuple(o.squeeze(-1) if o.dim() == 2 else o for o in out)
                if type(out) is tuple
                else (out.squeeze(-1) if out.dim() == 2 else out)
            )
        return batched_out(out, level)

    return rule


def dims_of_every_operand(op, args, params, level):
    """Ops of several tensors of one example shape with an example dim ``dim`` (softmax's
    backward data): every operand with the batch dim first (an unbatched one expanded), the
    dim shifted past it; 0-d examples run as dims of size 1."""
    size = batch_size(args, level)
    values = [materialized(a, level, size) if isinstance(a, Tensor) else a for a in args]
    scalar = values[0].dim() == 1
    if scalar:
        values = [v.unsqueeze(-1) if isinstance(v, Tensor) else v for v in values]
    out = op(*values, **{**params, "dim": 1 if scalar else shift(params["dim"])})
    return batched_out(out.squeeze(-1) if scalar else out, level)


def unsqueeze(op, args, params, level):
    """unsqueeze: its dim ranges over the example's dims plus one (so a 0-d example has 0)."""
    return batched_out(op(args[0]._value, dim=shift(params["dim"])), level)


def flat_index(op, args, params, level):
    """argmax/argmin: over the flattened example when ``dim`` is None."""
    x = args[0]
    if params.get("dim") is not None:
        return with_dims("dim")(op, args, params, level)
    v = x._value
    out = op(v.reshape(v.shape[0], -1), dim=1, keepdim=False)
    if params.get("keepdim"):
        out = out.reshape((v.shape[0],) + (1,) * x._data.ndim)
    return batched_out(out, level)


def full_extreme(op, args, params, level):
    """max()/min() of the whole example: amax/amin over its dims (ties share the gradient)."""
    x = args[0]
    reduce = x._value.amax if op.primitive.name == "max" else x._value.amin
    return batched_out(reduce(dim=all_dims(x)) if x._data.ndim else x._value.clone(), level)


def new_shape(op, args, params, level):
    """view/squeeze/expand: the target shape of the example, after the batch dim."""
    x = args[0]
    shape = tuple(params["shape"])
    value = aligned(x, level, len(shape)) if op.primitive.name == "expand" else x._value
    extra = {}
    if params.get("dims") is not None:  # a squeeze's dropped dims, after the batch dim
        extra["dims"] = tuple(d + 1 for d in params["dims"])
    return batched_out(op(value, shape=(value.shape[0],) + shape, **extra), level)


def diagonal_backward(op, args, params, level):
    """The adjoint of diagonal: a zero example of ``shape`` with the gradient on its diagonal."""
    shape = tuple(params["shape"])
    value = aligned(args[0], level, args[0]._data.ndim)
    dims = {k: params[k] % len(shape) + 1 for k in ("dim1", "dim2")}
    shape = (value.shape[0],) + shape
    return batched_out(op(value, shape=shape, offset=params["offset"], **dims), level)


def sum_to(op, args, params, level):
    x, shape = args[0], tuple(params["shape"])
    value, extra = x._value, x._data.ndim - len(shape)
    if extra > 0:
        value = value.sum(dim=tuple(range(1, extra + 1)))
    return batched_out(op(value, shape=(value.shape[0],) + shape), level)


def repeat(op, args, params, level):
    x, repeats = args[0], tuple(params["repeats"])
    value = aligned(x, level, len(repeats))
    return batched_out(op(value, repeats=(1,) + repeats), level)


def permute(op, args, params, level):
    n = args[0]._data.ndim
    dims = (0,) + tuple((d % n) + 1 for d in params["dims"])
    return batched_out(op(args[0]._value, dims=dims), level)


def transpose_2d(op, args, params, level):
    x = args[0]
    value = x._value
    return batched_out(
        value.transpose(1, 2) if x._data.ndim == 2 else value.view(value.shape), level
    )


def flattened(op, args, params, level):
    """prod() of the whole example, roll(dims=None): on the flattened example."""
    x = args[0]
    if op.primitive.name == "roll" and params.get("dims") is not None:
        return with_dims("dims")(op, args, params, level)
    if op.primitive.name == "prod" and params.get("dim") is not None:
        return with_dims("dim")(op, args, params, level)
    value = x._value
    flat = value.reshape(value.shape[0], -1)
    if op.primitive.name == "roll":
        return batched_out(op(flat, shifts=params["shifts"], dims=(1,)).reshape(value.shape), level)
    return batched_out(op(flat, **{**params, "dim": (1,), "keepdim": False}), level)


def joined(op, args, params, level):
    """cat/stack: every input batched, the dim shifted."""
    size = batch_size(args, level)
    values = [materialized(a, level, size) for a in args]
    dim = params["dim"]
    return batched_out(op(*values, **{**params, "dim": dim + 1 if dim >= 0 else dim}), level)


def whole_median(op, args, params, level):
    """median()/nanmedian() of the whole example: the primitive's own leading batch dims, so
    ties share the gradient within each example."""
    return batched_out(op(args[0]._value, batch_dims=params.get("batch_dims", 0) + 1), level)


def unfold(op, args, params, level):
    """Tensor.unfold: the windows of each example along its dim, shifted past the batch (a
    0-d example as one of shape (1,), whose single window row is then dropped)."""
    value = args[0]._value
    scalar = args[0]._data.ndim == 0
    dim = 1 if scalar else shift(params["dimension"])
    out = op(value.unsqueeze(1) if scalar else value, **{**params, "dimension": dim})
    return batched_out(out.squeeze(1) if scalar else out, level)


def unfold_backward(op, args, params, level):
    """unfold's adjoint: an example of ``input_sizes`` with the batch in front (a 0-d one as
    one of shape (1,), as ``unfold``'s rule)."""
    value, sizes = args[0]._value, tuple(params["input_sizes"])
    scalar = not sizes
    new = {**params, "dim": 1 if scalar else shift(params["dim"])}
    new["input_sizes"] = (value.shape[0], *(sizes or (1,)))
    out = op(value.unsqueeze(1) if scalar else value, **new)
    return batched_out(out.squeeze(1) if scalar else out, level)


def im2col(op, args, params, level):
    """PyTorch's im2col takes one batch dim: the vmapped ones and the example's flattened into
    it, the columns' ``(C * K, L)`` unflattened back."""
    value = args[0]._value
    out = op(value.reshape(-1, *value.shape[-3:]), **params)
    return batched_out(out.reshape(*value.shape[:-3], *out.shape[-2:]), level)


def col2im(op, args, params, level):
    """col2im over one batch dim, as ``im2col``'s rule: ``(*, C * K, L)`` -> ``(*, C, H, W)``."""
    value = args[0]._value
    out = op(value.reshape(-1, *value.shape[-2:]), **params)
    return batched_out(out.reshape(*value.shape[:-2], *out.shape[-3:]), level)
