"""Pooling layers and their F.* forms agree with PyTorch's: values, indices, gradients to
second order, float32, reprs and error types."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F

from ._compare import assert_close, run_both

RNG = np.random.default_rng(23)

# (layer, args, kwargs, input shape)
POOLS = [
    ("MaxPool1d", (3,), {}, (2, 3, 9)),
    ("MaxPool1d", (3, 2, 1, 2), {"ceil_mode": True}, (2, 3, 10)),
    ("MaxPool1d", (2,), {}, (3, 7)),
    ("MaxPool2d", (2,), {}, (2, 3, 6, 7)),
    ("MaxPool2d", ((3, 2), (2, 1), (1, 1)), {"ceil_mode": True}, (2, 2, 7, 8)),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "dilation": 2}, (1, 2, 9, 8)),
    ("MaxPool3d", (2,), {"ceil_mode": True}, (1, 2, 5, 4, 5)),
    ("AvgPool1d", (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}, (2, 3, 10)),
    ("AvgPool1d", (4,), {}, (3, 9)),
    ("AvgPool2d", (3, 2, 1), {"ceil_mode": True}, (2, 3, 7, 8)),
    ("AvgPool2d", (3, 2, 1), {"count_include_pad": False}, (2, 3, 7, 8)),
    ("AvgPool2d", ((2, 3),), {"divisor_override": 5}, (2, 3, 6, 7)),
    ("AvgPool3d", ((2, 3, 2), 2, 1), {"ceil_mode": True}, (1, 2, 5, 6, 5)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 10)),
    ("AdaptiveAvgPool2d", ((3, None),), {}, (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d", (1,), {}, (3, 4, 4)),
    ("AdaptiveAvgPool3d", ((3, 2, 4),), {}, (1, 2, 7, 5, 6)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 10)),
    ("AdaptiveMaxPool2d", ((3, 4),), {}, (2, 3, 7, 5)),
    ("AdaptiveMaxPool3d", (3,), {}, (1, 2, 7, 5, 6)),
    ("LPPool1d", (2, 3), {"stride": 2}, (2, 3, 10)),
    ("LPPool2d", (3, 2), {"ceil_mode": True}, (2, 3, 7, 8)),
    ("LPPool2d", (1.5, (2, 3)), {}, (2, 3, 6, 7)),
]
IDS = [f"{p[0]}-{p[1]}-{p[2]}" for p in POOLS]


@pytest.mark.parametrize(("name", "args", "kwargs", "shape"), POOLS, ids=IDS)
def test_pool_layer_matches_pytorch_to_second_order(name, args, kwargs, shape):
    ours, theirs = getattr(lg.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    x = RNG.standard_normal(shape)
    if name.startswith("LP"):
        x = np.abs(x) + 0.5  # a fractional power of a negative sum is NaN on both sides
    run_both(ours, theirs, x, RNG)


@pytest.mark.parametrize(("name", "args", "kwargs", "shape"), POOLS, ids=IDS)
def test_pool_layer_float32_values_match_pytorch(name, args, kwargs, shape):
    x = np.abs(RNG.standard_normal(shape)).astype(np.float32)
    out = getattr(lg.nn, name)(*args, **kwargs)(lg.tensor(x))
    assert out.dtype == lg.float32
    assert_close(out, getattr(torch.nn, name)(*args, **kwargs)(torch.tensor(x)))


@pytest.mark.parametrize(
    ("fn", "args", "shape"),
    [
        ("max_pool1d", (3, 2, 1, 2, True), (2, 3, 10)),
        ("max_pool2d", ((3, 2), (2, 1), (1, 1), 1, True), (2, 2, 7, 8)),
        ("max_pool3d", (2, 1), (1, 2, 4, 3, 4)),
        ("adaptive_max_pool1d", (4,), (2, 3, 10)),
        ("adaptive_max_pool2d", ((3, 4),), (3, 7, 5)),
        ("adaptive_max_pool3d", ((2, 3, 2),), (1, 2, 5, 5, 4)),
    ],
)
def test_max_pool_indices_match_pytorch(fn, args, shape):
    x = RNG.standard_normal(shape)
    values, indices = getattr(F, fn)(lg.tensor(x), *args, return_indices=True)
    t_values, t_indices = getattr(TF, fn)(torch.tensor(x), *args, return_indices=True)
    assert_close(values, t_values)
    assert indices.dtype == lg.int64
    np.testing.assert_array_equal(indices.numpy(), t_indices.numpy())
    v2, i2 = getattr(F, f"{fn}_with_indices")(lg.tensor(x), *args)
    assert_close(v2, t_values)
    np.testing.assert_array_equal(i2.numpy(), t_indices.numpy())


def test_max_pool_ties_route_the_gradient_to_the_first_maximum_as_pytorch():
    x = np.array([[[1.0, 3.0, 3.0, 2.0, 2.0, 0.0]]])
    run_both(lambda t: F.max_pool1d(t, 3, 1), lambda t: TF.max_pool1d(t, 3, 1), x, RNG)


def test_max_pool_in_a_network_second_derivative_matches_pytorch():
    """d/dW of |d out / d x|^2 through conv, tanh and pooling: what a PINN with pools needs."""
    lg.manual_seed(0)
    conv = lg.nn.Conv2d(2, 3, 3, padding=1, dtype=lg.float64)
    t_conv = torch.nn.Conv2d(2, 3, 3, padding=1, dtype=torch.float64)
    t_conv.load_state_dict({k: torch.tensor(v.numpy()) for k, v in conv.state_dict().items()})
    x = RNG.standard_normal((2, 2, 6, 6))
    xo, xt = lg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yo = F.avg_pool2d(F.max_pool2d(lg.tanh(conv(xo)), 2), 3, 1, 1).pow(2).sum()
    yt = TF.avg_pool2d(TF.max_pool2d(torch.tanh(t_conv(xt)), 2), 3, 1, 1).pow(2).sum()
    (go,) = lg.autograd.grad(yo, xo, create_graph=True)
    (gt,) = torch.autograd.grad(yt, xt, create_graph=True)
    assert_close(go, gt)
    (go * go).sum().backward()
    (gt * gt).sum().backward()
    assert_close(conv.weight.grad, t_conv.weight.grad)


@pytest.mark.parametrize(
    ("fn", "args", "shape"),
    [
        ("max_pool2d", (3, 1, 2), (1, 1, 5, 5)),  # padding above half the kernel
        ("max_pool1d", (4,), (1, 1, 3)),  # output too small
        ("avg_pool2d", (2, 0), (1, 1, 4, 4)),  # zero stride
        ("max_pool2d", (2,), (2, 1, 1, 4, 4)),  # 5-D input
        ("avg_pool1d", (2,), (1, 1, 0)),  # empty spatial dim
        ("max_pool2d", (2, 1, 0, 0), (1, 1, 4, 4)),  # zero dilation
    ],
)
def test_bad_pool_arguments_raise_runtime_error_as_pytorch(fn, args, shape):
    x = np.zeros(shape)
    with pytest.raises(RuntimeError):
        getattr(TF, fn)(torch.tensor(x), *args)
    with pytest.raises(RuntimeError, match=fn):
        getattr(F, fn)(lg.tensor(x), *args)


def test_avg_pool_zero_divisor_override_raises_as_pytorch():
    with pytest.raises(RuntimeError):
        TF.avg_pool2d(torch.zeros(1, 1, 4, 4), 2, divisor_override=0)
    with pytest.raises(RuntimeError, match="divisor_override"):
        F.avg_pool2d(lg.zeros(1, 1, 4, 4), 2, divisor_override=0)


def test_pool_functions_are_exported_under_pytorchs_names():
    names = [n for n in dir(TF) if "pool" in n and not n.startswith("_")]
    missing = [n for n in names if not hasattr(F, n)]
    assert missing == []
    assert F.max_pool2d_with_indices.__name__ == "max_pool2d_with_indices"


@pytest.mark.parametrize(
    ("nd", "kernel", "options", "shape", "output_size"),
    [
        (1, 2, {}, (2, 3, 8), None),
        (1, 3, {"stride": 2, "padding": 1}, (3, 9), [9]),
        (2, 2, {}, (2, 3, 6, 7), [2, 3, 7, 7]),
        (2, (3, 2), {"stride": (2, 1), "padding": (1, 0)}, (1, 2, 7, 5), None),
        (3, 2, {}, (1, 2, 4, 4, 5), [4, 4, 5]),
    ],
)
def test_max_unpool_matches_pytorch_to_second_order(nd, kernel, options, shape, output_size):
    x = RNG.standard_normal(shape)
    pooled, indices = getattr(TF, f"max_pool{nd}d")(torch.tensor(x), kernel, **options,
                                                    return_indices=True)  # fmt: skip
    ours = getattr(lg.nn, f"MaxUnpool{nd}d")(kernel, **options)
    theirs = getattr(torch.nn, f"MaxUnpool{nd}d")(kernel, **options)
    assert repr(ours) == repr(theirs)
    idx_ours = lg.tensor(indices.numpy())
    run_both(
        lambda t: ours(t, idx_ours, output_size),
        lambda t: theirs(t, indices, output_size),
        pooled.numpy(),
        RNG,
    )


def test_max_unpool_invalid_output_size_raises_value_error_as_pytorch():
    pooled, indices = TF.max_pool1d(torch.randn(1, 1, 8), 2, return_indices=True)
    with pytest.raises(ValueError):
        TF.max_unpool1d(pooled, indices, 2, output_size=[11])
    with pytest.raises(ValueError, match="output_size"):
        F.max_unpool1d(lg.tensor(pooled.numpy()), lg.tensor(indices.numpy()), 2, output_size=[11])


_POOL_CASES = [
    ("max_pool1d", (2, 3, 9), {"kernel_size": 2}),
    ("max_pool1d", (3, 9), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("max_pool2d", (2, 3, 7, 6), {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0),
                                  "dilation": (1, 2)}),
    ("max_pool2d", (3, 7, 6), {"kernel_size": 2, "ceil_mode": True}),
    ("max_pool3d", (1, 2, 5, 4, 5), {"kernel_size": 2, "padding": 1}),
    ("avg_pool1d", (2, 3, 9), {"kernel_size": 2}),
    ("avg_pool1d", (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                               "count_include_pad": False}),
    ("avg_pool2d", (2, 3, 7, 6), {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0)}),
    ("avg_pool2d", (3, 7, 6), {"kernel_size": 3, "ceil_mode": True, "divisor_override": 5}),
    ("avg_pool3d", (1, 2, 5, 4, 5), {"kernel_size": 2, "padding": 1, "count_include_pad": False}),
]  # fmt: skip


def _pool_nodes_and_derivatives(lib, name, x_values, options):
    x = lib.tensor(x_values, requires_grad=True)
    y = getattr(lib.nn.functional, name)(x, **options)
    # the gradient of a sum is a function of x (as PyTorch's backward takes the input)
    (ones,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    scale = lib.tensor(np.arange(float(y.numel())).reshape(tuple(y.shape)) / y.numel())
    (g,) = lib.autograd.grad((y * y * scale).sum(), x, create_graph=True)
    (g2,) = lib.autograd.grad((g * g).sum(), x)
    node = y.grad_fn
    pool = node.next_functions[0][0] if node.name() == "SqueezeBackward1" else node
    names = (node.name(), pool.name(), g.grad_fn.name(), ones.requires_grad)
    names += (pool._saved_kernel_size, pool._saved_stride, pool._saved_padding)
    values = [y, g, g2]
    if name.startswith("max"):
        values.append(getattr(lib.nn.functional, name)(x, return_indices=True, **options)[1])
    return names, values


@pytest.mark.parametrize(("name", "shape", "options"), _POOL_CASES)
def test_pool_is_one_node_as_in_pytorch(name, shape, options):
    x = np.random.default_rng(7).standard_normal(shape)
    ours, values = _pool_nodes_and_derivatives(lg, name, x, options)
    theirs, expected = _pool_nodes_and_derivatives(torch, name, x, options)
    assert ours == theirs
    for a, b in zip(values, expected, strict=True):
        assert_close(a, b)


@pytest.mark.parametrize(
    "nd, shape, size",
    [(1, (2, 3, 7), 3), (1, (3, 7), 4), (2, (2, 3, 5, 7), 3), (2, (3, 5, 7), (2, None)),
     (3, (1, 2, 5, 5, 7), (2, 3, 4)), (3, (2, 5, 5, 7), 2)],
)  # fmt: skip
def test_adaptive_max_pools_record_pytorchs_op_and_take_its_last_nan(nd, shape, size):
    x = np.random.default_rng(0).standard_normal(shape)
    x.reshape(-1)[::5] = np.nan  # windows with one NaN and with several
    x.reshape(-1)[1::7] = np.nan
    results = []
    for lib in (lg, torch):
        t = lib.tensor(x, requires_grad=True)
        fn = getattr(lib.nn.functional, f"adaptive_max_pool{nd}d")
        y, indices = fn(t, size, return_indices=True)
        (g,) = lib.autograd.grad(y, t, lib.ones_like(y) * 0.5, create_graph=True)
        names = (y.grad_fn.name(), g.grad_fn.name())
        results.append((y.detach().numpy(), indices.numpy(), g.detach().numpy(), names))
    (vo, io, go, no), (vt, it, gt, nt) = results
    np.testing.assert_array_equal(vo, vt)
    np.testing.assert_array_equal(io, it)
    np.testing.assert_array_equal(go, gt)
    assert no == nt  # AdaptiveMaxPool2DBackward0 (a squeeze over it for 1-D), its backward


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("pool", [
    lambda m, t: m.nn.functional.max_pool2d(t, 2),
    lambda m, t: m.nn.functional.max_pool2d(t, 3, 1, 1),  # padding: ints stay ints
    lambda m, t: m.nn.functional.max_pool1d(t[0], 3, 1, 1),
    lambda m, t: m.nn.functional.max_pool1d(t[0], 3, 1, 1, return_indices=True)[1],
    lambda m, t: m.nn.functional.adaptive_max_pool2d(t, 3),
    lambda m, t: m.nn.functional.avg_pool2d(t, 2),  # int64: truncating division
    lambda m, t: m.nn.functional.avg_pool2d(t, 3, 2, 1),
    lambda m, t: m.nn.functional.avg_pool2d(t, 2, divisor_override=3),
])  # fmt: skip
def test_pools_of_integer_and_bool_tensors_as_torch(pool, dtype):
    x = (np.random.default_rng(0).standard_normal((2, 3, 8, 8)) * 10).astype(dtype)
    outcomes = []
    for lib in (lg, torch):
        try:
            y = pool(lib, lib.tensor(x))
            outcomes.append((str(y.dtype).split(".")[-1], y.numpy()))
        except NotImplementedError:
            outcomes.append(("NotImplementedError", None))
    (kind, got), (want_kind, want) = outcomes
    assert kind == want_kind
    if want is not None:
        np.testing.assert_array_equal(got, want)
