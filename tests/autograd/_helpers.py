"""Small helpers shared by the autograd tests."""

import warnings
from contextlib import contextmanager

import numpy as np

import leafgrad
from tests._tolerance import assert_close, tolerance


def values(t) -> np.ndarray:
    """A tensor's values as a float64 NumPy array (works for leafgrad and PyTorch)."""
    return np.asarray(t.tolist(), dtype=np.float64)


def numpy_dtype(t) -> np.dtype:
    """The NumPy dtype of a leafgrad or PyTorch tensor (``torch.float32`` -> ``float32``)."""
    return np.dtype(str(t.dtype).rsplit(".", 1)[-1])


def assert_values(t, expected, kind="direct", atol=None) -> None:
    """``t``'s values equal ``expected`` to ``kind``'s tolerance for ``t``'s dtype (integers
    exactly); ``atol`` replaces that tolerance's atol, for results that cancel."""
    expected = np.asarray(expected, dtype=np.float64)
    if atol is None:
        assert_close(values(t), expected, kind, dtype=numpy_dtype(t))
    else:
        rtol, _ = tolerance(numpy_dtype(t), kind)
        np.testing.assert_allclose(values(t), expected, rtol=rtol, atol=atol)


class Values:
    """A tensor's values in ``facts``: equal to another's within the ``"direct"`` tolerance
    of the dtype (integers and bools exactly), as NumPy and PyTorch kernels round their own
    way."""

    __hash__ = None

    def __init__(self, t) -> None:
        self.array, self.dtype = values(t), numpy_dtype(t)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Values):
            return NotImplemented
        if self.array.shape != other.array.shape or self.dtype != other.dtype:
            return False
        if self.dtype.kind not in "fc":
            return bool(np.array_equal(self.array, other.array))
        rtol, atol = tolerance(self.dtype, "direct")
        return bool(np.allclose(self.array, other.array, rtol=rtol, atol=atol, equal_nan=True))

    def __repr__(self) -> str:
        return repr(self.array.tolist())


def facts(x):
    """What PyTorch would say about ``x``, as plain data to compare across libraries."""
    if hasattr(x, "requires_grad") and hasattr(x, "grad_fn"):
        return {
            "shape": tuple(x.shape),
            "dtype": str(x.dtype),
            "values": Values(x),
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
