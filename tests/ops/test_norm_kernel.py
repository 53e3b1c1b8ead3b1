"""The 2-norm of a whole array by BLAS's dot product (``statistics._two_norm``)."""

import numpy as np
import pytest

import leafgrad as lg


def _exact(x: np.ndarray) -> float:
    return float(np.sqrt(np.sum(x.astype(np.float64) ** 2)))


@pytest.mark.parametrize("dtype, rtol", [("float32", 2e-6), ("float64", 1e-14)])
@pytest.mark.parametrize("shape", [(20000, 64), (4096,), (8, 16, 32)])
def test_whole_array_norm_within_rounding_of_the_exact_value(shape, dtype, rtol):
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    got = lg.linalg.norm(lg.tensor(x))
    assert str(got.dtype) == f"torch.{dtype}" and got.shape == ()
    assert abs(float(got) - _exact(x)) <= rtol * _exact(x)


def test_every_axis_named_keepdim_and_strided_inputs_agree():
    x = np.random.default_rng(1).standard_normal((300, 40))
    t = lg.tensor(x)
    whole = float(lg.linalg.norm(t))
    assert float(t.norm(dim=(1, 0))) == whole
    kept = lg.linalg.norm(t, dim=(0, 1), keepdim=True)
    assert kept.shape == (1, 1) and float(kept) == whole
    strided = lg.linalg.norm(t.T)  # not C-contiguous: NumPy's square-and-sum
    assert abs(float(strided) - whole) <= 1e-14 * whole
    rows = lg.linalg.norm(t, dim=1)
    np.testing.assert_allclose(rows.numpy(), np.sqrt((x * x).sum(1)), rtol=1e-15)


def test_special_values_propagate():
    ones = np.ones(2000)
    for value, expected in ((np.inf, np.inf), (np.nan, np.nan), (0.0, np.sqrt(1999.0))):
        x = ones.copy()
        x[7] = value
        got = float(lg.linalg.norm(lg.tensor(x)))
        assert got == expected or (np.isnan(expected) and np.isnan(got))
    big = np.full(2048, 3e38, dtype=np.float32)
    assert float(lg.linalg.norm(lg.tensor(big))) == np.inf  # overflows, as PyTorch's


def test_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal((500, 8))
    a = lg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    (ga,) = lg.autograd.grad(lg.linalg.norm(a), a)
    (gb,) = torch.autograd.grad(torch.linalg.norm(b), b)
    np.testing.assert_allclose(ga.numpy(), gb.numpy(), rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize(
    "dim, keepdim", [(None, False), ((1, 2), False), ((0, 2), True), ((-1, -2), False)]
)
def test_torch_norm_nuc_is_the_nuclear_matrix_norm_with_its_gradient(dim, keepdim):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal((3, 4, 5) if dim is not None else (4, 5))
    ours_in = lg.tensor(x, requires_grad=True)
    theirs_in = torch.tensor(x, requires_grad=True)
    ours = lg.norm(ours_in, p="nuc", dim=dim, keepdim=keepdim)
    theirs = torch.norm(theirs_in, p="nuc", dim=dim, keepdim=keepdim)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(ours_in.grad.numpy(), theirs_in.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_torch_norm_nuc_needs_two_dims_as_pytorch():
    for dim in (None, 1):
        with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
            lg.norm(lg.ones(2, 3, 4), p="nuc", dim=dim)
