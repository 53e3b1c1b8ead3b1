"""Dtypes, the default dtype and type promotion, checked against PyTorch's tables."""

import copy
import itertools
import pickle

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._dtype import as_dtype, result_type


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore_default_dtype():
    yield
    lg.set_default_dtype(lg.float32)
    try:
        import torch as _torch
    except ImportError:
        return
    _torch.set_default_dtype(_torch.float32)


NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
PROMOTE_NAMES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]


def _operand(lib, name, dim):
    return lib.ones((2,) if dim else (), dtype=getattr(lib, name))


# ----------------------------------------------------------------------------- without torch
def test_floats_absorb_integers_of_any_width():
    assert lg.promote_types(lg.float32, lg.int64) is lg.float32
    assert lg.promote_types(lg.float16, lg.int32) is lg.float16
    assert lg.promote_types(lg.int64, lg.float16) is lg.float16


def test_integers_promote_by_width_and_sign():
    assert lg.promote_types(lg.uint8, lg.int8) is lg.int16
    assert lg.promote_types(lg.int32, lg.int64) is lg.int64
    assert lg.promote_types(lg.bool, lg.uint8) is lg.uint8
    assert lg.promote_types(lg.float16, lg.float32) is lg.float32


def test_promote_types_reads_python_types_as_dtypes():
    assert lg.promote_types(float, lg.int64) is lg.float64
    assert lg.promote_types(int, bool) is lg.int64


def test_zero_dim_tensors_count_only_from_a_higher_category():
    vec_i32, zero_i64, zero_f64 = (
        _operand(lg, "int32", 1),
        _operand(lg, "int64", 0),
        _operand(lg, "float64", 0),
    )
    assert result_type(vec_i32, zero_i64) is lg.int32
    assert result_type(vec_i32, zero_f64) is lg.float64
    assert result_type(_operand(lg, "float16", 1), zero_f64) is lg.float16


def test_python_scalars_bring_int64_or_the_default_float_only_when_higher():
    vec_i32 = _operand(lg, "int32", 1)
    assert result_type(vec_i32, 2) is lg.int32
    assert result_type(vec_i32, 2.5) is lg.float32
    assert result_type(_operand(lg, "bool", 1), 2) is lg.int64
    assert result_type(_operand(lg, "bool", 1), True) is lg.bool
    lg.set_default_dtype(lg.float64)
    assert result_type(vec_i32, 2.5) is lg.float64
    assert result_type(_operand(lg, "float32", 1), 2.5) is lg.float32


def test_numpy_scalars_count_as_ints_or_floats():
    vec_i32 = _operand(lg, "int32", 1)
    assert result_type(vec_i32, np.int64(3)) is lg.int32
    assert result_type(vec_i32, np.float64(1.5)) is lg.float32
    assert (
        result_type(vec_i32, np.bool_(True)) is lg.float32
    )  # PyTorch reads a NumPy bool as a float


def test_dtype_attributes_and_aliases():
    assert lg.float is lg.float32 and lg.double is lg.float64 and lg.half is lg.float16
    assert lg.long is lg.int64 and lg.int is lg.int32 and lg.short is lg.int16
    assert lg.float32.is_floating_point and not lg.int64.is_floating_point
    assert (
        lg.int8.is_signed
        and lg.float32.is_signed
        and not lg.uint8.is_signed
        and not lg.bool.is_signed
    )
    assert not lg.float64.is_complex
    assert (lg.float64.itemsize, lg.int32.itemsize, lg.bool.itemsize) == (8, 4, 1)
    assert repr(lg.float32) == str(lg.float32) == "torch.float32"


def test_dtypes_survive_pickle_and_copy_as_the_same_object():
    for d in (lg.float32, lg.int64, lg.bool):
        assert pickle.loads(pickle.dumps(d)) is d
        assert copy.deepcopy(d) is d


def test_set_default_dtype_accepts_only_floating_leafgrad_dtypes():
    lg.set_default_dtype(lg.float16)
    assert lg.get_default_dtype() is lg.float16
    for bad in (lg.int32, float, np.float64, "float64"):
        with pytest.raises(TypeError):
            lg.set_default_dtype(bad)
    assert lg.get_default_dtype() is lg.float16


