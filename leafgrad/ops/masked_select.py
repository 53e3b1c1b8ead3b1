"""``masked_select`` as one op, as PyTorch records it (``MaskedSelectBackward0``, saving
``self`` and ``mask``): the elements of the input (broadcast with the mask) where the mask
holds, as a 1-D tensor. Its gradient places the incoming one at those elements of zeros
(the ``index`` op's adjoint), so it differentiates to any order.
"""

from __future__ import annotations

import numpy as np

from ._optable import Composite
from ._primitive import primitive
from .slicing import _index_put


def _forward(x, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


def _composite(x, mask):
    """The same from ``expand`` and indexing (Taylor mode, and vmap of an unbatched mask)."""
    shape = np.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
    return x.expand(shape)[mask.expand(shape)]


def _vjp(grad, x, mask, result):
    shape = np.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
    where = np.broadcast_to(mask._data, shape)
    return _index_put(grad, shape=shape, indices=(where,), accumulate=False)


masked_select = primitive(
    "masked_select",
    _forward,
    (_vjp, None),
    kind=Composite(
        taylor_as=_composite,
        jvp=lambda tx, tmask, x, mask, *, result: masked_select(tx, mask),
    ),
    inputs=("self", "mask"),
    edgeless=(1,),  # no edge for the mask, as in PyTorch
    saves=("self", "mask"),
    node_name="MaskedSelectBackward0",
    dtype_rule="keep",
    broadcast=True,
)
