"""Elementwise and arithmetic ops against PyTorch: values, dtypes, grads at kinks, errors."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close, tolerance

torch = pytest.importorskip("torch")

UNARY = [
    "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc",
    "relu", "floor", "ceil", "trunc", "round", "sign", "abs", "neg", "reciprocal", "sqrt",
    "rsqrt", "square",
]  # fmt: skip
ACTIVATIONS = {
    "leaky_relu": ({"negative_slope": 0.1}, torch.nn.functional.leaky_relu),
    "elu": ({"alpha": 0.7}, torch.nn.functional.elu),
    "gelu": ({}, torch.nn.functional.gelu),
    "silu": ({}, torch.nn.functional.silu),
    "softplus": ({"beta": 2.0, "threshold": 3.0}, torch.nn.functional.softplus),
}
VALUES = np.array([-3.0, -1.5, -0.5, -0.0, 0.0, 0.25, 0.5, 0.9, 1.0, 2.5, 7.0])


def _pair(values, dtype, requires_grad=True):
    a = lg.tensor(values, dtype=getattr(lg, dtype), requires_grad=requires_grad)
    b = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    return a, b


# Gradient formulas subtract O(1) terms (1 - tanh(x)**2, s * (1 - s), ...), so a one-ulp
# difference in tanh or sigmoid between NumPy's SIMD kernels and PyTorch's is an absolute
# difference of about one ulp of 1.0 in the gradient: float32 gradients get a few of those.
F32_GRAD_ATOL = 8 * float(np.finfo(np.float32).eps)


def _close(ours, theirs, kind="direct"):
    """Same dtype and shape, and values within ``kind``'s tolerance: ``"elementwise"`` for one
    formula per element (a few float32 ulp; float64 to the ``"direct"`` 1e-12), ``"direct"``
    for gradients (float32 with ``F32_GRAD_ATOL``)."""
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.shape == tuple(theirs.shape)
    expected = theirs.detach().numpy(force=True)
    if str(theirs.dtype) == "torch.float64":
        assert_close(ours, expected, "direct")
    elif kind == "elementwise":
        assert_close(ours, expected, "elementwise")
    else:
        rtol, _ = tolerance(expected.dtype, "direct")
        np.testing.assert_allclose(
            ours.detach().numpy(), expected, rtol=rtol, atol=F32_GRAD_ATOL, equal_nan=True
        )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_values_and_first_and_second_grads_match_torch(name, dtype):
    a, b = _pair(VALUES, dtype)
    ya, yb = getattr(lg, name)(a), getattr(torch, name)(b)
    _close(ya, yb, "elementwise")
    (ga,) = lg.autograd.grad(ya.sum(), a, create_graph=True)
    (gb,) = torch.autograd.grad(yb.sum(), b, create_graph=True)
    _close(ga, gb)
    if gb.requires_grad:
        (hb,) = torch.autograd.grad(gb.sum(), b, allow_unused=True, materialize_grads=True)
        (ha,) = lg.autograd.grad(ga.sum(), a, allow_unused=True, materialize_grads=True)
        _close(ha, hb)


def test_float32_sigmoid_keeps_its_relative_accuracy_for_negative_inputs():
    # 0.5 * tanh(x / 2) + 0.5 cancels for x < 0 (44% off at -17, 0 at -20): not used.
    x = np.array([-3.0, -10.0, -17.0, -20.0, -80.0], dtype=np.float32)
    assert_close(lg.sigmoid(lg.tensor(x)), torch.sigmoid(torch.tensor(x)), "elementwise")


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_values_and_grads_match_torch(name):
    kwargs, torch_fn = ACTIVATIONS[name]
    # At exactly 0 PyTorch's elu double-backward picks a different one-sided value.
    a, b = _pair(VALUES[VALUES != 0], "float64")
    ya, yb = getattr(lg, name)(a, **kwargs), torch_fn(b, **kwargs)
    _close(ya, yb, "elementwise")
    (ga,) = lg.autograd.grad(ya.sum(), a, create_graph=True)
    (gb,) = torch.autograd.grad(yb.sum(), b, create_graph=True)
    _close(ga, gb)
    (ha,) = lg.autograd.grad(ga.sum(), a)
    (hb,) = torch.autograd.grad(gb.sum(), b)
    _close(ha, hb)


def test_gelu_tanh_approximation_matches_torch():
    a, b = _pair(VALUES, "float64")
    ya = lg.gelu(a, approximate="tanh")
    yb = torch.nn.functional.gelu(b, approximate="tanh")
    _close(ya, yb, "elementwise")
    _close(lg.autograd.grad(ya.sum(), a)[0], torch.autograd.grad(yb.sum(), b)[0])


BINARY = ["add", "sub", "mul", "div", "pow", "atan2", "maximum", "minimum"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_broadcast_values_and_grads_match_torch(name):
    rng = np.random.default_rng(1)
    x, y = rng.uniform(0.2, 2.0, (3, 1, 4)), rng.uniform(0.2, 2.0, (2, 1))
    a1, b1 = _pair(x, "float64")
    a2, b2 = _pair(y, "float64")
    ya, yb = getattr(lg, name)(a1, a2), getattr(torch, name)(b1, b2)
    _close(ya, yb, "elementwise")
    ga = lg.autograd.grad(ya.sum(), (a1, a2), create_graph=True)
    gb = torch.autograd.grad(yb.sum(), (b1, b2), create_graph=True)
    for u, v in zip(ga, gb):
        _close(u, v)
    assert [g.requires_grad for g in ga] == [g.requires_grad for g in gb]
    if any(g.requires_grad for g in gb):
        ha = lg.autograd.grad(
            (ga[0] * ga[1]).sum(), (a1, a2), allow_unused=True, materialize_grads=True
        )
        hb = torch.autograd.grad(
            (gb[0] * gb[1]).sum(), (b1, b2), allow_unused=True, materialize_grads=True
        )
        for u, v in zip(ha, hb):
            _close(u, v)


@pytest.mark.parametrize(
    "expr",
    [
        "x * 2", "2 * x", "x + 1.5", "1.5 - x", "x / 4", "4 / x", "x ** 2", "2 ** x",
        "x ** 0", "x ** 0.5", "-x", "abs(x)", "x % 1.5", "x // 1.5", "x - x.detach()",
    ],
)  # fmt: skip
def test_operators_with_python_scalars_match_torch(expr):
    a, b = _pair([0.0, 0.5, 1.0, 3.0], "float32")
    ya, yb = eval(expr, {"x": a}), eval(expr, {"x": b})
    _close(ya, yb, "elementwise")
    assert (ya.grad_fn is None) == (yb.grad_fn is None)
    if yb.requires_grad and "NotImplemented" not in yb.grad_fn.name():
        _close(lg.autograd.grad(ya.sum(), a)[0], torch.autograd.grad(yb.sum(), b)[0])


@pytest.mark.parametrize(
    "expr",
    [
        "i * 1.5", "i / 2", "i // 2", "i % 2", "i + True", "b + 1", "i * f", "f * d",
        "i.sqrt()", "i.abs()", "-i", "i ** 2", "i ** 2.0", "f + d0", "i + d0", "i.sign()",
        "i.floor()", "i.exp()", "i.relu()", "b & b", "~b", "i.clamp(1, 2)", "i.clamp(0.5, 2)",
        "lg_where(i > 1, i, 0.5)", "lg_where(i > 1, f, d)", "i == 2", "f < d",
    ],
)  # fmt: skip
def test_type_promotion_matches_torch(expr):
    def env(lib):
        return {
            "i": lib.tensor([1, 2, 3]),
            "f": lib.tensor([1.0, 2.0, 3.0]),
            "d": lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64),
            "d0": lib.tensor(2.0, dtype=lib.float64),
            "b": lib.tensor([True, False, True]),
            "lg_where": lib.where,
        }

    ours, theirs = eval(expr, env(lg)), eval(expr, env(torch))
    _close(ours, theirs, "elementwise")  # integer and bool results: exactly


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.abs(x), lambda m, x: m.relu(x), lambda m, x: m.clamp(x, 0.0, 1.0),
        lambda m, x: m.maximum(x, m.zeros_like(x)), lambda m, x: m.sqrt(x),
        lambda m, x: x ** 0, lambda m, x: x ** 2, lambda m, x: m.zeros_like(x) ** x,
        lambda m, x: x ** x, lambda m, x: m.minimum(x, x), lambda m, x: m.sign(x),
        lambda m, x: m.where(x > 0, x, m.zeros_like(x)),
    ],
)  # fmt: skip
def test_gradient_at_kinks_and_zeros_matches_torch(fn):
    a, b = _pair([-1.0, 0.0, 1.0], "float32")
    ga = lg.autograd.grad(fn(lg, a).sum(), a)[0]
    gb = torch.autograd.grad(fn(torch, b).sum(), b)[0]
    _close(ga, gb)


@pytest.mark.parametrize(
    "expr",
    ["a * 2", "2 * a", "a + b", "a ** 2", "2 ** a", "a ** b", "a - 2", "a / b", "a.exp()"],
)
def test_grad_fn_names_match_torch(expr):
    def env(lib):
        return {
            "a": lib.tensor([2.0], requires_grad=True),
            "b": lib.tensor([3.0], requires_grad=True),
        }

    assert eval(expr, env(lg)).grad_fn.name() == eval(expr, env(torch)).grad_fn.name()


def test_broadcast_mismatch_is_a_runtime_error_naming_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"mul.*\[2\].*\[3\]"):
        lg.ones(2) * lg.ones(3)


def test_floor_divide_records_but_its_backward_raises_like_torch():
    x = lg.tensor([3.0], requires_grad=True)
    y = x // 2
    assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="floor_divide"):
        y.sum().backward()


def test_integer_to_negative_integer_power_raises_runtime_error():
    with pytest.raises(RuntimeError):
        lg.tensor([2]) ** -1
    with pytest.raises(RuntimeError):
        torch.tensor([2]) ** -1


def test_unary_op_on_a_non_tensor_raises_type_error():
    with pytest.raises(TypeError, match="exp"):
        lg.exp([1.0, 2.0])


def test_comparisons_never_require_grad():
    a = lg.tensor([1.0, 2.0], requires_grad=True)
    for r in (a > 1, a == a, lg.isnan(a), lg.logical_not(a > 1), lg.isclose(a, a)):
        assert r.dtype == lg.bool and r.requires_grad is False and r.is_leaf


def test_logic_and_float_checks_match_torch():
    vals = [float("nan"), float("inf"), -float("inf"), 0.0, 1.0]
    a, b = lg.tensor(vals), torch.tensor(vals)
    for name in ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_not"]:
        assert getattr(lg, name)(a).tolist() == getattr(torch, name)(b).tolist()
    assert lg.logical_and(a > 0, a < 2).tolist() == torch.logical_and(b > 0, b < 2).tolist()
    assert lg.logical_or(a > 0, a < 2).tolist() == torch.logical_or(b > 0, b < 2).tolist()


def test_where_with_scalar_branches_keeps_tensor_dtype_and_routes_grads():
    x = lg.tensor([-1.0, 2.0], requires_grad=True)
    y = lg.where(x > 0, x, 0.0)
    assert y.dtype == lg.float32 and y.tolist() == [0.0, 2.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


def test_mixed_precision_gradient_is_cast_back_to_the_input_dtype():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    w = lg.tensor([3.0, 4.0], dtype=lg.float64, requires_grad=True)
    (x * w).sum().backward()
    assert x.grad.dtype == lg.float32 and w.grad.dtype == lg.float64
    assert x.grad.tolist() == [3.0, 4.0] and w.grad.tolist() == [1.0, 2.0]


def test_sign_of_nan_is_zero_and_0d_inputs_work_like_torch():
    for vals in ([float("nan"), -2.0, 0.0, 3.0], float("nan"), -1.5):
        assert lg.sign(lg.tensor(vals)).tolist() == torch.sign(torch.tensor(vals)).tolist()


@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_first_derivative_of_tanh_and_sigmoid_is_one_node_as_in_torch(op):
    """Their backward records one op (tanh_backward / sigmoid_backward), as PyTorch's does:
    the second-order graph has PyTorch's nodes, saves and values."""
    graphs = []
    for lib in (lg, torch):
        x = lib.tensor([-2.0, -0.3, 0.0, 0.7, 3.0], dtype=lib.float64, requires_grad=True)
        y = getattr(x, op)()
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (ggg,) = lib.autograd.grad(gg.sum(), x)
        node = g.grad_fn
        graphs.append(
            (
                node.name(),
                [n.name() if n else None for n, _ in node.next_functions],
                np.asarray(node._saved_output.detach()),
                [n.name() if n else None for n, _ in gg.grad_fn.next_functions],
                [np.asarray(t.detach()) for t in (g, gg, ggg)],
            )
        )
    ours, theirs = graphs
    assert ours[0] == theirs[0] == f"{op.capitalize()}BackwardBackward0"
    assert ours[1] == theirs[1] and ours[3] == theirs[3]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-15)
    for a, b in zip(ours[4], theirs[4]):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_atan2_gradient_is_zero_where_both_operands_are_zero_as_torch():
    # PyTorch's atan2_backward masks 1 / (y^2 + x^2) where the sum is 0 (the origin, or
    # squares that underflow); its second derivatives there stay NaN.
    values = ([0.0, 0.0, 1.0, 1e-200, 0.3], [0.0, 1.0, 0.0, 1e-200, -0.7])
    results = []
    for lib in (lg, torch):
        y, x = (lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values)
        gy, gx = lib.autograd.grad(lib.atan2(y, x).sum(), (y, x), create_graph=True)
        second = lib.autograd.grad(gy.sum() + gx.sum(), (y, x))
        results.append([t.detach().numpy() for t in (gy, gx, *second)])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
