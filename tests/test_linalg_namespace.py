"""leafgrad.linalg (and torch.det, inverse, cholesky_solve ...) against PyTorch in float64:
values, first and second derivatives, each function written once for both libraries.

Eigen- and singular vectors are compared through sign-invariant functions of them
(``abs``), as only those are defined. Decompositions and solves of the two libraries run
different LAPACK builds (OpenBLAS here, MKL there), whose rounding differs, amplified by
the derivatives' divisions: those compare at the "iterative" tolerance.
"""

import math

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)


def _normal(*shape):
    return rng.standard_normal(shape)


def spd(m, a):
    """A symmetric positive-definite matrix from any square ``a``."""
    n = a.shape[-1]
    return a @ a.mT + n * m.eye(n, dtype=a.dtype)


def sym(m, a):
    return a + a.mT


def svd_abs(r):
    """U, S, Vh up to the signs of the singular vectors."""
    return r[0].abs(), r[1], r[2].abs()


SQUARE, BATCH = _normal(3, 3), _normal(2, 3, 3)
TALL, WIDE = _normal(4, 2), _normal(2, 4)
RHS, VEC = _normal(2, 3, 2), _normal(3)
SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])

CASES = {
    # determinants
    "det": (lambda m, a: m.linalg.det(a), [BATCH], "direct"),
    "det-top-level-and-method": (lambda m, a: m.det(a) + a.det(), [SQUARE], "direct"),
    "det-singular": (lambda m, a: m.linalg.det(a), [SINGULAR], "iterative"),
    "det-mixed-batch": (lambda m, a: m.linalg.det(a), [np.stack([SINGULAR, SQUARE])], "iterative"),
    "slogdet": (lambda m, a: tuple(m.linalg.slogdet(a)), [BATCH], "direct"),
    "slogdet-top-level": (
        lambda m, a: tuple(m.slogdet(a)) + tuple(a.slogdet()),
        [SQUARE],
        "direct",
    ),
    "logdet": (lambda m, a: m.logdet(spd(m, a)) + a.logdet(), [BATCH], "direct"),
    # inverses and solves
    "inv": (lambda m, a: m.linalg.inv(a), [BATCH], "direct"),
    "inverse": (lambda m, a: m.inverse(a) + a.inverse(), [SQUARE], "direct"),
    "inv_ex": (lambda m, a: m.linalg.inv_ex(a).inverse, [BATCH], "direct"),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), [BATCH, RHS], "direct"),
    "solve-vector": (lambda m, a, b: m.linalg.solve(a, b), [SQUARE, VEC], "direct"),
    "solve-batch-of-vectors": (
        lambda m, a, b: m.linalg.solve(a, b),
        [BATCH, _normal(2, 3)],
        "direct",
    ),
    "solve-broadcast": (lambda m, a, b: m.linalg.solve(a, b), [SQUARE, RHS], "direct"),
    "solve-right": (
        lambda m, a, b: m.linalg.solve(a, b, left=False),
        [BATCH, _normal(2, 2, 3)],
        "direct",
    ),
    "solve_ex": (lambda m, a, b: m.linalg.solve_ex(a, b).result, [BATCH, RHS], "direct"),
    "solve_triangular-upper": (
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
        [BATCH + 3 * np.eye(3), RHS],
        "direct",
    ),
    "solve_triangular-lower-right-unit": (
        lambda m, a, b: m.linalg.solve_triangular(
            a, b, upper=False, left=False, unitriangular=True
        ),
        [BATCH, _normal(2, 2, 3)],
        "direct",
    ),
    "triangular_solve": (
        lambda m, b, a: tuple(
            m.triangular_solve(b, a + 3 * m.eye(3, dtype=a.dtype), transpose=True)
        ),
        [RHS, BATCH],
        "direct",
    ),
    # Cholesky
    "cholesky": (lambda m, a: m.linalg.cholesky(spd(m, a)), [BATCH], "direct"),
    "cholesky-upper": (lambda m, a: m.linalg.cholesky(spd(m, a), upper=True), [BATCH], "direct"),
    "cholesky_ex": (lambda m, a: m.linalg.cholesky_ex(spd(m, a)).L, [SQUARE], "direct"),
    "cholesky-deprecated": (lambda m, a: m.cholesky(spd(m, a), True), [SQUARE], "direct"),
    "cholesky_solve": (
        lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(spd(m, a))),
        [BATCH, RHS],
        "direct",
    ),
    "cholesky_solve-upper-method": (
        lambda m, a, b: b.cholesky_solve(m.linalg.cholesky(spd(m, a), upper=True), True),
        [SQUARE, RHS],
        "direct",
    ),
    "cholesky_inverse": (
        lambda m, a: m.cholesky_inverse(m.linalg.cholesky(spd(m, a))),
        [BATCH],
        "direct",
    ),
    "cholesky_inverse-upper": (
        lambda m, a: m.linalg.cholesky(spd(m, a), upper=True).cholesky_inverse(True),
        [SQUARE],
        "direct",
    ),
    # LU
    "lu": (lambda m, a: tuple(m.linalg.lu(a)), [BATCH], "direct"),
    "lu-tall": (lambda m, a: tuple(m.linalg.lu(a)), [TALL], "direct"),
    "lu-wide": (lambda m, a: tuple(m.linalg.lu(a)), [WIDE], "direct"),
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a).LU, [BATCH], "direct"),
    "lu_factor_ex-tall": (lambda m, a: m.linalg.lu_factor_ex(a).LU, [TALL], "direct"),
    "lu_factor-wide": (lambda m, a: m.linalg.lu_factor(a).LU, [WIDE], "direct"),
    "lu_unpack": (lambda m, a: tuple(m.lu_unpack(*m.linalg.lu_factor(a))), [TALL], "direct"),
    "lu_solve": (
        lambda m, a, b: tuple(
            m.linalg.lu_solve(*m.linalg.lu_factor(a), x, left=left, adjoint=adjoint)
            for x, left in ((b, True), (b.mT, False))
            for adjoint in (False, True)
        ),
        [BATCH, RHS],
        "direct",
    ),
    "lu-deprecated": (lambda m, a, b: m.lu_solve(b, *m.lu(a)), [BATCH, RHS], "direct"),
    # decompositions
    "qr": (lambda m, a: tuple(m.linalg.qr(a)), [BATCH], "iterative"),
    "qr-tall": (lambda m, a: tuple(m.linalg.qr(a)), [TALL], "iterative"),
    "qr-wide-complete": (lambda m, a: tuple(m.linalg.qr(a, "complete")), [WIDE], "iterative"),
    "qr-deprecated": (lambda m, a: tuple(m.qr(a)), [TALL], "iterative"),
    "eigh": (
        lambda m, a: (lambda r: (r[0], r[1].abs()))(m.linalg.eigh(sym(m, a))),
        [BATCH],
        "iterative",
    ),
    "eigh-upper": (lambda m, a: m.linalg.eigh(a, UPLO="U")[1].abs(), [SQUARE], "iterative"),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(sym(m, a)), [BATCH], "iterative"),
    "svd": (
        lambda m, a: svd_abs(m.linalg.svd(a, False)),
        [BATCH],
        "iterative",
    ),
    "svd-tall": (lambda m, a: svd_abs(m.linalg.svd(a, False)), [TALL], "iterative"),
    "svd-wide": (lambda m, a: svd_abs(m.linalg.svd(a, False)), [WIDE], "iterative"),
    "svd-full-square": (lambda m, a: m.linalg.svd(a)[0].abs(), [SQUARE], "iterative"),
    "svd-deprecated": (lambda m, a: svd_abs(m.svd(a)), [TALL], "iterative"),
    "svdvals": (lambda m, a: m.linalg.svdvals(a), [WIDE], "iterative"),
    # matrix functions
    "pinv-tall": (lambda m, a: m.linalg.pinv(a), [TALL], "iterative"),
    "pinv-wide": (lambda m, a: m.linalg.pinv(a), [WIDE], "iterative"),
    "pinv-hermitian": (lambda m, a: m.linalg.pinv(sym(m, a), hermitian=True), [BATCH], "iterative"),
    "pinverse": (lambda m, a: m.pinverse(a) + a.pinverse(), [WIDE], "iterative"),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a) + a.matrix_exp(), [BATCH], "iterative"),
    "matrix_power": (
        lambda m, a: tuple(m.linalg.matrix_power(a, n) for n in (0, 1, 2, 3, 5, -2)),
        [SQUARE],
        "direct",
    ),
    "lstsq": (
        lambda m, a, b: m.linalg.lstsq(a, b).solution,
        [_normal(5, 3), _normal(5, 2)],
        "iterative",
    ),
    "lstsq-gelsd-residuals": (
        lambda m, a, b: tuple(m.linalg.lstsq(a, b, driver="gelsd")[:2]),
        [_normal(2, 5, 3), _normal(2, 5, 2)],
        "iterative",
    ),
    "lstsq-gels-vector": (
        lambda m, a, b: tuple(m.linalg.lstsq(a, b, driver="gels")[:2]),
        [_normal(5, 3), _normal(5)],
        "iterative",
    ),
    "multi_dot": (
        lambda m, *ts: m.linalg.multi_dot(ts),
        [_normal(3), _normal(3, 5), _normal(5, 2), _normal(2)],
        "direct",
    ),
    "multi_dot-matrices": (
        lambda m, *ts: m.linalg.multi_dot(ts),
        [_normal(6, 2), _normal(2, 5), _normal(5, 1), _normal(1, 4)],
        "direct",
    ),
    "householder_product": (
        lambda m, a, tau: m.linalg.householder_product(a, tau),
        [_normal(2, 4, 3), _normal(2, 2)],
        "direct",
    ),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), [_normal(1, 3), _normal(4, 3)], "direct"),
    "vecdot": (
        lambda m, a, b: m.linalg.vecdot(a, b, dim=0),
        [_normal(3, 2), _normal(3, 1)],
        "direct",
    ),
    "diagonal": (lambda m, a: m.linalg.diagonal(a, offset=1) * 1.0, [BATCH], "direct"),
    "vander": (lambda m, x: m.linalg.vander(x, N=4), [_normal(2, 3)], "direct"),
    "tensorinv": (lambda m, a: m.linalg.tensorinv(a, ind=1), [_normal(4, 2, 2)], "direct"),
    "tensorsolve": (
        lambda m, a, b: m.linalg.tensorsolve(a, b),
        [_normal(2, 3, 6), _normal(2, 3)],
        "direct",
    ),
}

