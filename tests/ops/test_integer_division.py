"""Integer floor/trunc division, remainder and fmod by zero raise as in PyTorch; bools refuse."""

import numpy as np
import pytest

import leafgrad as lg

A = [5, -3, 0, 7]
Z = [0, 1, 2, -2]  # one zero divisor among ordinary ones

# (name, fn(m, a, z)) where a is an int64 tensor of A and z one of Z.
BY_ZERO = [
    ("floordiv_operator_scalar", lambda m, a, z: a // 0),
    ("floordiv_operator_tensor", lambda m, a, z: a // z),
    ("mod_operator_scalar", lambda m, a, z: a % 0),
    ("mod_operator_tensor", lambda m, a, z: a % z),
    ("rfloordiv", lambda m, a, z: 5 // z),
    ("rmod", lambda m, a, z: 5 % z),
    ("floor_divide", lambda m, a, z: m.floor_divide(a, z)),
    ("div_floor", lambda m, a, z: m.div(a, z, rounding_mode="floor")),
    ("div_trunc_scalar", lambda m, a, z: m.div(a, 0, rounding_mode="trunc")),
    ("remainder", lambda m, a, z: m.remainder(a, z)),
    ("fmod_tensor", lambda m, a, z: m.fmod(a, z)),
    ("fmod_scalar", lambda m, a, z: m.fmod(a, 0)),
    ("zero_dim_divisor", lambda m, a, z: a // m.tensor(0)),
    ("false_divisor", lambda m, a, z: a // False),
    ("uint8", lambda m, a, z: m.tensor([3], dtype=m.uint8) // m.tensor([0], dtype=m.uint8)),
    ("int32", lambda m, a, z: m.tensor([3], dtype=m.int32) % m.tensor([0], dtype=m.int32)),
]


@pytest.mark.parametrize(("name", "fn"), BY_ZERO, ids=[n for n, _ in BY_ZERO])
def test_integer_division_by_zero_raises_runtime_error(name, fn):
    a, z = lg.tensor(A), lg.tensor(Z)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(lg, a, z)


@pytest.mark.parametrize(
    "method", ["floor_divide_", "remainder_", "fmod_", "__ifloordiv__", "__imod__"]
)
def test_failed_inplace_integer_division_leaves_the_tensor_unchanged(method):
    a = lg.tensor(A)
    version = a._version
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(a, method)(0)
    assert a.tolist() == A
    assert a._version == version


def test_float_division_by_zero_gives_inf_and_nan():
    x = lg.tensor([1.0, -1.0, 0.0])
    assert (x // 0).tolist()[:2] == [float("inf"), float("-inf")]
    assert np.isnan((x // 0).tolist()[2])
    assert np.isnan(lg.fmod(x, 0).numpy()).all()
    assert (lg.tensor(A) // 0.0).dtype == lg.float32  # an int over a float zero is float


def test_an_empty_result_divides_by_zero_without_error():
    assert (lg.tensor([], dtype=lg.int64) // lg.tensor([0])).shape == (0,)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, t: t // t,
        lambda m, t: t % t,
        lambda m, t: m.fmod(t, t),
        lambda m, t: m.div(t, t, rounding_mode="floor"),
        lambda m, t: m.div(t, t, rounding_mode="trunc"),
    ],
)
def test_bool_division_is_not_implemented(fn):
    with pytest.raises(NotImplementedError):
        fn(lg, lg.tensor([True, True]))


def test_integer_trunc_division_is_exact_beyond_float_precision():
    q = lg.div(lg.tensor([2**62 + 1, -7, 7, -7]), lg.tensor([3, 2, -2, -2]), rounding_mode="trunc")
    assert q.tolist() == [(2**62 + 1) // 3, -3, -3, 3]
    assert q.dtype == lg.int64


@pytest.mark.parametrize(("name", "fn"), BY_ZERO, ids=[n for n, _ in BY_ZERO])
def test_pytorch_raises_the_same(name, fn):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(torch, torch.tensor(A), torch.tensor(Z))


def test_nonzero_integer_division_matches_pytorch():
    torch = pytest.importorskip("torch")
    x, y = [-7, 7, -7, 7, 0, -1], [2, -2, -2, 2, 3, 5]
    for op in (
        lambda m, a, b: a // b,
        lambda m, a, b: a % b,
        lambda m, a, b: m.fmod(a, b),
        lambda m, a, b: m.div(a, b, rounding_mode="trunc"),
        lambda m, a, b: m.div(a, b, rounding_mode="floor"),
    ):
        ours = op(lg, lg.tensor(x), lg.tensor(y))
        theirs = op(torch, torch.tensor(x), torch.tensor(y))
        assert ours.tolist() == theirs.tolist()
        assert str(ours.dtype) == str(theirs.dtype)