def test_dtype_arguments_refuse_numpy_dtypes_and_strings():
    assert as_dtype(float) is lg.float64 and as_dtype(int) is lg.int64 and as_dtype(bool) is lg.bool
    for bad in (np.float32, np.dtype("float64"), "float32", None):
        with pytest.raises(TypeError):
            as_dtype(bad)


# ----------------------------------------------------------------------------- against torch
@pytest.mark.parametrize("a, b", list(itertools.product(NAMES, NAMES)))
def test_promote_types_matches_torch(torch, a, b):
    expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert repr(lg.promote_types(getattr(lg, a), getattr(lg, b))) == str(expected)


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("a", PROMOTE_NAMES)
def test_result_type_of_two_tensors_matches_torch_for_every_dim_combination(torch, a, default):
    lg.set_default_dtype(getattr(lg, default))
    torch.set_default_dtype(getattr(torch, default))
    for b in PROMOTE_NAMES:
        for dim_a, dim_b in [(1, 1), (1, 0), (0, 1), (0, 0)]:
            expected = torch.result_type(_operand(torch, a, dim_a), _operand(torch, b, dim_b))
            ours = result_type(_operand(lg, a, dim_a), _operand(lg, b, dim_b))
            assert repr(ours) == str(expected), (a, dim_a, b, dim_b)


SCALARS = [True, 2, 2.5, np.int32(2), np.int64(3), np.float32(2.5), np.float64(1.5), np.bool_(True)]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("a", PROMOTE_NAMES)
def test_result_type_of_tensor_and_scalar_matches_torch(torch, a, default):
    lg.set_default_dtype(getattr(lg, default))
    torch.set_default_dtype(getattr(torch, default))
    for scalar in SCALARS:
        for dim in (1, 0):
            expected = torch.result_type(_operand(torch, a, dim), scalar)
            assert repr(result_type(_operand(lg, a, dim), scalar)) == str(expected), (
                a,
                dim,
                scalar,
            )


@pytest.mark.parametrize("x, y", list(itertools.product([True, 3, 2.5], repeat=2)))
def test_result_type_of_two_python_scalars_matches_torch(torch, x, y):
    assert repr(result_type(x, y)) == str(torch.result_type(x, y))


@pytest.mark.parametrize(
    "a, b, c", list(itertools.product(["bool", "int32", "float16", "float64"], repeat=3))
)
def test_result_type_of_three_operands_matches_torch_addcmul(torch, a, b, c):
    # addcmul(vector a, 0-dim b, 0-dim c) promotes its three operands together.
    ta, tb, tc = _operand(torch, a, 1), _operand(torch, b, 0), _operand(torch, c, 0)
    try:
        expected = torch.addcmul(ta, tb, tc).dtype
    except RuntimeError:
        pytest.skip("torch refuses addcmul on this dtype combination")
    assert repr(result_type(_operand(lg, a, 1), _operand(lg, b, 0), _operand(lg, c, 0))) == str(
        expected
    )


def test_default_dtype_setting_matches_torch(torch):
    for d in ("float16", "float64", "float32"):
        lg.set_default_dtype(getattr(lg, d))
        torch.set_default_dtype(getattr(torch, d))
        assert repr(lg.get_default_dtype()) == str(torch.get_default_dtype())
        assert repr(lg.tensor(1.5).dtype) == str(torch.tensor(1.5).dtype)
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int32)
    with pytest.raises(TypeError):
        lg.set_default_dtype(lg.int32)


def test_dtype_facts_match_torch(torch):
    for name in NAMES:
        ours, theirs = getattr(lg, name), getattr(torch, name)
        assert repr(ours) == str(theirs)
        assert ours.is_floating_point == theirs.is_floating_point
        assert ours.is_signed == theirs.is_signed
        assert ours.is_complex == theirs.is_complex
        assert ours.itemsize == theirs.itemsize
