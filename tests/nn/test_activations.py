"""Every activation layer and its functional form agree with PyTorch's: values (float64 and
float32), first gradients, second gradients, reprs and parameter names."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F

from ._compare import assert_close, copy_weights, pair, run_both

RNG = np.random.default_rng(2024)

# (layer name, constructor kwargs); inputs are spread so every branch is met.
LAYERS = [
    ("Mish", {}), ("SELU", {}), ("CELU", {}), ("CELU", {"alpha": 0.5}), ("GELU", {}),
    ("GELU", {"approximate": "tanh"}), ("SiLU", {}), ("Softplus", {}),
    ("Softplus", {"beta": 2.0, "threshold": 3.0}), ("Softsign", {}), ("Hardswish", {}),
    ("Hardsigmoid", {}), ("Hardtanh", {}), ("Hardtanh", {"min_val": -2.0, "max_val": 0.5}),
    ("ReLU6", {}), ("LogSigmoid", {}), ("Tanhshrink", {}), ("Softshrink", {}),
    ("Softshrink", {"lambd": 1.5}), ("Hardshrink", {}), ("Hardshrink", {"lambd": 2.0}),
    ("Threshold", {"threshold": 0.3, "value": -7.0}), ("RReLU", {}),
    ("RReLU", {"lower": 0.2, "upper": 0.5}), ("GLU", {}), ("GLU", {"dim": 0}),
    ("Softmin", {"dim": 1}), ("Softmin", {"dim": 0}), ("Softmax2d", {}), ("LogSoftmax", {"dim": 1}),
    ("ReLU", {}), ("LeakyReLU", {}), ("ELU", {}), ("Sigmoid", {}), ("Tanh", {}),
]  # fmt: skip
IDS = [f"{name}{kwargs}" for name, kwargs in LAYERS]
# CELU's alphas are exact in float32: PyTorch's CELU backward rounds 1 / alpha through float32,
# so for other alphas its float64 gradient is off by up to ~1e-7 relative and ours is not.
# PyTorch's hardsigmoid backward likewise multiplies by float32's 1/6 (3e-8 relative off).
GRAD_RTOL = {"Hardsigmoid": 1e-7, "hardsigmoid": 1e-7}
# PyTorch has no derivative for hardsigmoid_backward; ours is the true one, zero.
FIRST_ORDER_ONLY = {"Hardsigmoid", "hardsigmoid"}


def _input(name, dtype=np.float64):
    shape = (4, 6, 3, 2) if name == "Softmax2d" else (4, 6)
    return (RNG.standard_normal(shape) * 4).astype(dtype)


def _pair_layers(name, kwargs):
    ours, theirs = getattr(lg.nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    # RReLU draws random slopes while training; compare the deterministic eval mode.
    return ours.eval(), theirs.eval()


@pytest.mark.parametrize(("name", "kwargs"), LAYERS, ids=IDS)
def test_layer_values_and_gradients_to_second_order_match_pytorch(name, kwargs):
    ours, theirs = _pair_layers(name, kwargs)
    run_both(
        ours,
        theirs,
        _input(name),
        RNG,
        second_order=name not in FIRST_ORDER_ONLY,
        rtol=GRAD_RTOL.get(name),
    )


@pytest.mark.parametrize(("name", "kwargs"), LAYERS, ids=IDS)
def test_layer_float32_values_match_pytorch(name, kwargs):
    ours, theirs = _pair_layers(name, kwargs)
    x = _input(name, np.float32)
    out = ours(lg.tensor(x))
    assert out.dtype == lg.float32
    # An absolute floor: in tails such as GELU's, float32 cancellation leaves both libraries
    # only ~1e-7 absolute accuracy, with different rounding.
    assert_close(out, theirs(torch.tensor(x)), atol=1e-6)


@pytest.mark.parametrize(("name", "kwargs"), LAYERS, ids=IDS)
def test_layer_repr_and_state_dict_match_pytorch(name, kwargs):
    ours, theirs = _pair_layers(name, kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize(
    "kwargs",
    [{"inplace": True}, {"min_val": -3.0, "max_val": 2.0, "inplace": True}],
)
def test_hardtanh_repr_with_inplace(kwargs):
    assert repr(lg.nn.Hardtanh(**kwargs)) == repr(torch.nn.Hardtanh(**kwargs))


@pytest.mark.parametrize(
    "name", ["ReLU", "ReLU6", "SiLU", "Mish", "SELU", "CELU", "ELU", "Hardswish", "Hardsigmoid",
             "RReLU", "LeakyReLU"],
)  # fmt: skip
def test_inplace_flag_shows_in_the_repr_as_in_pytorch(name):
    assert repr(getattr(lg.nn, name)(inplace=True)) == repr(getattr(torch.nn, name)(inplace=True))


def test_threshold_repr_with_inplace():
    assert repr(lg.nn.Threshold(0.1, 20, True)) == repr(torch.nn.Threshold(0.1, 20, True))


def test_hardtanh_deprecated_keywords_warn_and_apply():
    with pytest.warns(FutureWarning, match="min_val"):
        layer = lg.nn.Hardtanh(min_value=-0.5)
    assert layer.min_val == -0.5


def test_hardtanh_with_max_below_min_raises_like_pytorch():
    with pytest.raises(AssertionError):
        torch.nn.Hardtanh(1.0, -1.0)
    with pytest.raises(AssertionError):
        lg.nn.Hardtanh(1.0, -1.0)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2)])
@pytest.mark.parametrize("num_parameters", [1, 3])
def test_prelu_matches_pytorch_with_weight_gradients(shape, num_parameters):
    ours = lg.nn.PReLU(num_parameters, init=0.1, dtype=lg.float64)
    theirs = torch.nn.PReLU(num_parameters, init=0.1, dtype=torch.float64)
    with lg.no_grad():
        ours.weight.copy_(lg.tensor(RNG.uniform(-1, 1, num_parameters)))
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    run_both(ours, theirs, RNG.standard_normal(shape), RNG)


def test_prelu_starts_at_init():
    assert lg.nn.PReLU(2, init=0.3).weight.tolist() == pytest.approx([0.3, 0.3])


def test_prelu_with_a_channel_count_mismatch_raises_runtime_error_as_pytorch():
    with pytest.raises(RuntimeError):
        torch.nn.PReLU(3)(torch.ones(2, 4))
    with pytest.raises(RuntimeError):
        lg.nn.PReLU(3)(lg.ones(2, 4))


def test_rrelu_training_draws_slopes_within_bounds():
    lg.manual_seed(0)
    x = -lg.ones(2000, dtype=lg.float64)
    out = lg.nn.RReLU(0.2, 0.4)(x)
    slopes = -out.numpy()
    assert slopes.min() >= 0.2 and slopes.max() <= 0.4
    assert abs(slopes.mean() - 0.3) < 0.01
    assert lg.nn.RReLU()(lg.tensor([2.0])).tolist() == [2.0]


@pytest.mark.parametrize("size", [3, 5])
def test_glu_with_an_odd_dimension_raises_runtime_error_as_pytorch(size):
    with pytest.raises(RuntimeError):
        TF.glu(torch.ones(2, size))
    with pytest.raises(RuntimeError, match="even"):
        F.glu(lg.ones(2, size))


def test_softmax2d_rejects_other_ranks_as_pytorch():
    with pytest.raises(ValueError):
        torch.nn.Softmax2d()(torch.ones(2, 3))
    with pytest.raises(ValueError):
        lg.nn.Softmax2d()(lg.ones(2, 3))


def test_implicit_softmin_dim_warns():
    with pytest.warns(UserWarning, match="softmin"):
        F.softmin(lg.ones(2, 3))


FUNCTIONS = [
    ("mish", {}), ("selu", {}), ("celu", {"alpha": 2.0}), ("hardswish", {}), ("hardsigmoid", {}),
    ("hardtanh", {"min_val": -0.5, "max_val": 3.0}), ("relu6", {}), ("logsigmoid", {}),
    ("tanhshrink", {}), ("softsign", {}), ("softshrink", {"lambd": 0.7}),
    ("hardshrink", {"lambd": 0.7}), ("threshold", {"threshold": -1.0, "value": 3.0}),
    ("rrelu", {}), ("rrelu", {"lower": 0.0, "upper": 1.0, "training": False}),
    ("glu", {"dim": -1}), ("softmin", {"dim": -1}), ("softmin", {"dim": 0, "dtype": None}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "kwargs"), FUNCTIONS, ids=[f"{n}{k}" for n, k in FUNCTIONS])
def test_functional_matches_pytorch_to_second_order(name, kwargs):
    run_both(
        lambda t: getattr(F, name)(t, **kwargs),
        lambda t: getattr(TF, name)(t, **kwargs),
        RNG.standard_normal((3, 4)) * 4,
        RNG,
        second_order=name not in FIRST_ORDER_ONLY,
        rtol=GRAD_RTOL.get(name),
    )


@pytest.mark.parametrize(
    ("name", "points"),
    [
        ("hardtanh", [-1.0, 1.0]), ("relu6", [0.0, 6.0]), ("hardsigmoid", [-3.0, 3.0]),
        ("hardswish", [-3.0, 3.0]), ("hardshrink", [-0.5, 0.5]), ("softshrink", [-0.5, 0.5]),
        ("threshold", [0.0]),
    ],
)  # fmt: skip
def test_gradient_at_the_kinks_is_pytorchs(name, points):
    kwargs = {"threshold": 0.0, "value": 2.0} if name == "threshold" else {}
    x_ours, x_theirs = pair(np.array(points), requires_grad=True)
    (g_ours,) = lg.autograd.grad(getattr(F, name)(x_ours, **kwargs).sum(), x_ours)
    (g_theirs,) = torch.autograd.grad(getattr(TF, name)(x_theirs, **kwargs).sum(), x_theirs)
    assert_close(g_ours, g_theirs)


def test_hardsigmoid_gradient_and_its_missing_derivative_are_pytorchs():
    """PyTorch scales by the float32 sixth in every dtype, and defines no derivative of
    hardsigmoid_backward: a second backward raises."""
    x_ours, x_theirs = pair(np.array([-4.0, -3.0, 0.5, 2.9, 3.0, 4.0]), requires_grad=True)
    g_ours = lg.autograd.grad(F.hardsigmoid(x_ours).sum(), x_ours, create_graph=True)[0]
    g_theirs = torch.autograd.grad(TF.hardsigmoid(x_theirs).sum(), x_theirs, create_graph=True)[0]
    assert g_ours.tolist() == g_theirs.tolist()  # 0.1666666716337204 inside, 0 outside
    assert F.hardsigmoid(x_ours).grad_fn.name() == "HardsigmoidBackward0"
    for g, x, lib in ((g_ours, x_ours, lg), (g_theirs, x_theirs, torch)):
        with pytest.raises(RuntimeError, match="hardsigmoid_backward"):
            lib.autograd.grad(g.sum(), x)


def test_logsigmoid_is_finite_far_out():
    x_ours, x_theirs = pair(np.array([-800.0, -40.0, 40.0, 800.0]), requires_grad=True)
    out_ours, out_theirs = F.logsigmoid(x_ours), TF.logsigmoid(x_theirs)
    assert_close(out_ours, out_theirs)
    assert_close(
        lg.autograd.grad(out_ours.sum(), x_ours)[0],
        torch.autograd.grad(out_theirs.sum(), x_theirs)[0],
    )


# What PyTorch does with bool and int64 inputs: its kernels exist for floating types only,
# except as listed; "keep" means the integer dtype is kept.
_FLOAT_ONLY = ["gelu", "silu", "elu", "celu", "softplus", "mish", "selu", "leaky_relu",
               "hardswish", "hardsigmoid", "logsigmoid", "softshrink", "hardshrink", "rrelu",
               "glu"]  # fmt: skip
_INTEGER_INPUTS = [(name, "bool", NotImplementedError) for name in _FLOAT_ONLY] + [
    (name, "int64", NotImplementedError) for name in _FLOAT_ONLY
] + [
    ("relu", "bool", RuntimeError), ("relu", "int64", "keep"),
    ("relu6", "bool", RuntimeError), ("relu6", "int64", "keep"),
    ("hardtanh", "bool", RuntimeError), ("hardtanh", "int64", "keep"),
    ("prelu", "bool", RuntimeError), ("prelu", "int64", RuntimeError),
    ("threshold", "bool", NotImplementedError), ("threshold", "int64", "keep"),
    ("softsign", "bool", NotImplementedError), ("softsign", "int64", "float32"),
    ("sigmoid", "int64", "float32"), ("tanh", "bool", "float32"),
]  # fmt: skip


def _call(m, name, x):
    f = m.nn.functional
    if name == "prelu":
        return f.prelu(x, m.tensor([0.25]))
    if name == "threshold":
        return f.threshold(x, 0.5, 0)
    if name == "glu":
        return f.glu(m.cat([x, x]))
    return getattr(f, name)(x)


@pytest.mark.parametrize(("name", "dtype", "expected"), _INTEGER_INPUTS)
def test_integer_and_bool_inputs_are_refused_or_kept_as_pytorch(name, dtype, expected):
    outs = []
    for m in (lg, torch):
        x = m.tensor([3, 0, -2, 1]) if dtype == "int64" else m.tensor([True, False, True, True])
        if isinstance(expected, type):
            with pytest.raises(expected):
                _call(m, name, x)
            continue
        out = _call(m, name, x)
        assert out.dtype == (x.dtype if expected == "keep" else m.float32), (m, out.dtype)
        outs.append(out.tolist())
    if outs:
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)


# Values at every kink, at -0.0 and at NaN, where PyTorch's branch conditions decide.
_KINKS = [-5.0, -3.0, -2.5, -1.0, -0.0, 0.0, 0.3, 1.0, 2.9, 3.0, 4.0, 6.0, 7.0, np.nan]
_NODES = [
    ("hardtanh", lambda F, x: F.hardtanh(x), "HardtanhBackward0", "HardtanhBackwardBackward0"),
    ("hardtanh-bounds", lambda F, x: F.hardtanh(x, -2.0, 0.5), "HardtanhBackward0",
     "HardtanhBackwardBackward0"),
    ("relu6", lambda F, x: F.relu6(x), "HardtanhBackward0", "HardtanhBackwardBackward0"),
    ("hardswish", lambda F, x: F.hardswish(x), "HardswishBackward0",
     "HardswishBackwardBackward0"),
    ("elu", lambda F, x: F.elu(x, 0.5), "EluBackward0", "EluBackwardBackward0"),
    ("selu", lambda F, x: F.selu(x), "EluBackward0", "EluBackwardBackward0"),
    ("celu", lambda F, x: F.celu(x, 0.5), "CeluBackward0", "EluBackwardBackward0"),
]  # fmt: skip


def _nodes_values_and_derivatives(lib, F, fn):
    x = lib.tensor(_KINKS, dtype=lib.float64, requires_grad=True)
    y = fn(F, x)
    (g,) = lib.autograd.grad((y * lib.arange(14.0, dtype=lib.float64)).sum(), x, create_graph=True)
    (g2,) = lib.autograd.grad(g.sum(), x)
    saved = {
        name: getattr(y.grad_fn, f"_saved_{name}")
        for name in ("min_val", "max_val", "alpha", "scale", "input_scale")
        if hasattr(y.grad_fn, f"_saved_{name}")
    }
    return y.grad_fn.name(), g.grad_fn.name(), saved, y, g, g2


@pytest.mark.parametrize(("fn", "node", "double_node"), [n[1:] for n in _NODES],
                         ids=[n[0] for n in _NODES])  # fmt: skip
def test_piecewise_activation_is_one_node_as_in_pytorch(fn, node, double_node):
    theirs = _nodes_values_and_derivatives(torch, TF, fn)
    ours = _nodes_values_and_derivatives(lg, F, fn)
    assert ours[:2] == theirs[:2] == (node, double_node)
    assert ours[2] == theirs[2]
    assert [type(v) for v in ours[2].values()] == [type(v) for v in theirs[2].values()]
    for a, b in zip(ours[3:], theirs[3:]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=0)
        assert np.array_equal(np.signbit(a.detach().numpy()), np.signbit(b.detach().numpy()))
