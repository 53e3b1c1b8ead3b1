"""Normalisation functions of ``nn.functional``, each differentiable to any order: batch,
layer and group norm as the one-op forms PyTorch records (``_batch_norm_op``,
``_layer_norm_op``, ``_group_norm_op``), RMS norm and ``normalize`` composed from ops."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import leafgrad as _lg

from .. import Tensor, no_grad
from .._batched import STATE as _VMAP
from .._batched import levels_of
from . import _batch_norm_op, _group_norm_op, _layer_norm_op, _norm_kernels
from ._activation_functions import _check_kernel_dtype
from .parameter import Parameter as _Parameter

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "normalize", "rms_norm"]

# Machine epsilon by dtype: rms_norm's default eps, as PyTorch's torch.finfo(dtype).eps.
_MACHINE_EPS = {_lg.float16: 2.0**-10, _lg.float32: 2.0**-23, _lg.float64: 2.0**-52}


def _standardize(input: Tensor, dims: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(normalized, mean, biased variance)`` over ``dims`` (kept as size-1 dims)."""
    mean = input.mean(dims, keepdim=True)
    centered = input - mean
    var = (centered * centered).mean(dims, keepdim=True)
    return centered * _lg.rsqrt(var + eps), mean, var


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def _verify_batch_size(shape) -> None:
    values = shape[0] * math.prod(shape[2:])
    if values == 1:
        raise ValueError(
            "Expected more than 1 value per channel when training, got input size "
            f"{_lg.Size(shape)}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise ``(N, C, *)`` per channel over the batch and spatial dims.

    Training uses the batch statistics and, when given, updates ``running_mean`` and
    ``running_var`` in place (``(1 - momentum) * running + momentum * batch``, the variance
    unbiased); otherwise the running statistics are used.
    """
    if isinstance(input, Tensor):
        _check_kernel_dtype("batch_norm", input)
    if input.dim() < 2:
        raise IndexError(
            f"batch_norm: expected input of shape (N, C, *), got {input.dim()}-D (no channel dim)"
        )
    if training:
        _verify_batch_size(tuple(input.shape))
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    channels = input.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is not None and stat.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {stat.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(
            "batch_norm: running_mean and running_var must be given when not training"
        )
    out, mean, _ = _batch_norm_op.native_batch_norm(
        input, weight, bias, running_mean, running_var, training, eps
    )
    if training and (running_mean is not None or running_var is not None):
        _update_running_stats(input, mean, running_mean, running_var, momentum)
    return out


def _update_running_stats(input: Tensor, mean: Tensor, running_mean, running_var, momentum):
    """``(1 - momentum) * running + momentum * batch``, the batch variance unbiased: NumPy's
    operations in the running statistics' dtype, one ``copy_`` each (a dozen ops before). The
    variance is taken again from the input: the op returns ``1 / sqrt(var + eps)``, and
    ``var`` back from that loses the digits a variance well below ``eps`` has."""
    if _VMAP.active:
        _update_batched_stats(input, mean, running_mean, running_var, momentum)
        return
    x = input._data
    channels = x.shape[1]
    count = x.size // channels
    with no_grad():
        if running_mean is not None:
            old = running_mean._data
            batch_mean = mean._data.astype(old.dtype)
            running_mean.copy_(_lg.tensor(momentum * batch_mean + (1 - momentum) * old))
        if running_var is not None:
            old = running_var._data
            axes = (0, *range(2, x.ndim))
            compiled = _norm_kernels.takes(x, mean._data)
            if compiled is not None:  # one compiled pass (numba), summed as the forward's
                var = _norm_kernels.batch_norm_variance(compiled, x, mean._data)
            else:
                centered = x - mean._data.reshape((1, channels) + (1,) * (x.ndim - 2))
                var = np.mean(centered * centered, axis=axes)
            unbiased = (var * (count / max(count - 1, 1))).astype(old.dtype)
            running_var.copy_(_lg.tensor(momentum * unbiased + (1 - momentum) * old))


_UNBATCHED_STATS = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which "
    "will be updated in place, were not batched.\nIf you are using a module and do not need "
    "eval mode, please set `track_running_stats` to be False.If you are using a prebuilt "
    "module and do not need eval mode, please see the functorch website for resources on how "
    "to patch your module to work with vmap"
)


def _update_batched_stats(input, mean, running_mean, running_var, momentum) -> None:
    """The running statistics' update under vmap, in ops (which batch): each example's stats
    move with its own batch, as an ensemble's do in PyTorch. Stats not batched where the input
    is would take every example's update at once: PyTorch refuses, with these words."""
    stats = [s for s in (running_mean, running_var) if s is not None]
    if not all(set(levels_of(input)) <= set(levels_of(s)) for s in stats):
        raise RuntimeError(_UNBATCHED_STATS)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(
                momentum * mean.to(running_mean.dtype) + (1 - momentum) * running_mean
            )
        if running_var is not None:
            axes = (0, *range(2, input.dim()))
            unbiased = input.var(axes)  # training checked: more than one value per channel
            running_var.copy_(
                momentum * unbiased.to(running_var.dtype) + (1 - momentum) * running_var
            )


def _trailing_dims(op: str, input: Tensor, normalized_shape) -> tuple[int, ...]:
    """The dims ``normalized_shape`` covers; RuntimeError when the input does not end with it."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    count = len(normalized_shape)
    if count == 0 or tuple(input.shape[input.dim() - count :]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
            f"{list(input.shape)} ({op})"
        )
    return tuple(range(-count, 0))


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int] | int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over the trailing dims ``normalized_shape`` (biased variance), then scale by
    ``weight`` and shift by ``bias`` (both of that shape)."""
    return layer_norm_with_statistics(input, normalized_shape, weight, bias, eps)[0]


def layer_norm_with_statistics(input, normalized_shape, weight, bias, eps) -> tuple:
    """``(layer_norm(...), mean, rstd)``, the statistics with the normalised dims kept as size
    1: one NativeLayerNormBackward0 node, as in PyTorch, for a floating input and parameters
    of its dtype; otherwise composed (mixed dtypes promote, integers raise, as before)."""
    shape = _native_shape(input, normalized_shape, weight, bias)
    if shape is not None:  # the common case, every check passed: straight to the op
        return _layer_norm_op.native_layer_norm(input, shape, weight, bias, eps)
    if isinstance(input, Tensor):
        _check_kernel_dtype("layer_norm", input)  # PyTorch's LayerNormKernelImpl: floats only
    dims = _trailing_dims("layer_norm", input, normalized_shape)
    shape = tuple(input.shape[input.dim() - len(dims) :])
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(
                f"layer_norm: expected {name} of the shape normalized_shape = {list(shape)}, "
                f"but got {name} of shape {list(t.shape)}"
            )
    if input.is_floating_point() and all(
        t is None or t.dtype == input.dtype for t in (weight, bias)
    ):
        return _layer_norm_op.native_layer_norm(input, shape, weight, bias, eps)
    out, mean, var = _standardize(input, dims, eps)
    return _affine(out, weight, bias), mean, _lg.rsqrt(var + eps)


def _native_shape(input, normalized_shape, weight, bias) -> tuple | None:
    """The normalised shape (the input's trailing dims) where the one-op form takes the
    arguments as they are: a plain floating Tensor ending with ``normalized_shape``, ``weight``
    and ``bias`` absent or plain tensors of that shape and the input's dtype; else None (the
    checked path, which raises or promotes). Read off the arrays: the checks it replaces cost
    ~5 us a call, a sixth of the op's forward (nn.LayerNorm(128) on (64, 128))."""
    if type(input) is not Tensor:
        return None
    x = input._data
    if type(normalized_shape) is int:
        normalized_shape = (normalized_shape,)
    elif isinstance(normalized_shape, (tuple, list)):
        normalized_shape = tuple(normalized_shape)
    else:
        return None
    k = len(normalized_shape)
    if x.dtype.kind != "f" or k == 0 or k > x.ndim:
        return None
    shape = x.shape[x.ndim - k :]
    if shape != normalized_shape:
        return None
    for t in (weight, bias):
        if t is not None and not (
            (type(t) is Tensor or type(t) is _Parameter)
            and t._data.shape == shape
            and t._data.dtype == x.dtype
        ):
            return None
    return shape


def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int] | int,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing dims ``normalized_shape``;
    ``eps`` defaults to the dtype's machine epsilon."""
    dims = _trailing_dims("rms_norm", input, normalized_shape)
    if eps is None:
        eps = _MACHINE_EPS.get(input.dtype, _MACHINE_EPS[_lg.float32])
    out = input * _lg.rsqrt((input * input).mean(dims, keepdim=True) + eps)
    return out if weight is None else out * weight


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise ``(N, C, *)`` over each group of ``C / num_groups`` channels (and the spatial
    dims), then apply the per-channel ``weight`` and ``bias``."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _check_kernel_dtype("group_norm", input)
    batch, channels = input.shape[0], input.shape[1]
    if num_groups <= 0 or channels % num_groups:
        raise RuntimeError(
            f"group_norm: expected the number of channels in the input to be divisible by "
            f"num_groups, but got input of shape {list(input.shape)} and "
            f"num_groups={num_groups}"
        )
    _verify_batch_size([batch * channels // num_groups, num_groups, *input.shape[2:]])
    return _group_norm_op.native_group_norm(input, weight, bias, num_groups, eps)[0]


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``; written into ``out`` when given."""
    # The denominator expanded first, as PyTorch's (its graph: DivBackward0 over an expand).
    denominator = _lg.norm(input, p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    result = input / denominator
    return result if out is None else out.copy_(result)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise ``(N, C, *)`` per sample and channel over the spatial dims.

    As PyTorch does it: batch norm of the input viewed as ``(1, N * C, *)``; the running
    statistics, when given, are updated in place with the mean over the batch.
    """
    if isinstance(input, Tensor):
        _check_kernel_dtype("instance_norm", input)
    if input.dim() < 3 or (use_input_stats and math.prod(input.shape[2:]) == 1):
        raise ValueError(
            f"instance_norm: expected more than 1 spatial element per channel when using input "
            f"statistics, got input size {list(input.shape)}"
        )
    batch, channels = input.shape[0], input.shape[1]

    def repeated(t):
        return None if t is None else t.repeat(batch)

    mean_, var_ = repeated(running_mean), repeated(running_var)
    out = batch_norm(
        input.reshape(1, batch * channels, *input.shape[2:]),
        mean_,
        var_,
        repeated(weight),
        repeated(bias),
        use_input_stats,
        momentum,
        eps,
    )
    with no_grad():
        for stat, stats in ((running_mean, mean_), (running_var, var_)):
            if stat is not None and use_input_stats:
                stat.copy_(stats.reshape(batch, channels).mean(0))
    return out.reshape(input.shape)
