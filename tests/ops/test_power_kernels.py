"""pow with a number exponent: PyTorch's products and quotients, and integer powers of
negative bases."""

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

EXPONENTS = [1, 2, 3, -1, -2, -0.5, 1.0, 2.0, 3.0, -1.0, -2.0, True]


def _inputs(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e30, 7.0, -3.0]
    return np.concatenate([rng.standard_normal(5000) * 3, edges]).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", EXPONENTS, ids=str)
def test_values_are_pytorchs_bits(exponent, dtype):
    x = _inputs(dtype)
    ours = (lg.tensor(x) ** exponent).numpy()
    theirs = (torch.from_numpy(x) ** exponent).numpy()
    assert ours.dtype == theirs.dtype
    assert np.array_equal(ours, theirs, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_square_and_inplace_pow_are_pytorchs_bits(dtype):
    x = _inputs(dtype)
    assert np.array_equal(
        lg.square(lg.tensor(x)).numpy(), torch.square(torch.from_numpy(x)).numpy(), equal_nan=True
    )
    a, b = lg.tensor(x.copy()), torch.from_numpy(x.copy())
    a.pow_(3)
    b.pow_(3)
    assert np.array_equal(a.numpy(), b.numpy(), equal_nan=True)


def test_the_result_is_a_new_array_even_for_exponent_one():
    a = lg.tensor([1.0, 2.0])
    b = a**1
    b.add_(1.0)
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [2.0, 3.0]


@pytest.mark.parametrize("exponent", [2, 3, -1, -2, -0.5])
def test_first_and_second_derivatives_match_torch(exponent):
    x = np.random.default_rng(1).uniform(0.2, 3.0, 50)
    a = lg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    (ga,) = lg.autograd.grad((a**exponent).sum(), a, create_graph=True)
    (gb,) = torch.autograd.grad((b**exponent).sum(), b, create_graph=True)
    np.testing.assert_allclose(ga.detach().numpy(), gb.detach().numpy(), rtol=1e-14)
    (ha,) = lg.autograd.grad(ga.sum(), a)
    (hb,) = torch.autograd.grad(gb.sum(), b)
    np.testing.assert_allclose(ha.numpy(), hb.numpy(), rtol=1e-14)


def test_integer_and_half_tensors_keep_numpys_power():
    ints = np.arange(-4, 5)
    assert (lg.tensor(ints) ** 2).tolist() == (torch.from_numpy(ints) ** 2).tolist()
    half = np.array([0.5, 1.5, -2.25], dtype=np.float16)
    got, expected = lg.tensor(half) ** 2, torch.from_numpy(half) ** 2
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-3)


_INT = {"float32": np.int32, "float64": np.int64}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [4, 5, 7, -3, -4, 10.0])
def test_integer_powers_of_negative_bases_within_one_ulp_of_torch(exponent, dtype):
    x = _inputs(dtype)
    ours = (lg.tensor(x) ** exponent).numpy()
    theirs = (torch.from_numpy(x) ** exponent).numpy()
    assert ours.dtype == theirs.dtype
    special = ~np.isfinite(theirs) | (theirs == 0)
    assert np.array_equal(ours[special], theirs[special], equal_nan=True)  # signs included
    numbers = ~np.isnan(theirs)  # (a NaN's sign bit is no result's)
    assert np.array_equal(np.signbit(ours[numbers]), np.signbit(theirs[numbers]))
    view = _INT[dtype]
    gap = ours[~special].view(view).astype(np.int64) - theirs[~special].view(view).astype(np.int64)
    assert int(np.abs(gap).max()) <= 1


def test_non_integer_powers_of_negative_bases_are_nan_as_in_torch():
    x = np.array([-2.0, -0.5, 0.0, 4.0])
    ours = (lg.tensor(x) ** 1.5).numpy()
    theirs = (torch.from_numpy(x) ** 1.5).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-15, equal_nan=True)


@pytest.mark.parametrize("exponent", [1, 2, 3, -1, 4, 0.5])
def test_a_transposed_base_gives_pytorchs_strides(exponent):
    x = np.arange(1.0, 13.0).reshape(3, 4)
    ours = lg.tensor(x).T ** exponent
    theirs = torch.tensor(x).T ** exponent
    assert ours.stride() == theirs.stride()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_square_root_power_keeps_numpys_bits_and_is_within_one_ulp_of_torch(dtype):
    x = _inputs(dtype)
    ours = (lg.tensor(x) ** 0.5).numpy()
    with np.errstate(all="ignore"):
        expected = np.power(x, 0.5)
    assert np.array_equal(ours, expected, equal_nan=True)
    numbers = ~np.isnan(expected)
    assert np.array_equal(np.signbit(ours[numbers]), np.signbit(expected[numbers]))  # -0.0
    theirs = (torch.from_numpy(x) ** 0.5).numpy()
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    finite = np.isfinite(theirs) & (theirs != 0)
    view = _INT[dtype]
    gap = ours[finite].view(view).astype(np.int64) - theirs[finite].view(view).astype(np.int64)
    assert int(np.abs(gap).max()) <= 1
