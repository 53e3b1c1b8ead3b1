"""linalg.ldl_factor(_ex) and ldl_solve against PyTorch: the same packed LD and LAPACK pivots
(1x1 and 2x2 blocks), the same solutions, batches, errors, and no derivative (as PyTorch)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")


def _symmetric(shape, dtype=np.float64, seed=0, zero_corner=True):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    a = a + np.swapaxes(a, -1, -2)
    if zero_corner and shape[-1] > 1:
        a[..., 0, 0] = 0.0  # a zero first pivot: Bunch-Kaufman picks another
    return a


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 2, 3, 3), (1, 1), (0, 0)])
def test_factor_matches_pytorch(shape, dtype):
    a = _symmetric(shape, dtype) if shape[-1] else np.zeros(shape, dtype)
    ours = lg.linalg.ldl_factor_ex(lg.tensor(a))
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
    assert ours.pivots.dtype == lg.int32 and ours.info.dtype == lg.int32
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    assert ours.LD.dtype == lg.tensor(a).dtype and tuple(ours.LD.shape) == shape
    assert_close(ours.LD.numpy(), theirs.LD.numpy(), "iterative")
    LD, _ = lg.linalg.ldl_factor(lg.tensor(a), hermitian=True)
    np.testing.assert_array_equal(LD.numpy(), ours.LD.numpy())


def test_two_by_two_blocks_give_negative_pivots_and_upper_triangle_is_zero():
    a = np.array([[1e-3, 2, 0.5, 0.1], [2, 1e-3, 0.3, 0.2], [0.5, 0.3, 4, 1], [0.1, 0.2, 1, 5]])
    LD, piv = lg.linalg.ldl_factor(lg.tensor(a))
    np.testing.assert_array_equal(piv.numpy(), torch.linalg.ldl_factor(torch.tensor(a))[1].numpy())
    assert piv.tolist() == [-2, -2, 3, 4]  # a 2x2 block, then two 1x1 blocks
    assert np.all(np.triu(LD.numpy(), 1) == 0)
    # only the lower triangle is read, as in PyTorch
    upper_garbage = a + np.triu(np.full_like(a, 7.0), 1)
    np.testing.assert_array_equal(
        lg.linalg.ldl_factor(lg.tensor(upper_garbage))[0].numpy(), LD.numpy()
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((4, 4), (4, 2)), ((3, 4, 4), (3, 4, 1)), ((3, 4, 4), (4, 2)), ((4, 4), (2, 4, 3))],
)
def test_solve_matches_pytorch_and_solves(a_shape, b_shape, dtype):
    a = _symmetric(a_shape, dtype)
    b = np.random.default_rng(1).standard_normal(b_shape).astype(dtype)
    LD, piv = lg.linalg.ldl_factor(lg.tensor(a))
    x = lg.linalg.ldl_solve(LD, piv, lg.tensor(b))
    tLD, tpiv = torch.linalg.ldl_factor(torch.tensor(a))
    expected = torch.linalg.ldl_solve(tLD, tpiv, torch.tensor(b))
    assert x.dtype == lg.tensor(b).dtype and tuple(x.shape) == tuple(expected.shape)
    assert_close(x.numpy(), expected.numpy(), "iterative")
    assert_close(a @ x.numpy(), np.broadcast_to(b, x.shape), "iterative")


def test_singular_matrix_reports_info_and_factor_raises():
    z = lg.zeros(2, 3, 3, dtype=lg.float64)
    z[0] = lg.eye(3, dtype=lg.float64)
    ours = lg.linalg.ldl_factor_ex(z)
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(z.numpy()))
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    np.testing.assert_array_equal(ours.LD.numpy(), theirs.LD.numpy())
    for m, t in ((lg, z), (torch, torch.tensor(z.numpy()))):
        with pytest.raises(RuntimeError):
            m.linalg.ldl_factor(t)
        with pytest.raises(RuntimeError):
            m.linalg.ldl_factor_ex(t, check_errors=True)
    with pytest.raises(RuntimeError, match="exactly zero"):
        lg.linalg.ldl_factor(z)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda m: m.linalg.ldl_factor(m.ones(2, 3)), RuntimeError),
        (lambda m: m.linalg.ldl_factor(m.ones(3)), RuntimeError),
        (lambda m: m.linalg.ldl_factor(m.ones(2, 2, dtype=m.int64)), RuntimeError),
        (lambda m: m.linalg.ldl_solve(*m.linalg.ldl_factor(m.eye(3)), m.ones(3)), IndexError),
        (lambda m: m.linalg.ldl_solve(*m.linalg.ldl_factor(m.eye(3)), m.ones(4, 1)), RuntimeError),
        (
            lambda m: m.linalg.ldl_solve(
                *m.linalg.ldl_factor(m.eye(3)), m.ones(3, 1, dtype=m.float64)
            ),
            RuntimeError,
        ),
    ],
    ids=["non-square", "vector", "integer", "vector-rhs", "wrong-rows", "dtype-mismatch"],
)
def test_bad_input_raises_as_pytorch(call, error):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error, match="ldl"):
        call(lg)


def test_results_are_recorded_but_have_no_derivative_as_in_pytorch():
    a = _symmetric((3, 3))
    for m in (lg, torch):
        x = m.tensor(a, requires_grad=True)
        LD, piv = m.linalg.ldl_factor(x)
        assert LD.requires_grad and not piv.requires_grad
        with pytest.raises(RuntimeError, match="ldl_factor_ex"):
            LD.sum().backward()
        b = m.ones(3, 2, dtype=m.float64, requires_grad=True)
        x = m.linalg.ldl_solve(LD.detach(), piv, b)
        assert x.requires_grad
        with pytest.raises(RuntimeError, match="ldl_solve"):
            x.sum().backward()


def test_common_notes_has_pytorchs_keys():
    assert set(lg.linalg.common_notes) == set(torch.linalg.common_notes)
    assert all(isinstance(v, str) for v in lg.linalg.common_notes.values())
    assert "{}" in lg.linalg.common_notes["sync_note_has_ex"]
