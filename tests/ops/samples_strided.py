"""Op-table samples for ops/strided.py (as_strided) and ops/unfold.py (Tensor.unfold)."""

from leafgrad.ops.unfold import unfold_backward

from .optable import OpSample

S = OpSample

SAMPLES = [
    S("as_strided", lambda x: x.as_strided((2, 2), (1, 2), 1), ((6,),)),
    S("as_strided", lambda x: x.as_strided((2, 2), (1, 1)), ((4,),), id="as_strided-overlapping"),
    S(
        "as_strided",
        lambda x: x.t().as_strided((3, 2), (1, 3), 1),
        ((3, 4),),
        id="as_strided-of-a-transposed-view",
    ),
    S("unfold", lambda x: x.unfold(1, 2, 1), ((3, 4),), id="unfold-overlapping"),
    S("unfold", lambda x: x.t().unfold(0, 2, 2), ((2, 5),), id="unfold-strided-view"),
    S("unfold", lambda x: x.sum().unfold(0, 1, 1), ((2,),), id="unfold-0d"),
    S(
        "unfold_backward",
        lambda g: unfold_backward(g, input_sizes=(2, 5), dim=1, size=3, step=1),
        ((2, 3, 3),),
    ),
    S(
        "unfold_backward",
        lambda g: unfold_backward(g, input_sizes=(5, 1), dim=0, size=2, step=2),
        ((2, 1, 2),),
        id="unfold_backward-gaps",
    ),
]
