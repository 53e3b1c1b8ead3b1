"""Edge inputs against PyTorch (session 31's survey): mixed integer dtypes written in place
or into out=, Python ints beyond an integer tensor's range, numbers filled in, integer
addcmul/addcdiv. Each case is ``fn(m)`` for ``m`` leafgrad or torch; the result's dtype,
shape and values, or the error's type, must match."""

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


def _run(fn, m):
    try:
        return fn(m)
    except Exception as exc:  # the error's type is compared
        return exc


def _same(fn):
    ours, theirs = _run(fn, lg), _run(fn, torch)
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), ours
        return
    assert not isinstance(ours, Exception), ours
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


def _u8(m):
    return m.tensor([3, 2, 0, 7], dtype=m.uint8)


def _i8(m):
    return m.tensor([3, -2, 0, 7], dtype=m.int8)


# A result of a signed integer type written into a uint8 tensor wraps, as PyTorch's
# can_cast allows (NumPy's same_kind casting refused it).
INPLACE_CASTS = {
    "uint8 += int8": lambda m: _u8(m).__iadd__(_i8(m)),
    "uint8 -= int64": lambda m: _u8(m).__isub__(m.tensor([5, 5, 5, 5])),
    "uint8.mul_(0-d int32)": lambda m: _u8(m).mul_(m.tensor(-3, dtype=m.int32)),
    "uint8.clamp_(min=int8)": lambda m: _u8(m).clamp_(min=_i8(m)),
    "uint8 **= int16": lambda m: _u8(m).__ipow__(m.tensor([3, 2, 1, 3], dtype=m.int16)),
    "add(int8, 1, out=uint8)": lambda m: m.add(_i8(m), 1, out=m.zeros(4, dtype=m.uint8)),
    "int8 += float refused": lambda m: _i8(m).__iadd__(0.5),
    "bool += int refused": lambda m: m.tensor([True]).__iadd__(m.tensor([1])),
    "add(float, out=int64) refused": lambda m: m.add(m.ones(2), 1, out=m.zeros(2).long()),
}


@pytest.mark.parametrize("case", INPLACE_CASTS)
def test_inplace_and_out_casts_match_torch(case):
    _same(INPLACE_CASTS[case])


# A Python int beyond an integer tensor's range wraps into its dtype, as PyTorch casts a
# number for arithmetic (NumPy raised OverflowError where the number is not an operand).
INT_SCALARS = {
    "300 - int8": lambda m: 300 - _i8(m),
    "-3 - uint8": lambda m: -3 - _u8(m),
    "rsub(uint8, -3, alpha=2)": lambda m: m.rsub(_u8(m), -3, alpha=2),
    "int8 % 300": lambda m: _i8(m) % 300,
    "uint8 % -3": lambda m: _u8(m) % -3,
    "fmod(int8, 300)": lambda m: m.fmod(_i8(m), 300),
    "remainder(uint8, -3)": lambda m: m.remainder(_u8(m), -3),
    "uint8.fmod_(-3)": lambda m: _u8(m).fmod_(-3),
    "int8 // 300": lambda m: _i8(m) // 300,
    "div(int8, 300, trunc)": lambda m: m.div(_i8(m), 300, rounding_mode="trunc"),
    "int8 % 256 divides by zero": lambda m: _i8(m) % 256,
    "300 ** int8": lambda m: 300 ** m.tensor([1, 2, 0], dtype=m.int8),
    "-2 ** uint8": lambda m: (-2) ** _u8(m),
    "int8 % 2**70": lambda m: _i8(m) % 2**70,
    "2**70 - int8": lambda m: 2**70 - _i8(m),
}


@pytest.mark.parametrize("case", INT_SCALARS)
def test_python_ints_wrap_into_integer_tensors_as_in_torch(case):
    _same(INT_SCALARS[case])


def _mask(m):
    return m.tensor([True, False, True, False])


def _set(t, key, value):
    t[key] = value
    return t


