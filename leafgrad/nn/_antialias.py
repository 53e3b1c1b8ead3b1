"""``interpolate(..., antialias=True)`` and the ``lanczos`` mode: PyTorch's separable
antialiasing filters, as one weight matrix per spatial dim.

PyTorch (``_upsample_{bilinear,bicubic,lanczos}2d_aa``) resamples each dim with a filter
widened by the scale when it shrinks the dim (PIL's scheme): output ``i`` is centred at
``scale (i + 0.5)`` input pixels, reads the inputs within the filter's half width of it
(times the scale where the scale exceeds 1), each weighted by the filter at ``(j - centre +
0.5) / max(scale, 1)``, the weights normalised to sum 1. The filters: the triangle
(bilinear), Keys' cubic with ``a = -0.5`` (bicubic), Lanczos-3. Here each dim's weights are
a matrix, computed in float64, and the resampling two matrix products, whose backward is the
gradient (PyTorch records one ``UpsampleBilinear2DAaBackward0`` node instead).
"""

from __future__ import annotations

import numpy as np

import leafgrad as _lg

from .. import Tensor

_KEYS_A = -0.5  # Keys' cubic convolution parameter, as PyTorch's and PIL's


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x):
    x = np.abs(x)
    a = _KEYS_A
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def _lanczos3(x):
    x = np.abs(x)
    return np.where(x < 3, np.sinc(x) * np.sinc(x / 3), 0.0)


# mode -> (the filter's half width in pixels, the filter)
FILTERS = {"bilinear": (1.0, _triangle), "bicubic": (2.0, _keys_cubic), "lanczos": (3.0, _lanczos3)}


def weights(n_in: int, n_out: int, mode: str, align_corners: bool, scale_factor) -> np.ndarray:
    """The ``(n_out, n_in)`` float64 matrix taking one dim of ``n_in`` to ``n_out``."""
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        scale = 1.0 / scale_factor if scale_factor else n_in / n_out
    half, fn = FILTERS[mode]
    support = half * scale if scale >= 1.0 else half
    stretch = 1.0 / scale if scale >= 1.0 else 1.0
    out = np.zeros((n_out, n_in))
    for i in range(n_out):
        centre = scale * (i + 0.5)
        low = max(int(centre - support + 0.5), 0)  # (truncation, as PyTorch's int64 cast)
        high = min(int(centre + support + 0.5), n_in)
        w = fn((np.arange(low, high) - centre + 0.5) * stretch)
        total = w.sum()
        out[i, low:high] = w / total if total != 0 else w
    return out


def resample(input: Tensor, mode: str, sizes, scales, align_corners: bool) -> Tensor:
    """``input`` ``(N, C, H, W)`` resampled to ``sizes`` along H, then W."""
    h, w = input.shape[2:]
    rows = weights(h, sizes[0], mode, align_corners, scales[0])
    cols = weights(w, sizes[1], mode, align_corners, scales[1])
    x = _lg.tensor(rows, dtype=input.dtype) @ input
    return x @ _lg.tensor(cols.T, dtype=input.dtype)
