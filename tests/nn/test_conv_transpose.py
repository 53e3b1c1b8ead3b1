"""ConvTranspose1d/2d/3d and F.conv_transpose1d/2d/3d agree with PyTorch's: values, gradients
for input, weight and bias, second order, float32, output_size, reprs and error types."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F

from ._compare import assert_close, copy_weights, run_both

RNG = np.random.default_rng(37)

# (layer, in, out, kernel, options, input shape)
CONVS = [
    ("ConvTranspose1d", 3, 4, 3, {}, (2, 3, 5)),
    ("ConvTranspose1d", 4, 6, 3, {"stride": 2, "padding": 1, "output_padding": 1}, (2, 4, 5)),
    ("ConvTranspose1d", 4, 6, 2, {"dilation": 3, "groups": 2, "bias": False}, (2, 4, 4)),
    ("ConvTranspose1d", 2, 3, 2, {"stride": 3, "padding": 3}, (2, 5)),
    ("ConvTranspose2d", 3, 4, 3, {}, (2, 3, 4, 5)),
    ("ConvTranspose2d", 4, 6, (2, 3), {"stride": (2, 1), "padding": (1, 0)}, (2, 4, 4, 3)),
    ("ConvTranspose2d", 4, 4, 3, {"groups": 4, "stride": 2, "output_padding": 1}, (1, 4, 3, 3)),
    ("ConvTranspose2d", 2, 3, 3, {"dilation": (2, 1), "stride": 2, "padding": 1}, (2, 3, 4)),
    ("ConvTranspose3d", 2, 3, 2, {"padding": 1, "stride": (1, 2, 1)}, (1, 2, 3, 3, 2)),
]
IDS = [f"{c[0]}-{c[3]}-{c[4]}" for c in CONVS]


def _layers(name, cin, cout, kernel, options, dtypes=(lg.float64, torch.float64)):
    ours = getattr(lg.nn, name)(cin, cout, kernel, dtype=dtypes[0], **options)
    theirs = getattr(torch.nn, name)(cin, cout, kernel, dtype=dtypes[1], **options)
    copy_weights(ours, theirs)
    return ours, theirs


@pytest.mark.parametrize(("name", "cin", "cout", "kernel", "options", "shape"), CONVS, ids=IDS)
def test_conv_transpose_layer_matches_pytorch_to_second_order(
    name, cin, cout, kernel, options, shape
):
    ours, theirs = _layers(name, cin, cout, kernel, options)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.weight.shape == theirs.weight.shape
    run_both(ours, theirs, RNG.standard_normal(shape), RNG)


@pytest.mark.parametrize(("name", "cin", "cout", "kernel", "options", "shape"), CONVS, ids=IDS)
def test_conv_transpose_float32_values_match_pytorch(name, cin, cout, kernel, options, shape):
    ours, theirs = _layers(name, cin, cout, kernel, options, (lg.float32, torch.float32))
    x = RNG.standard_normal(shape).astype(np.float32)
    out = ours(lg.tensor(x))
    assert out.dtype == lg.float32
    assert_close(out, theirs(torch.tensor(x)), atol=1e-5)


def test_conv_transpose_output_size_picks_the_output_padding_as_pytorch():
    ours, theirs = _layers("ConvTranspose2d", 2, 3, 3, {"stride": 3, "padding": 1})
    x = RNG.standard_normal((1, 2, 4, 4))
    for size in ([10, 12], (1, 3, 11, 10)):
        assert_close(ours(lg.tensor(x), output_size=size), theirs(torch.tensor(x), size))
    with pytest.raises(ValueError):
        theirs(torch.tensor(x), output_size=[13, 10])
    with pytest.raises(ValueError, match="output size"):
        ours(lg.tensor(x), output_size=[13, 10])


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv(x), y> == <x, conv_transpose(y)> for the same weight: the defining property."""
    x = lg.tensor(RNG.standard_normal((2, 3, 9, 8)))
    w = lg.tensor(RNG.standard_normal((4, 3, 3, 2)))
    y = lg.tensor(RNG.standard_normal((2, 4, 5, 4)))
    forward = F.conv2d(x, w, stride=2, padding=1, dilation=(1, 2))
    back = F.conv_transpose2d(y, w, stride=2, padding=1, output_padding=(0, 1), dilation=(1, 2))
    assert back.shape == x.shape
    assert abs(float((forward * y).sum() - (x * back).sum())) < 1e-9


