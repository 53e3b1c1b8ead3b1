"""Op-table samples for the matrix families: solvers, cholesky, decompositions, determinants,
matrix_functions.

Inputs are well conditioned (a random matrix plus a multiple of the identity) or made
symmetric positive-definite inside the sample, as a factorization that reads one triangle
is only differentiable as a function of a symmetric matrix. Eigen- and singular vectors
enter through ``abs``, which does not see their signs (only sign-free functions of them
are defined, and a finite difference may flip LAPACK's choice). The determinant's singular
branch (through the SVD) is checked against PyTorch in tests/test_linalg_namespace.py: its
third and higher derivatives at a singular matrix lose digits in the SVD's rules.
"""

import numpy as np

import leafgrad as lg
from leafgrad.ops import cholesky as _cholesky_ops

from .optable import OpSample

S = OpSample


def _conditioned(*shapes):
    """Random matrices with ``3 I`` added to the square ones (the last two dims)."""

    def make(rng):
        out = []
        for s in shapes:
            a = rng.uniform(-1.0, 1.0, size=s)
            if len(s) >= 2 and s[-1] == s[-2]:
                a = a + 3 * np.eye(s[-1])
            out.append(a)
        return out

    return make


def spd(a):
    return a @ a.mT + a.shape[-1] * lg.eye(a.shape[-1], dtype=a.dtype)


def _signless(*outs):
    return tuple(o.abs() for o in outs)


