"""The sum and mean forwards call ``np.add.reduce`` themselves rather than ``np.sum`` /
``np.mean``: their results must keep NumPy's bits exactly (float16 summed in float32, the
count divided as NumPy divides it), in every dtype and every ``dim`` / ``keepdim`` form,
except float32/float64 sums over the leading or trailing axes of C-contiguous arrays,
which BLAS takes (``ops/_sums.py``): those to round-off. All match PyTorch's values."""

import itertools

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _sums
from leafgrad.ops.reduction import _mean_forward, _mean_of_array, _sum_forward

FLOATS = (np.float16, np.float32, np.float64)
SHAPES = [(), (1,), (7,), (3, 5), (100, 2), (100, 32), (4, 1, 6), (2, 3, 4, 5), (2049,)]
RNG = np.random.default_rng(13)


def _axis_forms(ndim):
    """None, every int (also negative) and every tuple of distinct axes."""
    forms = [None] + list(range(-ndim, ndim))
    for r in range(1, ndim + 1):
        forms += list(itertools.combinations(range(ndim), r))
    return forms


def _samples(dtype):
    """Arrays of each shape with an offset (so sums round), contiguous and strided."""
    for shape in SHAPES:
        x = (RNG.standard_normal(shape) * 3 + RNG.standard_normal()).astype(dtype)
        yield x
        if x.ndim >= 2:
            yield x.swapaxes(0, -1)  # not contiguous
        if x.ndim >= 1 and x.shape[0] > 2:
            yield x[::2]  # strided


def _same_bits(ours, expected):
    ours, expected = np.asarray(ours), np.asarray(expected)
    assert ours.dtype == expected.dtype and ours.shape == expected.shape
    assert ours.tobytes() == expected.tobytes(), (ours, expected)


def _matches_numpy(ours, expected, x, axis, dtype=None):
    """NumPy's bits, or where BLAS sums (``_sums.over_axes``) NumPy's values to round-off."""
    by_blas = dtype is None and isinstance(axis, tuple) and _sums.over_axes(x, axis) is not None
    if not by_blas:
        _same_bits(ours, expected)
        return
    ours, expected = np.asarray(ours), np.asarray(expected)
    assert ours.dtype == expected.dtype and ours.shape == expected.shape
    # Any two summation orders differ by at most 2 (n - 1) eps sum|x| (n terms).
    count = x.size // max(ours.size, 1)
    scale = np.abs(x.astype(np.float64)).sum(axis=axis).reshape(ours.shape)
    bound = 2 * (count + 1) * np.finfo(x.dtype).eps * scale
    assert np.all(np.abs(ours.astype(np.float64) - expected) <= bound)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_mean_of_array_has_np_means_bits_in_every_form(dtype):
    for x in _samples(dtype):
        for axis, keepdims, out_dtype in itertools.product(
            _axis_forms(x.ndim), (False, True), (None, np.float16, np.float32, np.float64)
        ):
            expected = np.mean(x, axis=axis, keepdims=keepdims, dtype=out_dtype)
            ours = _mean_of_array(x, axis, keepdims, out_dtype)
            _matches_numpy(ours * _count(x, axis), expected * _count(x, axis), x, axis, out_dtype)


def _count(x, axis):
    """How many entries a mean over ``axis`` divides by (its values back to a sum's scale)."""
    if axis is None:
        return x.size
    return int(np.prod([x.shape[a] for a in ((axis,) if isinstance(axis, int) else axis)]))


@pytest.mark.parametrize("dtype", (np.int64, np.int32, np.bool_), ids=lambda d: np.dtype(d).name)
def test_mean_of_array_has_np_means_bits_for_integer_input(dtype):
    x = RNG.integers(0, 9, (6, 5)).astype(dtype)
    for axis, keepdims, out_dtype in itertools.product(
        _axis_forms(2), (False, True), (None, np.float32, np.float64)
    ):
        expected = np.mean(x, axis=axis, keepdims=keepdims, dtype=out_dtype)
        _same_bits(_mean_of_array(x, axis, keepdims, out_dtype), expected)


