"""Op-table samples for ops/slicing.py (``__getitem__``, select, slice), ops/indexing.py and
ops/index_writes.py."""

import numpy as np

import leafgrad as lg
from leafgrad.ops.indexing import _index_add, _scatter_add, _take_backward
from leafgrad.ops.slicing import _index_put, _select_backward, _slice_backward

from .optable import OpSample

S = OpSample
_LONG = lg.int64


def _mask(*rows):
    return lg.tensor(rows, dtype=lg.bool)


_REPEATED = np.array([0, 2, 0, 0])  # repeated indices must accumulate in every backward

SAMPLES = [
    # basic indexing: views
    S("select.int", lambda x: x[1], ((3, 4),)),
    S("select.int", lambda x: x[:, -1], ((3, 4),), id="select-negative-second-dim"),
    S("select.int", lambda x: lg.select(x, -2, 0), ((2, 3, 4),), id="select-function"),
    S("select.int", lambda x: x[1, 2], ((3, 4),), id="select-twice"),
    S("select_backward", lambda g: _select_backward(g, shape=(3, 4), dim=1, index=2), ((3,),)),
    S("slice.Tensor", lambda x: x[1:3], ((4, 2),)),
    S("slice.Tensor", lambda x: x[:, ::2], ((2, 5),), id="slice-step"),
    S("slice.Tensor", lambda x: x[-3:-1, 1:], ((4, 3),), id="slice-negative-bounds"),
    S("slice.Tensor", lambda x: x.narrow(-1, 1, 2), ((2, 4),), id="narrow"),
    S("slice.Tensor", lambda x: x[0, 1:3, None], ((2, 4),), id="select-slice-none"),
    S(
        "slice_backward",
        lambda g: _slice_backward(g, shape=(5, 2), dim=0, start=1, stop=5, step=2),
        ((2, 2),),
    ),
    S("alias", lambda x: x[...], ((2, 3),)),
    S("alias", lambda x: x[:, :], ((2, 3),), id="alias-full-slices"),
    S(
        "unsqueeze",
        lambda x: x[None, ..., None],
        ((2, 3),),
        covers=("unsqueeze",),
        id="getitem-none",
    ),
    # advanced indexing
    S("index.Tensor", lambda x: x[[0, 2, 0]], ((3, 2),), id="index-repeated-list"),
    S("index.Tensor", lambda x: x[lg.tensor([[1, 0], [1, 1]])], ((3, 2),), id="index-2d-index"),
    S("index.Tensor", lambda x: x[:, [2, -1, 2]], ((2, 4),), id="index-after-slice-negative"),
    S(
        "index.Tensor",
        lambda x: x[[0, 1, 1], :, [2, 0, 2]],
        ((2, 3, 3),),
        id="index-separated-dims-first",
    ),
    S("index.Tensor", lambda x: x[1:, [0, 0], None], ((3, 2),), id="index-slice-none"),
    S("index.Tensor", lambda x: x[0, :, [1, 1]], ((2, 3, 2),), id="index-int-then-list"),
    S(
        "index.Tensor",
        lambda x: x[_mask([True, False, True], [False, True, True])],
        ((2, 3),),
        id="index-bool-mask",
    ),
    S(
        "index.Tensor",
        lambda x: x[:, _mask(True, False, True)],
        ((2, 3, 2),),
        id="index-bool-mask-inner-dim",
    ),
    S("index.Tensor", lambda x: x[x > 0], ((3, 3),), id="index-data-dependent-mask"),
    S("index.Tensor", lambda x: x[True], ((2,),), id="index-true"),
    S(
        "index_put_impl",
        lambda g: _index_put(g, shape=(3, 2), indices=(_REPEATED,), accumulate=True),
        ((4, 2),),
    ),
    S(
        "index_put_impl",
        lambda g: _index_put(g, shape=(2, 3), indices=(None, np.array([2, 0])), accumulate=False),
        ((2, 2),),
        id="index_put-assign",
    ),
    # index tensors
    S("gather", lambda x: x.gather(0, lg.tensor([[0, 1, 0], [2, 2, 0]])), ((3, 3),)),
    S(
        "gather",
        lambda x: lg.gather(x, -1, lg.tensor([[1, 1], [0, 1]])),
        ((3, 2),),
        id="gather-smaller-index-negative-dim",
    ),
    S(
        "gather",
        lambda x: lg.take_along_dim(x, lg.tensor([[0], [2]]), dim=1),
        ((2, 3),),
        id="take_along_dim",
    ),
    S(
        "gather",
        lambda x: lg.take_along_dim(x, lg.tensor([[2, 0, 2]]), 0),
        ((3, 3),),
        id="take_along_dim-broadcast",
    ),
    S(
        "gather",
        lambda x: lg.take_along_dim(x, lg.tensor([5, 0, 5])),
        ((2, 3),),
        id="take_along_dim-flat",
    ),
    S("sort", lambda x: x.sort(1, descending=True).values, ((2, 3),)),
    S("sort", lambda x: lg.sort(x, -1).values, ((4,),), id="sort-negative-dim"),
    S("sort.stable", lambda x: lg.sort(x, 0, stable=True).values, ((3, 2),)),
    S("sort", lambda x: x.sort().values, ((),), id="sort-0d"),
    S("topk", lambda x: x.topk(1).values, ((),), id="topk-0d"),
    S("topk", lambda x: x.topk(2, dim=0).values, ((3, 2),)),
    S(
        "gather_backward",
        lambda g: _scatter_add(g, shape=(3, 2), dim=0, index=np.array([[0, 2], [0, 0]])),
        ((2, 2),),
    ),
    S("index_select", lambda x: x.index_select(0, lg.tensor(_REPEATED)), ((3, 2),)),
    S(
        "index_select",
        lambda x: lg.index_select(x, -1, lg.tensor([1], dtype=lg.int32)),
        ((2, 3),),
        id="index_select-int32-negative-dim",
    ),
    S(
        "index_select_backward",
        lambda g: _index_add(g, shape=(2, 3), dim=1, index=np.array([1, 1])),
        ((2, 2),),
    ),
    S("take", lambda x: x.take(lg.tensor([[0, -1], [4, 0]])), ((2, 3),)),
    S("take", lambda x: lg.take(x, lg.tensor(0)), ((),), id="take-0d"),
    S("take_backward", lambda g: _take_backward(g, shape=(2, 2), index=_REPEATED), ((4,),)),
    # writes at indices (ops/index_writes.py); no repeated index where a write overwrites
    S("index_add", lambda x, s: x.index_add(0, lg.tensor(_REPEATED), s), ((3, 2), (4, 2))),
    S(
        "index_add",
        lambda x, s: lg.index_add(x, -1, lg.tensor([2, 0]), s, alpha=-1.5),
        ((2, 3), (2, 2)),
        id="index_add-alpha-last-dim",
    ),
    S(
        "index_add",
        lambda x, s: x.index_add(0, lg.tensor([0]), s),
        ((), ()),
        id="index_add-0d",
    ),
    S("index_copy", lambda x, s: x.index_copy(1, lg.tensor([2, 0]), s), ((2, 3), (2, 2))),
    S("index_fill.int_Scalar", lambda x: x.index_fill(1, lg.tensor([2, -3, 2]), 0.5), ((2, 3),)),
    S(
        "index_fill.int_Tensor",
        lambda x, v: x.index_fill(0, lg.tensor([1, 1]), v.sum()),
        ((3, 2), (2,)),
    ),
    S("put", lambda x, s: x.put(lg.tensor([[5], [-6]]), s), ((2, 3), (2,))),
    S(
        "put",
        lambda x, s: x.put(lg.tensor([1, 1, -1]), s, accumulate=True),
        ((2, 2), (3,)),
        id="put-accumulate",
    ),
    S(
        "masked_scatter",
        lambda x, s: x.masked_scatter(lg.tensor([True, False, True]), s * s),
        ((2, 3), (5,)),
    ),
    S(
        "masked_scatter",
        lambda x, s: x.masked_scatter(lg.tensor([[True], [False]]), s),  # the mask broadcasts x
        ((1, 3), (2, 2)),
        id="masked_scatter-broadcast",
    ),
    S(
        "masked_fill.Scalar",
        lambda x: x.masked_fill(_mask([True, False, True], [False, False, True]), 0.5),
        ((2, 3),),
    ),
    S(
        "masked_fill.Scalar",
        lambda x: x.masked_fill(_mask(True, False), -1.0),
        ((3, 2),),
        id="masked_fill-broadcast-mask",
    ),
    S(
        "masked_fill.Scalar",
        lambda x: x.masked_fill(_mask([[True], [False]]), 2.0),
        ((1, 3),),
        id="masked_fill-broadcast-to-mask",
    ),
    S(
        "masked_fill.Tensor",
        lambda x, v: x.masked_fill(_mask(True, False, True), v.sum()),
        ((2, 3), (2,)),
        id="masked_fill-tensor-value",
    ),
]