NORMS = {
    "vector_norm": (lambda m, x: m.linalg.vector_norm(x), "direct"),
    "vector_norm-3.5-dims": (lambda m, x: m.linalg.vector_norm(x, 3.5, dim=(0, 2)), "direct"),
    "vector_norm-inf-keepdim": (lambda m, x: m.linalg.vector_norm(x, math.inf, -1, True), "direct"),
    "vector_norm-0.5": (lambda m, x: m.linalg.vector_norm(x, 0.5, 1), "direct"),
    "matrix_norm-fro": (lambda m, x: m.linalg.matrix_norm(x), "direct"),
    "matrix_norm-nuc": (lambda m, x: m.linalg.matrix_norm(x, "nuc"), "iterative"),
    "matrix_norm-2-keepdim": (
        lambda m, x: m.linalg.matrix_norm(x, 2, (0, 2), keepdim=True),
        "iterative",
    ),
    "matrix_norm--2": (lambda m, x: m.linalg.matrix_norm(x, -2), "iterative"),
    "matrix_norm-1": (lambda m, x: m.linalg.matrix_norm(x, 1), "direct"),
    "matrix_norm--1-keepdim": (lambda m, x: m.linalg.matrix_norm(x, -1, keepdim=True), "direct"),
    "matrix_norm-inf-dims": (lambda m, x: m.linalg.matrix_norm(x, math.inf, (2, 0)), "direct"),
    "matrix_norm--inf": (lambda m, x: m.linalg.matrix_norm(x, -math.inf), "direct"),
    "norm-default": (lambda m, x: m.linalg.norm(x), "direct"),
    "norm-vector-dim": (lambda m, x: m.linalg.norm(x, 3, dim=1), "direct"),
    "norm-matrix-dims": (lambda m, x: m.linalg.norm(x, "nuc", dim=(1, 2)), "iterative"),
    "norm-2d-ord": (lambda m, x: m.linalg.norm(x[0], 1), "direct"),
    "norm-1d-ord": (lambda m, x: m.linalg.norm(x[0, 0], -1), "direct"),
    "cond": (lambda m, x: m.linalg.cond(x[:, :, :3]), "iterative"),
    "cond--2": (lambda m, x: m.linalg.cond(x, -2), "iterative"),
}
# PyTorch's backward fails for these (it fills the inverse in place), so values only.
CONDITION_NUMBERS = {
    "cond-fro": lambda m, x: m.linalg.cond(x[:, :, :3], "fro"),
    "cond-inf": lambda m, x: m.linalg.cond(x[:, :, :3], math.inf),
}
NORM_INPUT = _normal(2, 3, 4)


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch_in_values_and_first_and_second_derivatives(name):
    fn, arrays, kind = CASES[name]
    compare(fn, arrays, kind, torch=torch)


