"""Taylor mode: coefficients along a direction and the collapsed Laplacian, against nested
reverse mode (float64), and parameter gradients through a Taylor pass."""

import itertools
import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import taylor
from tests._tolerance import assert_close

ACTIVATIONS = {
    "tanh": lg.tanh,
    "sin": lg.sin,
    "softplus": lambda h: lg.softplus(h),
    "sigmoid": lg.sigmoid,
    "gelu": lambda h: lg.gelu(h),
    "silu": lambda h: lg.silu(h),
}


def _mlp_params(d, width=8, depth=3, seed=0, requires_grad=False):
    rng = np.random.default_rng(seed)
    sizes = [d] + [width] * depth + [1]
    return [
        (
            lg.tensor(rng.standard_normal((m, n)) / math.sqrt(m), requires_grad=requires_grad),
            lg.tensor(rng.standard_normal(n) * 0.3, requires_grad=requires_grad),
        )
        for m, n in itertools.pairwise(sizes)
    ]


def _mlp(params, act):
    def f(x):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = act(h)
        return h

    return f


def _nested_derivatives(f, x, v, order):
    """d^k/dt^k f(x + t v) at t = 0 by nested reverse mode."""
    x = x.detach().requires_grad_(True)
    out = [f(x)]
    g = out[0]
    for _ in range(order):
        (dg,) = lg.autograd.grad(g.sum(), x, create_graph=True)
        g = (dg * v).sum(dim=-1, keepdim=True) if x.ndim == 2 else (dg * v)
        out.append(g)
    return out


@pytest.mark.parametrize(
    "name", ["exp", "sin", "cos", "tanh", "sigmoid", "log1p", "sqrt", "erf", "softplus", "atan"]
)
def test_unary_coefficients_up_to_order_6_match_nested_reverse(name):
    fn = getattr(lg, name)
    x = lg.tensor([0.2, 0.7, 1.3], dtype=lg.float64)
    v = lg.ones(3, dtype=lg.float64)
    derivs = taylor.derivatives(fn, x, v, 6)
    expected = _nested_derivatives(fn, x, v, 6)
    for k, (a, b) in enumerate(zip(derivs, expected)):
        np.testing.assert_allclose(
            a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-9, err_msg=f"order {k}"
        )


def test_coefficients_are_derivatives_over_factorials():
    x = lg.tensor([0.3], dtype=lg.float64)
    v = lg.tensor([2.0], dtype=lg.float64)
    coeffs = taylor.coefficients(lg.exp, x, v, 4)
    # exp(x + 2t) = e^x * sum (2t)^k / k!
    for k, c in enumerate(coeffs):
        assert c.item() == pytest.approx(math.exp(0.3) * 2.0**k / math.factorial(k), rel=1e-12)


def test_composite_expression_with_division_and_powers_to_order_5():
    def f(t):
        return (t.sin() * t).tanh() + t**3 / (1 + t) - 2.0**t + t ** t.exp() + lg.sqrt(t) * 0.5

    x = lg.tensor([0.3, 0.8], dtype=lg.float64)
    v = lg.tensor([1.0, -0.5], dtype=lg.float64)
    derivs = taylor.derivatives(f, x, v, 5)
    expected = _nested_derivatives(f, x, v, 5)
    for a, b in zip(derivs, expected):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("act", list(ACTIVATIONS))
def test_mlp_directional_derivatives_order_4_match_nested_reverse(act):
    params = _mlp_params(3)
    f = _mlp(params, ACTIVATIONS[act])
    rng = np.random.default_rng(3)
    x = lg.tensor(rng.uniform(-1, 1, (5, 3)))
    v = lg.tensor(rng.standard_normal((5, 3)))
    derivs = taylor.derivatives(f, x, v, 4)
    expected = _nested_derivatives(f, x, v, 4)
    for k, (a, b) in enumerate(zip(derivs, expected)):
        np.testing.assert_allclose(
            a.detach().numpy(), b.detach().numpy(), rtol=1e-8, atol=1e-8, err_msg=f"order {k}"
        )


def _nested_laplacian(f, x):
    x = x.detach().requires_grad_(True)
    u = f(x)
    (grad,) = lg.autograd.grad(u.sum(), x, create_graph=True)
    lap = 0
    for i in range(x.shape[1]):
        (g2,) = lg.autograd.grad(grad[:, i].sum(), x, create_graph=True)
        lap = lap + g2[:, i]
    return u, grad, lap


@pytest.mark.parametrize("d", [1, 2, 3, 10])
@pytest.mark.parametrize("act", ["tanh", "sin", "softplus"])
def test_collapsed_laplacian_equals_trace_of_nested_hessian(d, act):
    params = _mlp_params(d, seed=d)
    f = _mlp(params, ACTIVATIONS[act])
    x = lg.tensor(np.random.default_rng(d).uniform(-1, 1, (7, d)))
    u, grad, lap = taylor.laplacian(f, x)
    u_ref, grad_ref, lap_ref = _nested_laplacian(f, x)
    assert_close(u, u_ref, "direct")
    assert grad.shape == (7, 1, d)
    np.testing.assert_allclose(
        grad.detach().numpy()[:, 0, :], grad_ref.detach().numpy(), rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        lap.detach().numpy()[:, 0], lap_ref.detach().numpy(), rtol=1e-9, atol=1e-10
    )


