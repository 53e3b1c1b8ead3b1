"""Op-table samples for ops/composites.py (its primitives; the rest are composites)."""

import leafgrad as lg

from .optable import OpSample

SAMPLES = [
    OpSample("erfinv", lambda x: lg.erfinv(x), ((5,),), domain=(-0.8, 0.8)),
    OpSample("tril", lambda x: x.tril(), ((3, 4),)),
    OpSample("tril", lambda x: lg.tril(x, -1), ((2, 3, 3),), id="tril-batched-below"),
    OpSample("triu", lambda x: x.triu(1), ((4, 3),)),
    OpSample("triu", lambda x: lg.triu(x, -2), ((2, 2, 4),), id="triu-batched-wide"),
]
