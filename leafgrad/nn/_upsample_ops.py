"""``interpolate``'s nearest and (bi/tri)linear and bicubic modes as ops of their own, recorded
as PyTorch records them: ``upsample_nearest1d`` (UpsampleNearest1DBackward0) ...
``upsample_trilinear3d`` (UpsampleTrilinear3DBackward0), saving ``output_size``, the scales
(``scales``; ``scales_h``, ``scales_w``; ``scales_d`` ...), ``self_sym_sizes`` and, for the
interpolating modes, ``align_corners``.

Each is a separable linear map: per spatial dim a gather (nearest) or a constant ``(in, out)``
weight matrix (``_interpolate_functions`` builds both). Its backward, the adjoint
(``upsample_nearest1d_backward`` ..., ...BackwardBackward0 as in PyTorch), adds back; each is
the other's VJP, so derivatives of every order are exact. Both act on the trailing dims only.
"""

from __future__ import annotations

import numpy as np

from ..ops._add_at import add_at
from ..ops._primitive import adjoint_pair

__all__ = ["upsample"]

_SCALE_NAMES = {
    1: ("scales",),
    2: ("scales_h", "scales_w"),
    3: ("scales_d", "scales_h", "scales_w"),
}
# mode -> (op name stem, node name stem, dims it takes)
_MODES = {
    "nearest": ("upsample_nearest", "UpsampleNearest", (1, 2, 3)),
    "nearest-exact": ("_upsample_nearest_exact", "UpsampleNearestExact", (1, 2, 3)),
    "linear": ("upsample_linear", "UpsampleLinear", (1,)),
    "bilinear": ("upsample_bilinear", "UpsampleBilinear", (2,)),
    "bicubic": ("upsample_bicubic", "UpsampleBicubic", (2,)),
    "trilinear": ("upsample_trilinear", "UpsampleTrilinear", (3,)),
}


def _source_scale(size: int, out: int, scale, align_corners: bool) -> float:
    """PyTorch's ``area_pixel_compute_scale``: output step measured in input pixels."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else size / out


def _nearest_index(size: int, out: int, scale, exact: bool) -> np.ndarray:
    step = 1.0 / scale if scale is not None and scale > 0 else size / out
    # float32 arithmetic, as PyTorch's CPU kernel, decides which pixel a boundary lands on.
    dst = np.arange(out, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0))
    return np.minimum(np.floor(dst * np.float32(step)).astype(np.int64), size - 1)


def _cubic_weights(t: np.ndarray) -> np.ndarray:
    """Keys' cubic convolution weights (A = -0.75, as PyTorch) for the 4 taps around ``t``."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], -1)


def _linear_matrix(size, out, scale, align_corners, cubic) -> np.ndarray:
    """``(in, out)`` weights: column ``o`` mixes the input pixels output ``o`` reads."""
    step = _source_scale(size, out, scale, align_corners)
    dst = np.arange(out, dtype=np.float64)
    src = dst * step if align_corners else step * (dst + 0.5) - 0.5
    matrix = np.zeros((size, out))
    if cubic:
        # Bicubic reads 4 taps clamped at the border, and keeps negative source positions.
        base = np.floor(src).astype(np.int64)
        weights = _cubic_weights(src - base)
        for k in range(4):
            np.add.at(matrix, (np.clip(base - 1 + k, 0, size - 1), np.arange(out)), weights[:, k])
        return matrix
    src = np.maximum(src, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), size - 1)
    high = np.minimum(low + 1, size - 1)
    frac = src - low
    np.add.at(matrix, (low, np.arange(out)), 1.0 - frac)
    np.add.at(matrix, (high, np.arange(out)), frac)
    return matrix


def _steps(mode, in_sizes, params):
    """Per trailing dim: ``("take", index)`` or ``("matrix", (in, out) weights)``."""
    nd = len(in_sizes)
    scales = [params[name] for name in _SCALE_NAMES[nd]]
    steps = []
    for n, out, scale in zip(in_sizes, params["output_size"], scales):
        if mode.startswith("nearest"):
            steps.append(("take", _nearest_index(n, out, scale, mode == "nearest-exact")))
        else:
            cubic = mode == "bicubic"
            matrix = _linear_matrix(n, out, scale, params["align_corners"], cubic)
            steps.append(("matrix", matrix))
    return steps


def _make_forward(mode, nd):
    def forward(x, **params):
        for j, (kind, step) in enumerate(_steps(mode, x.shape[x.ndim - nd :], params)):
            axis = x.ndim - nd + j
            if kind == "take":
                x = np.take(x, step, axis=axis)
            else:
                product = np.tensordot(x, step.astype(x.dtype), axes=([axis], [0]))
                x = np.moveaxis(product, -1, axis)
        return np.ascontiguousarray(x)

    return forward


def _make_adjoint(mode, nd):
    def adjoint(grad, *, shape, **params):
        """Each output's gradient added back where it was read (``shape``: the input's)."""
        for j, (kind, step) in enumerate(_steps(mode, shape[len(shape) - nd :], params)):
            axis = grad.ndim - nd + j
            size = shape[len(shape) - nd + j]
            if kind == "take":
                moved = np.moveaxis(grad, axis, 0)
                total = np.zeros((size,) + moved.shape[1:], grad.dtype)
                add_at(total, step, moved)
                grad = np.moveaxis(total, 0, axis)
            else:
                product = np.tensordot(grad, step.T.astype(grad.dtype), axes=([axis], [0]))
                grad = np.moveaxis(product, -1, axis)
        return np.ascontiguousarray(grad)

    return adjoint


def _declare(mode, nd):
    stem, node, _ = _MODES[mode]
    saves = ("output_size", *_SCALE_NAMES[nd], "self_sym_sizes")
    if not mode.startswith("nearest"):
        saves += ("align_corners",)
    return adjoint_pair(
        f"{stem}{nd}d",
        _make_forward(mode, nd),
        f"{stem}{nd}d_backward",
        _make_adjoint(mode, nd),
        node_name=f"{node}{nd}DBackward0",
        adjoint_node_name=f"{node}{nd}DBackwardBackward0",
        saves=saves,
    )


# (mode, dims) -> (the op, its adjoint)
_OPS = {(mode, nd): _declare(mode, nd) for mode, (_, _, dims) in _MODES.items() for nd in dims}


def upsample(input, mode: str, sizes, scales, align_corners):
    """``input`` ``(N, C, *spatial)`` resampled to ``sizes`` (``scales`` None where the step
    comes from the sizes) by a mode of ``_MODES``."""
    nd = len(sizes)
    params = dict(zip(_SCALE_NAMES[nd], scales))
    if not mode.startswith("nearest"):
        params["align_corners"] = bool(align_corners)
    return _OPS[mode, nd][0](
        input, output_size=tuple(sizes), self_sym_sizes=tuple(input.shape), **params
    )
