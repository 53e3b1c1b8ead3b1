"""leafgrad.linalg's behaviour beyond values: dtypes, grad_fn names, named tuples, the
``_ex`` variants' info, lstsq's outputs per driver, errors and deprecation warnings, each
as PyTorch has it."""

import math
import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")

rng = np.random.default_rng(1)
A = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
B = rng.standard_normal((2, 3, 2))


def _both(*arrays, dtype="float64", requires_grad=True):
    ours = [lg.tensor(a, dtype=getattr(lg, dtype), requires_grad=requires_grad) for a in arrays]
    theirs = [
        torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=requires_grad) for a in arrays
    ]
    return ours, theirs


CALLS = {
    "det": lambda m, a, b: m.linalg.det(a),
    "slogdet": lambda m, a, b: m.linalg.slogdet(a),
    "inv": lambda m, a, b: m.linalg.inv(a),
    "inv_ex": lambda m, a, b: m.linalg.inv_ex(a),
    "solve": lambda m, a, b: m.linalg.solve(a, b),
    "solve_ex": lambda m, a, b: m.linalg.solve_ex(a, b),
    "solve_triangular": lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False),
    "cholesky": lambda m, a, b: m.linalg.cholesky(a @ a.mT),
    "cholesky_ex": lambda m, a, b: m.linalg.cholesky_ex(a @ a.mT),
    "cholesky_solve": lambda m, a, b: m.cholesky_solve(b, a.tril()),
    "cholesky_inverse": lambda m, a, b: m.cholesky_inverse(a.tril()),
    "qr": lambda m, a, b: m.linalg.qr(a),
    "eigh": lambda m, a, b: m.linalg.eigh(a),
    "eigvalsh": lambda m, a, b: m.linalg.eigvalsh(a),
    "svd": lambda m, a, b: m.linalg.svd(a),
    "svdvals": lambda m, a, b: m.linalg.svdvals(a),
    "pinv": lambda m, a, b: m.linalg.pinv(a),
    "matrix_exp": lambda m, a, b: m.linalg.matrix_exp(a),
    "lstsq": lambda m, a, b: m.linalg.lstsq(a, b),
    "matrix_rank": lambda m, a, b: m.linalg.matrix_rank(a),
    "lu": lambda m, a, b: m.linalg.lu(a),
    "lu_factor": lambda m, a, b: m.linalg.lu_factor(a),
    "lu_factor_ex": lambda m, a, b: m.linalg.lu_factor_ex(a),
}


def _outputs(out):
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CALLS))
def test_outputs_match_torch_in_dtype_shape_grad_fn_and_tuple_fields(name, dtype):
    (a, b), (ta, tb) = _both(A, B, dtype=dtype)
    out, ref = CALLS[name](lg, a, b), CALLS[name](torch, ta, tb)
    if isinstance(ref, tuple):
        assert type(out).__name__ == type(ref).__name__  # torch.return_types' names
    for o, r in zip(_outputs(out), _outputs(ref)):
        assert str(o.dtype) == str(r.dtype) and tuple(o.shape) == tuple(r.shape)
        assert o.requires_grad == r.requires_grad
        if r.grad_fn is not None:
            assert o.grad_fn.name() == r.grad_fn.name()
    if name not in ("qr", "eigh", "svd"):  # vectors: signs are LAPACK's choice
        for o, r in zip(_outputs(out), _outputs(ref)):
            if o.dtype.is_floating_point:
                assert_close(o, r.detach().numpy(), "iterative")
            else:
                assert o.tolist() == r.tolist()


def test_named_tuples_have_torchs_fields():
    a = lg.tensor(A)
    assert lg.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert lg.linalg.inv_ex(a)._fields == ("inverse", "info")
    assert lg.linalg.solve_ex(a, lg.tensor(B))._fields == ("result", "info")
    assert lg.linalg.cholesky_ex(a)._fields == ("L", "info")
    assert lg.linalg.qr(a)._fields == ("Q", "R")
    assert lg.linalg.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert lg.linalg.svd(a)._fields == ("U", "S", "Vh")
    assert lg.svd(a)._fields == ("U", "S", "V")
    fields = ("solution", "residuals", "rank", "singular_values")
    assert lg.linalg.lstsq(a, lg.tensor(B))._fields == fields
    assert (
        lg.linalg.lu(a)._fields == lg.lu_unpack(*lg.linalg.lu_factor(a))._fields == ("P", "L", "U")
    )
    assert lg.linalg.lu_factor_ex(a)._fields == ("LU", "pivots", "info")


def test_singular_matrices_raise_linalg_error_which_is_a_runtime_error():
    singular = lg.zeros(2, 2)
    assert issubclass(lg.linalg.LinAlgError, RuntimeError)
    for call in (lambda: lg.linalg.inv(singular), lambda: lg.linalg.solve(singular, lg.ones(2))):
        with pytest.raises(lg.linalg.LinAlgError, match="singular"):
            call()
    with pytest.raises(lg.linalg.LinAlgError, match=r"Batch element 1.*order 1"):
        lg.linalg.cholesky(lg.stack([lg.eye(2), -lg.eye(2)]))


