"""Printing tensors: ``repr`` must be character for character what PyTorch prints.

The first tests pin known strings (taken from PyTorch 2.x) and run without torch; the rest
compare ``repr`` with torch's on a wide seeded set of tensors, print options and defaults.
"""

import math
import zlib

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import _tensor_str


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore_print_options_and_default_dtype():
    yield
    lg.set_printoptions(profile="default")
    lg.set_default_dtype(lg.float32)
    try:
        import torch as _torch
    except ImportError:
        return
    _torch.set_printoptions(profile="default")
    _torch.set_default_dtype(_torch.float32)


def _t(values, dtype=None, requires_grad=False):
    return lg.tensor(np.asarray(values), dtype=dtype, requires_grad=requires_grad)


# ----------------------------------------------------------------------------- known strings
KNOWN = [
    ("int_mode_floats_get_a_trailing_dot", lambda: lg.tensor([1.0, 2.0, -3.0]),
     "tensor([ 1.,  2., -3.])"),
    ("fixed_mode_has_four_decimals", lambda: lg.tensor([1.5, -2.25, 100.125]),
     "tensor([  1.5000,  -2.2500, 100.1250])"),
    ("ratio_over_1000_switches_to_sci", lambda: lg.tensor([1e-3, 2.0, 5e3]),
     "tensor([1.0000e-03, 2.0000e+00, 5.0000e+03])"),
    ("values_over_1e8_switch_to_sci", lambda: lg.tensor([1e10, 1.0]),
     "tensor([1.0000e+10, 1.0000e+00])"),
    ("values_under_1e-4_switch_to_sci", lambda: lg.tensor([1e-5, 2e-5]),
     "tensor([1.0000e-05, 2.0000e-05])"),
    ("nan_and_inf_pad_to_the_common_width", lambda: lg.tensor([math.nan, math.inf, -math.inf, 1.5]),
     "tensor([   nan,    inf,   -inf, 1.5000])"),
    ("nan_and_inf_in_int_mode_get_no_dot", lambda: lg.tensor([math.nan, math.inf, 2.0]),
     "tensor([nan, inf, 2.])"),
    ("negative_zero_keeps_its_sign", lambda: lg.tensor([-0.0, 1.0]), "tensor([-0., 1.])"),
    ("negative_zero_scalar_keeps_its_sign", lambda: lg.tensor(-0.0), "tensor(-0.)"),
    ("all_nan_prints_bare", lambda: lg.tensor([math.nan]), "tensor([nan])"),
    ("columns_align_right", lambda: lg.tensor([[1.5, -200.25], [3.0, 4.0]]),
     "tensor([[   1.5000, -200.2500],\n        [   3.0000,    4.0000]])"),
    ("ints_align_right", lambda: lg.tensor([[1, -20], [300, 4]]),
     "tensor([[  1, -20],\n        [300,   4]])"),
    ("bools_align_right", lambda: lg.tensor([[True, False]]), "tensor([[ True, False]])"),
    ("rows_wrap_at_80_columns", lambda: _t(np.arange(30.0) * 1.5, lg.float32),
     ("tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
      "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
      "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
      "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])")),
    ("int_rows_wrap_at_80_columns", lambda: _t(np.arange(40)),
     ("tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
      "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
      "        36, 37, 38, 39])")),
    ("3d_blocks_are_separated_by_one_blank_line",
     lambda: _t(np.arange(8.0).reshape(2, 2, 2), lg.float32),
     "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])"),
    ("4d_blocks_are_separated_by_two_blank_lines", lambda: _t(np.arange(16).reshape(2, 2, 2, 2)),
     ("tensor([[[[ 0,  1],\n          [ 2,  3]],\n\n"
      "         [[ 4,  5],\n          [ 6,  7]]],\n\n\n"
      "        [[[ 8,  9],\n          [10, 11]],\n\n         [[12, 13],\n          [14, 15]]]])")),
    ("over_1000_elements_are_summarised", lambda: _t(np.arange(2000)),
     "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    ("empty_1d_has_no_size", lambda: lg.tensor([]), "tensor([])"),
    ("empty_2d_shows_its_size", lambda: lg.zeros(2, 0), "tensor([], size=(2, 0))"),
    ("empty_int64_shows_its_dtype", lambda: lg.zeros(0, dtype=lg.int64),
     "tensor([], dtype=torch.int64)"),
    ("empty_float64_shows_size_then_dtype", lambda: lg.zeros(3, 0, 1, dtype=lg.float64),
     "tensor([], size=(3, 0, 1), dtype=torch.float64)"),
    ("float64_shows_its_dtype", lambda: lg.tensor([1.5], dtype=lg.float64),
     "tensor([1.5000], dtype=torch.float64)"),
    ("int32_shows_its_dtype", lambda: lg.tensor([1, 2], dtype=lg.int32),
     "tensor([1, 2], dtype=torch.int32)"),
    ("uint8_shows_its_dtype", lambda: lg.tensor([255], dtype=lg.uint8),
     "tensor([255], dtype=torch.uint8)"),
    ("float16_shows_its_dtype", lambda: lg.tensor([0.1], dtype=lg.float16),
     "tensor([0.1000], dtype=torch.float16)"),
    ("float_scalar_rounds_to_four_decimals", lambda: lg.tensor(3.14159), "tensor(3.1416)"),
    ("int16_scalar_shows_its_dtype", lambda: lg.tensor(7, dtype=lg.int16),
     "tensor(7, dtype=torch.int16)"),
    ("large_scalar_prints_in_sci", lambda: lg.tensor(1e20), "tensor(1.0000e+20)"),
    ("leaf_shows_requires_grad", lambda: lg.tensor([1.0, 2.0], requires_grad=True),
     "tensor([1., 2.], requires_grad=True)"),
    ("result_shows_grad_fn", lambda: lg.tensor([1.0, 2.0], requires_grad=True) * 2,
     "tensor([2., 4.], grad_fn=<MulBackward0>)"),
]  # fmt: skip


@pytest.mark.parametrize("make, expected", [c[1:] for c in KNOWN], ids=[c[0] for c in KNOWN])
def test_repr_is_the_known_pytorch_string(make, expected):
    assert repr(make()) == expected


def test_str_and_format_without_spec_equal_repr():
    t = lg.tensor([[1.5, 2.0]], requires_grad=True)
    assert str(t) == repr(t) == f"{t}" == "tensor([[1.5000, 2.0000]], requires_grad=True)"


def test_suffixes_wrap_onto_a_new_line_when_the_last_line_is_full():
    t = lg.ones(8, dtype=lg.float64) / 3
    t.requires_grad_(True)
    assert repr(t) == (
        "tensor([0.3333, 0.3333, 0.3333, 0.3333, 0.3333, 0.3333, 0.3333, 0.3333],\n"
        "       dtype=torch.float64, requires_grad=True)"
    )


def test_suffixes_stay_on_the_last_line_when_they_fit():
    t = lg.ones(3, 11, dtype=lg.float64) / 3
    t.requires_grad_(True)
    assert repr(t).endswith("         0.3333, 0.3333]], dtype=torch.float64, requires_grad=True)")


def test_default_dtype_float64_hides_float64_and_shows_float32():
    lg.set_default_dtype(lg.float64)
    assert repr(lg.tensor([1.5])) == "tensor([1.5000])"
    assert repr(lg.tensor([1.5], dtype=lg.float32)) == "tensor([1.5000], dtype=torch.float32)"
    assert repr(lg.zeros(0, dtype=lg.float32)) == "tensor([], dtype=torch.float32)"


def test_set_printoptions_precision_changes_the_decimals():
    lg.set_printoptions(precision=2)
    assert repr(lg.tensor([1.12345])) == "tensor([1.12])"


def test_set_printoptions_sci_mode_false_forces_fixed_and_none_restores_auto():
    lg.set_printoptions(sci_mode=False)
    assert repr(lg.tensor([1e-5, 1.0])) == "tensor([0.0000, 1.0000])"
    lg.set_printoptions(precision=4)  # sci_mode is reset to None by any call
    assert repr(lg.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"


def test_set_printoptions_threshold_and_edgeitems_summarise_small_tensors():
    lg.set_printoptions(threshold=5, edgeitems=2)
    assert repr(lg.tensor([0, 1, 2, 3, 4, 5, 6])) == "tensor([0, 1,  ..., 5, 6])"


def test_set_printoptions_profile_default_restores_everything():
    lg.set_printoptions(precision=1, threshold=3, edgeitems=1, linewidth=20, sci_mode=True)
    lg.set_printoptions(profile="default")
    assert _tensor_str.get_printoptions() == {
        "precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None,
    }  # fmt: skip


def test_printoptions_context_manager_restores_options_on_exit():
    with _tensor_str.printoptions(precision=1):
        assert repr(lg.tensor([1.25])) == "tensor([1.2])"
    assert repr(lg.tensor([1.25])) == "tensor([1.2500])"


# ----------------------------------------------------------------------------- against torch
SHAPES = [(), (1,), (5,), (0,), (2, 0), (0, 3), (3, 4), (2, 3, 4), (2, 2, 2, 2), (30,),
          (1001,), (40, 40), (11, 11, 11), (2, 3, 200), (5, 5, 5, 5), (1, 1, 1, 1), (7, 1),
          (3, 0, 2)]  # fmt: skip


def _values(kind, shape, rng):
    n = math.prod(shape)
    if kind == "ints_as_floats":
        return rng.integers(-50, 50, shape).astype(np.float64)
    if kind == "normal":
        return rng.standard_normal(shape)
    if kind == "huge":
        return rng.standard_normal(shape) * 1e10
    if kind == "tiny":
        return rng.standard_normal(shape) * 1e-6
    if kind == "wide_ratio":
        return rng.standard_normal(shape) * np.where(rng.random(shape) < 0.5, 1, 1e4)
    if kind == "nonfinite_and_negzero":
        a = rng.standard_normal(n)
        a[::3], a[1::4], a[2::5], a[::7] = np.nan, np.inf, -np.inf, -0.0
        return a.reshape(shape)
    if kind == "zeros":
        return np.zeros(shape)
    if kind == "negative_zeros":
        return np.full(shape, -0.0)
    if kind == "all_nan":
        return np.full(shape, np.nan)
    if kind == "large_ints":
        return np.round(rng.standard_normal(shape) * 1e5)
    if kind == "scaled":
        return rng.standard_normal(shape) * 123.456
    if kind == "near_1e8":
        return np.full(shape, 1e8) + rng.integers(0, 3, shape)
    if kind == "uniform":
        return rng.uniform(0.99, 1000.5, shape)
    raise AssertionError(kind)


KINDS = ["ints_as_floats", "normal", "huge", "tiny", "wide_ratio", "nonfinite_and_negzero",
         "zeros", "negative_zeros", "all_nan", "large_ints", "scaled", "near_1e8",
         "uniform"]  # fmt: skip
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _as(values, dtype):
    values = np.asarray(values)
    if not dtype.startswith("float"):
        values = np.clip(np.nan_to_num(values, nan=0, posinf=7, neginf=-7), -1e9, 1e9)
    with np.errstate(all="ignore"):
        return np.asarray(values.astype(dtype))


def _assert_reprs_match(torch, values, requires_grad=False):
    ours = lg.from_numpy(values.copy()).requires_grad_(requires_grad)
    theirs = torch.from_numpy(values.copy()).requires_grad_(requires_grad)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_repr_matches_torch_for_every_dtype(torch, shape, kind):
    rng = np.random.default_rng(zlib.crc32(repr((shape, kind)).encode()))
    values = _values(kind, shape, rng)
    for dtype in DTYPES:
        arr = _as(values, dtype)
        _assert_reprs_match(torch, arr)
        if dtype.startswith("float"):
            _assert_reprs_match(torch, arr, requires_grad=True)


PRINT_OPTIONS = [
    {"precision": 2}, {"precision": 8}, {"sci_mode": True}, {"sci_mode": False},
    {"linewidth": 40}, {"linewidth": 200}, {"threshold": 10}, {"threshold": 10, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0}, {"profile": "short"}, {"profile": "full"},
    {"threshold": 20, "edgeitems": 2, "linewidth": 50, "precision": 3},
]  # fmt: skip


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize(
    "options", PRINT_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
def test_repr_matches_torch_under_print_options_and_default_dtype(torch, options, default):
    lg.set_printoptions(**options)
    torch.set_printoptions(**options)
    lg.set_default_dtype(getattr(lg, default))
    torch.set_default_dtype(getattr(torch, default))
    rng = np.random.default_rng(11)
    for shape in [
        (),
        (5,),
        (0,),
        (2, 0),
        (3, 4),
        (2, 3, 4),
        (30,),
        (1001,),
        (11, 11, 11),
        (2, 2, 2, 2),
    ]:
        for kind in ["ints_as_floats", "normal", "wide_ratio", "nonfinite_and_negzero", "zeros"]:
            values = _values(kind, shape, rng)
            for dtype in ["float32", "float64", "int64", "int32", "bool"]:
                _assert_reprs_match(torch, _as(values, dtype), requires_grad=dtype == "float32")


def test_repr_with_grad_fn_matches_torch_including_wrapped_suffixes(torch):
    rng = np.random.default_rng(3)
    for shape in [(), (3,), (9,), (10, 8), (3, 12), (2, 2, 9)]:
        values = rng.integers(-9, 9, shape) / 4  # quarters: sums are exact in any order
        for dtype in ["float32", "float64"]:
            a = lg.tensor(values, dtype=getattr(lg, dtype), requires_grad=True)
            b = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
            assert repr(a * 2) == repr(b * 2)
            assert repr(a + 1) == repr(b + 1)
            assert repr((a * 3).sum()) == repr((b * 3).sum())


def test_edge_items_zero_prints_only_dots_and_the_size_like_torch(torch):
    lg.set_printoptions(threshold=3, edgeitems=0)
    torch.set_printoptions(threshold=3, edgeitems=0)
    for values in [np.arange(10.0), np.arange(24).reshape(2, 3, 4), np.arange(2.0)]:
        _assert_reprs_match(torch, values)


def test_format_of_a_zero_dim_tensor_is_its_value_as_in_torch(torch):
    cases = [
        (lambda m: m.tensor(0.5), ""),
        (lambda m: m.tensor(0.5, requires_grad=True) * 2, ""),
        (lambda m: m.tensor(3), ""),
        (lambda m: m.tensor(True), ""),
        (lambda m: m.tensor(0.123456, dtype=m.float64), ".3f"),
        (lambda m: m.tensor([1.0]), ""),
        (lambda m: m.nn.Parameter(m.tensor(0.5)), ""),
    ]
    for make, spec in cases:
        assert format(make(lg), spec) == format(make(torch), spec)
    assert f"{lg.tensor(2.5)}" == "2.5"
    with pytest.raises(TypeError):  # a Parameter formats as an object, as in PyTorch
        format(lg.nn.Parameter(lg.tensor(0.5)), ".3f")


def test_a_dual_tensor_shows_its_tangent_as_in_torch(torch):
    def reprs(m):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(m.tensor([1.0, 2.0]), m.tensor([0.5, -1.0]))
            inside = [repr(dual), repr(dual * 3), repr(fw.unpack_dual(dual).primal)]
            wide = fw.make_dual(m.arange(9.0), m.arange(9.0) / 4)
            inside.append(repr(wide))
        return inside + [repr(dual)]  # the level ended: no tangent any more

    assert reprs(lg) == reprs(torch)
    assert reprs(lg)[0] == "tensor([1., 2.], tangent=tensor([ 0.5000, -1.0000]))"
