"""F.interpolate, the Upsample layers and pixel (un)shuffle agree with PyTorch's: values,
gradients to second order, float32, reprs and error types."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F

from ._compare import assert_close, run_both

RNG = np.random.default_rng(31)

# (input shape, interpolate keywords)
CASES = [
    ((2, 3, 7), {"size": 11}),
    ((2, 3, 7), {"scale_factor": 2.3, "mode": "nearest-exact"}),
    ((2, 3, 7, 5), {"scale_factor": (1.7, 0.6)}),
    ((1, 2, 4, 5, 3), {"size": (6, 3, 7), "mode": "nearest-exact"}),
    ((2, 3, 7), {"scale_factor": 2.3, "recompute_scale_factor": True}),
    ((2, 3, 7), {"size": 11, "mode": "linear"}),
    ((2, 3, 7), {"size": 4, "mode": "linear", "align_corners": True}),
    ((2, 3, 7), {"scale_factor": 2.5, "mode": "linear"}),
    ((2, 3, 7, 5), {"scale_factor": (1.7, 0.6), "mode": "bilinear"}),
    ((2, 3, 7, 5), {"size": (9, 12), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 7, 5), {"size": (9, 12), "mode": "bicubic"}),
    ((2, 3, 7, 5), {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True}),
    ((2, 3, 7, 5), {"size": (3, 2), "mode": "bicubic"}),
    ((1, 2, 4, 5, 3), {"size": (6, 3, 7), "mode": "trilinear"}),
    ((1, 2, 4, 5, 3), {"scale_factor": 2, "mode": "trilinear", "align_corners": True}),
    ((2, 3, 7, 5), {"size": (3, 4), "mode": "area"}),
]
IDS = [f"{shape}-{kw}" for shape, kw in CASES]


@pytest.mark.parametrize(("shape", "kwargs"), CASES, ids=IDS)
def test_interpolate_matches_pytorch_to_second_order(shape, kwargs):
    run_both(
        lambda x: F.interpolate(x, **kwargs),
        lambda x: TF.interpolate(x, **kwargs),
        RNG.standard_normal(shape),
        RNG,
    )


@pytest.mark.parametrize(("shape", "kwargs"), CASES, ids=IDS)
def test_interpolate_float32_values_match_pytorch(shape, kwargs):
    x = RNG.standard_normal(shape).astype(np.float32)
    out = F.interpolate(lg.tensor(x), **kwargs)
    assert out.dtype == lg.float32
    # PyTorch computes source positions in float32: weights differ in the last bits.
    assert_close(out, TF.interpolate(torch.tensor(x), **kwargs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "shape"),
    [
        ("Upsample", (), {"scale_factor": 2}, (2, 3, 4, 5)),
        ("Upsample", ((3, 8),), {"mode": "bilinear"}, (2, 3, 4, 5)),
        ("Upsample", (), {"scale_factor": (2.0, 1.5), "mode": "bicubic"}, (1, 2, 4, 5)),
        ("UpsamplingNearest2d", (), {"size": 7}, (2, 3, 4, 5)),
        ("UpsamplingBilinear2d", (), {"scale_factor": 2}, (2, 3, 4, 5)),
        ("PixelShuffle", (2,), {}, (2, 8, 3, 4)),
        ("PixelShuffle", (3,), {}, (9, 2, 3)),
        ("PixelUnshuffle", (2,), {}, (2, 3, 4, 6)),
    ],
)
def test_upsampling_layers_match_pytorch(name, args, kwargs, shape):
    ours, theirs = getattr(lg.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    run_both(ours, theirs, RNG.standard_normal(shape), RNG)


def test_pixel_unshuffle_inverts_pixel_shuffle_exactly():
    x = lg.tensor(RNG.standard_normal((2, 12, 3, 5)))
    assert lg.equal(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), x)


def test_deprecated_upsample_aliases_warn_and_match_pytorch():
    x = RNG.standard_normal((1, 2, 3, 4))
    for name in ("upsample", "upsample_nearest", "upsample_bilinear"):
        with pytest.warns(UserWarning, match="deprecated"):
            ours = getattr(F, name)(lg.tensor(x), scale_factor=2)
        with pytest.warns(UserWarning):
            theirs = getattr(TF, name)(torch.tensor(x), scale_factor=2)
        assert_close(ours, theirs)


@pytest.mark.parametrize(
    ("shape", "kwargs", "error"),
    [
        ((1, 2, 4), {}, ValueError),  # neither size nor scale_factor
        ((1, 2, 4), {"size": 3, "scale_factor": 2}, ValueError),
        ((1, 2, 4), {"size": 3, "align_corners": True}, ValueError),  # nearest with corners
        ((1, 2, 4), {"size": 3, "mode": "bilinear"}, NotImplementedError),  # 3-D input
        ((2, 4), {"size": 3}, NotImplementedError),  # no batch dim
        ((1, 2, 4, 4), {"size": (3, 3, 3)}, ValueError),
    ],
)
def test_bad_interpolate_arguments_raise_as_pytorch(shape, kwargs, error):
    with pytest.raises(error):
        TF.interpolate(torch.zeros(shape), **kwargs)
    with pytest.raises(error, match=r"interpolate|size|align_corners"):
        F.interpolate(lg.zeros(shape), **kwargs)


def test_pixel_shuffle_indivisible_channels_raise_runtime_error_as_pytorch():
    with pytest.raises(RuntimeError):
        TF.pixel_shuffle(torch.zeros(1, 6, 2, 2), 2)
    with pytest.raises(RuntimeError, match="pixel_shuffle"):
        F.pixel_shuffle(lg.zeros(1, 6, 2, 2), 2)


_UPSAMPLE_CASES = [
    ((1, 2, 5), "nearest", "UpsampleNearest1DBackward0"),
    ((1, 2, 5), "nearest-exact", "UpsampleNearestExact1DBackward0"),
    ((1, 2, 5), "linear", "UpsampleLinear1DBackward0"),
    ((1, 2, 5, 4), "nearest", "UpsampleNearest2DBackward0"),
    ((1, 2, 5, 4), "bilinear", "UpsampleBilinear2DBackward0"),
    ((1, 2, 5, 4), "bicubic", "UpsampleBicubic2DBackward0"),
    ((1, 2, 3, 5, 4), "nearest", "UpsampleNearest3DBackward0"),
    ((1, 2, 3, 5, 4), "trilinear", "UpsampleTrilinear3DBackward0"),
]
_SAVED = ("output_size", "scales", "scales_d", "scales_h", "scales_w", "self_sym_sizes",
          "align_corners")  # fmt: skip


def _upsample_nodes_and_derivatives(lib, x_values, mode, options):
    x = lib.tensor(x_values, requires_grad=True)
    y = lib.nn.functional.interpolate(x, mode=mode, **options)
    scale = lib.tensor(np.arange(float(y.numel())).reshape(tuple(y.shape)) / y.numel())
    (g,) = lib.autograd.grad((y * y * scale).sum(), x, create_graph=True)
    (g2,) = lib.autograd.grad((g * g).sum(), x)
    node = y.grad_fn
    saved = {k: getattr(node, f"_saved_{k}") for k in _SAVED if hasattr(node, f"_saved_{k}")}
    return (node.name(), g.grad_fn.name(), saved), [y, g, g2]


@pytest.mark.parametrize("sized", [False, True], ids=["scale_factor", "size"])
@pytest.mark.parametrize(("shape", "mode", "node"), _UPSAMPLE_CASES)
def test_interpolate_is_one_node_as_in_pytorch(shape, mode, node, sized):
    x = np.random.default_rng(2).standard_normal(shape)
    options = {"size": tuple(s + 3 for s in shape[2:])} if sized else {"scale_factor": 1.5}
    if not mode.startswith("nearest"):
        options["align_corners"] = sized
    ours, values = _upsample_nodes_and_derivatives(lg, x, mode, options)
    theirs, expected = _upsample_nodes_and_derivatives(torch, x, mode, options)
    assert ours == theirs
    assert ours[0] == node
    for a, b in zip(values, expected, strict=True):
        assert_close(a, b)