@pytest.mark.parametrize(
    "matrix",
    [np.zeros((2, 2)), np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([[0.0, 1.0], [1.0, 0.0]])],
)
def test_ex_variants_report_info_and_lapacks_values_like_torch(matrix):
    ours, theirs = lg.linalg.inv_ex(lg.tensor(matrix)), torch.linalg.inv_ex(torch.tensor(matrix))
    assert ours.info.dtype == lg.int32 and ours.info.item() == theirs.info.item()
    assert_close(ours.inverse, theirs.inverse.numpy())
    ours, theirs = (
        lg.linalg.cholesky_ex(lg.tensor(matrix)),
        torch.linalg.cholesky_ex(torch.tensor(matrix)),
    )
    assert ours.info.item() == theirs.info.item()
    if theirs.info.item() == 0 or matrix[0, 0] > 0:
        assert_close(ours.L, theirs.L.numpy())
    ours, theirs = (
        lg.linalg.lu_factor_ex(lg.tensor(matrix)),
        torch.linalg.lu_factor_ex(torch.tensor(matrix)),
    )
    assert ours.info.item() == theirs.info.item() and ours.pivots.tolist() == theirs.pivots.tolist()
    assert_close(ours.LU, theirs.LU.numpy())
    ours = lg.linalg.solve_ex(lg.tensor(matrix), lg.ones(2, dtype=lg.float64))
    theirs = torch.linalg.solve_ex(torch.tensor(matrix), torch.ones(2, dtype=torch.float64))
    assert ours.info.item() == theirs.info.item()


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shapes", [((2, 5, 3), (2, 5, 2)), ((5, 3), (5,)), ((3, 5), (3, 2))])
def test_lstsq_fills_the_outputs_each_driver_fills(driver, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = lg.linalg.lstsq(*(lg.tensor(a) for a in arrays), driver=driver)
    theirs = torch.linalg.lstsq(*(torch.tensor(a) for a in arrays), driver=driver)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        if o.dtype.is_floating_point:
            assert_close(o, t.numpy(), "iterative")
        else:
            assert o.tolist() == t.tolist()


def test_rank_deficient_lstsq_reports_the_rank_and_no_residuals():
    a = rng.standard_normal((2, 5, 3))
    a[0, :, 2] = a[0, :, 1]
    b = rng.standard_normal((2, 5, 2))
    ours = lg.linalg.lstsq(lg.tensor(a), lg.tensor(b), driver="gelsd")
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver="gelsd")
    assert ours.rank.tolist() == theirs.rank.tolist() == [2, 3]
    assert tuple(ours.residuals.shape) == tuple(theirs.residuals.shape) == (0,)
    assert_close(ours.solution, theirs.solution.numpy(), "iterative")


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.linalg.inv(m.ones(2, 3)), RuntimeError),
        (lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.int64)), RuntimeError),
        (lambda m: m.linalg.det(m.ones(3)), RuntimeError),
        (lambda m: m.linalg.solve(m.ones(2, 2), m.ones(2, dtype=m.float64)), RuntimeError),
        (lambda m: m.linalg.solve(m.ones(2, 2), m.ones(3, 1)), RuntimeError),
        (lambda m: m.linalg.matrix_norm(m.ones(2, 2), 3), RuntimeError),
        (lambda m: m.linalg.norm(m.ones(2, 2, 2), 2), RuntimeError),
        (lambda m: m.linalg.qr(m.ones(2, 2), mode="full"), RuntimeError),
        (lambda m: m.linalg.eigh(m.ones(2, 2), UPLO="X"), RuntimeError),
        (lambda m: m.linalg.cross(m.ones(2), m.ones(2)), RuntimeError),
        (lambda m: m.linalg.lu_factor(m.zeros(2, 2)), RuntimeError),
        (lambda m: m.linalg.lu(m.ones(2, 2), pivot=False), RuntimeError),
    ],
)
def test_bad_arguments_raise_torchs_error_types(call, error):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error):
        call(lg)


def test_qr_mode_r_has_an_empty_q_and_no_derivative():
    a = lg.tensor(A[0], requires_grad=True)
    q, r = lg.linalg.qr(a, mode="r")
    assert tuple(q.shape) == (0,) and tuple(r.shape) == (3, 3)
    with pytest.raises(RuntimeError, match="mode='r'"):
        r.sum().backward()


def test_deprecated_functions_warn_once_like_torch(fresh_warnings):
    a = lg.tensor(A[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lg.cholesky(a @ a.mT)
        lg.cholesky(a @ a.mT)
        lg.qr(a)
        lg.triangular_solve(lg.tensor(B[0]), a)
        lg.lu_solve(lg.tensor(B[0]), *lg.lu(a))
    assert [str(w.message).split()[0] for w in caught] == [
        "torch.cholesky",
        "torch.qr",
        "torch.triangular_solve",
        "torch.lu",
        "torch.lu_solve",
    ]


def test_eigh_reads_one_triangle():
    a = np.triu(A[0]) + np.tril(rng.standard_normal((3, 3)), -1)  # not symmetric
    for uplo in ("L", "U"):
        ours = lg.linalg.eigvalsh(lg.tensor(a), uplo)
        assert_close(ours, torch.linalg.eigvalsh(torch.tensor(a), uplo).numpy(), "iterative")


def test_det_of_an_empty_matrix_is_one_and_matrix_power_zero_has_a_zero_gradient():
    assert lg.linalg.det(lg.zeros(0, 0)).item() == 1.0
    a = lg.tensor(A[0], requires_grad=True)
    (g,) = lg.autograd.grad(lg.linalg.matrix_power(a, 0).sum(), a)
    assert g.tolist() == [[0.0] * 3] * 3
    assert lg.linalg.matrix_power(a, 0).tolist() == np.eye(3).tolist()


def test_norms_of_infinite_entries_are_infinite():
    x = [[math.inf, 1.0], [0.0, 1.0]]
    assert lg.linalg.vector_norm(lg.tensor(x), 1).item() == math.inf
    for ord in (1, math.inf, "fro"):
        ours = lg.linalg.matrix_norm(lg.tensor(x), ord).item()
        assert ours == torch.linalg.matrix_norm(torch.tensor(x), ord).item() == math.inf
