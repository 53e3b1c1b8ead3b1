"""autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
materialize_grads): results, errors, and derivatives of any order.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import math

import pytest

import leafgrad

from ._helpers import assert_same_as_pytorch, assert_values, no_warnings

# ----- what grad returns -----


def test_grad_returns_a_tuple_and_never_touches_grad(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    out = torch.autograd.grad((y * y).sum(), x)
    assert isinstance(out, tuple) and len(out) == 1
    assert_values(out[0], [18.0, 36.0])
    assert x.grad is None
    with pytest.warns(UserWarning):
        assert y.grad is None


def test_grad_result_does_not_require_grad_without_create_graph(torch):
    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(x**3, x)
    assert g.requires_grad is False and g.is_leaf is True and g.grad_fn is None


def test_grad_result_requires_grad_with_create_graph(torch):
    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(x**3, x, create_graph=True)
    assert g.requires_grad is True and g.is_leaf is False and g.grad_fn is not None


def test_sequences_of_outputs_and_inputs(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    out = (x * w).sum()
    gw, gx = torch.autograd.grad([out], [w, x], retain_graph=True)
    assert gw.item() == 3 and tuple(gw.shape) == ()
    assert_values(gx, [3.0, 3.0])
    (gx2,) = torch.autograd.grad([out, (x * x).sum()], (x,))  # gradients of outputs add up
    assert_values(gx2, [5.0, 7.0])


def test_inputs_may_be_a_generator_or_a_dict(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    out = (x * w).sum()
    gw, gx = torch.autograd.grad(out, (t for t in (w, x)), retain_graph=True)
    assert gw.item() == 3
    assert_values(gx, [3.0, 3.0])
    grads = torch.autograd.grad(out, {"w": w, "x": x})
    assert list(grads) == ["w", "x"] and grads["w"].item() == 3
    assert_values(grads["x"], [3.0, 3.0])


def test_the_same_input_twice_gets_the_same_gradient(torch):
    u = torch.tensor(2.0, requires_grad=True)
    g1, g2 = torch.autograd.grad(u * u, [u, u])
    assert g1.item() == g2.item() == 4


def test_the_same_output_twice_counts_twice(torch):
    u = torch.tensor(2.0, requires_grad=True)
    out = u * u
    (g,) = torch.autograd.grad([out, out], [u])
    assert g.item() == 8


def test_grad_of_an_output_with_respect_to_itself_is_the_seed(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    (g,) = torch.autograd.grad(y, y, torch.tensor([3.0, 4.0]))
    assert_values(g, [3.0, 4.0])
    (g,) = torch.autograd.grad(x, x, torch.ones(2))
    assert_values(g, [1.0, 1.0])


# ----- grad_outputs -----


def test_grad_outputs_is_required_for_non_scalar_outputs(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="scalar"):
        torch.autograd.grad(x * x, x)
    (g,) = torch.autograd.grad(x * x, x, torch.tensor([1.0, -1.0]))
    assert_values(g, [2.0, -4.0])


def test_grad_outputs_of_the_wrong_shape_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(x * x, x, grad_outputs=torch.ones(3))
    with pytest.raises(RuntimeError):
        torch.autograd.grad((x * x).sum(), x, grad_outputs=torch.ones(1))


def test_grad_outputs_shape_error_names_both_shapes():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"\[3\].*\[2\]"):
        leafgrad.autograd.grad(x * x, x, grad_outputs=leafgrad.ones(3))


def test_grad_outputs_may_mix_tensors_and_none(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad([x * x, (x * 3).sum()], [x], [torch.ones(2), None])
    assert_values(g, [5.0, 7.0])


def test_integer_grad_outputs_are_converted(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad(x * x, x, torch.tensor([1, 2]))
    assert g.dtype == torch.float32
    assert_values(g, [2.0, 8.0])


def test_grad_outputs_that_require_grad_are_differentiable(torch):
    # The double-backward trick: v -> J^T v is linear in v, so d/dv (J^T v . 1) = J 1.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor([1.0, 1.0], requires_grad=True)
    (vjp,) = torch.autograd.grad(x**3, x, v, create_graph=True)
    (jvp,) = torch.autograd.grad(vjp.sum(), v)
    assert_values(jvp, [3.0, 12.0])


def test_a_passed_through_seed_is_returned_as_is(torch):
    # Without create_graph nothing is recorded, but a seed the rules pass through unchanged
    # comes back as the very tensor (as PyTorch does).
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor([3.0, 4.0], requires_grad=True) * 1
    (g,) = torch.autograd.grad(x + 1, x, v)
    assert g is v
    (g,) = torch.autograd.grad(x * 1, x, v)
    assert g.requires_grad is False


# ----- errors -----


def test_output_not_requiring_grad_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad((x * 2).detach().sum(), x)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(torch.tensor(1.0), x)


def test_input_not_requiring_grad_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad((x * x).sum(), x.detach())
    with pytest.raises(RuntimeError):
        torch.autograd.grad((x * x).sum(), [x, torch.ones(2)])


def test_empty_inputs_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad((x * x).sum(), [])


def test_unused_input_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        torch.autograd.grad((x * x).sum(), [x, y])


def test_unused_input_is_none_with_allow_unused(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    gx, gy = torch.autograd.grad((x * x).sum(), [x, y], allow_unused=True)
    assert_values(gx, [2.0, 4.0])
    assert gy is None


@pytest.mark.parametrize("create_graph", [False, True])
def test_unused_input_is_zeros_with_materialize_grads(torch, create_graph):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([[1.0, 2.0]], requires_grad=True)
    gx, gy = torch.autograd.grad(
        (x * x).sum(), [x, y], materialize_grads=True, create_graph=create_graph
    )
    assert_values(gx, [2.0, 4.0])
    assert_values(gy, [[0.0, 0.0]])
    assert gy.dtype == y.dtype
    assert gy.requires_grad is create_graph


def test_materialize_grads_with_allow_unused_false_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError):
        torch.autograd.grad((x * x).sum(), x, allow_unused=False, materialize_grads=True)


def test_unused_input_message_explains_the_slicing_cause():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    y = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused=True") as info:
        leafgrad.autograd.grad((x * x).sum(), [x, y])
    message = str(info.value)
    assert "Input 1" in message and "slice" in message and "x[:, 0]" in message


def test_slice_taken_after_use_is_an_unused_input(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    u = (x * x).sum(1)  # u uses x, not its columns
    x0 = x[:, 0]  # a new tensor made afterwards: it is not part of u's graph
    with pytest.raises(RuntimeError, match="allow_unused"):
        torch.autograd.grad(u, x0, torch.ones(2))


def test_slicing_before_use_gives_an_elementwise_gradient(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x0, x1 = x[:, 0], x[:, 1]
    u = x0 * x0 * x1
    (du_dx0,) = torch.autograd.grad(u, x0, torch.ones(2))
    assert_values(du_dx0, [4.0, 24.0])  # 2 x0 x1


# ----- retain_graph / create_graph -----


def test_grad_twice_without_retain_graph_raises(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    torch.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        torch.autograd.grad(y, x)


def test_grad_twice_with_retain_graph(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    assert torch.autograd.grad(y, x, retain_graph=True)[0].item() == 4
    assert torch.autograd.grad(y, x)[0].item() == 4


def test_create_graph_retains_the_graph(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    torch.autograd.grad(y, x, create_graph=True)
    assert torch.autograd.grad(y, x)[0].item() == 4


# ----- higher order -----


def _nth_derivative(torch, f, x, n):
    out = f(x)
    derivatives = []
    for _ in range(n):
        (out,) = torch.autograd.grad(out.sum(), x, create_graph=True)
        derivatives.append(out)
    return derivatives


def test_derivatives_of_x_to_the_fourth(torch):
    x = torch.tensor([1.0, 2.0, -0.5], requires_grad=True)
    d1, d2, d3, d4 = _nth_derivative(torch, lambda t: t**4, x, 4)
    xs = [1.0, 2.0, -0.5]
    assert_values(d1, [4 * v**3 for v in xs])
    assert_values(d2, [12 * v**2 for v in xs])
    assert_values(d3, [24 * v for v in xs])
    assert_values(d4, [24.0, 24.0, 24.0])


def test_derivatives_of_sin(torch):
    xs = [0.0, 0.5, 2.0]
    x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    d1, d2, d3, d4 = _nth_derivative(torch, torch.sin, x, 4)
    assert_values(d1, [math.cos(v) for v in xs])
    assert_values(d2, [-math.sin(v) for v in xs])
    assert_values(d3, [-math.cos(v) for v in xs])
    assert_values(d4, [math.sin(v) for v in xs])


def test_mixed_second_derivative(torch):
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    f = x * x * y + torch.sin(x * y)
    (fx,) = torch.autograd.grad(f, x, create_graph=True)
    (fxy,) = torch.autograd.grad(fx, y)
    expected = 2 * 2.0 + math.cos(6.0) - 6.0 * math.sin(6.0)  # d/dy (2xy + y cos(xy))
    assert fxy.item() == pytest.approx(expected, rel=1e-5)


def test_pinn_style_elementwise_second_derivative(torch):
    xs = [0.0, 1.0, 2.0]
    x = torch.tensor(xs, requires_grad=True)
    u = x**3 + torch.exp(x)
    (u_x,) = torch.autograd.grad(u, x, torch.ones(3), create_graph=True)
    (u_xx,) = torch.autograd.grad(u_x, x, torch.ones(3), create_graph=True)
    residual = u_xx - 6 * x - torch.exp(x)
    # float32 terms up to u_xx(2) = 12 + e^2 ~ 19.4 cancel: a few of their ulp (1.9e-6) remain
    assert_values(residual, [0.0, 0.0, 0.0], atol=1e-5)
    assert u_xx.requires_grad is True
    residual.pow(2).sum().backward()  # the residual trains like any loss
    assert x.grad is not None


def test_derivative_not_depending_on_the_input_is_unused(torch):
    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(x * 3, x, create_graph=True)
    assert g.requires_grad is False  # 3 does not depend on x
    (h,) = torch.autograd.grad(x * x, x, create_graph=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(torch.autograd.grad(h, x, create_graph=True)[0], x)


# ----- graph shapes -----


def test_grad_with_respect_to_a_non_leaf(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    (gy,) = torch.autograd.grad(z, y, retain_graph=True)
    assert_values(gy, [4.0, 8.0])
    gy, gx = torch.autograd.grad(z, [y, x])
    assert_values(gy, [4.0, 8.0])
    assert_values(gx, [8.0, 16.0])


def test_diamond_graph(torch):
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    a = torch.sin(x)
    b = torch.exp(x)
    out = (a * b).sum()  # two paths from x meet again
    (g,) = torch.autograd.grad(out, x)
    expected = [math.cos(v) * math.exp(v) + math.sin(v) * math.exp(v) for v in (0.5, 1.5)]
    assert_values(g, expected)


def test_one_output_depending_on_another(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    z = y * 3  # z depends on y
    (g,) = torch.autograd.grad([y, z], x)
    assert_values(g, [8.0, 16.0])  # 2x + 3 * 2x
    x2 = torch.tensor([1.0, 2.0], requires_grad=True)
    y2 = x2 * x2
    (gy,) = torch.autograd.grad([y2.sum(), (y2 * 3).sum()], y2)
    assert_values(gy, [4.0, 4.0])


def test_mirrored_results_match_pytorch(pytorch):
    def run(torch):
        x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
        w = torch.tensor([[1.0], [-2.0]], dtype=torch.float64, requires_grad=True)
        h = torch.tanh(x * w).sigmoid()
        out = (h * h).mean() + torch.exp(-x).sum() / 3
        g1 = torch.autograd.grad(out, [x, w], create_graph=True)
        g2 = torch.autograd.grad(g1[0].sum(), [x, w], retain_graph=True)
        return g1, g2

    assert_same_as_pytorch(run, pytorch)


def test_grad_does_not_warn(torch):
    x = torch.tensor([1.0], requires_grad=True)
    with no_warnings():
        torch.autograd.grad(x * x, x, create_graph=True)


def test_only_inputs_false_is_deprecated(torch):
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.warns(FutureWarning):
        torch.autograd.grad(x * x, x, only_inputs=False)
    assert x.grad is None
