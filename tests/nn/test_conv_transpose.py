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
