"""In-place twins against PyTorch: comparisons, logic, bit shifts, the composites' twins,
layout changes, fill_diagonal_, float_power_, ldexp and the torch.X_ functions: values,
dtypes, derivatives to second order, histories, versions and errors."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

rng = np.random.default_rng(12)
X, V = rng.standard_normal((3, 3)), rng.standard_normal((3,))


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


CASES = {
    "gt_-tensor": lambda m, x, v: (x * 1).gt_(v) * x,
    "le_-scalar": lambda m, x, v: (x * 1).le_(0.1) * x,
    "eq_-self-other": lambda m, x, v: (x * 1).eq_(x) + v,
    "greater_equal_-alias": lambda m, x, v: (x * 1).greater_equal_(v) * v,
    "not_equal_-alias": lambda m, x, v: (x * 1).not_equal_(0.0) * x,
    "addcdiv_": lambda m, x, v: (x * 1).addcdiv_(x, v, value=0.5) * x,
    "addcmul_": lambda m, x, v: (x * 1).addcmul_(v, x, value=-2) * x,
    "addmm_": lambda m, x, v: (x * 1).addmm_(x, x.t(), beta=2, alpha=0.5),
    "lerp_-scalar": lambda m, x, v: (x * 1).lerp_(v, 0.3) * x,
    "lerp_-tensor": lambda m, x, v: (x * 1).lerp_(v.expand(3, 3), x.sigmoid()),
    "hypot_": lambda m, x, v: (x * 1).hypot_(v) * x,
    "float_power_-scalar": lambda m, x, v: (x * 1).float_power_(2) * x,
    "float_power_-tensor": lambda m, x, v: (x.abs() + 1).float_power_(v),
    "nan_to_num_": lambda m, x, v: (x.log() * 1).nan_to_num_(nan=-1.0) * x,
    "masked_fill_-tensor": lambda m, x, v: (x * 1).masked_fill_(x > 0, v[0]) * x,
    "tril_": lambda m, x, v: (x * 1).tril_(-1) * x,
    "triu_": lambda m, x, v: (x * 1).triu_(1) * x,
    "deg2rad_-rad2deg_": lambda m, x, v: (x * 1).deg2rad_().rad2deg_().deg2rad_() * x,
    "sinc_": lambda m, x, v: (x * 1).sinc_() * x,
    "frac_": lambda m, x, v: (x * 3).frac_() * x,
    "exp2_": lambda m, x, v: (x * 1).exp2_() * x,
    "erfinv_": lambda m, x, v: (x.tanh() * 1).erfinv_() * x,
    "ldexp": lambda m, x, v: m.ldexp(x, v),
    "ldexp_": lambda m, x, v: (x * 1).ldexp_(v) * x,
    "ldexp-int-exponent": lambda m, x, v: m.ldexp(x, m.tensor([1, 0, 3])),
    "squeeze_": lambda m, x, v: (x[None] * 1).squeeze_() * x,
    "squeeze_-dims": lambda m, x, v: (x[:, None] * 1).squeeze_((1, 0)) * x,
    "unsqueeze_": lambda m, x, v: (x * 1).unsqueeze_(-1) * x[:, :, None],
    "swapaxes_": lambda m, x, v: (x * 1).swapaxes_(0, 1) * x,
    "swapdims_": lambda m, x, v: (x * 1).swapdims_(1, 0).exp(),
    "as_strided_": lambda m, x, v: (x * 1).as_strided_((2, 2), (1, 3), 1) * x[:2, :2],
    "fill_diagonal_": lambda m, x, v: (x * 1).fill_diagonal_(0.5) * x,
    "fill_diagonal_-wrap": lambda m, x, v: (m.cat([x, x, x]) * 1).fill_diagonal_(-2.0, wrap=True),
    "fill_diagonal_-wide": lambda m, x, v: (x[:2].t() * 1).fill_diagonal_(4.0, wrap=True),
    "fill_diagonal_-cube": lambda m, x, v: (x[:2, :2, None].expand(2, 2, 2) * 1).fill_diagonal_(3),
    "torch.sin_": lambda m, x, v: m.sin_(x * 1) * x,
    "torch.clamp_": lambda m, x, v: m.clamp_(x * 1, min=-0.5, max=0.5) * x,
    "torch.relu_": lambda m, x, v: m.relu_(x * 1) * x,
    "torch.fill_": lambda m, x, v: m.fill_(x * 1, v[1]) * x,
    "torch.fill-scalar": lambda m, x, v: m.fill(x, 2.0) * x,
    "torch.fill-tensor": lambda m, x, v: m.fill(x, v[0]) * x,
    "torch.ldexp_": lambda m, x, v: m.ldexp_(x * 1, v) * x,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_derivatives_match_torch(name, torch):
    compare(CASES[name], [X, V], torch=torch)


EXACT = [
    lambda m: m.tensor([1, 2, 3]).lt_(2.5),
    lambda m: m.tensor([1.0, 2.0, 3.0]).ge_(m.tensor([3, 2, 1])),
    lambda m: m.tensor([True, False]).eq_(m.tensor([1.0, 0.5])),
    lambda m: m.tensor([1, 0, 2]).logical_and_(m.tensor([1.0, 0.0, 0.0])),
    lambda m: m.tensor([1.5, 0.0]).logical_or_(m.tensor([0, 0])),
    lambda m: m.tensor([True, False]).logical_xor_(m.tensor([True, True])),
    lambda m: m.tensor([3.0, 0.0]).logical_not_(),
    lambda m: m.tensor([12, 10]).bitwise_and_(m.tensor([10, 6])),
    lambda m: m.tensor([12, 10], dtype=m.int8).bitwise_or_(3),
    lambda m: m.tensor([True, False]).bitwise_xor_(m.tensor([True, True])),
    lambda m: m.tensor([5, -6], dtype=m.int16).bitwise_not_(),
    lambda m: m.tensor([5, -5, 1]) << m.tensor([-1, 2, 64]),
    lambda m: m.tensor([5, -5, 1]) >> m.tensor([-1, 1, 64]),
    lambda m: m.tensor([-100, 100], dtype=m.int8) >> 70,
    lambda m: m.tensor([200], dtype=m.uint8) << 1,
    lambda m: m.tensor([200], dtype=m.uint8) >> 3,
    lambda m: m.tensor([True, False]) << 3,
    lambda m: 3 << m.tensor([1, 2]),
    lambda m: 64 >> m.tensor([1, 2]),
    lambda m: m.tensor([1, 2], dtype=m.int8) << m.tensor([1], dtype=m.int32),
    lambda m: m.bitwise_left_shift(m.tensor([1, 2]), 3),
    lambda m: m.bitwise_right_shift(m.tensor([-8, 16]), m.tensor([2, 3])),
    lambda m: m.tensor([1, 2]).bitwise_left_shift_(m.tensor([2, 3])),
    lambda m: m.tensor([-9, 9]).bitwise_right_shift_(1),
    lambda m: m.ldexp(m.tensor([1, 2]), m.tensor([2, 3])),
    lambda m: m.tensor([1.0, 2.0]).ldexp_(m.tensor([1, -2])),
    lambda m: m.tensor([[1, 2], [3, 4]]).fill_diagonal_(-1),
    lambda m: m.zeros(7, 3).fill_diagonal_(5.0, wrap=True),
    lambda m: m.zeros(7, 3).fill_diagonal_(5.0),
    lambda m: m.zeros(2, 5).fill_diagonal_(1.0, wrap=True),
    lambda m: m.tensor([1, 2, 3]).masked_fill_(m.tensor([True, False, True]), 2.7),
    lambda m: m.tensor([[1, 2], [3, 4]]).tril_(),
    lambda m: m.tensor([1.0, float("nan"), float("inf")]).nan_to_num_(posinf=9.0),
    lambda m: m.abs_(m.tensor([-1, 2])),
    lambda m: m.zero_(m.ones(2)),
]


@pytest.mark.parametrize("call", EXACT)
def test_exact_values_and_dtypes_match_torch(call, torch):
    ours, theirs = call(lg), call(torch)
    assert str(ours.dtype) == str(theirs.dtype) and ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def _shift_operators(m):
    x = m.tensor([1, 2, 3])
    x <<= 2
    x >>= m.tensor([1, 0, 1])
    x &= 7
    x |= 8
    x ^= 1
    return x


def test_in_place_bit_operators_match_torch(torch):
    np.testing.assert_array_equal(_shift_operators(lg).numpy(), _shift_operators(torch).numpy())


def _histories(m):
    """grad_fn names, requires_grad and versions after in-place ops that are (not) recorded."""
    w = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
    out = []
    for call in (
        lambda y: y.lt_(0.0),
        lambda y: y.eq_(w),
        lambda y: y.logical_not_(),
        lambda y: y.logical_and_(m.tensor([1.0, 0.0, 1.0])),
    ):
        y = w * 2
        before = y._version
        call(y)
        out.append((y.grad_fn.name(), y.requires_grad, y._version - before))
    return out


def test_comparisons_record_a_zero_gradient_and_logic_keeps_the_history(torch):
    assert _histories(lg) == _histories(torch)


def _view_histories(m):
    w = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = w * 2
    view = y[:2]
    view.logical_not_()
    lt = (w * 2)[1:]
    lt.lt_(0.0)
    return view.grad_fn.name(), y.grad_fn.name(), y._version, y.tolist(), lt.grad_fn.name()


def test_in_place_logic_through_a_view_regenerates_the_views_history(torch):
    assert _view_histories(lg) == _view_histories(torch)


def _layout_nodes(m):
    w = m.ones(1, 2, 1, requires_grad=True)
    return [
        (w * 1).squeeze_().grad_fn.name(),
        (w * 1).squeeze_(0).grad_fn.name(),
        (w * 1).squeeze_((0, 2)).grad_fn.name(),
        (w * 1).unsqueeze_(0).grad_fn.name(),
        (w * 1).swapaxes_(0, 1).grad_fn.name(),
        (w * 1).swapdims_(2, 0).grad_fn.name(),
        (w * 1).as_strided_((2,), (1,)).grad_fn.name(),
    ]


def test_layout_changes_record_torchs_in_place_nodes(torch):
    assert _layout_nodes(lg) == _layout_nodes(torch)


def test_comparison_gradients_are_zero(torch):
    for m in (lg, torch):
        w = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        v = m.tensor([0.5, 0.5, 0.5], requires_grad=True)
        y = w * 2
        y.gt_(v)
        gw, gv = m.autograd.grad((y * 3).sum(), (w, v))
        assert not gw.numpy().any() and not gv.numpy().any()


def test_layout_changes_follow_torch(torch):
    for m in (lg, torch):
        y = m.ones(2, 1, 3, requires_grad=True) * 1
        assert y.squeeze_(1) is y and tuple(y.shape) == (2, 3)
        assert y.unsqueeze_(0) is y and tuple(y.shape) == (1, 2, 3)
        assert y.swapaxes_(0, 2) is y and tuple(y.shape) == (3, 2, 1)
        assert y.swapdims_(0, 1) is y and tuple(y.shape) == (2, 3, 1)
        assert y.as_strided_((3, 2), (1, 3)) is y and tuple(y.shape) == (3, 2)


def _torch_namespace_names(torch):
    return sorted(
        n for n in dir(torch) if n.endswith("_") and not n.startswith("_") and hasattr(lg.Tensor, n)
    )


def test_torch_namespace_has_each_in_place_method_torch_has(torch):
    missing = [n for n in _torch_namespace_names(torch) if not hasattr(lg, n)]
    assert missing == []


ERRORS = [
    lambda m: m.tensor([1.0], requires_grad=True).eq_(0.0),
    lambda m: m.tensor([1.0], requires_grad=True).squeeze_(),
    lambda m: m.tensor([1.0], requires_grad=True).fill_diagonal_(1.0),
    lambda m: m.tensor([True]).bitwise_and_(m.tensor([1])),
    lambda m: m.tensor([1.0]).bitwise_or_(m.tensor([1.0])),
    lambda m: m.tensor([1.0]).bitwise_not_(),
    lambda m: m.tensor([1.0]) << 1,
    lambda m: m.tensor([1]) >> 1.5,
    lambda m: m.tensor([True]) << m.tensor([True]),
    lambda m: m.tensor([1, 2]).exp2_(),
    lambda m: m.tensor([1, 2]).deg2rad_(),
    lambda m: m.tensor([1, 2]).sinc_(),
    lambda m: m.tensor([1, 2]).frac_(),
    lambda m: m.tensor([1, 2]).ldexp_(m.tensor([1, 2])),
    lambda m: m.tensor([1.0, 2.0]).float_power_(2),
    lambda m: m.zeros(3).fill_diagonal_(1.0),
    lambda m: m.zeros(3, 3, 2).fill_diagonal_(1.0),
    lambda m: m.zeros(3).lt_(m.zeros(2, 3)),
    lambda m: m.zeros(3).masked_fill_(m.tensor([[True], [False]]), 1.0),
    lambda m: m.tensor([1, 2]).hypot_(m.tensor([1, 2])),
    lambda m: m.tensor([1, 2]).lerp_(m.tensor([1, 2]), 0.5),
    lambda m: m.tensor([1.0]).lerp_(m.tensor([1]), 0.5),
]


@pytest.mark.parametrize("call", ERRORS)
def test_bad_calls_raise_torchs_exception_type(call, torch):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(theirs.type):
        call(lg)


def test_float_power_in_place_on_a_float64_tensor_keeps_it(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for m in (lg, torch):
            y = m.tensor([1.0, 2.0], dtype=m.float64).float_power_(m.tensor([2.0, 0.5]))
            assert str(y.dtype).endswith("float64")
            np.testing.assert_allclose(y.numpy(), [1.0, 2.0**0.5])


def test_fill_diagonal_takes_a_number_as_pytorchs_parser_does(torch):
    """A Number, or a 0-d tensor that requires no grad (taken as its value); any other
    tensor is a TypeError."""
    for m in (lg, torch):
        x = m.zeros(2, 2)
        x.fill_diagonal_(m.tensor(2.0))
        assert x.tolist() == [[2.0, 0.0], [0.0, 2.0]]
        for bad in (m.tensor([1.0]), m.tensor(1.0, requires_grad=True)):
            with pytest.raises(TypeError, match="must be Number, not Tensor"):
                m.zeros(2, 2).fill_diagonal_(bad)
