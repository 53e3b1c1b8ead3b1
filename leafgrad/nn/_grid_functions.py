"""``grid_sample`` and ``affine_grid`` of ``nn.functional``, composed from leafgrad ops.

A sample is a weighted sum of input values at integer positions gathered with one
``gather`` per tap; the weights are polynomials of the fractional part of the sampling
coordinate, so gradients flow to both the input and the grid, to any order.
"""

from __future__ import annotations

import itertools
import math
import warnings

import leafgrad as _lg

from .. import Tensor
from ._activation_functions import _check_kernel_dtype
from ._affine_grid_op import affine_grid_generator

__all__ = [
    "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "affine_grid", "grid_sample",
]  # fmt: skip

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
_CUBIC_A = -0.75


def _default_align_corners(align_corners):
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False "
            "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details.",
            UserWarning,
            stacklevel=3,
        )
        return False
    return align_corners


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """Grid coordinate in ``[-1, 1]`` to a pixel position."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Reflect ``coord`` into ``[twice_low / 2, twice_high / 2]`` by mirroring at both ends."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = _lg.abs(coord - low)
    extra = _lg.fmod(distance, span)
    flips = _lg.floor(distance / span)
    even = _lg.fmod(flips, 2) == 0
    return _lg.where(even, extra + low, span - extra + low)


def _source(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """Where a (pixel) coordinate reads from under ``padding_mode``."""
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
    if padding_mode in ("border", "reflection"):
        coord = _lg.clamp(coord, 0, size - 1)
    return coord


def _tap(flat: Tensor, sizes, positions: list[Tensor]) -> Tensor:
    """Input values ``(N, C, P)`` at integer ``positions`` (one ``(N, P)`` float tensor per
    spatial dim); out-of-range positions read 0."""
    inside = None
    index = None
    for pos, size in zip(positions, sizes):
        ok = (pos >= 0) & (pos <= size - 1)
        inside = ok if inside is None else inside & ok
        clipped = _lg.clamp(pos, 0, size - 1).to(_lg.int64)
        index = clipped if index is None else index * size + clipped
    n, c = flat.shape[:2]
    values = flat.gather(2, index.unsqueeze(1).expand(n, c, index.shape[1]))
    return values * inside.unsqueeze(1).to(flat.dtype)


def _cubic_weights(t: Tensor) -> list[Tensor]:
    """Keys' cubic convolution weights (A = -0.75) of the 4 taps around fraction ``t``."""
    a = _CUBIC_A

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _check(input: Tensor, grid: Tensor, mode: str, padding_mode: str) -> None:
    if mode not in GRID_SAMPLE_INTERPOLATION_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}"
        )
    nd = input.dim() - 2
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != nd:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid "
            f"with sizes {list(grid.shape)}"
        )
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid of the same dtype, but got input "
            f"{input.dtype} and grid {grid.dtype}; cast one with .to()"
        )
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """Sample ``input`` ``(N, C, *S)`` at the normalised positions ``grid`` ``(N, *O, nd)``
    (``x`` first, ``[-1, 1]`` spanning the input): ``(N, C, *O)``."""
    if isinstance(input, Tensor):
        _check_kernel_dtype("grid_sampler", input)
    _check(input, grid, mode, padding_mode)
    align_corners = _default_align_corners(align_corners)
    nd = input.dim() - 2
    n, c = input.shape[:2]
    sizes = tuple(input.shape[2:])
    out_shape = tuple(grid.shape[1:-1])
    flat = input.reshape(n, c, math.prod(sizes))
    points = grid.reshape(n, -1, nd)
    # grid's last axis lists x (the last spatial dim) first.
    coords = [_unnormalize(points[..., nd - 1 - j], sizes[j], align_corners) for j in range(nd)]
    if mode == "bicubic":
        out = _bicubic(flat, sizes, coords, padding_mode, align_corners)
    else:
        coords = [_source(x, s, padding_mode, align_corners) for x, s in zip(coords, sizes)]
        if mode == "nearest":
            out = _tap(flat, sizes, [_lg.round(x).detach() for x in coords])
        else:
            low = [_lg.floor(x).detach() for x in coords]
            frac = [x - f for x, f in zip(coords, low)]
            out = None
            for corner in itertools.product((0, 1), repeat=nd):
                weight = None
                for b, t in zip(corner, frac):
                    w = t if b else 1 - t
                    weight = w if weight is None else weight * w
                value = _tap(flat, sizes, [f + b for f, b in zip(low, corner)])
                term = value * weight.unsqueeze(1)
                out = term if out is None else out + term
    return out.reshape(n, c, *out_shape)


def _bicubic(flat, sizes, coords, padding_mode, align_corners) -> Tensor:
    """Bicubic sampling: 16 taps, each position mapped through ``padding_mode`` on its own."""
    x, y = coords[1], coords[0]
    x0, y0 = _lg.floor(x).detach(), _lg.floor(y).detach()
    wx, wy = _cubic_weights(x - x0), _cubic_weights(y - y0)
    out = None
    for i in range(4):
        for j in range(4):
            py = _source(y0 + (i - 1), sizes[0], padding_mode, align_corners).detach()
            px = _source(x0 + (j - 1), sizes[1], padding_mode, align_corners).detach()
            term = _tap(flat, sizes, [py, px]) * (wy[i] * wx[j]).unsqueeze(1)
            out = term if out is None else out + term
    return out


def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid ``(N, *size[2:], nd)`` of the affine maps ``theta`` ``(N, nd, nd+1)``
    over an output of ``size`` ``(N, C, *spatial)``, for ``grid_sample``."""
    align_corners = _default_align_corners(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    nd = len(size) - 2
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (nd, nd + 1):
        raise ValueError(
            f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size "
            f"{size}. Got {list(theta.shape)}."
        )
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            f"affine_grid: theta holds {theta.shape[0]} matrices but size asks for a batch of "
            f"{size[0]}; they must agree"
        )
    if align_corners and min(size[2:]) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            UserWarning,
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {list(size)}")
    return affine_grid_generator(theta, size=size, align_corners=bool(align_corners))
