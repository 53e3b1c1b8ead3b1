"""PINN operators against analytic derivatives, for both methods and both input layouts."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import pinn

METHODS = ["reverse", "taylor"]
RNG = np.random.default_rng(3)
POINTS = RNG.uniform(-1, 1, (7, 2))


def scalar_field(X):
    """u = sin(2x) exp(y) + x^3 y on (N, 2) points."""
    x, y = X[:, 0:1], X[:, 1:2]
    return lg.sin(2 * x) * lg.exp(y) + x**3 * y


def scalar_field_split(x, y):
    return lg.sin(2 * x) * lg.exp(y) + x**3 * y


def vector_field(X):
    """v = (x^2 y, sin(x) + y^3)."""
    x, y = X[:, 0:1], X[:, 1:2]
    return lg.cat([x**2 * y, lg.sin(x) + y**3], dim=1)


def exact_scalar(p):
    x, y = p[:, 0:1], p[:, 1:2]
    s, c, e = np.sin(2 * x), np.cos(2 * x), np.exp(y)
    return {
        (0,): 2 * c * e + 3 * x**2 * y,
        (1,): s * e + x**3,
        (0, 0): -4 * s * e + 6 * x * y,
        (0, 1): 2 * c * e + 3 * x**2,
        (1, 1): s * e,
        (0, 0, 1): -4 * s * e + 6 * x,
        (0, 0, 0): -8 * c * e + 6 * y,
    }


def _x():
    return lg.tensor(POINTS, dtype=lg.float64)


def _close(t, expected):
    np.testing.assert_allclose(t.detach().numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_partial_derivatives_of_every_order_match_the_formulas(method):
    exact = exact_scalar(POINTS)
    with pinn.Evaluation(scalar_field, _x(), method) as ev:
        for index, expected in exact.items():
            _close(pinn.partial(ev.output, ev.inputs, *index), expected)
        _close(pinn.partial(ev.output, ev.inputs, 1, 0), exact[(0, 1)])  # symmetric


@pytest.mark.parametrize("method", METHODS)
def test_grad_hessian_and_laplacian_match_the_formulas(method):
    exact = exact_scalar(POINTS)
    with pinn.Evaluation(scalar_field, _x(), method) as ev:
        u, x = ev.output, ev.inputs
        _close(pinn.grad(u, x), np.hstack([exact[(0,)], exact[(1,)]]))
        h = pinn.hessian(u, x).detach().numpy()
        assert h.shape == (7, 2, 2)
        _close(lg.tensor(h[:, 0, 1:2]), exact[(0, 1)])
        _close(lg.tensor(h[:, 1, 0:1]), exact[(0, 1)])
        _close(pinn.laplacian(u, x), exact[(0, 0)] + exact[(1, 1)])
        _close(pinn.laplacian(u, x, dims=[0]), exact[(0, 0)])


@pytest.mark.parametrize("method", METHODS)
def test_split_inputs_are_one_coordinate_list(method):
    exact = exact_scalar(POINTS)
    x = lg.tensor(POINTS[:, 0:1], dtype=lg.float64)
    y = lg.tensor(POINTS[:, 1:2], dtype=lg.float64)
    with pinn.Evaluation(scalar_field_split, (x, y), method) as ev:
        u, (xs, ys) = ev.output, ev.inputs
        _close(pinn.partial(u, ys), exact[(1,)])  # one-column input: no index
        _close(pinn.partial(u, (xs, ys), 0, 0), exact[(0, 0)])
        _close(pinn.partial(u, (xs, ys), 0, 1), exact[(0, 1)])
        _close(pinn.laplacian(u, (xs, ys)), exact[(0, 0)] + exact[(1, 1)])
        _close(pinn.grad(u, (xs, ys)), np.hstack([exact[(0,)], exact[(1,)]]))


@pytest.mark.parametrize("method", METHODS)
def test_jacobian_and_divergence_of_a_vector_field(method):
    x, y = POINTS[:, 0], POINTS[:, 1]
    with pinn.Evaluation(vector_field, _x(), method) as ev:
        v, X = ev.output, ev.inputs
        jac = pinn.jacobian(v, X).detach().numpy()
        expected = np.stack(
            [np.stack([2 * x * y, x**2], 1), np.stack([np.cos(x), 3 * y**2], 1)], axis=1
        )
        np.testing.assert_allclose(jac, expected, rtol=1e-12, atol=1e-12)
        _close(pinn.divergence(v, X), (2 * x * y + 3 * y**2)[:, None])
        _close(pinn.partial(v, X, 1, 1, component=1), (6 * y)[:, None])


def test_a_derivative_asked_twice_in_one_evaluation_is_computed_once():
    with pinn.Evaluation(scalar_field, _x(), "reverse") as ev:
        first = pinn.partial(ev.output, ev.inputs, 0)
        again = pinn.partial(ev.output, ev.inputs, 0)
        second = pinn.partial(ev.output, ev.inputs, 0, 0)
        assert again is first
        assert pinn.partial(ev.output, ev.inputs, 0, 0) is second
        cached = len(ev._cache)
    assert cached > 0
    assert ev._cache == {}  # the cache lives for the evaluation only


def test_the_cache_does_not_outlive_the_evaluation():
    x = _x()
    with pinn.Evaluation(scalar_field, x, "reverse") as first:
        a = pinn.partial(first.output, first.inputs, 0)
    with pinn.Evaluation(scalar_field, x, "reverse") as second:
        b = pinn.partial(second.output, second.inputs, 0)
    assert a is not b
    _close(a, b.detach().numpy())


def test_outside_an_evaluation_reverse_mode_works_on_any_output():
    x = _x().requires_grad_()
    u = scalar_field(x)
    _close(pinn.partial(u, x, 1, 1), exact_scalar(POINTS)[(1, 1)])


def test_derivatives_of_a_network_agree_between_methods_with_their_parameter_gradients():
    lg.manual_seed(0)
    net = lg.nn.Sequential(
        lg.nn.Linear(2, 16), lg.nn.Tanh(), lg.nn.Linear(16, 16), lg.nn.Tanh(), lg.nn.Linear(16, 1)
    ).double()
    grads = {}
    for method in METHODS:
        net.zero_grad()
        with pinn.Evaluation(net, _x(), method) as ev:
            u, x = ev.output, ev.inputs
            r = pinn.partial(u, x, 1) + u * pinn.partial(u, x, 0) - 0.1 * pinn.partial(u, x, 0, 0)
            r = r + pinn.partial(u, x, 0, 1) + pinn.laplacian(u, x)
            (r * r).mean().backward()
        grads[method] = [p.grad.numpy().copy() for p in net.parameters()]
    for a, b in zip(grads["reverse"], grads["taylor"]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_a_slice_of_the_input_is_not_what_u_was_computed_from():
    # Why partial takes a column index: u depends on x, not on a slice taken afterwards.
    x = _x().requires_grad_()
    u = scalar_field(x)
    with pytest.raises(RuntimeError):
        lg.autograd.grad(u.sum(), x[:, 0:1])


def test_bad_arguments_say_what_is_wrong():
    x = _x().requires_grad_()
    u = scalar_field(x)
    with pytest.raises(ValueError, match=r"\(N, m\)"):
        pinn.partial(u.reshape(-1), x, 0)
    with pytest.raises(ValueError, match="columns"):
        pinn.partial(u, x)
    with pytest.raises(IndexError, match="out of range"):
        pinn.partial(u, x, 2)
    v = vector_field(x)
    with pytest.raises(ValueError, match="component"):
        pinn.partial(v, x, 0)
    with pytest.raises(ValueError, match="require grad"):
        pinn.partial(scalar_field(_x()), _x(), 0)
    with pytest.raises(ValueError, match="method"):
        pinn.Evaluation(scalar_field, x, "forward")
    with pytest.raises(ValueError, match="dims"):
        pinn.divergence(v, x, dims=[0])
