"""Channel-wise and alpha dropout of ``nn.functional`` (``dropout1d/2d/3d``,
``alpha_dropout``, ``feature_alpha_dropout``), composed from leafgrad ops.

Masks come from leafgrad's generator (``manual_seed``), so the draws differ from PyTorch's;
the distribution and the scaling are PyTorch's.
"""

from __future__ import annotations

import math
import warnings

import leafgrad as _lg

from .. import Tensor

__all__ = ["alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout"]

# SELU's scale * alpha: alpha dropout sets dropped units to SELU's negative saturation.
_SELU_SATURATION = 1.7580993408473766


def _check(name: str, input, p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, not {type(input).__name__}")


def _keep_mask(input: Tensor, p: float, feature: bool) -> Tensor:
    """1 with probability ``1 - p``, per element or (``feature``) per ``(sample, channel)``."""
    if feature and input.dim() < 2:
        raise RuntimeError(
            f"Feature dropout requires at least 2 dimensions in the input, got input of size "
            f"{list(input.shape)}"
        )
    shape = (*input.shape[:2], *([1] * (input.dim() - 2))) if feature else tuple(input.shape)
    return (_lg.rand(*shape, dtype=_lg.float64) < (1.0 - p)).to(input.dtype)


def _dropout(input: Tensor, p: float, training: bool, feature: bool, alpha: bool) -> Tensor:
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _keep_mask(input, p, feature)
    if not alpha:
        return input * (keep * (1.0 / (1.0 - p)))
    a, shift = _alpha_affine(keep, p)
    return input * (keep * a) + shift


def _alpha_affine(keep: Tensor, p: float) -> tuple:
    """Alpha dropout's scale and shift: they keep zero mean and unit variance for
    standardised input (Klambauer et al., 2017)."""
    a = 1.0 / math.sqrt((_SELU_SATURATION**2 * p + 1) * (1 - p))
    return a, (keep - 1) * (_SELU_SATURATION * a) + _SELU_SATURATION * a * p


def _dropout_(input: Tensor, p: float, training: bool, feature: bool, alpha: bool) -> Tensor:
    """``_dropout`` written into ``input``, as PyTorch's ``dropout_`` family: ``mul_`` by the
    scaled mask, then ``add_`` of the shift for alpha dropout; ``input`` untouched outside
    training, for ``p == 0`` or when empty."""
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(_lg.zeros((), dtype=input.dtype))
    keep = _keep_mask(input, p, feature)
    if not alpha:
        return input.mul_(keep * (1.0 / (1.0 - p)))
    a, shift = _alpha_affine(keep, p)
    return input.mul_(keep * a).add_(shift)


def _unbatched_dropout_(input: Tensor, p: float, training: bool) -> Tensor:
    """Channel dropout of an unbatched input in place: PyTorch's ``unsqueeze_(0)``, the write,
    ``squeeze_(0)`` (two more versions, in eval too)."""
    input.unsqueeze_(0)
    _dropout_(input, p, training, True, False)
    return input.squeeze_(0)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` with probability ``p``; scale the
    rest by ``1 / (1 - p)``."""
    _check("dropout1d", input, p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input; "
            "dropout1d drops channels of (N, C, L) or (C, L) input"
        )
    if inplace:
        if input.dim() == 2:
            return _unbatched_dropout_(input, p, training)
        return _dropout_(input, p, training, True, False)
    if input.dim() == 2:
        return _dropout(input.unsqueeze(0), p, training, True, False).squeeze(0)
    return _dropout(input, p, training, True, False)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of ``(N, C, H, W)`` with probability ``p``; scale the rest by
    ``1 / (1 - p)``. A 3-D input is taken as ``(N, C, L)`` (with PyTorch's warning)."""
    _check("dropout2d", input, p)
    if input.dim() not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior and "
            "silence this warning, please use dropout instead. Note that dropout2d exists to "
            "provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret "
            "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    if inplace:
        return _dropout_(input, p, training, True, False)
    return _dropout(input, p, training, True, False)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with probability ``p``;
    scale the rest by ``1 / (1 - p)``."""
    _check("dropout3d", input, p)
    if input.dim() not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior and "
            "silence this warning, please use dropout instead. Note that dropout3d exists to "
            "provide channel-wise dropout on inputs with 3 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if inplace:
        if input.dim() == 4:
            return _unbatched_dropout_(input, p, training)
        return _dropout_(input, p, training, True, False)
    if input.dim() == 4:
        return _dropout(input.unsqueeze(0), p, training, True, False).squeeze(0)
    return _dropout(input, p, training, True, False)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Dropout for SELU networks: dropped elements become SELU's saturation value and an
    affine map keeps the mean and variance; the identity unless ``training``."""
    _check("alpha_dropout", input, p)
    if inplace:
        return _dropout_(input, p, training, False, True)
    return _dropout(input, p, training, False, True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False):  # fmt: skip
    """``alpha_dropout`` of whole channels of ``(N, C, *)``."""
    _check("feature_alpha_dropout", input, p)
    if inplace:
        return _dropout_(input, p, training, True, True)
    return _dropout(input, p, training, True, True)
