"""Op-table samples for ops/shape.py, broadcast.py, reorder.py and joining.py (views,
broadcasting, permutations, joins, splits)."""

import leafgrad as lg
from leafgrad.ops.broadcast import sum_to
from leafgrad.ops.reorder import _diagonal_backward
from leafgrad.ops.shape import _squeeze_dim

from .optable import OpSample

S = OpSample


def _pieces_sum(pieces):
    """One output per piece, weighted so each piece's gradient is distinct."""
    return tuple(p * (i + 1) for i, p in enumerate(pieces))


SAMPLES = [
    # view / reshape / flatten
    S("view", lambda x: x.view(4, 3), ((3, 4),)),
    S("view", lambda x: x.view(-1, 2), ((2, 3, 2),), id="view-infer-negative"),
    S("view", lambda x: x.reshape(6), ((2, 3),), id="reshape"),
    S("_reshape_alias", lambda x: x.t().reshape(3, 1, 2), ((2, 3),)),
    S("_reshape_alias", lambda x: x[:, 1].reshape(-1, 1) * x[:, :1], ((3, 2),), id="column"),
    S("_unsafe_view", lambda x: x.t().reshape(6), ((2, 3),)),
    S("_unsafe_view", lambda x: x[:, :2].reshape(-1) ** 2, ((4, 4),), id="gaps"),
    S("view", lambda x: x.flatten(), ((2, 3, 2),), id="flatten-all"),
    S("view", lambda x: lg.flatten(x, 1, -1), ((2, 3, 2),), id="flatten-negative-end"),
    S("view", lambda x: x.unflatten(-1, (2, -1)), ((3, 4),), id="unflatten"),
    S("view", lambda x, y: x.view_as(y) * y, ((2, 3), (3, 2)), id="view-as"),
    # expand / sum_to (broadcasting and its inverse)
    S("expand", lambda x: x.expand(3, 4), ((1, 4),)),
    S("expand", lambda x: x.expand(2, -1, 3), ((4, 1),), id="expand-new-leading-dim"),
    S("expand", lambda x, y: x.expand_as(y) * y, ((3, 1), (2, 3, 4)), id="expand-as"),
    S("sum_to", lambda x: sum_to(x, (1, 4)), ((3, 4),)),
    S("sum_to", lambda x: sum_to(x, (3, 1)), ((2, 3, 4),), id="sum_to-drop-leading-and-keep-1"),
    S("sum_to", lambda x: x.sum_to_size((4,)), ((2, 4),), id="sum_to_size"),
    S("sum_to", lambda x: x.sum_to_size(1, 4), ((2, 4),), id="sum_to_size-varargs"),
    S("sum_to", lambda x: x.sum_to_size(size=[1, 4]), ((3, 4),), id="sum_to_size-keyword"),
    # squeeze / unsqueeze
    S("squeeze", lambda x: x.squeeze(), ((1, 3, 1, 2),), id="squeeze-all"),
    S("squeeze.dim", lambda x: x.squeeze(-2), ((3, 1, 2),), id="squeeze-negative-dim"),
    S("squeeze.dims", lambda x: x.squeeze((0, 2)), ((1, 3, 1),), id="squeeze-tuple"),
    S("squeeze.dim", lambda x: _squeeze_dim(x, shape=(3,)), ((3, 1),), id="squeeze-primitive"),
    S("unsqueeze", lambda x: x.unsqueeze(1), ((2, 3),)),
    S("unsqueeze", lambda x: x.unsqueeze(-1), ((2, 3),), id="unsqueeze-negative-end"),
    # permutations
    S("diagonal", lambda x: x.diagonal(), ((3, 3),)),
    S("diagonal", lambda x: lg.diagonal(x, 1, 0, 2), ((2, 3, 4),), id="diagonal-offset-dims"),
    S("diagonal", lambda x: x.diagonal(-1) * 2, ((4, 3),), id="diagonal-below"),
    S("diagonal", lambda x: x.diagonal().sum(), ((3, 2),), id="diagonal-summed"),
    S(
        "diagonal_backward",
        lambda g: _diagonal_backward(g, shape=(3, 4), offset=1, dim1=0, dim2=1),
        ((3,),),
    ),
    S("permute", lambda x: x.permute(2, 0, 1), ((2, 3, 4),)),
    S("permute", lambda x: x.permute((-1, 0, 1)), ((2, 3, 4),), id="permute-tuple-negative"),
    S("permute", lambda x: x.movedim(0, -1), ((2, 3, 4),), id="movedim"),
    S("permute", lambda x: x.T, ((2, 3),), id="T"),
    S("transpose.int", lambda x: x.transpose(0, 2), ((2, 3, 4),)),
    S("transpose.int", lambda x: x.swapaxes(-1, -2), ((2, 3, 4),), id="swapaxes-negative"),
    S("transpose.int", lambda x: x.mT, ((2, 3, 2),), id="mT"),
    # copies: flip / roll / repeat
    S("flip", lambda x: x.flip(0), ((3, 2),)),
    S("flip", lambda x: x.flip(-1, 0), ((2, 3, 2),), id="flip-two-dims-negative"),
    S("rot90", lambda x: x.rot90(), ((3, 2),)),
    S("rot90", lambda x: lg.rot90(x, -3, (2, -3)), ((2, 3, 4),), id="rot90-negative-k-and-dim"),
    S("roll", lambda x: x.roll(1, 0), ((3, 2),)),
    S("roll", lambda x: x.roll((2, -1), (-1, 0)), ((3, 4),), id="roll-two-dims"),
    S("roll", lambda x: lg.roll(x, 5), ((2, 3),), id="roll-flattened"),
    S("repeat", lambda x: x.repeat(2, 3), ((2, 2),)),
    S("repeat", lambda x: x.repeat(2, 1, 3), ((3, 1),), id="repeat-new-leading-dim"),
    S("repeat", lambda x: x.repeat(1, 1), ((1, 4),), id="repeat-ones"),
    # joins
    S("cat", lambda x, y: lg.cat([x, y]), ((2, 3), (1, 3))),
    S(
        "cat",
        lambda x, y, z: lg.cat((x, y, z), dim=-1),
        ((2, 1), (2, 3), (2, 2)),
        id="cat-three-negative-dim",
    ),
    S("cat", lambda x: lg.cat([x, x * 2], 1), ((2, 2),), id="cat-same-input-twice"),
    S("cat", lambda x, y: lg.concat([x, y]), ((2,), (3,)), id="concat"),
    S("stack", lambda x, y: lg.stack([x, y]), ((2, 3), (2, 3))),
    S("stack", lambda x, y: lg.stack((x, y), dim=-1), ((2, 3), (2, 3)), id="stack-negative-dim"),
    S("stack", lambda x: lg.stack([x, x]), ((),), id="stack-0d"),
    # splits: one multi-output node; unused outputs get zero grads
    S("split.Tensor", lambda x: _pieces_sum(x.split(2)), ((5, 2),)),
    S(
        "split_with_sizes",
        lambda x: _pieces_sum(lg.split(x, [1, 3], dim=-1)),
        ((2, 4),),
        id="split-sections",
    ),
    S("split.Tensor", lambda x: x.split(1, 1)[1], ((2, 3),), id="split-one-output-used"),
    S("split.Tensor", lambda x: _pieces_sum(x.chunk(3, 1)), ((2, 7),), id="chunk"),
    S("split.Tensor", lambda x: x.split(4)[0] * 2, ((3,),), id="split-single-piece"),
    S("unbind.int", lambda x: _pieces_sum(x.unbind(1)), ((2, 3),)),
    S("unbind.int", lambda x: x.unbind(-1)[0], ((2, 3),), id="unbind-one-output-used"),
    S("unbind.int", lambda x: _pieces_sum(tuple(iter(x))), ((3, 2),), id="iterate"),
    S("pixel_shuffle", lambda x: lg.nn.functional.pixel_shuffle(x, 2), ((1, 4, 2, 3),)),
    S("pixel_unshuffle", lambda x: lg.nn.functional.pixel_unshuffle(x, 2), ((2, 1, 4, 2),)),
    S("block_diag", lambda a, b, c: lg.block_diag(a, b, c[0]), ((2, 3), (2,), (1,))),
    S("block_diag", lambda a, b: lg.block_diag(a, b), ((0, 2), (2, 1)), id="block_diag-empty"),
]
