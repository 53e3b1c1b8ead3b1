"""Op-table samples for ops/strided.py (as_strided)."""

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
]
