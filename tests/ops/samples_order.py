"""Op-table samples for ops/selection.py (median, nanmedian, kthvalue, mode) and the
composites of ops/quantiles.py (quantile, nanquantile, nansum, nanmean).

Values are drawn distinct so that no finite-difference step changes which element is
selected; each mode is then the row's smallest value (every value occurs once).
"""

import leafgrad as lg
from leafgrad.ops import selection

from .optable import OpSample
from .samples_reduction import distinct

S = OpSample

SAMPLES = [
    S("median", lambda x: x.median(), ((3, 4),), make_inputs=distinct((3, 4)), id="median-all"),
    S("median", lambda x: lg.median(x), ((5,),), make_inputs=distinct((5,)), id="median-odd"),
    # the whole median of each entry of the leading dims (what vmap of median() calls)
    S(
        "median",
        lambda x: selection._median_all(x, batch_dims=1),
        ((3, 2, 2),),
        make_inputs=distinct((3, 2, 2)),
        id="median-all-per-row",
    ),
    S(
        "nanmedian",
        lambda x: selection._nanmedian_all(x, batch_dims=2),
        ((2, 2, 3),),
        make_inputs=distinct((2, 2, 3)),
        id="nanmedian-all-per-entry",
    ),
    S(
        "median.dim",
        lambda x: lg.median(x, 1).values,
        ((3, 4),),
        make_inputs=distinct((3, 4)),
        id="median-dim",
    ),
    S(
        "median.dim",
        lambda x: x.median(0, keepdim=True)[0],
        ((3, 2),),
        make_inputs=distinct((3, 2)),
        id="median-dim-keepdim",
    ),
    S(
        "nanmedian",
        lambda x: x.nanmedian(),
        ((2, 3),),
        make_inputs=distinct((2, 3)),
        id="nanmedian-all",
    ),
    S(
        "nanmedian.dim",
        lambda x: lg.nanmedian(x, -1).values,
        ((2, 5),),
        make_inputs=distinct((2, 5)),
        id="nanmedian-dim",
    ),
    S(
        "kthvalue",
        lambda x: lg.kthvalue(x, 2, 0).values,
        ((4, 3),),
        make_inputs=distinct((4, 3)),
        id="kthvalue-dim0",
    ),
    S(
        "kthvalue",
        lambda x: x.kthvalue(3, keepdim=True).values,
        ((2, 4),),
        make_inputs=distinct((2, 4)),
        id="kthvalue-last-keepdim",
    ),
    S("kthvalue", lambda x: x.kthvalue(1).values, ((),), id="kthvalue-0d"),
    S("mode", lambda x: lg.mode(x).values, ((3, 4),), make_inputs=distinct((3, 4)), id="mode"),
    S(
        "mode",
        lambda x: x.mode(0, True).values,
        ((3, 2),),
        make_inputs=distinct((3, 2)),
        id="mode-dim0-keepdim",
    ),
    # quantiles: a gather of the sorted values around each rank, interpolated
    S(
        "gather",
        lambda x: lg.quantile(x, 0.3),
        ((7,),),
        make_inputs=distinct((7,)),
        id="quantile-linear",
    ),
    S(
        "gather",
        lambda x: lg.quantile(x, lg.tensor([0.25, 0.5, 0.9], dtype=lg.float64), dim=1),
        ((3, 5),),
        make_inputs=distinct((3, 5)),
        id="quantile-tensor-q-dim",
    ),
    S(
        "gather",
        lambda x: x.quantile(0.4, dim=0, keepdim=True, interpolation="midpoint"),
        ((4, 2),),
        make_inputs=distinct((4, 2)),
        id="quantile-midpoint-keepdim",
    ),
    S(
        "gather",
        lambda x: x.nanquantile(0.7, interpolation="nearest"),
        ((2, 3),),
        make_inputs=distinct((2, 3)),
        id="nanquantile-nearest",
    ),
    # nansum / nanmean (no NaNs here: their derivative is 0, and a step cannot move them)
    S("nansum", lambda x: lg.nansum(x), ((2, 3),), id="nansum-all"),
    S("nansum", lambda x: x.nansum((0, 2), keepdim=True), ((2, 3, 2),), id="nansum-dims-keepdim"),
    S("nansum", lambda x: x.nansum(0), ((),), id="nansum-0d"),
    S(
        "nansum",
        lambda x: x.nanmean(1, keepdim=True),
        ((2, 3),),
        covers=("nansum", "div.Tensor"),
        id="nanmean-dim",
    ),
]
