"""cov, corrcoef and dist: values, dtypes, gradients to second order and which calls raise,
compared with torch."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close


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
    return out


RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5))


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.cov(x), lambda m, x: m.cov(x[0]), lambda m, x: m.cov(x, correction=0),
        lambda m, x: m.cov(x, correction=3), lambda m, x: x.cov(correction=2),
        lambda m, x: m.cov(x, fweights=m.tensor([1, 2, 3, 1, 1])),
        lambda m, x: m.cov(x, aweights=m.tensor([0.5, 2.0, 3.0, 1.0, 1.0], dtype=x.dtype)),
        lambda m, x: m.cov(x, fweights=m.tensor([1, 2, 0, 1, 1]),
                           aweights=m.tensor([0.5, 2.0, 3.0, 1.0, 1.0], dtype=x.dtype)),
        lambda m, x: m.cov(x.t()[:1]), lambda m, x: m.cov((x * 10).long()),
        lambda m, x: m.corrcoef(x), lambda m, x: x.corrcoef(), lambda m, x: m.corrcoef(x[1]),
        lambda m, x: m.corrcoef((x * 10).long()), lambda m, x: m.corrcoef(x * 0),
        lambda m, x: m.dist(x, x[0]), lambda m, x: x.dist(x[1], 1),
        lambda m, x: m.dist(x, 0 * x, 3),
        lambda m, x: m.dist(x, x.flip(0), float("inf")), lambda m, x: m.dist(x, x[2], 0),
        lambda m, x: m.dist(x, x.float()), lambda m, x: x.dist(x, -1),
    ],
)  # fmt: skip
def test_values_and_dtypes_match_pytorch(torch, call):
    ours = _outcome(lambda: call(lg, lg.tensor(X)))
    theirs = _outcome(lambda: call(torch, torch.tensor(X)))
    assert type(ours) is not str and type(theirs) is not str
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    assert_close(ours, theirs.numpy())


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.cov(m.ones(2, 2, 2)), lambda m, x: m.cov(m.tensor([True, False])),
        lambda m, x: m.cov(x, fweights=m.ones(5)),
        lambda m, x: m.cov(x, fweights=m.ones(1, 5).long()),
        lambda m, x: m.cov(x, fweights=m.tensor([1, -2, 3, 1, 1])),
        lambda m, x: m.cov(x, fweights=m.tensor([1, 2])),
        lambda m, x: m.cov(x, aweights=m.tensor([1, 2, 3, 1, 1])),
        lambda m, x: m.cov(x, aweights=-m.ones(5, dtype=x.dtype)),
        lambda m, x: m.dist(m.tensor([1, 2]), m.tensor([0, 0])),
        lambda m, x: m.dist(x, m.ones(4)),
    ],
)  # fmt: skip
def test_bad_input_raises_as_pytorch(torch, call):
    ours = _outcome(lambda: call(lg, lg.tensor(X)))
    theirs = _outcome(lambda: call(torch, torch.tensor(X)))
    assert isinstance(ours, str) and ours == theirs


def test_cov_warns_when_there_are_no_degrees_of_freedom(torch):
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        out = lg.cov(lg.ones(2, 1))
    assert np.isnan(out.numpy()).all()


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.cov(x), lambda m, x: m.cov(x, correction=0),
        lambda m, x: m.cov(x, aweights=m.tensor([0.5, 2.0, 3.0, 1.0, 1.0], dtype=m.float64)),
        lambda m, x: m.cov(x, fweights=m.tensor([1, 2, 3, 1, 1])), lambda m, x: m.corrcoef(x),
        lambda m, x: m.cov(x[0]), lambda m, x: m.dist(x[:2], x[2]),
        lambda m, x: m.dist(x, x.flip(1), 1.5), lambda m, x: m.dist(x, x.flip(1), float("inf")),
    ],
)  # fmt: skip
def test_gradients_to_second_order_match_pytorch(torch, fn):
    compare(fn, [X], torch=torch)


def test_dist_has_a_zero_gradient_where_the_inputs_meet(torch):
    for m in (lg, torch):
        for p in (2, 1, float("inf")):
            a = m.tensor([1.0, 2.0], requires_grad=True)
            (g,) = m.autograd.grad(m.dist(a, a.detach(), p), a)
            assert g.tolist() == [0.0, 0.0], (m.__name__, p)
        # p=0 counts nonzeros: no gradient at all
        a = m.tensor([1.0, 2.0], requires_grad=True)
        assert m.dist(a, a.detach() + 1, 0).item() == 2.0
        assert m.autograd.grad(m.dist(a, a.detach() + 1, 0), a, allow_unused=True) == (None,)


@pytest.mark.parametrize("p", [2, 1, 3.5, float("inf"), 0])
def test_dist_is_one_node_saving_what_torch_saves(torch, p):
    ours = lg.dist(lg.tensor(X, requires_grad=True), lg.tensor(X[1], requires_grad=True), p)
    theirs = torch.dist(torch.tensor(X, requires_grad=True), torch.tensor(X[1]), p)
    node, tnode = ours.grad_fn, theirs.grad_fn
    assert node.name() == tnode.name() == "DistBackward0"
    assert node._saved_p == tnode._saved_p
    assert node._saved_self.shape == tnode._saved_self.shape
    assert node._saved_other.shape == tnode._saved_other.shape
    assert_close(node._saved_result, tnode._saved_result.detach().numpy())