# A number written into a tensor is checked as PyTorch converts a Scalar: NaN, inf, 300 or
# 127.9 for int8 raise RuntimeError (NumPy wrote garbage), -3 wraps into uint8 (NumPy raised).
FILLS = {
    "int8.masked_fill(nan)": lambda m: _i8(m).masked_fill(_mask(m), float("nan")),
    "int8.masked_fill(300)": lambda m: _i8(m).masked_fill(_mask(m), 300),
    "int8.masked_fill(127.9)": lambda m: _i8(m).masked_fill(_mask(m), 127.9),
    "int64.masked_fill(0-d nan)": lambda m: m.arange(4).masked_fill(_mask(m), m.tensor(np.nan)),
    "uint8.masked_fill(-3)": lambda m: _u8(m).masked_fill(_mask(m), -3),
    "float32.masked_fill(1e39)": lambda m: m.ones(4).masked_fill(_mask(m), 1e39),
    "int8.masked_fill(2.7)": lambda m: _i8(m).masked_fill(_mask(m), 2.7),
    "int8.index_fill(nan)": lambda m: _i8(m).index_fill(0, m.tensor([1]), float("nan")),
    "uint8.index_fill(300)": lambda m: _u8(m).index_fill(0, m.tensor([1]), 300),
    "int64.scatter(value=inf)": lambda m: m.arange(4).scatter(0, m.tensor([1]), float("inf")),
    "uint8.scatter(value=-3)": lambda m: _u8(m).scatter(0, m.tensor([1]), -3),
    "int8.fill_(127.9)": lambda m: _i8(m).fill_(127.9),
    "uint8.fill_(-3)": lambda m: _u8(m).fill_(-3),
    "int8.fill_(nan)": lambda m: _i8(m).fill_(float("nan")),
    "uint8[1] = -3": lambda m: _set(_u8(m), 1, -3),
    "uint8[:2] = -129": lambda m: _set(_u8(m), slice(0, 2), -129),
    "int8[mask] = 127.9": lambda m: _set(_i8(m), _mask(m), 127.9),
    "int8[1] = nan": lambda m: _set(_i8(m), 1, float("nan")),
    "float16[1] = 1e39": lambda m: _set(m.ones(4, dtype=m.float16), 1, 1e39),
}


@pytest.mark.parametrize("case", FILLS)
def test_numbers_written_into_tensors_are_checked_as_in_torch(case):
    _same(FILLS[case])


def _t(m, dtype):
    return m.tensor([1, 2, 3]).to(getattr(m, dtype))


# addcmul of integer tensors computes in their promoted dtype with the number cast to it
# (the composite made float32 for value=0.5 and int64 of bools); addcdiv refuses integer
# (and bool) tensor1 and tensor2 whatever the input's dtype, as PyTorch.
ADDC = {
    "addcmul(int8, bool, bool)": lambda m: m.addcmul(_t(m, "int8"), _t(m, "bool"), _t(m, "bool")),
    "addcmul(bool, bool, bool)": lambda m: m.addcmul(_t(m, "bool"), _t(m, "bool"), _t(m, "bool")),
    "addcmul(int64, value=0.5)": lambda m: m.addcmul(
        _t(m, "int64"), _t(m, "int64"), _t(m, "int64"), value=0.5
    ),
    "addcmul(int64, value=2.7)": lambda m: m.addcmul(
        _t(m, "int64"), _t(m, "int64"), _t(m, "int64"), value=2.7
    ),
    "addcmul(uint8, int8, int8)": lambda m: m.addcmul(_t(m, "uint8"), _t(m, "int8"), _t(m, "int8")),
    "addcmul(int32, float32, int32)": lambda m: m.addcmul(
        _t(m, "int32"), _t(m, "float32"), _t(m, "int32")
    ),
    "int16.addcmul_(bool, bool, value=2)": lambda m: _t(m, "int16").addcmul_(
        _t(m, "bool"), _t(m, "bool"), value=2
    ),
    "addcdiv(float32, int64, int64)": lambda m: m.addcdiv(
        _t(m, "float32"), _t(m, "int64"), _t(m, "int64")
    ),
    "addcdiv(int8, int8, int8)": lambda m: m.addcdiv(_t(m, "int8"), _t(m, "int8"), _t(m, "int8")),
    "addcdiv(float64, bool, int32)": lambda m: m.addcdiv(
        _t(m, "float64"), _t(m, "bool"), _t(m, "int32")
    ),
    "float32.addcdiv_(int64, int64)": lambda m: _t(m, "float32").addcdiv_(
        _t(m, "int64"), _t(m, "int64")
    ),
    "addcdiv(int32, float32, int32)": lambda m: m.addcdiv(
        _t(m, "int32"), _t(m, "float32"), _t(m, "int32")
    ),
}


@pytest.mark.parametrize("case", ADDC)
def test_addcmul_and_addcdiv_of_integer_tensors_match_torch(case):
    _same(ADDC[case])
