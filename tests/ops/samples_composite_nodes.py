"""Op-table samples for the ops PyTorch records as one node where leafgrad once composed
them: ops/addc.py, ops/trace_diag.py."""

import leafgrad as lg

from .optable import OpSample

SAMPLES = [
    OpSample("addcmul", lambda x, a, b: lg.addcmul(x, a, b, value=0.5), ((2, 3), (2, 3), (3,))),
    OpSample(
        "addcmul", lambda x, a, b: x.addcmul(a, b), ((3,), (2, 1), (2, 3)), id="addcmul-broadcast"
    ),
    OpSample(
        "addcdiv",
        lambda x, a, b: lg.addcdiv(x, a, b + 3, value=-2),
        ((2, 3), (3,), (2, 3)),
    ),
    OpSample("lerp.Scalar", lambda x, y: lg.lerp(x, y, 0.3), ((2, 3), (3,))),
    OpSample("lerp.Scalar", lambda x, y: x.lerp(y, 0.8), ((3,), (3,)), id="lerp-large-weight"),
    OpSample("lerp.Tensor", lambda x, y, w: lg.lerp(x, y, w), ((2, 3), (3,), (2, 1))),
    OpSample("trace", lambda x: lg.trace(x), ((3, 4),)),
    OpSample("trace", lambda x: (x * x).trace(), ((3, 3),), id="trace-of-square"),
    OpSample("diag_embed", lambda x: lg.diag(x, 1), ((3,),), id="diag-vector"),
    OpSample("diag_embed", lambda x: lg.diag_embed(x, -1, 0, 2), ((2, 3),)),
    OpSample("diagonal_copy", lambda x: lg.diag(x, -1), ((3, 4),), id="diag-matrix"),
    OpSample("diagonal_copy", lambda x: lg.diagonal_copy(x, 1, 2, 0), ((2, 3, 4),)),
]
