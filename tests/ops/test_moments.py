"""var_mean and std_mean against PyTorch: one node of two outputs with PyTorch's name and
saves, values, and first and second derivatives (float64) through either output or both."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")

X = np.random.default_rng(13).uniform(-1, 1, (3, 4))

CASES = {
    "var_mean_all": lambda m, x: m.var_mean(x * x),
    "var_mean_dim": lambda m, x: m.var_mean(x, 1),
    "var_mean_keepdim": lambda m, x: m.var_mean(x, (0, 1), correction=0, keepdim=True),
    "std_mean_dim": lambda m, x: m.std_mean(x * x, 0),
    "std_mean_all": lambda m, x: m.std_mean(x, correction=2),
}


def _run(lib, case, outputs):
    x = lib.tensor(X, requires_grad=True)
    out = CASES[case](lib, x)
    loss = sum((out[i] * out[i]).sum() for i in outputs)
    (first,) = lib.autograd.grad(loss, x, create_graph=True)
    (second,) = lib.autograd.grad((first * first).sum(), x)
    return out, first, second


@pytest.mark.parametrize("outputs", [(0,), (1,), (0, 1)])
@pytest.mark.parametrize("case", list(CASES))
def test_one_node_matches_pytorch(case, outputs):
    ours, theirs = _run(lg, case, outputs), _run(torch, case, outputs)
    assert type(ours[0]) is tuple and ours[0][0].grad_fn is ours[0][1].grad_fn
    assert ours[0][0].grad_fn.name() == theirs[0][0].grad_fn.name()
    for a, b in zip(ours[0] + ours[1:], theirs[0] + theirs[1:]):
        assert a.shape == b.shape
        assert_close(a, b.detach().numpy(), "direct")


def test_saves_what_pytorch_saves():
    x = lg.tensor(X, requires_grad=True)
    node = lg.var_mean(x, 1)[0].grad_fn
    assert node.name() == "VarMeanBackward0"
    assert (node._saved_dim, node._saved_correction, node._saved_keepdim) == ((1,), 1, False)
    node = lg.std_mean(x, 0)[1].grad_fn
    assert node.name() == "StdMeanBackward0"
    assert_close(node._saved_result0, X.std(0, ddof=1), "direct")


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_mean_is_infinite_only_where_the_rows_infinity_comes_last(name, dtype):
    """PyTorch's Welford mean: an infinity followed by any value is NaN (inf - inf)."""
    inf = np.inf
    x = np.ones((3, 4, 5), dtype)
    x[0, 1, 4] = inf  # last along dim 2
    x[1, 2, 0] = -inf  # first along dim 2, in the middle along dim 0
    x[2, 3, 2] = inf  # last along dims 0 and 1, middle along dim 2
    for dim in (None, 0, 1, 2, (0, 1), (1, 2), (-1, 0)):
        for keepdim in (False, True):
            args = () if dim is None else (dim,)
            want = getattr(torch, name)(torch.from_numpy(x), *args, keepdim=keepdim)[1]
            got = getattr(lg, name)(lg.tensor(x), *args, keepdim=keepdim)[1]
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert np.isposinf(lg.var_mean(lg.tensor(x), 2)[1].numpy()[0, 1])
    assert np.isnan(lg.var_mean(lg.tensor(x), 2)[1].numpy()[1, 2])


LEGACY_CALLS = {
    "std_mean(x, unbiased=False)": lambda m, x: m.std_mean(x, unbiased=False),
    "std_mean(x, False)": lambda m, x: m.std_mean(x, False),
    "std_mean(x, 0, False)": lambda m, x: m.std_mean(x, 0, False),
    "std_mean(x, 0, True, True)": lambda m, x: m.std_mean(x, 0, True, True),
    "var_mean(x, dim=1, unbiased=False, keepdim=True)": lambda m, x: m.var_mean(
        x, dim=1, unbiased=False, keepdim=True
    ),
    "var_mean(x, 1, False)": lambda m, x: m.var_mean(x, 1, False),
}


@pytest.mark.parametrize("call", list(LEGACY_CALLS))
def test_legacy_unbiased_forms_as_pytorch(call):
    """``std_mean``/``var_mean`` take ``unbiased`` positionally or by keyword, as ``std``/
    ``var`` do (they refused it); the node shows the correction it stands for."""
    ours = LEGACY_CALLS[call](lg, lg.tensor(X, requires_grad=True))
    theirs = LEGACY_CALLS[call](torch, torch.tensor(X, requires_grad=True))
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        assert_close(a, b.detach().numpy(), "direct")
    assert ours[0].grad_fn._saved_correction == theirs[0].grad_fn._saved_correction


CORRECTION_SHOWN = {
    "x.var()": lambda m, x: x.var(),
    "x.std()": lambda m, x: x.std(),
    "std_mean(x)": lambda m, x: m.std_mean(x)[0],
    "var_mean(x)": lambda m, x: m.var_mean(x)[0],
    "x.std(0)": lambda m, x: x.std(0),
    "x.var(unbiased=False)": lambda m, x: x.var(unbiased=False),
    "x.std(correction=2)": lambda m, x: x.std(correction=2),
    "x.var(1, correction=0)": lambda m, x: x.var(1, correction=0),
}


@pytest.mark.parametrize("call", list(CORRECTION_SHOWN))
def test_saved_correction_as_pytorch_shows_it(call):
    """None where no argument was given (PyTorch's default overload), else the number; the
    values are Bessel's either way."""
    ours = CORRECTION_SHOWN[call](lg, lg.tensor(X, requires_grad=True))
    theirs = CORRECTION_SHOWN[call](torch, torch.tensor(X, requires_grad=True))
    assert ours.grad_fn._saved_correction == theirs.grad_fn._saved_correction
    assert_close(ours, theirs.detach().numpy(), "direct")
