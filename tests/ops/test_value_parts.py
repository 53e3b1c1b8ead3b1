"""frexp, nonzero_static and the Python-callback fillers apply_/map_/map2_, compared with
torch: values, dtypes, gradients and which calls raise."""

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
    outs = out if isinstance(out, tuple) else (out,)
    return [(str(o.dtype), tuple(o.shape), o.tolist()) for o in outs]


SPECIAL = [0.0, 1.0, 3.0, -5.0, 0.3, float("inf"), float("-inf"), -0.0, 1e-40, 6e-8, 1e30]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_splits_floats_as_pytorch(torch, dtype):
    data = np.array(SPECIAL, dtype=dtype)
    ours, theirs = lg.frexp(lg.tensor(data)), torch.frexp(torch.tensor(data))
    for a, b in zip(ours, theirs):
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert ours.mantissa is ours[0] and type(ours).__name__ == "frexp"
    nan = lg.frexp(lg.tensor([float("nan")]))
    assert np.isnan(nan.mantissa.item()) and nan.exponent.item() == 0


def test_frexp_mantissa_is_differentiable(torch):
    compare(lambda m, x: m.frexp(x * 7)[0] * x, [np.array([0.3, -2.5, 9.0, 1e-3])], torch=torch)
    compare(lambda m, x: x.frexp().mantissa.sin(), [np.array([[0.3, -2.5], [9.0, 4.0]])],
            torch=torch)  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.frexp(m.tensor([1, 2])),
        lambda m: m.nonzero_static(m.tensor([0, 1, 0, 2]), size=3),
        lambda m: m.nonzero_static(m.tensor([0, 1, 0, 2]), size=1),
        lambda m: m.nonzero_static(m.tensor([[0, 1], [1, 0]]), size=3, fill_value=7),
        lambda m: m.nonzero_static(m.tensor([[0.0, 1.5], [1.0, 0.0]]), size=0),
        lambda m: m.nonzero_static(m.tensor([0, 1]), size=-1),
        lambda m: m.nonzero_static(m.tensor([0, 1]), size=2, fill_value=2.5),
        lambda m: m.nonzero_static(m.tensor(3), size=2),
        lambda m: m.nonzero_static(m.tensor(0), size=2),
        lambda m: m.tensor([True, False, True]).nonzero_static(size=4),
        lambda m: m.ones(3).apply_(lambda v: v * 2 + 1),
        lambda m: m.ones(3, dtype=m.int64).apply_(lambda v: v * 2.7),
        lambda m: m.ones(3).apply_(lambda v: True), lambda m: m.ones(3).apply_(lambda v: "a"),
        lambda m: m.ones(3, requires_grad=True).apply_(lambda v: v),
        lambda m: m.ones(3).map_(m.arange(3.0), lambda a, b: a + b),
        lambda m: m.ones(2, 3).map_(m.arange(3.0), lambda a, b: a * b),
        lambda m: m.ones(3).map_(m.arange(3), lambda a, b: a + b),
        lambda m: m.ones(2).map_(m.ones(3), lambda a, b: a),
        lambda m: m.ones(2, requires_grad=True).map_(m.ones(2), lambda a, b: a),
        lambda m: m.ones(3).map2_(m.arange(3.0), m.arange(3.0), lambda a, b, c: a + b * c),
    ],
)  # fmt: skip
def test_outcomes_match_pytorch(torch, call):
    assert _outcome(lambda: call(lg)) == _outcome(lambda: call(torch))


def test_callbacks_write_in_place_and_bump_the_version():
    x = lg.arange(4.0)
    view = x[1:3]
    assert view.apply_(lambda v: -v) is view
    assert x.tolist() == [0.0, -1.0, -2.0, 3.0] and x._version == 1
