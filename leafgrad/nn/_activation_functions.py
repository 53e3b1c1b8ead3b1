"""Activation functions of ``nn.functional``, composed from leafgrad ops.

Being compositions, they differentiate to any order. Piecewise ones are built with ``where``
on PyTorch's own branch conditions, so the gradient at a kink is the one PyTorch gives.
``inplace=True`` writes the input, as PyTorch does, through the in-place op it calls there
(``relu_``, ``hardtanh_``, ``leaky_relu_`` ...), recorded as that op.
"""

from __future__ import annotations

import warnings

import leafgrad as _lg

from .. import Tensor, _random
from .._batched import STATE as _VMAP
from ..ops import activations as _activations
from ..ops import glu as _glu
from ..ops import rrelu as _rrelu
from ..ops import shrink as _shrink
from ..ops.inplace import inplace as _inplace
from . import _activation_inplace, _activation_ops, _elu_inplace
from ._activation_ops import _SELU_ALPHA, _SELU_SCALE
from ._kernel_dtype import _check_kernel_dtype

__all__ = [
    "celu", "elu", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
    "leaky_relu", "log_softmax", "logsigmoid", "mish", "prelu", "relu", "relu6", "rrelu",
    "selu", "sigmoid", "silu", "softmax", "softmin", "softplus", "softshrink", "softsign",
    "tanh", "tanhshrink", "threshold",
]  # fmt: skip