def test_collapsed_with_a_symmetric_weight_matrix_gives_the_weighted_second_derivatives():
    params = _mlp_params(3, seed=5)
    f = _mlp(params, lg.tanh)
    x = lg.tensor(np.random.default_rng(5).uniform(-1, 1, (4, 3)))
    a = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, -0.3], [0.0, -0.3, 0.1]])
    _, grad, op_u = taylor.collapsed(f, x, a)
    xr = x.detach().requires_grad_(True)
    u = f(xr)
    (g,) = lg.autograd.grad(u.sum(), xr, create_graph=True)
    expected = 0
    for i in range(3):
        (row,) = lg.autograd.grad(g[:, i].sum(), xr, retain_graph=True)
        for j in range(3):
            expected = expected + a[i, j] * row[:, j]
    np.testing.assert_allclose(
        op_u.detach().numpy()[:, 0], expected.detach().numpy(), rtol=1e-9, atol=1e-10
    )
    np.testing.assert_allclose(
        grad.detach().numpy()[:, 0, :], g.detach().numpy(), rtol=1e-9, atol=1e-12
    )


def test_diagonal_weights_for_a_diffusion_operator():
    params = _mlp_params(2, seed=7)
    f = _mlp(params, lg.sin)
    x = lg.tensor(np.random.default_rng(7).uniform(-1, 1, (6, 2)))
    _, _, op_u = taylor.collapsed(f, x, [0.0, 0.3])  # 0.3 * u_yy only
    _, _, full = taylor.collapsed(f, x, [[0.0, 0.0], [0.0, 0.3]])  # through np.linalg.eigh
    assert_close(op_u, full, "direct")


def test_parameter_gradients_of_a_pinn_loss_match_nested_reverse():
    def loss_from(params, use_taylor):
        f = _mlp(params, lg.tanh)
        x = lg.tensor(np.random.default_rng(11).uniform(-1, 1, (16, 2)))
        if use_taylor:
            u, _, lap = taylor.laplacian(f, x)
            lap = lap[:, 0]
            u = u[:, 0]
        else:
            u, _, lap = _nested_laplacian(f, x)
            u = u[:, 0]
        residual = lap + u.sin()  # -Laplace(u) = sin(u) style residual
        return (residual * residual).mean()

    p1 = _mlp_params(2, seed=2, requires_grad=True)
    p2 = _mlp_params(2, seed=2, requires_grad=True)
    g1 = lg.autograd.grad(loss_from(p1, True), [t for pair in p1 for t in pair])
    g2 = lg.autograd.grad(loss_from(p2, False), [t for pair in p2 for t in pair])
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-11)


def test_parameter_gradients_through_taylor_coefficients_match_nested_reverse():
    w = lg.tensor([0.7, -0.4], dtype=lg.float64, requires_grad=True)
    x = lg.tensor([0.1, 0.5], dtype=lg.float64)
    v = lg.ones(2, dtype=lg.float64)
    coeffs = taylor.derivatives(lambda t: (t * w).sin() * w, x, v, 3)
    (gw,) = lg.autograd.grad(coeffs[3].sum(), w)
    # d^3/dx^3 of sin(w x) w = -w^4 cos(w x); d/dw of that
    expected = (
        -4 * w.detach() ** 3 * (w.detach() * x).cos() + w.detach() ** 4 * x * (w.detach() * x).sin()
    )
    assert_close(gw, expected, "direct")


def test_an_op_without_a_taylor_rule_raises_naming_it():
    x = lg.tensor([[0.1, 0.2]], dtype=lg.float64)
    with pytest.raises(RuntimeError, match=r"floor_divide.*no Taylor-mode rule"):
        taylor.laplacian(lambda z: z // 0.3, x)


def test_ops_without_a_cheap_rule_go_through_nested_duals_to_order_4():
    x = lg.tensor([[0.2, 0.5, -0.3], [0.1, 0.9, 0.4]], dtype=lg.float64)
    v = lg.tensor(np.random.default_rng(0).standard_normal((2, 3)))
    w = lg.tensor(np.random.default_rng(1).standard_normal(2))
    for f in (
        lambda t: (t.softmax(1) * t).sum(1),
        lambda t: lg.logsumexp(t, 1),
        lambda t: t.norm(dim=1),
        lambda t: t.std(1),
        lambda t: t.prod(1),
        lambda t: lg.atan2(t, t + 2).sum(1),
        lambda t: lg.einsum("ij,ij,ij->i", t, t.sin(), t),
    ):
        derivs = taylor.derivatives(f, x, v, 4)
        expected = _nested_derivatives(lambda t, f=f: (f(t) * w).sum().reshape(1), x, v, 4)
        for a, b in zip(derivs, expected):
            assert (a * w).sum().item() == pytest.approx(b.sum().item(), rel=1e-8, abs=1e-9)


def test_bad_input_is_rejected_clearly():
    x = lg.tensor([0.1, 0.2], dtype=lg.float64)
    with pytest.raises(ValueError, match="direction"):
        taylor.coefficients(lg.sin, x, lg.ones(3, dtype=lg.float64), 2)
    with pytest.raises(ValueError, match="order"):
        taylor.coefficients(lg.sin, x, lg.ones(2, dtype=lg.float64), 0)
    with pytest.raises(ValueError, match=r"\(N, d\)"):
        taylor.laplacian(lg.sin, x)
    with pytest.raises(TypeError):
        taylor.laplacian(lg.sin, [[0.1]])


def test_jets_do_not_leak_after_the_pass():
    x = lg.tensor([[0.1, 0.2]], dtype=lg.float64)
    u, _, _ = taylor.laplacian(lambda z: (z * z).sum(dim=1, keepdim=True), x)
    assert u._jet is None and x._jet is None
    y = x.sin()  # outside the pass: plain ops, no jets
    assert y._jet is None
