"""Op-table samples for the in-place comparisons (ops/inplace_compare.py) and the unsafe
splits (ops/view_copies.py)."""

import leafgrad as lg

from .optable import OpSample

S = OpSample


def _compared(name, other):
    def fn(x, y):
        out = x * 1
        getattr(out, f"{name}_")(other(y))
        return out * x + y  # zero derivative through the comparison, the rest to compare

    return fn


SAMPLES = [
    S(
        f"{name}_.{overload}",
        _compared(name, (lambda y: y) if overload == "Tensor" else (lambda y: 0.25)),
        ((3, 2), (2,)),
    )
    for name in ("eq", "ne", "lt", "le", "gt", "ge")
    for overload in ("Scalar", "Tensor")
] + [
    S("unsafe_split.Tensor", lambda x: tuple(p * p for p in lg.unsafe_split(x, 2, 1)), ((2, 5),)),
    S(
        "unsafe_split_with_sizes",
        lambda x: tuple(p.exp() for p in x.unsafe_split_with_sizes([1, 3])),
        ((4, 2),),
    ),
    S(
        "unsafe_split.Tensor",
        lambda x: tuple(p.mul_(3).exp() for p in (x * 1).unsafe_chunk(2)),  # writes into x * 1
        ((4,),),
        id="unsafe_chunk-inplace",
    ),
]
