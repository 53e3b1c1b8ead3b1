"""Op-table samples for ops/inplace.py: in-place writes, through views and indices."""

import leafgrad as lg
from leafgrad.ops.inplace import overwrite
from leafgrad.ops.view_history import embed_region, view_replay, zero_region

from .optable import OpSample

S = OpSample


def _through_row_view(w, v):
    base = w * 1
    base[0].mul_(v)  # copy_slices rebases ``base`` onto the write through its row view
    return base


def _regenerated_view(w, v):
    base = w * 1
    row = base[1]
    base.add_(v)  # the row's history is regenerated: AsStridedBackward0 of the new base
    return row * row


def _setitem(w, v):
    out = w * 1
    out[lg.tensor([2, 1]), 0] = v * v  # an index tensor: index_put
    return out


def _index_add_up(w, v):
    # repeated rows add up; the values broadcast over the indexed rows
    return w.index_put((lg.tensor([0, 2, 0]),), v * v, accumulate=True)


def _index_add_up_in_place(w, v):
    out = w * 1
    out.index_put_((lg.tensor([1, 1]), lg.tensor([0, 1])), v.exp(), accumulate=True)
    return out * out


def _setitem_mask_broadcast(w, v):
    out = w * 1
    out[lg.tensor([[True, False], [False, True], [True, True]])] = v.sum()  # a mask, a 0-d value
    out[lg.tensor([0, 2])] = v * 2  # whole rows: the value is broadcast over them
    return out


def _setitem_basic(w, v):
    out = w * 1
    out[1:, 0] = v * v  # a basic index: a copy into the view it selects
    return out


def _filled(w, v, value):
    out = w * 2
    out[1].fill_(value if value is not None else v.sum())
    return out * w


def _copy_into(w, v):
    out = w * 2
    out.copy_(v)
    return out + w


SAMPLES = [
    S("view_replay", lambda w: view_replay(w, view_fn=lambda t: t[1].t()) * 3, ((3, 2, 2),)),
    S(
        "view_replay",
        lambda w: view_replay(w, view_fn=lambda t: t.expand(4, 3)) ** 2,
        ((3,),),
        id="view_replay-broadcast",
    ),
    S("view_replay", _regenerated_view, ((3, 2), (2,)), id="view_replay-regenerated"),
    S("embed_region", lambda s: embed_region(s, shape=(3, 2), view_fn=lambda t: t[1]) * 2, ((2,),)),
    S("copy_slices", _through_row_view, ((3, 2), (2,)), covers=("copy_slices", "zero_region")),
    S("index_put", _setitem, ((3, 2), (2,))),
    S("index_put", _setitem_mask_broadcast, ((3, 2), (2,)), id="index_put-mask-broadcast"),
    S("index_put.accumulate", _index_add_up, ((3, 2), (2,))),
    S("index_put.accumulate", _index_add_up_in_place, ((3, 2), (2,)), id="index_put_-accumulate"),
    S("copy_slices", _setitem_basic, ((3, 2), (2,)), id="setitem-basic"),
    S("fill.Scalar", lambda w, v: _filled(w, v, 0.5), ((3, 2), (2,))),
    S("fill.Tensor", lambda w, v: _filled(w, v, None), ((3, 2), (2,))),
    S("zero", lambda w: (w * 2).zero_() + w * w, ((3, 2),)),
    S("overwrite", lambda t, s: overwrite(t, s) * t, ((2, 3), (3,))),
    S("overwrite", _copy_into, ((2, 3), (2, 3)), id="copy_"),
    S(
        "zero_region",
        lambda g: zero_region(g, key=(slice(0, 1),)) * g,
        ((3, 2),),
        id="zero_region-key",
    ),
    S(
        "zero_region",
        lambda g: zero_region(g, view_fn=lambda t: t[1]) * g,
        ((3, 2),),
        id="zero_region-view",
    ),
]