SAMPLES = [
    # solvers
    S(
        "linalg_inv_ex",
        lambda a: lg.linalg.inv(a),
        ((2, 3, 3),),
        make_inputs=_conditioned((2, 3, 3)),
    ),
    S(
        "linalg_inv_ex",
        lambda a: lg.linalg.inv_ex(a).inverse,
        ((3, 3),),
        make_inputs=_conditioned((3, 3)),
        id="inv_ex",
    ),
    S(
        "linalg_solve_ex",
        lambda a, b: lg.linalg.solve(a, b),
        ((2, 3, 3), (3, 2)),
        make_inputs=_conditioned((2, 3, 3), (3, 2)),
    ),
    S(
        "linalg_solve_ex",
        lambda a, b: lg.linalg.solve(a, b),
        ((3, 3), (3,)),
        make_inputs=_conditioned((3, 3), (3,)),
        id="solve-vector",
    ),
    S(
        "linalg_solve_ex",
        lambda a, b: lg.linalg.solve(a, b, left=False),
        ((3, 3), (2, 3)),
        make_inputs=_conditioned((3, 3), (2, 3)),
        id="solve-right",
    ),
    S(
        "linalg_solve_triangular",
        lambda a, b: lg.linalg.solve_triangular(a, b, upper=True),
        ((2, 3, 3), (2, 3, 2)),
        make_inputs=_conditioned((2, 3, 3), (2, 3, 2)),
    ),
    S(
        "linalg_solve_triangular",
        lambda a, b: lg.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        ((3, 3), (2, 3)),
        make_inputs=_conditioned((3, 3), (2, 3)),
        id="solve_triangular-lower-right-unit",
    ),
    # Cholesky
    S("linalg_cholesky_ex", lambda a: lg.linalg.cholesky(spd(a)), ((2, 3, 3),)),
    S(
        "linalg_cholesky_ex",
        lambda a: lg.linalg.cholesky(spd(a), upper=True),
        ((3, 3),),
        id="cholesky-upper",
    ),
    S("cholesky", lambda a: _cholesky_ops._cholesky(spd(a), upper=False), ((3, 3),)),
    S(
        "cholesky_solve",
        lambda a, b: lg.cholesky_solve(b, lg.linalg.cholesky(spd(a))),
        ((2, 3, 3), (3, 2)),
        covers=("cholesky_solve", "linalg_cholesky_ex"),
    ),
    S(
        "cholesky_solve",
        lambda a, b: lg.cholesky_solve(b, lg.linalg.cholesky(spd(a), upper=True), upper=True),
        ((3, 3), (3, 1)),
        id="cholesky_solve-upper",
    ),
    S("cholesky_inverse", lambda a: lg.cholesky_inverse(lg.linalg.cholesky(spd(a))), ((2, 3, 3),)),
    S(
        "cholesky_inverse",
        lambda a: lg.cholesky_inverse(lg.linalg.cholesky(spd(a), upper=True), upper=True),
        ((3, 3),),
        id="cholesky_inverse-upper",
    ),
    # LU
    S("linalg_lu", lambda a: tuple(lg.linalg.lu(a))[1:], ((2, 3, 3),)),
    S("linalg_lu", lambda a: tuple(lg.linalg.lu(a))[1:], ((4, 2),), id="lu-tall"),
    S("linalg_lu", lambda a: tuple(lg.linalg.lu(a))[1:], ((2, 4),), id="lu-wide"),
    S("linalg_lu_factor_ex", lambda a: lg.linalg.lu_factor(a).LU, ((2, 3, 3),)),
    S("linalg_lu_factor_ex", lambda a: lg.linalg.lu_factor(a).LU, ((4, 2),), id="lu_factor-tall"),
    S("linalg_lu_factor_ex", lambda a: lg.linalg.lu_factor(a).LU, ((2, 4),), id="lu_factor-wide"),
    S(
        "linalg_solve_triangular",
        lambda a, b: lg.linalg.lu_solve(*lg.linalg.lu_factor(a), b, adjoint=True),
        ((3, 3), (3, 2)),
        make_inputs=_conditioned((3, 3), (3, 2)),
        covers=("linalg_solve_triangular", "linalg_lu_factor_ex"),
        id="lu_solve-adjoint",
    ),
    # decompositions
    S(
        "linalg_qr",
        lambda a: tuple(lg.linalg.qr(a)),
        ((2, 3, 3),),
        make_inputs=_conditioned((2, 3, 3)),
    ),
    S("linalg_qr", lambda a: tuple(lg.linalg.qr(a)), ((4, 2),), id="qr-tall"),
    S("linalg_qr", lambda a: tuple(lg.linalg.qr(a)), ((2, 4),), id="qr-wide"),
    S(
        "linalg_eigh",
        lambda a: (lambda r: (r[0], r[1].abs()))(lg.linalg.eigh(a + a.mT)),
        ((2, 3, 3),),
    ),
    S("linalg_eigh", lambda a: lg.linalg.eigvalsh(a + a.mT), ((3, 3),), id="eigvalsh"),
    S("linalg_svd", lambda a: _signless(*lg.linalg.svd(a, full_matrices=False)), ((2, 3, 3),)),
    S(
        "linalg_svd",
        lambda a: _signless(*lg.linalg.svd(a, full_matrices=False)),
        ((4, 2),),
        id="svd-tall",
    ),
    S(
        "linalg_svd",
        lambda a: _signless(*lg.linalg.svd(a, full_matrices=False)),
        ((2, 4),),
        id="svd-wide",
    ),
    S("linalg_svd", lambda a: lg.linalg.svdvals(a), ((2, 4),), id="svdvals"),
    # determinants
    S("linalg_det", lambda a: lg.linalg.det(a), ((2, 3, 3),)),
    S(
        "linalg_slogdet",
        lambda a: tuple(lg.linalg.slogdet(a)),
        ((2, 3, 3),),
        make_inputs=_conditioned((2, 3, 3)),
    ),
    # matrix functions
    S("linalg_matrix_exp", lambda a: lg.linalg.matrix_exp(a), ((2, 2),), domain=(-1.0, 1.0)),
    S("linalg_pinv.atol_rtol_tensor", lambda a: lg.linalg.pinv(a), ((4, 2),)),
    S("linalg_pinv.atol_rtol_tensor", lambda a: lg.linalg.pinv(a), ((2, 2, 4),), id="pinv-wide"),
    S(
        "linalg_pinv.atol_rtol_tensor",
        lambda a: lg.linalg.pinv(a + a.mT, hermitian=True),
        ((3, 3),),
        make_inputs=_conditioned((3, 3)),
        id="pinv-hermitian",
    ),
    S(
        "linalg_lstsq",
        lambda a, b: tuple(lg.linalg.lstsq(a, b, driver="gelsd")[:2]),
        ((5, 3), (5, 2)),
        covers=("linalg_lstsq", "linalg_pinv.atol_rtol_tensor"),
    ),
    S(
        "linalg_lstsq",
        lambda a, b: lg.linalg.lstsq(a, b).solution,
        ((2, 4, 2), (2, 4)),  # a 1-D B with a batched A: PyTorch raises
        id="lstsq-vector",
    ),
]
