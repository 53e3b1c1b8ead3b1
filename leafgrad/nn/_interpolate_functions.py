"""Resampling of ``nn.functional``: ``interpolate`` (nearest, nearest-exact, linear, bilinear,
bicubic, trilinear, lanczos, area), its ``upsample*`` aliases and ``pixel_shuffle`` /
``pixel_unshuffle``.

The nearest and interpolating modes are ops of their own (``_upsample_ops``), as PyTorch
records them; ``area`` is an adaptive average pool; ``antialias=True`` (and ``lanczos``,
which requires it) is two products with ``_antialias``'s weight matrices.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

import leafgrad as _lg

from .. import Tensor
from ..ops import pixel_shuffle as _pixel_shuffle
from . import _antialias, _upsample_ops
from ._activation_functions import _check_kernel_dtype
from ._pooling_functions import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = [
    "interpolate", "pixel_shuffle", "pixel_unshuffle", "upsample", "upsample_bilinear",
    "upsample_nearest",
]  # fmt: skip

_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3, "lanczos": 2}
_MODES = ("nearest", "nearest-exact", "area", *_LINEAR_DIMS)


def _output_sizes(input, nd, size, scale_factor, recompute_scale_factor):
    """``(sizes, scales)`` per spatial dim; ``scales`` are ``None`` where the kernel should
    derive the step from the sizes."""
    if size is not None and scale_factor is not None:
        raise ValueError("interpolate: only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("interpolate: either size or scale_factor should be defined")
    spatial = input.shape[2:]
    if size is not None:
        sizes = (size,) * nd if isinstance(size, int) else tuple(size)
        if len(sizes) != nd:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {list(spatial)} and output size of {size}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                "(o1, o2, ...,oK) format."
            )
        if recompute_scale_factor:
            raise ValueError(
                "recompute_scale_factor is not meaningful with an explicit size; pass "
                "scale_factor instead"
            )
        return [int(s) for s in sizes], [None] * nd
    scales = (scale_factor,) * nd if isinstance(scale_factor, (int, float)) else scale_factor
    scales = tuple(float(s) for s in scales)
    if len(scales) != nd:
        raise ValueError(
            f"Input and scale_factor must have the same number of spatial dimensions, but got "
            f"input with spatial dimensions of {list(spatial)} and scale_factor of shape "
            f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            "scale_factor in (s1, s2, ...,sK) format."
        )
    sizes = [math.floor(n * s) for n, s in zip(spatial, scales)]
    return sizes, [None] * nd if recompute_scale_factor else list(scales)


def interpolate(
    input: Tensor,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias: bool = False,
) -> Tensor:
    """Resample ``(N, C, *spatial)`` (1-3 spatial dims) to ``size`` or by ``scale_factor``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be a Tensor, not {type(input)}")
    if mode not in _MODES:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not one of {', '.join(_MODES)}")
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    nd = input.dim() - 2
    if antialias and not (mode in _antialias.FILTERS and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            f"requires a 4-D tensor as input (got mode {mode!r}, {input.dim()}-D input)"
        )
    if nd not in (1, 2, 3) or (mode in _LINEAR_DIMS and _LINEAR_DIMS[mode] != nd):
        needs = f"{_LINEAR_DIMS[mode] + 2}D" if mode in _LINEAR_DIMS else "3D, 4D or 5D"
        raise NotImplementedError(
            f"interpolate: got {input.dim()}D input, but mode {mode!r} needs {needs} input "
            "(N, C, *spatial)"
        )
    sizes, scales = _output_sizes(input, nd, size, scale_factor, recompute_scale_factor)
    if any(s <= 0 for s in sizes):
        raise RuntimeError(
            f"interpolate: input spatial size {list(input.shape[2:])} gives output size "
            f"{sizes}; every output size must be positive"
        )
    if mode == "area":
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 1]
        return pool(input, sizes)
    # PyTorch's resampling kernels: floating point and uint8 only
    _check_kernel_dtype(f"upsample_{mode}", input, refused="biu", kept=("uint8",))
    if input._data.dtype == np.uint8 and mode not in ("nearest", "nearest-exact"):
        return _rounded_uint8(interpolate(
            input.double(), size, scale_factor, mode, align_corners, recompute_scale_factor,
            antialias,
        ))  # fmt: skip
    if mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        return _antialias.resample(input, mode, sizes, scales, align_corners)
    return _upsample_ops.upsample(input, mode, sizes, scales, align_corners)


def _rounded_uint8(x: Tensor) -> Tensor:
    """float64 values rounded half up into uint8, clamped to [0, 255]. (PyTorch's uint8
    kernels use 16-bit fixed-point weights and round each separable pass: this agrees with
    them to within 1.)"""
    return (x + 0.5).floor().clamp(0, 255).to(_lg.uint8)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate`` (warns, as PyTorch does)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='nearest')``."""
    warnings.warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    warnings.warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C r^2, H, W)`` -> ``(*, C, H r, W r)``."""
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    return _pixel_shuffle.pixel_shuffle(input, upscale_factor=int(r))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H r, W r)`` -> ``(*, C r^2, H, W)``."""
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input.shape[-2:]
    if h % r or w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height and width ({h}, {w}) to be divisible by "
            f"downscale_factor {r}"
        )
    return _pixel_shuffle.pixel_unshuffle(input, downscale_factor=int(r))
