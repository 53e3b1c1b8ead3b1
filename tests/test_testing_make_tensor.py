"""leafgrad.testing.make_tensor against torch.testing.make_tensor: after the same seed, the
same values, dtype, strides and flags, the generator left in the same state, and PyTorch's
errors for bad bounds."""

import warnings

import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

CASES = {
    "float64_in_unit_range": ((3, 3), dict(dtype="float64", low=-1, high=1, requires_grad=True)),
    "float32_default_range": ((2, 4), dict(dtype="float32")),
    "noncontiguous": ((3,), dict(dtype="float32", noncontiguous=True)),
    "int64": ((5,), dict(dtype="int64")),
    "int8_clamped_and_ceiled": ((5,), dict(dtype="int8", low=-200, high=3.5)),
    "uint8": ((4,), dict(dtype="uint8")),
    "bool": ((6,), dict(dtype="bool")),
    "exclude_zero": ((3,), dict(dtype="int32", low=0, high=2, exclude_zero=True)),
}


def _made(lib, shape, options):
    lib.manual_seed(3)
    kwargs = dict(options, dtype=getattr(lib, options["dtype"]))
    t = lib.testing.make_tensor(shape, device="cpu", **kwargs)
    return t.tolist(), str(t.dtype), t.stride(), t.requires_grad, lib.rand(2).tolist()


@pytest.mark.parametrize("name", list(CASES))
def test_make_tensor_draws_pytorchs_values(name):
    shape, options = CASES[name]
    assert _made(lg, shape, options) == _made(torch, shape, options)


def _error(lib, **kwargs):
    kwargs.setdefault("dtype", lib.float32)
    try:
        lib.testing.make_tensor(2, device="cpu", **kwargs)
    except ValueError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(
    "kwargs",
    [dict(low=2, high=1), dict(low=float("nan")), dict(low=300, high=400, dtype="int8")],
)
def test_bad_bounds_raise_pytorchs_value_error(kwargs):
    def call(lib):
        options = dict(kwargs)
        if "dtype" in options:
            options["dtype"] = getattr(lib, options["dtype"])
        return _error(lib, **options)

    assert call(lg) is not None
    assert call(lg) == call(torch)


def test_equal_float_bounds_warn_at_the_caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lg.testing.make_tensor(2, dtype=lg.float32, device="cpu", low=1, high=1)
    assert [w.category for w in caught] == [FutureWarning]
    assert caught[0].filename == __file__
