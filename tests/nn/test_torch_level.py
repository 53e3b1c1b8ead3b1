"""torch.conv2d, torch.batch_norm, torch.dropout, torch.kl_div ...: nn's layers under their ATen
signatures at the top level, against PyTorch (values, first and second derivatives)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

torch = pytest.importorskip("torch")

rng = np.random.default_rng(3)
X = rng.standard_normal((2, 6, 5))
Y = rng.standard_normal((2, 6, 5))
W = rng.standard_normal((4, 6, 3))

CASES = {
    "conv1d": (lambda m, x, w: m.conv1d(x, w, None, 1, 1), [X, W]),
    "conv_transpose1d": (lambda m, x, w: m.conv_transpose1d(x[:, :4], w), [X, W]),
    "batch_norm": (
        lambda m, x: m.batch_norm(
            x,
            None,
            None,
            m.zeros(6, dtype=m.float64),
            m.ones(6, dtype=m.float64),
            True,
            0.1,
            1e-5,
            False,
        ),
        [X],
    ),
    "batch_norm_eval": (
        lambda m, x, w: m.batch_norm(
            x,
            w[0, :, 0],
            w[1, :, 0],
            m.tensor(X[0, :, 0]),
            m.tensor(Y[0, :, 0] ** 2),
            False,
            0.1,
            1e-5,
            False,
        ),
        [X, W],
    ),
    "instance_norm": (
        lambda m, x: m.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
        [X],
    ),
    "layer_norm": (lambda m, x, w: m.layer_norm(x, [5], w[0, 0, :].repeat(2)[:5]), [X, W]),
    "group_norm": (lambda m, x: m.group_norm(x, 3), [X]),
    "rms_norm": (lambda m, x: m.rms_norm(x, [5]), [X]),
    "dropout_off": (lambda m, x: m.dropout(x, 0.3, False), [X]),
    "feature_dropout_off": (lambda m, x: m.feature_dropout(x, 0.3, False), [X]),
    "alpha_dropout_off": (lambda m, x: m.alpha_dropout(x, 0.3, False), [X]),
    "embedding": (lambda m, w: m.embedding(w[0], m.tensor([[0, 2], [5, 1]])), [X]),
    "embedding_padding": (lambda m, w: m.embedding(w[0], m.tensor([[0, 2], [5, 2]]), 2), [X]),
    "bilinear": (
        lambda m, x, y, w: m.bilinear(x[0], y[0], w),
        [X, Y, rng.standard_normal((2, 5, 5))],
    ),
    "celu": (lambda m, x: m.celu(x, 2.0), [X]),
    "selu": (lambda m, x: m.selu(x), [X]),
    "rrelu_eval": (lambda m, x: m.rrelu(x, 0.1, 0.3), [X]),
    "threshold": (lambda m, x: m.threshold(x, 0.1, -3.0), [X]),
    "hardshrink": (lambda m, x: m.hardshrink(x, 0.3), [X]),
    "hardshrink_method": (lambda m, x: x.hardshrink(), [X]),
    "prelu": (lambda m, x, w: m.prelu(x, w[0, :, 0]), [X, W]),
    "prelu_method": (lambda m, x, w: x.prelu(w[0, :1, 0]), [X, W]),
    "pixel_shuffle": (lambda m, x: m.pixel_shuffle(x.reshape(1, 4, 3, 5), 2), [X]),
    "pixel_unshuffle": (lambda m, x: m.pixel_unshuffle(x.reshape(1, 1, 6, 10), 2), [X]),
    "channel_shuffle": (lambda m, x: m.channel_shuffle(x, 3), [X]),
    "pdist": (lambda m, x: m.pdist(x[0]), [X]),
    "pdist_p": (lambda m, x: m.pdist(x[0], 1.5), [X]),
    "pairwise_distance": (lambda m, x, y: m.pairwise_distance(x[0], y[0]), [X, Y]),
    "cosine_similarity": (lambda m, x, y: m.cosine_similarity(x, y), [X, Y]),
    "cosine_embedding_loss": (
        lambda m, x, y: m.cosine_embedding_loss(
            x[0], y[0], m.tensor([1.0, -1, 1, 1, -1, 1], dtype=m.float64), 0.1, 2
        ),
        [X, Y],
    ),
    "hinge_embedding_loss": (lambda m, x: m.hinge_embedding_loss(x, (x > 0) * 2.0 - 1), [X]),
    "margin_ranking_loss": (
        lambda m, x, y: m.margin_ranking_loss(x, y, (x > y) * 1.0, 0, 1),
        [X, Y],
    ),
    "triplet_margin_loss": (lambda m, x, y: m.triplet_margin_loss(x[0], y[0], x[1]), [X, Y]),
    "kl_div": (lambda m, x, y: m.kl_div(x, y.exp()), [X, Y]),
    "kl_div_mean_log_target": (lambda m, x, y: m.kl_div(x, y, 1, log_target=True), [X, Y]),
    "poisson_nll_loss": (
        lambda m, x, y: m.poisson_nll_loss(x, y.abs(), True, True, 1e-8, 1),
        [X, Y],
    ),
    "bce_with_logits": (
        lambda m, x, y: m.binary_cross_entropy_with_logits(
            x, y.sigmoid(), None, y[0].abs().detach(), 2
        ),
        [X, Y],
    ),
    "adaptive_avg_pool1d": (lambda m, x: m.adaptive_avg_pool1d(x, 2), [X]),
    "adaptive_max_pool1d": (lambda m, x: m.adaptive_max_pool1d(x, 2), [X]),
    "avg_pool1d": (lambda m, x: m.avg_pool1d(x, 2), [X]),
    "max_pool1d": (lambda m, x: m.max_pool1d(x, 2, [], 1), [X]),
    "max_pool1d_with_indices": (lambda m, x: m.max_pool1d_with_indices(x, 2, 1), [X]),
    "max_pool2d": (lambda m, x: m.max_pool2d(x, 2), [X]),
    "max_pool3d": (lambda m, x: m.max_pool3d(x.unsqueeze(0), (1, 2, 2)), [X]),
    "constant_pad_nd": (lambda m, x: m.constant_pad_nd(x, [1, -1], 2.5), [X]),
    "lstm_cell": (
        lambda m, x, h, c, w: m.lstm_cell(x, (h, c), w[:8, :3], w[8:, :2], w[0], w[1, :8]),
        [X[0, :, :3], Y[0, :, :2], Y[1, :, :2], rng.standard_normal((16, 8))],
    ),
    "gru_cell": (
        lambda m, x, h, w: m.gru_cell(x, h, w[:6, :3], w[6:12, :2], w[0, :6], w[1, :6]),
        [X[0, :, :3], Y[0, :, :2], rng.standard_normal((12, 8))],
    ),
    "rnn_tanh_cell": (
        lambda m, x, h, w: m.rnn_tanh_cell(x, h, w[:2, :3], w[2:, :2]),
        [X[0, :, :3], Y[0, :, :2], rng.standard_normal((4, 3))],
    ),
    "rnn_relu_cell": (
        lambda m, x, h, w: m.rnn_relu_cell(x, h, w[:2, :3], w[2:, :2], w[0, :2], w[1, :2]),
        [X[0, :, :3], Y[0, :, :2], rng.standard_normal((4, 3))],
    ),
    "celu_": (lambda m, x: m.celu_(x * 1, 2.0), [X]),
    "selu_": (lambda m, x: m.selu_(x * 1), [X]),
    "threshold_": (lambda m, x: m.threshold_(x * 1, 0.1, -3.0), [X]),
    "dropout_off_": (lambda m, x: m.dropout_(x * 1, 0.5, False), [X]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_level_function_matches_pytorch(name):
    fn, arrays = CASES[name]
    # PyTorch has no double backward for pdist; its second derivatives are checked numerically.
    compare(fn, arrays, torch=torch, second=not name.startswith("pdist"))
    if name.startswith("pdist"):
        x = lg.tensor(arrays[0], requires_grad=True)
        assert lg.autograd.gradgradcheck(lambda x: fn(lg, x), (x,))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.dropout(m.ones(3), 1.5, True),
        lambda m: m.dropout(m.ones(3), 0.5),
        lambda m: m.feature_dropout(m.ones(4), 0.5, True),
        lambda m: m.kl_div(m.ones(3), m.ones(3), "mean"),
        lambda m: m.channel_shuffle(m.ones(2, 6, 3), 0),
        lambda m: m.channel_shuffle(m.ones(2, 6, 3), 4),
        lambda m: m.channel_shuffle(m.ones(2, 6), 3),
        lambda m: m.pdist(m.ones(3, 2, 2)),
        lambda m: m.pdist(m.ones(3, 2), -1.0),
        lambda m: m.pdist(m.ones(3, 2, dtype=m.int64)),
        lambda m: m.poisson_nll_loss(m.ones(3), m.ones(3)),
        lambda m: m.hardshrink(m.ones(3, dtype=m.int64)),
        lambda m: m.prelu(m.ones(2, 3), m.ones(2)),
    ],
)
def test_torch_level_errors_match_pytorch(fn):
    errors = []
    for m in (torch, lg):
        with pytest.raises(Exception) as info:
            fn(m)
        errors.append(info.type)
    assert errors[0] is errors[1]


def test_losses_reduce_as_the_int_enum_says_and_not_at_all_by_default():
    x, y = lg.tensor(X), lg.tensor(Y)
    assert lg.margin_ranking_loss(x, y, lg.ones(2, 6, 5)).shape == (2, 6, 5)
    assert lg.margin_ranking_loss(x, y, lg.ones(2, 6, 5), 0.0, 1).dim() == 0
    assert lg.hinge_embedding_loss(x, lg.ones(2, 6, 5), 1.0, 2).dim() == 0
    with pytest.raises(RuntimeError, match="reduction must be 0"):
        lg.kl_div(x, y, 3)


def test_dropout_in_training_zeros_or_scales_each_element():
    lg.manual_seed(0)
    out = lg.dropout(lg.ones(1000, dtype=lg.float64), 0.25, True)
    values = set(np.unique(out.numpy()).tolist())
    assert values <= {0.0, 4.0 / 3.0} and len(values) == 2
    channels = lg.feature_dropout(lg.ones(20, 30, 4), 0.5, True)
    per_channel = channels.numpy().reshape(600, 4)
    assert (per_channel == per_channel[:, :1]).all()  # whole channels kept or dropped


def test_in_place_twins_write_into_their_input():
    x = lg.tensor([-1.0, 0.05, 2.0])
    assert lg.threshold_(x, 0.1, -3.0) is x and x.tolist() == [-3.0, -3.0, 2.0]
    y = lg.ones(4)
    assert lg.dropout_(y, 0.5, False) is y


def test_rrelu_draws_its_slopes_from_a_given_generator():
    g1, g2 = lg.Generator().manual_seed(5), lg.Generator().manual_seed(5)
    x = -lg.ones(50)
    a = lg.rrelu(x, 0.1, 0.3, True, g1)
    b = lg.rrelu(x, 0.1, 0.3, True, g2)
    assert a.tolist() == b.tolist()
    assert ((a >= -0.3) & (a <= -0.1)).all()
