"""Initialising parameters in place (``nn.init``), drawn from leafgrad's seeded generator.

Every function fills its tensor in place under ``no_grad`` (so parameters stay leaves),
returns it, and draws from the generator that ``leafgrad.manual_seed`` seeds, or from
``generator=`` (a NumPy Generator). The distributions are PyTorch's; the streams are
NumPy's, so the values differ from PyTorch's.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from .. import Tensor, empty_like, float64, from_numpy, no_grad, randperm, where

__all__ = [
    "calculate_gain",
    "constant",
    "constant_",
    "dirac",
    "dirac_",
    "eye",
    "eye_",
    "kaiming_normal",
    "kaiming_uniform",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal",
    "normal_",
    "ones_",
    "orthogonal",
    "orthogonal_",
    "sparse",
    "sparse_",
    "trunc_normal_",
    "uniform",
    "uniform_",
    "xavier_normal",
    "xavier_normal_",
    "xavier_uniform",
    "xavier_uniform_",
    "zeros_",
]  # fmt: skip


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for ``nonlinearity`` (PyTorch's table).

    linear, conv*, sigmoid: 1; tanh: 5/3; relu: sqrt(2); leaky_relu: sqrt(2 / (1 + slope^2))
    with ``param`` the slope (default 0.01); selu: 3/4.
    """
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Number) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"calculate_gain: negative_slope {param!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _check_tensor(tensor, op: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{op}: expected a Tensor, got {type(tensor).__name__}")


def _copy(tensor: Tensor, values: np.ndarray, op: str) -> Tensor:
    _check_tensor(tensor, op)
    with no_grad():
        return tensor.copy_(from_numpy(np.asarray(values)))


def _is_empty(tensor: Tensor) -> bool:
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)``: ``size(1)`` and ``size(0)`` times the receptive field size."""
    if tensor.dim() < 2:
        raise ValueError(
            f"Fan in and fan out can not be computed for tensor with fewer than 2 dimensions "
            f"(got shape {list(tensor.shape)})"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with U(a, b)."""
    _check_tensor(tensor, "uniform_")
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with N(mean, std^2)."""
    _check_tensor(tensor, "normal_")
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Fill with N(mean, std^2) restricted to [a, b] by rejection, as PyTorch 2.13: normals
    redrawn where outside when [a, b] holds more than 30% of the mass, else uniforms on
    [a, b] accepted with the density's ratio to its peak. The same draws in the same order,
    so a seed gives PyTorch's values."""
    _check_tensor(tensor, "trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution "
            "of values may be incorrect.",
            stacklevel=2,
        )
    with no_grad():
        if _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std) > 0.3:
            _redraw_outside(tensor, mean, std, a, b, generator)
        else:
            _accept_by_density(tensor, mean, std, a, b, generator)
    return tensor


def _normal_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _redraw_outside(tensor, mean, std, a, b, generator) -> None:
    lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()  # in the dtype
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < lo) | (result > hi)
        if not outside.any():
            break
        fresh = empty_like(result).normal_(mean, std, generator=generator)
        result = where(outside, fresh, result)
    if result is not tensor:
        tensor.copy_(result)


def _accept_by_density(tensor, mean, std, a, b, generator) -> None:
    log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

    def log_density_ratio(x):
        return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

    candidates, accept = empty_like(tensor), empty_like(tensor)
    tensor.uniform_(a, b, generator=generator)
    pending = (
        accept.uniform_(generator=generator).log_().gt(log_density_ratio(candidates.copy_(tensor)))
    )
    result = tensor
    while pending.any():
        candidates.uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        rejected = accept.uniform_(generator=generator).log_().gt(log_density_ratio(candidates))
        pending = where(pending, rejected, pending)
    if result is not tensor:
        tensor.copy_(result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    _check_tensor(tensor, "constant_")
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the diagonal, zeros elsewhere)."""
    if tensor.dim() != 2:
        raise ValueError(
            f"nn.init.eye_: only 2-D tensors are supported, got shape {list(tensor.shape)}"
        )
    return _copy(tensor, np.eye(*tensor.shape), "eye_")


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Fill with U(-a, a), ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Fill with N(0, std^2), ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """Fill with U(-b, b), ``b = gain * sqrt(3 / fan)``, ``gain = calculate_gain(nonlinearity, a)``.

    He et al. (2015).
    """
    if _is_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """Fill with N(0, std^2), ``std = gain / sqrt(fan)``."""
    if _is_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain``; trailing dimensions are flattened.

    Rows are orthonormal when ``size(0) <= numel / size(0)``, else columns are.
    """
    if tensor.dim() < 2:
        raise ValueError(
            f"Only tensors with 2 or more dimensions are supported (got shape {list(tensor.shape)})"
        )
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = normal_(tensor.new_empty((rows, cols), dtype=float64), generator=generator).numpy()
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))  # makes the decomposition unique, so Q is Haar-distributed
    if rows < cols:
        q = q.T
    return _copy(tensor, (gain * q).reshape(tuple(tensor.shape)), "orthogonal_")


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight so the layer passes its inputs through: in each
    of ``groups`` groups, output channel ``d`` takes input channel ``d`` at the kernel centre."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError(
            "nn.init.dirac_: only tensors with 3, 4, or 5 dimensions are supported, "
            f"got shape {list(tensor.shape)}"
        )
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError(
            f"nn.init.dirac_: dim 0 must be divisible by groups (size {sizes[0]}, groups {groups})"
        )
    out_per_group = sizes[0] // groups
    values = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(out_per_group, sizes[1])):
            values[(g * out_per_group + d, d, *centre)] = 1
    return _copy(tensor, values, "dirac_")


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Fill a 2-D tensor from N(0, std^2), then zero ``ceil(sparsity * rows)`` random entries
    of each column (Martens, 2010)."""
    if tensor.dim() != 2:
        raise ValueError(
            f"nn.init.sparse_: only tensors with 2 dimensions are supported, "
            f"got shape {list(tensor.shape)}"
        )
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor[randperm(rows)[:num_zeros], col] = 0
    return tensor


def _deprecated(new):
    """The old name of ``new`` without its trailing underscore, warning as PyTorch's does."""
    old_name = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of ``nn.init.{new.__name__}`` (warns)."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