@pytest.mark.parametrize(
    ("kwargs", "wshape"),
    [
        ({"stride": 2, "output_padding": 2}, (2, 2, 3)),  # output_padding >= stride
        ({}, (3, 2, 3)),  # channel mismatch
        ({"groups": 2}, (3, 2, 3)),  # groups not dividing in_channels
        ({}, (2, 2)),  # 2-D weight
    ],
)
def test_bad_conv_transpose_arguments_raise_runtime_error_as_pytorch(kwargs, wshape):
    with pytest.raises(RuntimeError):
        TF.conv_transpose1d(torch.zeros(1, 2, 5), torch.zeros(wshape), **kwargs)
    with pytest.raises(RuntimeError, match="conv_transpose1d"):
        F.conv_transpose1d(lg.zeros(1, 2, 5), lg.zeros(wshape), **kwargs)


def test_conv_transpose_padding_mode_other_than_zeros_raises_value_error_as_pytorch():
    for lib in (torch, lg):
        with pytest.raises(ValueError, match="zeros"):
            lib.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")


# (function, input shape, weight shape, options): output_padding past the stride (below the
# dilation) leaves the gradient's windows positions past the input's last
GRAPHS = [
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), {"dilation": 2, "output_padding": 1}),
    ("conv_transpose2d", (2, 4, 3, 4), (4, 2, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("conv_transpose3d", (1, 2, 3, 2, 2), (2, 3, 2, 2, 2), {"stride": (2, 1, 1), "padding": 1}),
]


def _recorded(lib, name, x, w, b, options):
    args = [lib.tensor(a, requires_grad=True) for a in (x, w)]
    bias = None if b is None else lib.tensor(b, requires_grad=True)
    y = getattr(lib.nn.functional, name)(*args, bias, **options)
    fn = y.grad_fn
    return (
        y,
        args + ([bias] if bias is not None else []),
        {
            "name": fn.name(),
            "children": [None if n is None else n.name() for n, _ in fn.next_functions],
            "transposed": fn._saved_transposed,
            "output_padding": tuple(fn._saved_output_padding),
            "stride": tuple(fn._saved_stride),
            "groups": fn._saved_groups,
        },
    )


@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize(("name", "xshape", "wshape", "options"), GRAPHS)
def test_conv_transpose_records_pytorchs_one_convolution_node(
    name, xshape, wshape, options, with_bias
):
    x, w = RNG.standard_normal(xshape), RNG.standard_normal(wshape)
    groups = options.get("groups", 1)
    b = RNG.standard_normal(wshape[1] * groups) if with_bias else None
    y, inputs, ours = _recorded(lg, name, x, w, b, options)
    want_y, want_inputs, theirs = _recorded(torch, name, x, w, b, options)
    assert ours == theirs
    g = RNG.standard_normal(tuple(want_y.shape))
    got = lg.autograd.grad(y, inputs, lg.tensor(g))
    want = torch.autograd.grad(want_y, want_inputs, torch.tensor(g))
    assert_close(y, want_y)
    for a, e in zip(got, want):
        assert_close(a, e)


@pytest.mark.parametrize(("name", "xshape", "wshape", "options"), GRAPHS)
def test_conv_transpose_gradcheck_and_gradgradcheck(name, xshape, wshape, options):
    groups = options.get("groups", 1)
    inputs = [
        lg.tensor(RNG.standard_normal(s), requires_grad=True)
        for s in (xshape, wshape, (wshape[1] * groups,))
    ]
    fn = getattr(F, name)

    def f(x, w, b):
        return fn(x, w, b, **options)

    assert lg.autograd.gradcheck(f, inputs)
    assert lg.autograd.gradgradcheck(f, inputs)


def _jvp_and_vmap(lib, name, x, w, tx, tw, options):
    fn = getattr(lib.nn.functional, name)
    weight = lib.tensor(w)
    _, jvp = lib.func.jvp(
        lambda a, k: fn(a, k, **options),
        (lib.tensor(x), weight),
        (lib.tensor(tx), lib.tensor(tw)),
    )
    per_example = lib.vmap(lambda a: fn(a[None], weight, **options)[0])(lib.tensor(x))
    return jvp, per_example


@pytest.mark.parametrize(("name", "xshape", "wshape", "options"), GRAPHS[:2])
def test_conv_transpose_forward_mode_and_vmap_match_pytorch(name, xshape, wshape, options):
    arrays = [RNG.standard_normal(s) for s in (xshape, wshape, xshape, wshape)]
    ours = _jvp_and_vmap(lg, name, *arrays, options)
    theirs = _jvp_and_vmap(torch, name, *arrays, options)
    for a, e in zip(ours, theirs):
        assert_close(a, e)
