"""Op-table samples for the ops PyTorch records as one node where leafgrad once composed
them: ops/addc.py, ops/trace_diag.py, ops/pointwise_extra.py, ops/moments.py,
ops/pairwise.py, ops/masked_select.py."""

import numpy as np

import leafgrad as lg

from .optable import OpSample, away_from


def _apart(rng):
    """Two operands that are never equal (a tie has no derivative)."""
    x = rng.uniform(-2, 2, (2, 3))
    y = rng.uniform(-2, 2, (3,))
    return [x, y + np.where(np.abs(x - y).min(0) < 0.1, 0.3, 0.0)]


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
    OpSample("hypot", lambda x, y: lg.hypot(x, y), ((2, 3), (3,)), domain=(0.3, 2.0)),
    OpSample("hypot", lambda x, y: x.hypot(y), ((3,), (3,)), domain=(-2.0, -0.3), id="hypot-neg"),
    OpSample("exp2", lambda x: lg.exp2(x), ((2, 3),)),
    OpSample("ldexp", lambda x, e: lg.ldexp(x, e), ((2, 3), (3,)), domain=(-1.5, 1.5)),
    OpSample("sinc", lambda x: lg.sinc(x), ((2, 3),), domain=(0.2, 1.8)),
    OpSample("sinc", lambda x: x.sinc(), ((4,),), domain=(-1.8, -0.2), id="sinc-negative"),
    OpSample("frac", lambda x: lg.frac(x), ((5,),), make_inputs=away_from([-1, 0, 1])([(5,)])),
    OpSample("fmax", lambda x, y: lg.fmax(x, y), ((2, 3), (3,)), make_inputs=_apart),
    OpSample("fmin", lambda x, y: lg.fmin(x, y), ((2, 3), (3,)), make_inputs=_apart),
    # finite values (where it replaces, its upstream gradients are NaN already)
    OpSample("nan_to_num", lambda x: lg.nan_to_num(x, posinf=1.0), ((2, 3),)),
    OpSample("var_mean.correction", lambda x: lg.var_mean(x, 1), ((3, 4),)),
    OpSample(
        "var_mean.correction",
        lambda x: lg.var_mean(x, correction=0, keepdim=True)[0],
        ((2, 3),),
        id="var_mean-all-variance-only",
    ),
    OpSample("std_mean.correction", lambda x: lg.std_mean(x, (0, 1)), ((3, 4),)),
    OpSample("std_mean.correction", lambda x: lg.std_mean(x)[1], ((5,),), id="std_mean-mean-only"),
    OpSample("linalg_cross", lambda x, y: lg.linalg.cross(x, y), ((2, 3), (1, 3))),
    OpSample("linalg_cross", lambda x, y: lg.cross(x, y, dim=0), ((3, 2), (3, 2)), id="cross-dim0"),
    OpSample("_cdist_forward", lambda x, y: lg.cdist(x, y), ((4, 3), (5, 3))),
    OpSample(
        "_euclidean_dist",
        lambda x, y: lg.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
        ((2, 4, 3), (5, 3)),
    ),
    OpSample(
        "_cdist_forward", lambda x, y: lg.cdist(x, y, p=1.0), ((2, 3, 2), (4, 2)), id="cdist-p1"
    ),
    OpSample("_cdist_forward", lambda x, y: lg.cdist(x, y, p=3.0), ((3, 2), (2, 2)), id="cdist-p3"),
    OpSample(
        "_cdist_forward",
        lambda x, y: lg.cdist(x, y, p=float("inf")),
        ((3, 2), (2, 2)),
        id="cdist-inf",
    ),
    OpSample("_pdist_forward", lambda x: lg.nn.functional.pdist(x), ((4, 3),)),
    OpSample("_pdist_forward", lambda x: lg.pdist(x, 3.0), ((3, 2),), id="pdist-p3"),
    OpSample("_pdist_forward", lambda x: lg.nn.functional.pdist(x, 1.0), ((3, 2),), id="pdist-p1"),
    OpSample(
        "masked_select",
        lambda x: lg.masked_select(x, lg.tensor([[True], [False], [True]])),
        ((3, 4),),
    ),
    OpSample(
        "masked_select",
        lambda x: x.masked_select(lg.tensor([True, False, True, True])),
        ((2, 4),),
        id="masked_select-row-mask",
    ),
]
