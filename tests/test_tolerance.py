"""The shared tolerance helpers accept round-off and reject real differences."""

import numpy as np
import pytest

from ._tolerance import assert_close


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_elementwise_accepts_a_few_ulp_and_rejects_more(dtype):
    x = np.array([1.0, -3.5, 1e-3, 0.0], dtype=dtype)
    near = np.nextafter(np.nextafter(x, np.inf), np.inf).astype(dtype)
    assert_close(near, x, "elementwise")
    far = x + 10 * np.spacing(x)
    with pytest.raises(AssertionError, match="ulp"):
        assert_close(far, x, "elementwise")


def test_nans_must_sit_in_the_same_places_and_infinities_match():
    assert_close(np.array([np.nan, np.inf, 1.0]), np.array([np.nan, np.inf, 1.0]), "elementwise")
    with pytest.raises(AssertionError):
        assert_close(np.array([np.nan, 1.0]), np.array([1.0, 1.0]), "elementwise")
    with pytest.raises(AssertionError):
        assert_close(np.array([np.inf]), np.array([-np.inf]), "elementwise")
    with pytest.raises(AssertionError):
        assert_close(np.array([np.nan]), np.array([0.0]))


@pytest.mark.parametrize(
    ("kind", "dtype", "ok", "bad"),
    [
        ("direct", np.float64, 1e-13, 1e-10),
        ("direct", np.float32, 5e-7, 1e-5),
        ("iterative", np.float64, 5e-9, 1e-6),
    ],
)
def test_relative_tolerances_by_kind_and_dtype(kind, dtype, ok, bad):
    x = np.array([2.0, -7.0], dtype=dtype)
    assert_close(x * (1 + ok), x, kind)
    with pytest.raises(AssertionError):
        assert_close(x * (1 + bad), x, kind)


def test_integers_and_shapes_must_match_exactly():
    with pytest.raises(AssertionError):
        assert_close(np.array([1, 2]), np.array([1, 3]))
    with pytest.raises(AssertionError, match="shape"):
        assert_close(np.zeros((2, 1)), np.zeros(2))
