"""``nn.functional``: the layers and losses as functions (``import leafgrad.nn.functional as F``).

``inplace=True`` is accepted for PyTorch compatibility but the result is always a new tensor
(leafgrad has no in-place ops yet); the input is left unchanged.
"""

from __future__ import annotations

import warnings

import leafgrad as _lg

from .. import Tensor
from ._loss_functions import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "dropout",
    "elu",
    "gelu",
    "huber_loss",
    "l1_loss",
    "leaky_relu",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softplus",
    "tanh",
]  # fmt: skip


def _require_tensor(op: str, value, what: str = "input") -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{what}' must be a Tensor, not {type(value).__name__}")


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``; input ``(*, in)``, weight ``(out, in)`` or ``(in,)``, bias
    ``(out,)``."""
    _require_tensor("linear", input)
    _require_tensor("linear", weight, "weight")
    if input.dim() == 0 or input.shape[-1] != weight.shape[-1]:
        raise RuntimeError(
            f"linear: input of shape {list(input.shape)} cannot be multiplied by the transpose of "
            f"weight of shape {list(weight.shape)}; the input's last dimension must equal the "
            "weight's in_features (its last dimension)"
        )
    if bias is not None and input.dim() == 2 and weight.dim() == 2:
        return _lg.addmm(bias, input, weight.t())  # one node, as PyTorch's AddmmBackward0
    out = _lg.matmul(input, weight.t() if weight.dim() == 2 else weight)
    return out if bias is None else out + bias


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; identity
    when not ``training``. The mask comes from leafgrad's generator (``manual_seed``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    _require_tensor("dropout", input)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _lg.rand(*input.shape, dtype=_lg.float64) < (1.0 - p)
    return input * (keep.to(input.dtype) * (1.0 / (1.0 - p)))


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _lg.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _lg.leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _lg.elu(input, alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return _lg.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _lg.silu(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return _lg.softplus(input, beta, threshold)


def sigmoid(input: Tensor) -> Tensor:
    return _lg.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _lg.tanh(input)


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


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim(), _stacklevel)
    return _lg.log_softmax(input, dim, dtype=dtype)
