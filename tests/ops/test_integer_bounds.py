"""A Python int bound of an integer tensor's clamp, as PyTorch converts it: wrapped where its
magnitude fits the type (-3 is 253 for uint8), RuntimeError where it overflows."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype, bounds", [
    ("uint8", (-3, 3)), ("uint8", (None, 300)), ("uint8", (-300, None)), ("uint8", (-255, None)),
    ("uint8", (2, None)), ("int8", (-200, 3)), ("int8", (5, -3)), ("int64", (-2**40, 3)),
])  # fmt: skip
def test_integer_clamp_bounds_wrap_or_overflow_as_torch(dtype, bounds):
    outcomes = []
    for lib in (lg, torch):
        x = lib.tensor(np.array([1, 5, 100], dtype=dtype))
        try:
            outcomes.append(lib.clamp(x, *bounds).tolist())
        except RuntimeError:
            outcomes.append("RuntimeError")
    assert outcomes[0] == outcomes[1]
