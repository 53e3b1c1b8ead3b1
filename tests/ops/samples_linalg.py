"""Op-table samples for ops/linalg.py, matmul.py, blas_adds.py and trilinear.py."""

import leafgrad as lg
from leafgrad.ops.matmul import _matmul_clone, _matmul_view
from leafgrad.ops.trilinear import trilinear

from .optable import OpSample

S = OpSample
SAMPLES = [
    # matmul in every rank combination, and the primitive each one dispatches to
    S("dot", lambda x, y: x @ y, ((4,), (4,)), id="matmul-1d-1d"),
    S("dot", lambda x, y: lg.dot(x, y), ((3,), (3,))),
    S("mm", lambda x, y: x @ y, ((2, 3), (3, 4)), id="matmul-2d-2d"),
    S("mm", lambda x, y: lg.mm(x, y), ((3, 2), (2, 2))),
    S("mv", lambda x, y: x @ y, ((2, 3), (3,)), id="matmul-2d-1d"),
    S("mv", lambda x, y: lg.mv(x, y), ((4, 3), (3,))),
    S("vecmat", lambda x, y: x @ y, ((3,), (3, 4)), id="matmul-1d-2d"),
    S("bmm", lambda x, y: x @ y, ((2, 2, 3), (2, 3, 4)), id="matmul-batched"),
    S("bmm", lambda x, y: x @ y, ((3, 1, 2, 3), (2, 3, 2)), id="matmul-batch-broadcast"),
    S("mm", lambda x, y: x @ y, ((2, 2, 3), (3, 2)), id="matmul-3d-2d"),
    S("mm", lambda x, y: x @ y, ((2, 3), (2, 3, 2)), id="matmul-2d-3d-clone"),
    S("mm", lambda x, y: x @ y, ((1, 2, 3), (3, 3, 2)), id="matmul-batch1-clone"),
    S("mv", lambda x, y: x @ y, ((2, 2, 3), (3,)), id="matmul-3d-1d"),
    S("mv", lambda x, y: x @ y, ((3,), (2, 3, 2)), id="matmul-1d-3d"),
    S("mv", lambda x, y: x @ y, ((2, 1, 2, 3), (3,)), id="matmul-4d-1d"),
    S("mm", lambda x, y: y.__rmatmul__(x), ((2, 2, 3), (1, 3, 2)), id="matmul-rmatmul"),
    # The batched products' own primitives: what matmul runs where no graph is recorded
    # (and in plain rules); recorded, it composes PyTorch's ops (above).
    S("matmul", lambda x, y: _matmul_view(x, y), ((2, 2, 3), (2, 3, 4)), id="matmul-primitive"),
    S("matmul", lambda x, y: _matmul_view(x, y), ((2, 2, 3), (3,)), id="matmul-primitive-1d"),
    S("matmul", lambda x, y: _matmul_view(x, y), ((3,), (2, 3, 2)), id="matmul-primitive-1d-3d"),
    S("matmul.clone", lambda x, y: _matmul_clone(x, y), ((2, 3), (2, 3, 2))),
    S(
        "mm",
        lambda x, y: lg.matmul(x, y).tanh(),
        ((2, 3), (2, 3, 2)),
        id="matmul-nonlinear-after",
    ),
    S("bmm", lambda x, y: lg.bmm(x, y), ((2, 2, 3), (2, 3, 4))),
    S("t", lambda x: x.t(), ((2, 3),)),
    S("t", lambda x: lg.t(x) * x, ((3,),), id="t-1d"),
    S("t", lambda x, y: x.t() @ y, ((3, 2), (3, 2)), id="t-then-mm", covers=("t", "mm")),
    S("mul.Tensor", lambda x, y: lg.outer(x, y), ((3,), (2,)), id="outer"),
    S("mul.Tensor", lambda x, y: lg.ger(x, y), ((2,), (3,)), id="ger"),
    S("addmm", lambda c, x, y: lg.addmm(c, x, y), ((2, 4), (2, 3), (3, 4))),
    S(
        "addmm",
        lambda c, x, y: lg.addmm(c, x, y, beta=0.5, alpha=-2.0),
        ((4,), (2, 3), (3, 4)),
        id="addmm-broadcast-scaled",
    ),
    S("addmm", lambda c, x, y: c.addmm(x, y), ((2, 1), (2, 3), (3, 2)), id="addmm-method-column"),
    S("addmm", lambda c, x, y: lg.addmm(c, x, y, beta=0), ((), (2, 3), (3, 2)), id="addmm-beta0"),
    # ops/blas_adds.py
    S("addmv", lambda c, a, v: lg.addmv(c, a, v), ((3,), (3, 4), (4,))),
    S(
        "addmv",
        lambda c, a, v: c.addmv(a, v, beta=0.5, alpha=-2.0),
        ((1,), (2, 3), (3,)),
        id="addmv-broadcast-scaled",
    ),
    S("addr", lambda c, u, v: lg.addr(c, u, v, beta=2.0, alpha=0.5), ((3, 2), (3,), (2,))),
    S("addr", lambda c, u, v: c.addr(u, v, beta=0), ((), (2,), (3,)), id="addr-beta0"),
    S("baddbmm", lambda c, a, b: lg.baddbmm(c, a, b), ((2, 3, 2), (2, 3, 4), (2, 4, 2))),
    S(
        "baddbmm",
        lambda c, a, b: c.baddbmm(a, b, beta=-1.0, alpha=3.0),
        ((3, 1), (2, 3, 2), (2, 2, 4)),
        id="baddbmm-broadcast-scaled",
    ),
    S(
        "_trilinear",
        lambda x1, w, x2: lg.nn.functional.bilinear(x1, x2, w),
        ((2, 3), (2, 3, 4), (2, 4)),
        id="_trilinear-of-bilinear",
    ),
    S(
        "_trilinear",
        lambda a, b, c: trilinear(
            a, b, c, expand1=(0,), expand2=(2,), expand3=(1,), sumdim=(1,), unroll_dim=0
        ),
        ((3, 2), (2, 3), (2, 2)),
        id="_trilinear-other-dims",
    ),
    # einsum: contractions, reductions, permutations, diagonals, ellipsis, broadcasting; each
    # names the op its graph ends in, as ATen's composite einsum records it
    S(
        "view",
        lambda x, y: lg.einsum("ij,jk->ik", x, y),
        ((2, 3), (3, 4)),
        id="einsum-matmul",
    ),
    S(
        "view",
        lambda x, y: lg.einsum("ij,jk", [x, y]),
        ((2, 3), (3, 2)),
        id="einsum-implicit-list",
    ),
    S(
        "view",
        lambda x, y: lg.einsum("bij,bjk->bik", x, y),
        ((2, 2, 3), (2, 3, 2)),
        id="einsum-bmm",
    ),
    S(
        "view",
        lambda x, y, z: lg.einsum("ij,jk,kl->il", x, y, z),
        ((2, 3), (3, 2), (2, 2)),
        id="einsum-chain",
    ),
    S("sum.dim_IntList", lambda x: lg.einsum("ii", x), ((3, 3),), id="einsum-trace"),
    S("permute", lambda x: lg.einsum("ii->i", x), ((3, 3),), id="einsum-diagonal"),
    S("sum.dim_IntList", lambda x: lg.einsum("iji->j", x), ((2, 3, 2),), id="einsum-diagonal-sum"),
    S("permute", lambda x: lg.einsum("ij->ji", x), ((2, 3),), id="einsum-transpose"),
    S("sum.dim_IntList", lambda x: lg.einsum("ij->j", x), ((2, 3),), id="einsum-sum"),
    S("mul.Tensor", lambda x, y: lg.einsum("i,j->ij", x, y), ((3,), (2,)), id="einsum-outer"),
    S(
        "view",
        lambda x, y: lg.einsum("ij,ij->", x, y),
        ((2, 3), (2, 3)),
        id="einsum-frobenius",
    ),
    S(
        "view",
        lambda x, y: lg.einsum("ij,k->i", x, y),
        ((2, 3), (2,)),
        id="einsum-sum-in-each",
    ),
    S(
        "view",
        lambda x, y: lg.einsum("...ij,...jk", x, y),
        ((2, 2, 3), (3, 2)),
        id="einsum-ellipsis",
    ),
    S(
        "view",
        lambda x, y: lg.einsum("...i,...i->...", x, y),
        ((2, 3), (2, 1, 3)),
        id="einsum-ellipsis-broadcast",
    ),
    S(
        "view",
        lambda x, y: lg.einsum("bij,bjk->bik", x, y),
        ((1, 2, 3), (2, 3, 2)),
        id="einsum-size1-broadcast",
    ),
    S(
        "view",
        lambda x, y: lg.einsum("ij,jk->ik", x, y),
        ((2, 1), (3, 2)),
        id="einsum-contracted-size1",
    ),
    S(
        "mul.Tensor",
        lambda x, y: lg.einsum("ii,i->i", x, y),
        ((3, 3), (3,)),
        id="einsum-diagonal-times",
    ),
    S(
        "view",
        lambda x, y: lg.einsum(x, [0, 1], y, [1, 2], [0, 2]),
        ((2, 3), (3, 2)),
        id="einsum-sublist",
    ),
    # the private batched transpose used by matmul's rules
    S(
        "swap_last_two",
        lambda x: lg.ops.linalg._swap_last_two(x) * 2.0,
        ((2, 2, 3),),
        id="swap_last_two",
    ),
]
