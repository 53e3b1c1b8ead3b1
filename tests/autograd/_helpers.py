"""Small helpers shared by the autograd tests."""

import warnings
from contextlib import contextmanager

import numpy as np

import leafgrad


def values(t) -> np.ndarray:
    """A tensor's values as a float64 NumPy array (works for leafgrad and PyTorch)."""
    return np.asarray(t.tolist(), dtype=np.float64)


def assert_values(t, expected, rtol=1e-6, atol=1e-6) -> None:
    np.testing.assert_allclose(values(t), np.asarray(expected, dtype=np.float64), rtol, atol)


def facts(x):
    """What PyTorch would say about ``x``, as plain data to compare across libraries."""
    if hasattr(x, "requires_grad") and hasattr(x, "grad_fn"):
        return {
            "shape": tuple(x.shape),
            "dtype": str(x.dtype),
            "values": np.round(values(x), 5).tolist(),
            "requires_grad": x.requires_grad,
            "is_leaf": x.is_leaf,
            "grad_fn": None if x.grad_fn is None else x.grad_fn.name(),
        }
    if isinstance(x, dict):
        return {k: facts(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [facts(v) for v in x]
    return x


def assert_same_as_pytorch(fn, pytorch) -> None:
    """Run ``fn(lib)`` with leafgrad and with PyTorch; the results must state the same facts."""
    ours, theirs = facts(fn(leafgrad)), facts(fn(pytorch))
    assert ours == theirs, f"leafgrad: {ours}\npytorch:  {theirs}"


@contextmanager
def no_warnings():
    """Fail on any warning raised inside."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# PyTorch emits its backward(create_graph=True) warning once per process; tests that check
# the warning do so for leafgrad, and silence it where it is beside the point.
ignore_create_graph_warning = "ignore:Using backward\\(\\) with create_graph=True:UserWarning"