def test_mean_of_array_rounds_float16_once_through_float32_as_numpy():
    # Where the float32 quotient and a direct float16 division round differently, the
    # result must be NumPy's (sum in float32, divide, cast to float16).
    x = np.array([[0.1, 0.2, 0.7], [2049.0, 1.0, 1.0]], dtype=np.float16)
    for axis in (None, (0,), (1,), (0, 1)):
        for keepdims in (False, True):
            _same_bits(
                _mean_of_array(x, axis, keepdims, None), np.mean(x, axis=axis, keepdims=keepdims)
            )


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_mean_forward_as_the_op_calls_it_has_np_means_bits(dtype):
    # The op passes dim as None (all) or a tuple of non-negative axes; a 0-d input has none.
    for x in _samples(dtype):
        for dim in [None] + [c for c in _axis_forms(x.ndim) if isinstance(c, tuple)]:
            for keepdim in (False, True):
                axis = None if dim is None or x.ndim == 0 else dim
                expected = np.mean(x, axis=axis, keepdims=keepdim)
                ours = _mean_forward(x, dim=dim, keepdim=keepdim)
                _matches_numpy(ours * _count(x, axis), expected * _count(x, axis), x, axis)


def test_mean_of_an_empty_tensor_is_nan_without_a_warning(recwarn):
    out = _mean_forward(np.zeros((0, 3), np.float32), dim=(0,), keepdim=False)
    assert out.dtype == np.float32 and np.isnan(out).all() and len(recwarn) == 0


@pytest.mark.parametrize(
    "dtype", FLOATS + (np.int32, np.int64, np.bool_), ids=lambda d: np.dtype(d).name
)
def test_sum_forward_has_np_sums_bits_and_sums_integers_in_int64(dtype):
    x = (RNG.standard_normal((5, 4, 3)) * 4).astype(dtype)
    for dim in [None] + [c for c in _axis_forms(3) if isinstance(c, tuple)]:
        for keepdim in (False, True):
            axis = dim
            wide = np.int64 if np.dtype(dtype).kind in "bi" else None
            expected = np.sum(x, axis=axis, keepdims=keepdim, dtype=wide)
            _matches_numpy(_sum_forward(x, dim=dim, keepdim=keepdim), expected, x, axis)
            expected = np.sum(x, axis=axis, keepdims=keepdim, dtype=np.float64)
            _same_bits(_sum_forward(x, dim=dim, keepdim=keepdim, dtype=np.float64), expected)


def test_sum_forward_of_a_numpy_scalar_as_a_plain_rule_passes_it():
    # In a plain rule a 0-d result may reach the forward as a NumPy scalar.
    _same_bits(_sum_forward(np.float32(2.5), dim=None, keepdim=False), np.float32(2.5))


@pytest.mark.parametrize("dtype", ("float16", "float32", "float64"))
def test_mean_and_sum_match_torch_in_every_dim_form(dtype):
    torch = pytest.importorskip("torch")
    # Its own generator: the values (and their cancellations) do not depend on which tests
    # ran before.
    data = np.random.default_rng(139).standard_normal((4, 3, 5))
    ours = lg.tensor(data, dtype=getattr(lg, dtype))
    theirs = torch.tensor(data, dtype=getattr(torch, dtype))
    magnitudes = torch.tensor(np.abs(data))
    dims = (0, -1, 2, (0, 2), [1], (-1, 0, 1))
    forms = [{}] + [{"dim": d, "keepdim": k} for d in dims for k in (False, True)]
    for kwargs in forms:
        for name in ("mean", "sum"):
            a = getattr(ours, name)(**kwargs)
            b = getattr(theirs, name)(**kwargs)
            assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
            # Sums in another order differ by a few ulp of the sum of magnitudes, which
            # cancellation can make large against the result itself.
            bound = 8 * np.finfo(dtype).eps * getattr(magnitudes, name)(**kwargs).numpy()
            assert (np.abs(a.double().numpy() - b.double().numpy()) <= bound).all()


def test_sum_and_mean_take_an_int_dim_and_refuse_one_out_of_range():
    torch = pytest.importorskip("torch")
    for lib in (lg, torch):
        x = lib.ones(2, 3)
        assert tuple(x.sum(1).shape) == (2,) and tuple(x.sum(-2).shape) == (3,)
        with pytest.raises(IndexError):
            x.sum(2)
        with pytest.raises(IndexError):
            x.mean(-3)
        assert tuple(lib.ones(()).sum(0).shape) == ()  # a 0-d tensor has dim 0 and -1
        assert tuple(lib.ones(()).mean(-1).shape) == ()
