"""``pixel_shuffle`` and ``pixel_unshuffle`` as PyTorch records them (PixelShuffleBackward0,
PixelUnshuffleBackward0): each a copy of its input rearranged, each the other's VJP. The
public functions (``nn.functional``) check their arguments first.
"""

from __future__ import annotations

import numpy as np

from ._optable import Composite
from ._primitive import primitive


def _shuffled(x, r: int, reshape, permute):
    """``(*, C r^2, H, W)`` -> ``(*, C, H r, W r)`` through ``reshape`` and ``permute``."""
    *batch, c, h, w = x.shape
    nb = len(batch)
    y = reshape(x, (*batch, c // (r * r), r, r, h, w))
    y = permute(y, (*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2))
    return reshape(y, (*batch, c // (r * r), h * r, w * r))


def _unshuffled(x, r: int, reshape, permute):
    """``(*, C, H r, W r)`` -> ``(*, C r^2, H, W)``."""
    *batch, c, h, w = x.shape
    nb = len(batch)
    y = reshape(x, (*batch, c, h // r, r, w // r, r))
    y = permute(y, (*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3))
    return reshape(y, (*batch, c * r * r, h // r, w // r))


def _array_reshape(a, shape):
    return np.reshape(a, shape)


def _tensor_reshape(t, shape):
    return t.reshape(shape)


def _tensor_permute(t, dims):
    return t.permute(dims)


def _shuffle_forward(x, *, upscale_factor):
    return np.ascontiguousarray(_shuffled(x, upscale_factor, _array_reshape, np.transpose))


def _unshuffle_forward(x, *, downscale_factor):
    return np.ascontiguousarray(_unshuffled(x, downscale_factor, _array_reshape, np.transpose))


def _shuffle(x, *, upscale_factor):
    """``_shuffle_forward`` in leafgrad ops (Taylor mode, vmap)."""
    return _shuffled(x, upscale_factor, _tensor_reshape, _tensor_permute)


def _unshuffle(x, *, downscale_factor):
    return _unshuffled(x, downscale_factor, _tensor_reshape, _tensor_permute)


pixel_shuffle = primitive(
    "pixel_shuffle",
    _shuffle_forward,
    (
        lambda grad, x, result, *, upscale_factor: pixel_unshuffle(
            grad, downscale_factor=upscale_factor
        ),
    ),
    kind=Composite(
        taylor_as=_shuffle,
        jvp=lambda tx, x, *, result, upscale_factor: pixel_shuffle(
            tx, upscale_factor=upscale_factor
        ),
    ),
    saves=("upscale_factor",),
    node_name="PixelShuffleBackward0",
    dtype_rule="keep",
    plain_rules=True,
)

pixel_unshuffle = primitive(
    "pixel_unshuffle",
    _unshuffle_forward,
    (
        lambda grad, x, result, *, downscale_factor: pixel_shuffle(
            grad, upscale_factor=downscale_factor
        ),
    ),
    kind=Composite(
        taylor_as=_unshuffle,
        jvp=lambda tx, x, *, result, downscale_factor: pixel_unshuffle(
            tx, downscale_factor=downscale_factor
        ),
    ),
    saves=("downscale_factor",),
    node_name="PixelUnshuffleBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


__all__: list = []
