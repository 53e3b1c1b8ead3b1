"""Dropout1d/2d/3d, AlphaDropout and FeatureAlphaDropout behave as PyTorch's: the same
statistics and structure of the random masks (the draws themselves differ), eval-mode
identity, reprs, warnings and errors. Each test runs on leafgrad and on PyTorch."""

import math

import numpy as np
import pytest

SELU_SATURATION = 1.7580993408473766

CHANNEL_LAYERS = [("Dropout1d", (40, 50, 6)), ("Dropout2d", (40, 50, 3, 2)),
                  ("Dropout3d", (40, 50, 2, 2, 2))]  # fmt: skip


@pytest.mark.parametrize(("name", "shape"), CHANNEL_LAYERS)
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(torch, name, shape):
    torch.manual_seed(0)
    layer = getattr(torch.nn, name)(p=0.3)
    out = layer(torch.ones(*shape, dtype=torch.float64)).numpy()
    flat = out.reshape(shape[0], shape[1], -1)
    # Every channel is either all zero or all 1 / (1 - p).
    assert np.all((flat == 0).all(-1) | np.isclose(flat, 1 / 0.7).all(-1))
    dropped = (flat == 0).all(-1).mean()
    assert abs(dropped - 0.3) < 0.05  # 2000 channels: 5 standard deviations


@pytest.mark.parametrize(("name", "shape"), [*CHANNEL_LAYERS, ("AlphaDropout", (4, 5)),
                                             ("FeatureAlphaDropout", (4, 5, 3))])  # fmt: skip
def test_dropout_variants_are_the_identity_in_eval_mode(torch, name, shape):
    layer = getattr(torch.nn, name)(p=0.4)
    assert repr(layer) == f"{name}(p=0.4, inplace=False)"
    layer.eval()
    x = torch.randn(*shape)
    assert torch.equal(layer(x), x)


def test_unbatched_dropout1d_and_dropout3d_drop_channels_of_the_single_sample(torch):
    torch.manual_seed(1)
    out = torch.nn.functional.dropout1d(torch.ones(400, 5), 0.5).numpy()
    assert np.all((out == 0).all(-1) | (out == 2).all(-1))
    out = torch.nn.functional.dropout3d(torch.ones(400, 2, 2, 2), 0.5).numpy().reshape(400, -1)
    assert np.all((out == 0).all(-1) | (out == 2).all(-1))


def test_alpha_dropout_keeps_zero_mean_and_unit_variance(torch):
    torch.manual_seed(2)
    x = torch.randn(200_000, dtype=torch.float64)
    out = torch.nn.functional.alpha_dropout(x, 0.2, training=True)
    assert abs(float(out.mean())) < 0.01
    assert abs(float(out.var()) - 1) < 0.02
    # Dropped elements all take one value: SELU's saturation mapped by the same affine map.
    a = 1 / math.sqrt((SELU_SATURATION**2 * 0.2 + 1) * 0.8)
    dropped = -SELU_SATURATION * a + SELU_SATURATION * a * 0.2
    fraction = float((out == dropped).double().mean())
    assert abs(fraction - 0.2) < 0.01


def test_feature_alpha_dropout_drops_whole_channels_to_one_value(torch):
    torch.manual_seed(3)
    x = torch.zeros(300, 4, 5, dtype=torch.float64)
    out = torch.nn.functional.feature_alpha_dropout(x, 0.5, training=True).numpy()
    assert np.all(np.ptp(out, axis=-1) == 0)  # a whole channel shares its mask
    assert len(np.unique(out)) == 2


def test_dropout_gradient_is_the_mask_times_the_scale(torch):
    torch.manual_seed(4)
    x = torch.ones(50, 20, 3, dtype=torch.float64, requires_grad=True)
    out = torch.nn.functional.dropout1d(x, 0.25)
    (grad,) = torch.autograd.grad(out.sum(), x)
    assert torch.equal(grad, out.detach())


def test_functional_alpha_dropouts_default_to_not_training(torch):
    x = torch.randn(3, 4)
    assert torch.equal(torch.nn.functional.alpha_dropout(x), x)
    assert torch.equal(torch.nn.functional.feature_alpha_dropout(x), x)


def test_dropout_variant_errors_and_warnings(torch):
    F = torch.nn.functional
    with pytest.raises(ValueError, match="between 0 and 1"):
        torch.nn.Dropout2d(p=1.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.alpha_dropout(torch.zeros(3), 1.5)
    with pytest.raises(RuntimeError, match="2D or 3D"):
        F.dropout1d(torch.zeros(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="2 dimensions"):
        F.feature_alpha_dropout(torch.zeros(3), 0.5, True)
    with pytest.warns(UserWarning, match="dropout2d"):
        F.dropout2d(torch.zeros(2, 3, 4))
    with pytest.warns(UserWarning, match="dropout3d"):
        F.dropout3d(torch.zeros(2, 3, 4))


def test_dropout_with_p_one_gives_zeros(torch):
    x = torch.randn(3, 4, 2)
    assert not torch.nn.functional.dropout1d(x, 1.0).any()
    assert not torch.nn.functional.dropout2d(x.unsqueeze(0), 1.0).any()
    assert not torch.nn.functional.alpha_dropout(x, 1.0, True).any()


@pytest.mark.parametrize(
    ("fn", "shape", "needle"),
    [("dropout2d", (2, 3), "To retain the behavior and silence this warning, please use "
      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs "
      "with 2 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
      "3D or 4D inputs)."),
     ("dropout2d", (2, 3, 4), "where C is the channel dim. This behavior will change in a "
      "future release to interpret the input as one without a batch dimension, i.e. shape "
      "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
      "dropout1d instead."),
     ("dropout3d", (2, 3), "(i.e. 4D or 5D inputs).")],
)  # fmt: skip
def test_dropout_nd_deprecation_warnings_use_pytorchs_words(torch, fn, shape, needle):
    # the defining-a-neural-network recipe feeds Dropout2d a 2-D input and shows this text
    with pytest.warns(UserWarning) as record:
        getattr(torch.nn.functional, fn)(torch.zeros(*shape))
    assert any(needle in str(w.message) for w in record)
