"""NumPy scalars are weak in type promotion, like Python numbers, as in PyTorch."""

import numpy as np
import pytest

import leafgrad

CASES = [
    lambda m: np.float64(2.0) * m.ones(2),
    lambda m: m.ones(2) * np.float64(2.0),
    lambda m: m.ones(2) + np.int64(2),
    lambda m: m.ones(2, dtype=m.int32) * np.int64(3),
    lambda m: m.ones(2, dtype=m.int32) * np.float32(2.5),
    lambda m: m.ones(2, dtype=m.float64) + np.float32(1.5),
    lambda m: m.tensor(2.0) ** np.float64(0.5),
    lambda m: np.float32(2) ** m.tensor([1.0, 2.0]),
    lambda m: m.ones(2, dtype=m.float16) * np.float64(3.0),
    lambda m: m.arange(3) - np.int8(1),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_numpy_scalars_promote_like_python_numbers(case):
    torch = pytest.importorskip("torch")
    ours, theirs = CASES[case](leafgrad), CASES[case](torch)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()
