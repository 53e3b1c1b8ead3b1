"""Conv1d/2d/3d and F.conv1d/2d/3d agree with PyTorch's: values, gradients for input, weight
and bias, second order, float32 values, reprs, state_dict keys and error types."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F

from ._compare import assert_close, copy_weights, run_both

RNG = np.random.default_rng(11)

# (layer, in, out, kernel, options, input shape)
CONVS = [
    ("Conv1d", 3, 4, 3, {}, (2, 3, 9)),
    ("Conv1d", 3, 4, 3, {"stride": 2, "padding": 1}, (2, 3, 10)),
    ("Conv1d", 4, 6, 2, {"dilation": 3, "groups": 2, "bias": False}, (2, 4, 11)),
    ("Conv1d", 3, 2, 4, {"padding": "same"}, (2, 3, 7)),
    ("Conv1d", 3, 2, 4, {"padding": "same", "dilation": 2}, (3, 7)),
    ("Conv1d", 3, 2, 3, {"padding": "valid"}, (1, 3, 5)),
    ("Conv1d", 2, 2, 3, {"padding": 2, "padding_mode": "reflect"}, (2, 2, 6)),
    ("Conv1d", 2, 2, 3, {"padding": 1, "padding_mode": "circular"}, (2, 2, 6)),
    ("Conv2d", 3, 4, 3, {}, (2, 3, 6, 7)),
    ("Conv2d", 3, 4, (2, 3), {"stride": (2, 1), "padding": (1, 2)}, (2, 3, 7, 6)),
    ("Conv2d", 4, 4, 3, {"groups": 4, "padding": 1}, (2, 4, 5, 5)),
    ("Conv2d", 2, 6, 3, {"groups": 2, "dilation": (2, 1), "stride": 2}, (1, 2, 9, 8)),
    ("Conv2d", 3, 2, (3, 4), {"padding": "same"}, (2, 3, 5, 6)),
    ("Conv2d", 3, 2, 1, {"bias": False}, (3, 4, 4)),
    ("Conv2d", 2, 3, 3, {"padding": 1, "padding_mode": "replicate"}, (2, 2, 4, 5)),
    ("Conv3d", 2, 3, 2, {"padding": 1, "stride": (1, 2, 1)}, (1, 2, 3, 4, 3)),
]
IDS = [f"{c[0]}-{c[3]}-{c[4]}" for c in CONVS]


def _layers(name, cin, cout, kernel, options, dtypes=(lg.float64, torch.float64)):
    ours = getattr(lg.nn, name)(cin, cout, kernel, dtype=dtypes[0], **options)
    theirs = getattr(torch.nn, name)(cin, cout, kernel, dtype=dtypes[1], **options)
    copy_weights(ours, theirs)
    return ours, theirs


@pytest.mark.parametrize(("name", "cin", "cout", "kernel", "options", "shape"), CONVS, ids=IDS)
def test_conv_layer_matches_pytorch_to_second_order(name, cin, cout, kernel, options, shape):
    ours, theirs = _layers(name, cin, cout, kernel, options)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    run_both(ours, theirs, RNG.standard_normal(shape), RNG)


@pytest.mark.parametrize(("name", "cin", "cout", "kernel", "options", "shape"), CONVS, ids=IDS)
def test_conv_layer_float32_values_match_pytorch(name, cin, cout, kernel, options, shape):
    ours, theirs = _layers(name, cin, cout, kernel, options, (lg.float32, torch.float32))
    x = RNG.standard_normal(shape).astype(np.float32)
    out = ours(lg.tensor(x))
    assert out.dtype == lg.float32
    assert_close(out, theirs(torch.tensor(x)), atol=1e-6)


def test_conv_weight_second_derivatives_match_pytorch():
    """d/dW of |d out / d x|^2: the mixed derivative a PINN with conv layers needs."""
    ours, theirs = _layers("Conv2d", 2, 3, 3, {"padding": 1})
    x = RNG.standard_normal((2, 2, 5, 5))
    x_ours, x_theirs = lg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (g_ours,) = lg.autograd.grad(lg.tanh(ours(x_ours)).sum(), x_ours, create_graph=True)
    (g_theirs,) = torch.autograd.grad(
        torch.tanh(theirs(x_theirs)).sum(), x_theirs, create_graph=True
    )
    assert_close(g_ours, g_theirs)
    (g_ours * g_ours).sum().backward()
    (g_theirs * g_theirs).sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad)
    assert_close(ours.bias.grad, theirs.bias.grad)


def test_conv_output_can_be_viewed_flat_as_in_pytorch():
    out = lg.nn.Conv2d(1, 2, 3)(lg.randn(4, 1, 6, 6))
    assert out.view(4, -1).shape == (4, 32)


@pytest.mark.parametrize(
    ("fn", "weight_shape", "kwargs"),
    [("conv1d", (4, 3, 3), {"stride": 2, "padding": 2, "dilation": 2}),
     ("conv2d", (4, 1, 2, 2), {"groups": 3, "padding": "same"}),
     ("conv3d", (2, 3, 1, 2, 2), {"stride": (1, 2, 2)})],
)  # fmt: skip
def test_functional_conv_matches_pytorch(fn, weight_shape, kwargs):
    nd = len(weight_shape) - 2
    x = RNG.standard_normal((2, 3) + (6,) * nd)
    w, b = RNG.standard_normal(weight_shape), RNG.standard_normal(weight_shape[0])
    if kwargs.get("groups") == 3:
        w = RNG.standard_normal((3, 1, 2, 2))
        b = RNG.standard_normal(3)
    run_both(
        lambda t: getattr(F, fn)(t, lg.tensor(w), lg.tensor(b), **kwargs),
        lambda t: getattr(TF, fn)(t, torch.tensor(w), torch.tensor(b), **kwargs),
        x,
        RNG,
    )


def test_conv_init_is_pytorchs_distribution():
    layer = lg.nn.Conv2d(8, 16, 3)
    bound = 1 / np.sqrt(8 * 9)  # kaiming_uniform(a=sqrt(5)) and the bias share this bound
    weight, bias = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.9 * bound
    assert np.abs(bias).max() <= bound


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [({"groups": 0}, ValueError), ({"groups": 2}, ValueError), ({"padding": "full"}, ValueError),
     ({"padding": "same", "stride": 2}, ValueError), ({"padding_mode": "mirror"}, ValueError)],
)  # fmt: skip
def test_conv_constructor_errors_have_pytorchs_types(kwargs, error):
    with pytest.raises(error):
        torch.nn.Conv2d(3, 4, 3, **kwargs)
    with pytest.raises(error):
        lg.nn.Conv2d(3, 4, 3, **kwargs)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "kwargs"),
    [((1, 3, 2), (2, 3, 3), {}), ((1, 4, 5), (2, 3, 3), {}), ((2, 3, 5, 5), (2, 3, 3), {}),
     ((1, 3, 5), (2, 3, 3), {"padding": -1}), ((1, 3, 5), (2, 3, 3), {"padding": "full"}),
     ((1, 3, 5), (2, 3, 3), {"padding": "same", "stride": 2}),
     ((1, 3, 5), (3, 3, 3), {"groups": 3}), ((1, 3, 5), (2, 3, 3), {"bias": (3,)}),
     ((1, 3, 5), (2, 3, 3), {"stride": 0})],
)  # fmt: skip
def test_functional_conv_errors_are_runtime_errors_as_in_pytorch(x_shape, w_shape, kwargs):
    kwargs = dict(kwargs)
    bias = kwargs.pop("bias", None)
    with pytest.raises(RuntimeError):
        TF.conv1d(
            torch.ones(x_shape),
            torch.ones(w_shape),
            None if bias is None else torch.ones(bias),
            **kwargs,
        )
    with pytest.raises(RuntimeError):
        F.conv1d(
            lg.ones(x_shape), lg.ones(w_shape), None if bias is None else lg.ones(bias), **kwargs
        )


def test_lenet_style_network_matches_pytorch():
    def build(nn, dtype):
        return nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1, dtype=dtype), nn.BatchNorm2d(4, dtype=dtype), nn.ReLU(),
            nn.Conv2d(4, 8, 3, stride=2, dtype=dtype), nn.GELU(), nn.Flatten(),
            nn.Linear(8 * 3 * 3, 5, dtype=dtype), nn.LogSoftmax(dim=1),
        )  # fmt: skip

    ours, theirs = build(lg.nn, lg.float64), build(torch.nn, torch.float64)
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    run_both(ours, theirs, RNG.standard_normal((3, 1, 8, 8)), RNG)


_CONV_CASES = [
    ("conv1d", (2, 4, 9), (6, 4, 3), True, {"stride": 2, "padding": 1}),
    ("conv1d", (2, 4, 9), (6, 2, 3), False, {"groups": 2, "dilation": 2}),
    ("conv1d", (2, 4, 9), (6, 4, 2), True, {"padding": "same"}),
    ("conv2d", (2, 4, 7, 6), (6, 4, 3, 2), True, {"stride": (2, 1), "padding": (1, 0)}),
    ("conv2d", (2, 4, 7, 6), (4, 1, 3, 3), True, {"groups": 4, "padding": "same",
                                                  "dilation": (1, 2)}),
    ("conv3d", (1, 2, 5, 4, 5), (3, 2, 2, 3, 2), True, {"padding": 1}),
]  # fmt: skip


def _conv_node_and_derivatives(lib, name, arrays, options):
    x, w, b = (None if a is None else lib.tensor(a, requires_grad=True) for a in arrays)
    y = getattr(lib.nn.functional, name)(x, w, b, **options)
    inputs = [t for t in (x, w, b) if t is not None]
    scale = lib.tensor(np.arange(float(y.numel())).reshape(tuple(y.shape)) / y.numel())
    grads = lib.autograd.grad((y * y * scale).sum(), inputs, create_graph=True)
    seconds = lib.autograd.grad(sum((g * g).sum() for g in grads), inputs)
    node = y.grad_fn
    saved = (node.name(),) + tuple(
        getattr(node, f"_saved_{k}")
        for k in ("stride", "padding", "dilation", "groups", "transposed", "output_padding",
                  "bias_sym_sizes_opt")
    )  # fmt: skip
    return saved, [y, *grads, *seconds]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize(("name", "x_shape", "w_shape", "bias", "options"), _CONV_CASES)
def test_convolution_is_one_node_as_in_pytorch(name, x_shape, w_shape, bias, options):
    rng = np.random.default_rng(3)
    arrays = (
        rng.standard_normal(x_shape),
        rng.standard_normal(w_shape),
        rng.standard_normal(w_shape[0]) if bias else None,
    )
    ours, values = _conv_node_and_derivatives(lg, name, arrays, options)
    theirs, expected = _conv_node_and_derivatives(torch, name, arrays, options)
    assert ours == theirs
    assert ours[0] == "ConvolutionBackward0"
    for a, b in zip(values, expected, strict=True):
        assert_close(a, b)


@pytest.mark.parametrize("lib", [lg, torch], ids=["leafgrad", "torch"])
def test_convolution_input_gradient_requires_grad_with_a_constant_weight(lib):
    x = lib.randn(1, 2, 6, dtype=lib.float64, requires_grad=True)
    w = lib.randn(3, 2, 3, dtype=lib.float64)
    (g,) = lib.autograd.grad(lib.nn.functional.conv1d(x, w).sum(), x, create_graph=True)
    assert g.requires_grad


def test_convolution_under_vmap_over_inputs_and_weights_matches_pytorch():
    rng = np.random.default_rng(4)
    xs, ws = rng.standard_normal((3, 2, 2, 7)), rng.standard_normal((3, 4, 2, 3))
    results = []
    for lib in (lg, torch):
        conv = lib.nn.functional.conv1d
        results.append(lib.func.vmap(lambda x, w, c=conv: c(x, w, padding=1))(
            lib.tensor(xs), lib.tensor(ws)))  # fmt: skip
    assert_close(*results)
