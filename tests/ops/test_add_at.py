"""add_at gives np.add.at's results bit for bit: repeated positions add up in NumPy's order."""

import numpy as np
import pytest

from leafgrad.ops._add_at import add_at, flat_positions

RNG = np.random.default_rng(0)


def _keys(shape):
    """Keys of each kind the index backwards use, with many repeated positions."""
    n0, n1, n2 = shape
    rows = RNG.integers(-n0, n0, 40)
    yield rows  # x[idx] over rows
    yield (slice(None), RNG.integers(0, n1, (5, 3)))  # index_select along dim 1
    yield (RNG.integers(0, n0, (6, 1)), RNG.integers(0, n1, (1, 4)))  # adjacent, broadcast
    yield (RNG.integers(0, n0, 7), slice(None), RNG.integers(-n2, n2, 7))  # apart: first
    yield tuple(np.indices((4, 3, 2), sparse=True)[:2]) + (RNG.integers(0, n2, (4, 3, 2)),)
    yield (np.arange(n0)[:, None, None], RNG.integers(0, n1, (1, 5, 2)))  # pooling's kind
    yield RNG.integers(0, n0, 0)  # nothing to add


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_add_at_matches_numpy_bit_for_bit(dtype):
    shape = (5, 6, 4)
    for key in _keys(shape):
        base = RNG.standard_normal(shape).astype(dtype)
        target_shape = base[key].shape
        values = RNG.standard_normal(target_shape) * 10.0 ** RNG.integers(-3, 4, target_shape)
        for vals in (values.astype(dtype), values, values[..., :1].astype(dtype)):
            if vals.shape != target_shape and vals.shape[-1:] != (1,):
                continue
            expected, got = base.copy(), base.copy()
            np.add.at(expected, key, vals)
            add_at(got, key, vals)
            np.testing.assert_array_equal(got, expected)


def test_flat_positions_are_those_of_the_indexed_elements():
    out = np.arange(5 * 6 * 4).reshape(5, 6, 4)
    for key in _keys(out.shape):
        flat = flat_positions(out, key)
        np.testing.assert_array_equal(flat, out[key])


def test_other_keys_and_layouts_fall_back_to_numpy():
    out = np.zeros((4, 5))
    assert flat_positions(out, (slice(1, 3), np.array([0, 1]))) is None
    assert flat_positions(out, np.array([True, False, True, False])) is None
    assert flat_positions(out.T, np.array([0, 0])) is None
    got, expected = np.zeros((5, 4)).T, np.zeros((5, 4)).T
    add_at(got, np.array([1, 1, 2]), np.ones((3, 5)))
    np.add.at(expected, np.array([1, 1, 2]), np.ones((3, 5)))
    np.testing.assert_array_equal(got, expected)
