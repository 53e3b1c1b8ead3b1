"""unfold, ravel, resize/resize_as (out of place), set_, empty_strided: values, strides, view
relations, gradients to second order and which calls raise, compared with torch."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn()
        except Exception as exc:  # the type is what is compared
            return type(exc).__name__
    return (tuple(out.shape), tuple(out.stride()), out.tolist())


X = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: x.unfold(2, 2, 1), lambda m, x: x.unfold(-1, 3, 2),
        lambda m, x: x.unfold(0, 1, 1), lambda m, x: x.unfold(1, 3, 3),
        lambda m, x: x.unfold(2, 0, 1), lambda m, x: x.unfold(2, 5, 1),
        lambda m, x: x.unfold(2, 2, 0), lambda m, x: x.unfold(2, -1, 1),
        lambda m, x: x.unfold(3, 2, 1), lambda m, x: x.transpose(0, 2).unfold(1, 2, 1),
        lambda m, x: x[:, 1].unfold(1, 2, 2), lambda m, x: x.unfold(2, 2, 1).unfold(1, 2, 1),
        lambda m, x: x.sum().unfold(0, 1, 1), lambda m, x: x.sum().unfold(0, 2, 1),
        lambda m, x: m.ravel(x), lambda m, x: x.transpose(0, 2).ravel(),
        lambda m, x: x.sum().ravel(), lambda m, x: x.resize(4, 6), lambda m, x: x.resize((24,)),
        lambda m, x: x.resize(5, 5), lambda m, x: x.transpose(0, 1).resize(6, 4),
        lambda m, x: x.resize_as(m.ones(12, 2)), lambda m, x: x.resize_as(m.ones(2)),
        lambda m, x: m.tensor(m.resize_as_(m.ones(3), x).shape),
        lambda m, x: m.tensor(m.ones(3).set_().shape),
        lambda m, x: m.ones(3).set_(x),
        lambda m, x: m.ones(3).set_(x.untyped_storage(), 1, (2, 2), (1, 1)),
        lambda m, x: m.ones(3).set_(x.untyped_storage(), 0, (2, 2)),
        lambda m, x: m.ones(3, requires_grad=True).set_(x),
        lambda m, x: m.empty_strided((2, 3), (1, 2)).zero_(),  # not mul(0): NaN garbage stays NaN
        lambda m, x: m.empty_strided((2, 3), (1,)), lambda m, x: m.empty_strided((2, 3), (-1, 1)),
        lambda m, x: m.empty_strided((2, 3), (0, 1), dtype=m.int64).mul(0),
        lambda m, x: x.new_empty_strided((3, 2), (1, 3)).zero_(),
        lambda m, x: x.new_empty_strided((3, 2), (1, 3), dtype=m.int32).mul(0),
    ],
)  # fmt: skip
def test_layouts_and_errors_match_pytorch(torch, call):
    ours = _outcome(lambda: call(lg, lg.tensor(X)))
    theirs = _outcome(lambda: call(torch, torch.tensor(X)))
    assert ours == theirs


def test_unfold_is_a_view_that_sees_writes(torch):
    x = lg.arange(7.0)
    w = x.unfold(0, 3, 2)
    assert w._base is x
    x[2] = 100.0
    assert w[:, 0].tolist() == [0.0, 100.0, 4.0] and w[0, 2].item() == 100.0


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: x.unfold(1, 2, 1), lambda m, x: x.unfold(2, 3, 1) * x.unfold(2, 3, 1),
        lambda m, x: x.transpose(0, 2).unfold(1, 2, 1).sin(),
        lambda m, x: m.ravel(x.transpose(0, 2)) ** 2, lambda m, x: x.resize(4, 6).exp(),
        lambda m, x: x.sum().unfold(0, 1, 1) ** 3, lambda m, x: x[:, 1:].unfold(2, 2, 2).cos(),
    ],
)  # fmt: skip
def test_gradients_to_second_order_match_pytorch(torch, fn):
    arrays = [np.random.default_rng(1).standard_normal((2, 3, 4))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(fn, arrays, torch=torch)


def test_resize_warns_that_it_is_deprecated():
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        lg.ones(2, 3).resize(6)
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        lg.ones(2, 3).resize_as(lg.ones(6))


def test_set_shares_memory_with_its_source():
    x = lg.arange(6.0).reshape(2, 3)
    s = lg.ones(3)
    assert s.set_(x) is s and s._version == 1
    x[0, 0] = 7.0
    assert s[0, 0].item() == 7.0
    t = lg.zeros(1).set_(x.untyped_storage(), 2, (2,), (3,))
    assert t.tolist() == [2.0, 5.0]
    t[1] = -1.0
    assert x[1, 2].item() == -1.0


def test_empty_strided_has_the_asked_strides():
    t = lg.empty_strided((2, 3, 4), (1, 2, 6), dtype=lg.float64, requires_grad=True)
    assert t.stride() == (1, 2, 6) and t.dtype == lg.float64 and t.requires_grad
    assert not t.is_contiguous() and t.shape == (2, 3, 4)
