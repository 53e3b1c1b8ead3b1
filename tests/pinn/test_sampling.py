"""Unit-cube sampling: counts, range, repeatability and the structure each method promises."""

import warnings

import numpy as np
import pytest

from leafgrad.pinn.sampling import METHODS, grid_points_per_axis, sample_unit_cube

RANDOM_METHODS = [m for m in METHODS if m != "grid"]


def test_methods_lists_every_method():
    assert METHODS == ("uniform", "lhs", "sobol", "halton", "grid")


@pytest.mark.parametrize("method", RANDOM_METHODS)
@pytest.mark.parametrize(("n", "dim"), [(1, 1), (7, 2), (64, 3), (100, 5)])
def test_samples_have_requested_shape_and_lie_in_half_open_unit_cube(method, n, dim):
    x = sample_unit_cube(n, dim, method, seed=0)
    assert x.shape == (n, dim)
    assert x.dtype == np.float64
    assert np.all((x >= 0) & (x < 1))


@pytest.mark.parametrize("method", RANDOM_METHODS)
def test_same_int_seed_repeats_and_different_seeds_differ(method):
    a = sample_unit_cube(50, 3, method, seed=11)
    np.testing.assert_array_equal(a, sample_unit_cube(50, 3, method, seed=11))
    assert not np.array_equal(a, sample_unit_cube(50, 3, method, seed=12))


@pytest.mark.parametrize("method", RANDOM_METHODS)
def test_generator_seed_is_advanced_and_repeatable(method):
    rng = np.random.default_rng(5)
    first, second = sample_unit_cube(20, 2, method, rng), sample_unit_cube(20, 2, method, rng)
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, sample_unit_cube(20, 2, method, np.random.default_rng(5)))


@pytest.mark.parametrize("n", [10, 37, 200])
def test_lhs_has_one_point_per_stratum_in_each_dimension(n):
    x = sample_unit_cube(n, 4, "lhs", seed=3)
    strata = np.floor(x * n).astype(int)
    for column in strata.T:
        np.testing.assert_array_equal(np.sort(column), np.arange(n))


def test_sobol_power_of_two_is_balanced_in_every_dyadic_interval():
    x = sample_unit_cube(64, 2, "sobol", seed=1)
    for column in x.T:
        np.testing.assert_array_equal(np.bincount((column * 8).astype(int)), np.full(8, 8))


def test_sobol_of_any_length_raises_no_balance_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sample_unit_cube(100, 2, "sobol", seed=0).shape == (100, 2)


def test_uniform_mean_and_variance_match_the_uniform_distribution():
    x = sample_unit_cube(20000, 2, "uniform", seed=0)
    # Standard errors: mean 0.29/sqrt(n) ~ 0.002, variance ~ 0.0006; allow about 4 sigma.
    np.testing.assert_allclose(x.mean(axis=0), 0.5, atol=0.01)
    np.testing.assert_allclose(x.var(axis=0), 1 / 12, atol=0.003)


@pytest.mark.parametrize(
    ("n", "dim", "k"), [(1, 1, 1), (5, 1, 5), (8, 3, 2), (9, 3, 3), (10, 2, 4)]
)
def test_grid_has_ceil_root_points_per_axis(n, dim, k):
    assert grid_points_per_axis(n, dim) == k
    x = sample_unit_cube(n, dim, "grid")
    assert x.shape == (k**dim, dim)
    for column in x.T:
        np.testing.assert_allclose(np.unique(column), (np.arange(k) + 0.5) / k)


def test_grid_is_exact_for_perfect_powers_despite_float_roots():
    # 8 ** (1/3) and 125 ** (1/3) are not exact in floating point.
    assert grid_points_per_axis(8, 3) == 2
    assert grid_points_per_axis(125, 3) == 5
    assert grid_points_per_axis(1000, 3) == 10
    assert grid_points_per_axis(1001, 3) == 11


def test_grid_ignores_the_seed():
    np.testing.assert_array_equal(
        sample_unit_cube(9, 2, "grid", seed=1), sample_unit_cube(9, 2, "grid", seed=2)
    )


def test_unknown_method_raises_value_error_naming_it_and_the_valid_ones():
    with pytest.raises(ValueError, match=r"'random'.*uniform.*lhs.*sobol.*halton.*grid"):
        sample_unit_cube(4, 2, "random")


@pytest.mark.parametrize(("n", "dim"), [(0, 2), (-1, 2), (3, 0), (2.5, 1), (3, -2)])
def test_bad_counts_raise_value_error(n, dim):
    with pytest.raises(ValueError, match="sample_unit_cube"):
        sample_unit_cube(n, dim)


@pytest.mark.parametrize("method", ["uniform", "lhs", "sobol", "halton"])
def test_a_generator_restored_to_a_saved_state_draws_the_same_points(method):
    # What resuming a checkpointed run relies on: the state alone fixes the next draws.
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    first = sample_unit_cube(10, 2, method, rng)
    assert rng.bit_generator.state != state  # the generator advanced
    rng.bit_generator.state = state
    np.testing.assert_array_equal(sample_unit_cube(10, 2, method, rng), first)
