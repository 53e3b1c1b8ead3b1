"""Edge cases of leafgrad.linalg against PyTorch: empty matrices, dtype rules and the
errors PyTorch raises (type and outcome), found by a differential survey."""

import math

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")


def _outcome(module, call):
    """``("ok", values, dtype)`` or ``("error", exception type name)``."""
    try:
        out = call(module)
    except Exception as error:  # the type is what we compare
        return ("error", type(error).__name__)
    return ("ok", np.asarray(out.detach().numpy()), str(out.dtype))


def _same(call):
    ours, theirs = _outcome(lg, call), _outcome(torch, call)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "error":
        assert ours[1] == theirs[1]
        return
    assert ours[2] == theirs[2]
    assert_close(ours[1], theirs[1])


@pytest.mark.parametrize("shape", [(2, 0, 3), (2, 3, 0), (0, 0)])
@pytest.mark.parametrize("ord", [1, -1, 2, -2, math.inf, -math.inf, "fro", "nuc"])
def test_matrix_norm_of_empty_matrices(shape, ord):
    """Positive orders give zeros (they raised amax's IndexError); negative ones raise."""
    _same(lambda m: m.linalg.matrix_norm(m.zeros(shape), ord=ord))


@pytest.mark.parametrize("ord", [-1, -2, -0.5, -math.inf, 0, 1])
def test_vector_norm_negative_order_over_an_empty_dim(ord):
    """A negative order over an empty dim has no identity: RuntimeError (was inf)."""
    _same(lambda m: m.linalg.vector_norm(m.zeros(2, 0), ord=ord, dim=1))
    _same(lambda m: m.norm(m.zeros(2, 0), p=ord, dim=1))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.linalg.vector_norm(m.arange(4), dtype=m.float64),
        lambda m: m.linalg.vector_norm(m.ones(3, dtype=m.float64), dtype=m.float32),
        lambda m: m.linalg.vector_norm(m.ones(3), dtype=m.float16),
        lambda m: m.linalg.vector_norm(m.ones(3), dtype=m.int64),
        lambda m: m.linalg.vector_norm(m.ones(3), dtype=m.float64),
        lambda m: m.norm(m.ones(3, dtype=m.float64), dtype=m.float32),
    ],
)
def test_vector_norm_dtype_rules(call):
    """An integer input or a narrowing dtype raises RuntimeError (both were cast)."""
    _same(call)