def _recorded(x: Tensor) -> Tensor:
    """``x`` itself, through an op whose backward is recorded as a function of ``x``.

    PyTorch's piecewise-linear kernels (hardtanh, threshold, the shrinks, reflection padding,
    batch norm...) have backward nodes that depend on the input, so under
    ``create_graph=True`` their gradient requires grad and a second ``autograd.grad`` gives
    zeros. A composition linear in ``x`` would give a constant gradient instead, and the
    second call would raise. ``leaky_relu`` with slope 1 is an exact identity (values, NaN,
    infinities, -0.0) with such a backward; it is skipped when nothing needs a gradient.
    """
    return _lg.leaky_relu(x, 1.0) if x.requires_grad else x


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    _check_kernel_dtype("relu", input, integers=True, error=RuntimeError)
    return _lg.relu_(input) if inplace else _lg.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    _check_kernel_dtype("leaky_relu", input)
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _lg.leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        return _elu_inplace.elu_(input, alpha)
    _check_kernel_dtype("elu", input)
    return _lg.elu(input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants."""
    if inplace:
        return _elu_inplace.selu_(input)
    _check_kernel_dtype("selu", input)
    return _activations._elu(input, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if inplace:
        return _elu_inplace.celu_(input, alpha)
    _check_kernel_dtype("celu", input)
    if alpha == 0:
        raise RuntimeError("celu: alpha must not be 0 (the input is divided by it)")
    return _activation_ops.celu(input, alpha=alpha)


# gelu, silu and softplus run the kernel check only where its common pass, a floating input,
# fails (inline, it costs ~0.1 of a small call's ~5 us, the call ~0.3).
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if input._data.dtype.kind != "f":
        _check_kernel_dtype("gelu", input)
    return _lg.gelu(input, approximate)  # (positional: no keyword renaming to look for)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return silu_(input)
    if input._data.dtype.kind != "f":
        _check_kernel_dtype("silu", input)
    return _lg.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``."""
    if inplace:
        return mish_(input)
    _check_kernel_dtype("mish", input)
    return _activations.mish(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    if input._data.dtype.kind != "f":
        _check_kernel_dtype("softplus", input)
    return _activations._softplus(input, beta=beta, threshold=threshold)  # (leafgrad.softplus)


def sigmoid(input: Tensor) -> Tensor:
    return _lg.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _lg.tanh(input)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, as PyTorch computes it: ``min(x, 0) - log1p(exp(-|x|))``
    (no overflow for large ``|x|``)."""
    _check_kernel_dtype("logsigmoid", input)
    return _activations.log_sigmoid(input)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``."""
    _check_kernel_dtype("softsign", input, integers=True)
    return input / (_lg.abs(input) + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``."""
    return input - _lg.tanh(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``."""
    _check_kernel_dtype("threshold", input, integers=True)
    if inplace:
        return threshold_(input, threshold, value)
    if not input.is_floating_point():  # integers stay integers (nothing to record)
        return _lg.where(input > threshold, input, value).to(input.dtype)
    return _shrink.threshold(input, threshold=threshold, value=value)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``clamp(x, min_val, max_val)`` with gradient 0 at the bounds, as PyTorch's."""
    if inplace:
        return hardtanh_(input, min_val, max_val)
    _check_kernel_dtype("hardtanh", input, integers=True, error=RuntimeError)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input._data.dtype.kind == "u" and (min_val < 0 or max_val < 0):
        raise RuntimeError(
            f"cannot do hardtanh on an unsigned type with negative limits ({input.dtype}, "
            f"limits {min_val} and {max_val})"
        )
    if not input.is_floating_point():  # integers stay integers, as in PyTorch
        return _lg.clamp(input, min_val, max_val).to(input.dtype)
    return _activation_ops.hardtanh(input, min_val=min_val, max_val=max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(0, x), 6)``."""
    return hardtanh(input, 0, 6, inplace)  # PyTorch's relu6 saves the bounds as ints


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``0`` below -3, ``1`` above 3, ``(x + 3) / 6`` between."""
    if inplace:
        return hardsigmoid_(input)
    _check_kernel_dtype("hardsigmoid", input)
    return _activation_ops.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * hardsigmoid(x)``; its derivative is 0 at -3 and 1 at 3, as PyTorch's."""
    if inplace:
        return hardswish_(input)
    _check_kernel_dtype("hardswish", input)
    return _activation_ops.hardswish(input)


# torch.hardshrink and torch.prelu, which are Tensor methods too (ops/torch_activations.py).
hardshrink = _lg.hardshrink


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    _check_kernel_dtype("softshrink", input)
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be at least 0, but found {lambd}")
    return _shrink.softshrink(input, lambd=lambd)


prelu = _lg.prelu


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Leaky ReLU with slope ``U(lower, upper)`` per element at or below zero while training,
    else the mean slope ``(lower + upper) / 2``; recorded as PyTorch's rrelu_with_noise. The
    slopes come from leafgrad's generator (PyTorch's values for the same seed)."""
    if inplace:
        return rrelu_(input, lower, upper, training)
    return rrelu_with_generator(input, lower, upper, training, None)


def rrelu_with_generator(input, lower, upper, training, generator) -> Tensor:
    """``rrelu`` drawing its slopes from ``generator`` (None: leafgrad's)."""
    _check_kernel_dtype("rrelu", input)
    if training and _VMAP.active:  # slopes from rand, under vmap's randomness modes
        slope = _lg.rand(*input.shape, dtype=input.dtype, generator=generator)
        x = _recorded(input)
        return _lg.where(input > 0, x, x * (slope * (upper - lower) + lower))
    noise = _rrelu_noise(input, lower, upper, training, generator)
    return _rrelu.rrelu_with_noise(
        input, noise=noise, lower=lower, upper=upper, training=bool(training)
    )


def _rrelu_noise(input, lower, upper, training, generator):
    """The slopes of a training ``rrelu`` of ``input`` (None outside training)."""
    if not training:
        return None
    if input.dtype == _lg.float16:  # PyTorch's training kernel has no half loop
        raise NotImplementedError(
            "\"rrelu_with_noise_out_cpu\" not implemented for 'Half' (rrelu in training: "
            "use float32)"
        )
    rng = _random._generator(generator, batched_draw=True)
    return _rrelu.noise(rng, input.detach().numpy(), lower, upper)


def _rrelu_on_result(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """PyTorch's ``rrelu_with_noise_`` (RreluWithNoiseBackward1, saving the result)."""
    _check_kernel_dtype("rrelu_", input)
    if training and _VMAP.active:  # vmap's composition, written back
        return rrelu_with_generator(input, lower, upper, training, generator)
    noise = _rrelu_noise(input, lower, upper, training, generator)
    return _activation_inplace.rrelu_with_noise_on_result(
        input, noise=noise, lower=lower, upper=upper, training=bool(training)
    )


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """``a * sigmoid(b)`` where ``a, b`` are the halves of ``input`` along ``dim``, recorded as
    PyTorch's op (GluBackward0)."""
    _check_kernel_dtype("glu", input)
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    return _glu.glu(input, dim=dim)


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x), dim)``; without ``dim`` PyTorch's legacy choice, with a warning."""
    if dim is None:
        dim = _implicit_dim("softmax", input.dim(), _stacklevel)
    return _lg.softmax(input, dim, dtype=dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-x, dim)``."""
    if dim is None:
        dim = _implicit_dim("softmin", input.dim(), _stacklevel)
    return _lg.softmax(-input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim(), _stacklevel)
    return _lg.log_softmax(input, dim, dtype=dtype)


def _leaky_relu_on_result(input, negative_slope=0.01):
    _check_kernel_dtype("leaky_relu_", input)
    return _activation_inplace.leaky_relu_on_result(input, negative_slope=negative_slope)


def _threshold_on_input(input, threshold, value):
    _check_kernel_dtype("threshold_", input, integers=True)
    if not input.is_floating_point():  # integers stay integers (nothing to record)
        return _lg.where(input > threshold, input, value).to(input.dtype)
    return _activation_inplace.threshold_on_input(input, threshold=threshold, value=value)


# The in-place ops ``inplace=True`` calls, as torch.nn.functional's: the op on the input,
# written back (``inplace`` keeps a copy of the input where the op saved it, as PyTorch's).
relu_ = _lg.relu_
leaky_relu_ = _inplace(_leaky_relu_on_result, "leaky_relu_")
rrelu_ = _inplace(_rrelu_on_result, "rrelu_")
threshold_ = _inplace(_threshold_on_input, "threshold_")
hardtanh_ = _inplace(hardtanh, "hardtanh_")
hardsigmoid_ = _inplace(hardsigmoid, "hardsigmoid_")
hardswish_ = _inplace(hardswish, "hardswish_")
silu_ = _inplace(silu, "silu_")
mish_ = _inplace(mish, "mish_")