@pytest.mark.parametrize("name", list(NORMS))
def test_norms_match_torch(name):
    fn, kind = NORMS[name]
    compare(fn, [NORM_INPUT], kind, torch=torch)


@pytest.mark.parametrize("name", list(CONDITION_NUMBERS))
def test_condition_numbers_in_other_norms_match_torch_in_value(name):
    compare(CONDITION_NUMBERS[name], [NORM_INPUT], "direct", torch=torch, grads=False)


def test_condition_number_of_a_singular_matrix_is_inf():
    a = lg.tensor(np.stack([SINGULAR, SQUARE]))
    for p in (1, "fro", "nuc", -math.inf):  # through inv_ex: an exact zero pivot
        assert math.isinf(lg.linalg.cond(a, p)[0].item()), p
    assert lg.linalg.cond(a)[0].item() > 1e15  # a smallest singular value in round-off


def test_matrix_rank_counts_singular_values_above_the_tolerances():
    a = np.stack([SINGULAR, SQUARE, np.zeros((3, 3))])
    for kwargs in [{}, {"atol": 1.0}, {"rtol": 0.3}, {"hermitian": True}, {"tol": 0.5}]:
        ours = lg.linalg.matrix_rank(lg.tensor(a + a.swapaxes(-1, -2)), **kwargs)
        theirs = torch.linalg.matrix_rank(torch.tensor(a + a.swapaxes(-1, -2)), **kwargs)
        assert ours.dtype == lg.int64 and ours.tolist() == theirs.tolist(), kwargs


def test_linalg_matmul_is_matmul():
    assert lg.linalg.matmul is lg.matmul
