"""Window functions (bartlett, blackman, hamming, hann, kaiser) against PyTorch: values in each
floating dtype, periodic and symmetric, the degenerate lengths, and the errors."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

WINDOWS = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_values_match_pytorch(torch, name, periodic, dtype):
    for n in (2, 3, 5, 8, 17, 64, 255):
        ours = getattr(lg, name)(n, periodic, dtype=getattr(lg, dtype))
        theirs = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
        assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == (n,)
        # Values lie in [0, 1]: compare absolutely, at a few ulp of 1.
        eps = np.finfo(dtype).eps
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=0, atol=16 * eps)


@pytest.mark.parametrize("name", WINDOWS)
def test_half_windows_and_default_dtype_follow_pytorch(torch, name):
    ours = getattr(lg, name)(9, dtype=lg.float16)
    theirs = getattr(torch, name)(9, dtype=torch.float16)
    assert ours.dtype == lg.float16
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=0, atol=4e-3)
    lg.set_default_dtype(lg.float64)
    try:
        assert getattr(lg, name)(4).dtype == lg.float64
    finally:
        lg.set_default_dtype(lg.float32)


@pytest.mark.parametrize("name", WINDOWS)
def test_empty_and_one_point_windows(torch, name):
    assert getattr(lg, name)(0).shape == (0,)
    assert getattr(lg, name)(1).tolist() == getattr(torch, name)(1).tolist() == [1.0]
    w = getattr(lg, name)(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf


def test_hamming_and_kaiser_take_their_parameters_positionally(torch):
    assert_close(lg.hamming_window(6, True, 0.5, 0.4), torch.hamming_window(6, True, 0.5, 0.4))
    assert_close(lg.kaiser_window(7, False, 5.0), torch.kaiser_window(7, False, 5.0))
    assert_close(
        lg.hann_window(window_length=5, periodic=False),
        torch.hann_window(window_length=5, periodic=False),
    )


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((-1,), {}, RuntimeError),
        ((5,), {"dtype": "int64"}, RuntimeError),
        ((5.0,), {}, TypeError),
        ((True,), {}, TypeError),
    ],
)
def test_window_errors_match_pytorch(torch, name, args, kwargs, error):
    for m in (torch, lg):
        kw = {k: getattr(m, v) for k, v in kwargs.items()}
        with pytest.raises(error):
            getattr(m, name)(*args, **kw)


def test_a_negative_length_error_names_the_argument():
    with pytest.raises(RuntimeError, match="requires non-negative window_length"):
        lg.hann_window(-3)
    with pytest.raises(RuntimeError, match="expects floating point dtypes"):
        lg.blackman_window(3, dtype=lg.int32)
