"""ATen's positional and multi-output forms of the nn ops as ``torch.X`` has them
(native_layer_norm, native_batch_norm, convolution, grid_sampler, embedding_bag, lstm ...)
against PyTorch: values, saved statistics, auxiliary outputs and gradients."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


rng = np.random.default_rng(13)


# ----------------------------------------------------------------------------- ATen nn forms
def test_native_layer_norm(torch):
    x, w, b = rng.standard_normal((2, 3, 4)), rng.standard_normal(4), rng.standard_normal(4)
    compare(lambda m, a, c, d: m.native_layer_norm(a, [4], c, d, 1e-5), [x, w, b], torch=torch)
    compare(lambda m, a: m.native_layer_norm(a, [3, 4], None, None, 1e-3), [x], torch=torch)


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm(torch, training):
    x, w, b = rng.standard_normal((4, 3, 2)), rng.standard_normal(3), rng.standard_normal(3)
    stats = {}

    def fn(m, a, c, d):
        mean, var = m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)
        out = m.native_batch_norm(a, c, d, mean, var, training, 0.1, 1e-5)
        stats[m.__name__] = (mean.numpy().copy(), var.numpy().copy())
        return out

    compare(fn, [x, w, b], torch=torch)
    assert_close(lg.tensor(stats["leafgrad"][0]), stats["torch"][0])
    assert_close(lg.tensor(stats["leafgrad"][1]), stats["torch"][1])


def test_native_group_norm(torch):
    x, w, b = rng.standard_normal((2, 4, 3)), rng.standard_normal(4), rng.standard_normal(4)
    compare(lambda m, a, c, d: m.native_group_norm(a, c, d, 2, 4, 3, 2, 1e-5)[0], [x, w, b],
            torch=torch)  # fmt: skip
    ours = lg.native_group_norm(lg.tensor(x), None, None, 2, 4, 3, 2, 1e-5)
    theirs = torch.native_group_norm(torch.tensor(x), None, None, 2, 4, 3, 2, 1e-5)
    for a, t in zip(ours, theirs):
        assert_close(a, t.detach().numpy())


def test_native_dropout(torch):
    x = rng.standard_normal((3, 4))
    for m in (lg, torch):
        out, mask = m.native_dropout(m.tensor(x), 0.5, False)
        assert mask.dtype == m.bool and bool(mask.all()) and np.allclose(out.numpy(), x)
    out, mask = lg.native_dropout(lg.tensor(x), 0.5, True)
    kept = mask.numpy()
    assert_close(out, np.where(kept, x * 2, 0.0))
    with pytest.raises(RuntimeError):
        lg.native_dropout(lg.tensor(x), 1.5, True)
    assert lg.native_channel_shuffle is lg.channel_shuffle


@pytest.mark.parametrize("transposed", [False, True])
def test_convolution(torch, transposed):
    x = rng.standard_normal((1, 4, 5, 5))
    w = rng.standard_normal((4, 2, 3, 3))
    b = rng.standard_normal(4)  # out channels: 4 = 2 per group x 2 groups either way

    def fn(m, a, c, d):
        return m.convolution(a, c, d, [1, 2], [1, 0], [1, 1],
                             transposed, [0, 1] if transposed else [0, 0], 2)  # fmt: skip

    compare(fn, [x, w, b], torch=torch, second=False)


def test_conv_tbc(torch):
    x, w, b = rng.standard_normal((6, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)
    compare(lambda m, a, c, d: m.conv_tbc(a, c, d, 1), [x, w, b], torch=torch, second=False)


def test_grid_sampler_and_affine_grid_generator(torch):
    x = rng.standard_normal((1, 2, 4, 5))
    grid = rng.uniform(-1.1, 1.1, (1, 3, 3, 2))
    for interp, pad in [(0, 0), (1, 1), (0, 2)]:
        for name in ("grid_sampler", "grid_sampler_2d"):
            compare(lambda m, a, g, n=name, i=interp, p=pad: getattr(m, n)(a, g, i, p, False),
                    [x, grid], torch=torch, second=False)  # fmt: skip
    x3 = rng.standard_normal((1, 1, 3, 3, 3))
    grid3 = rng.uniform(-1, 1, (1, 2, 2, 2, 3))
    compare(lambda m, a, g: m.grid_sampler_3d(a, g, 0, 0, True), [x3, grid3], torch=torch,
            second=False)  # fmt: skip
    theta = rng.standard_normal((2, 2, 3))
    compare(lambda m, t: m.affine_grid_generator(t, [2, 1, 3, 4], False), [theta], torch=torch)
    with pytest.raises(RuntimeError):
        lg.grid_sampler_2d(lg.tensor(x3), lg.tensor(grid3), 0, 0, False)


def test_ctc_loss_with_integer_reduction(torch):
    logits = rng.standard_normal((6, 2, 4))
    targets = np.array([[1, 2], [3, 1]])
    for reduction in (0, 1, 2):

        def fn(m, x, r=reduction):
            lp = x.log_softmax(2)
            return m.ctc_loss(lp, m.tensor(targets), [6, 5], [2, 2], 0, r)

        compare(fn, [logits], torch=torch, second=False)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag(torch, mode):
    w = rng.standard_normal((10, 3))
    idx, offsets = [1, 2, 4, 5, 4, 3, 2, 9], [0, 4]

    def fn(m, weight):
        return m.embedding_bag(weight, m.tensor(idx), m.tensor(offsets), False, mode)[0]

    compare(fn, [w], torch=torch, second=False)
    ours = lg.embedding_bag(lg.tensor(w), lg.tensor(idx), lg.tensor(offsets), False, mode)
    theirs = torch.embedding_bag(torch.tensor(w), torch.tensor(idx), torch.tensor(offsets),
                                 False, mode)  # fmt: skip
    for a, t in list(zip(ours, theirs))[1:]:
        assert a.tolist() == t.tolist()
    for weight_dtype in ("float32", "float64"):
        ours = lg.embedding_bag(
            lg.tensor(w, dtype=getattr(lg, weight_dtype)),
            lg.tensor(idx),
            lg.tensor(offsets),
            False,
            mode,
            False,
            None,
            False,
            2,
        )
        theirs = torch.embedding_bag(torch.tensor(w, dtype=getattr(torch, weight_dtype)),
                                     torch.tensor(idx), torch.tensor(offsets), False, mode,
                                     False, None, False, 2)  # fmt: skip
        assert_close(ours[0], theirs[0].numpy())
        for a, t in list(zip(ours, theirs))[1:]:
            assert a.tolist() == t.tolist()
        ours = lg.embedding_bag(
            lg.tensor(w, dtype=getattr(lg, weight_dtype)),
            lg.tensor(idx),
            lg.tensor(offsets),
            False,
            mode,
        )
        theirs = torch.embedding_bag(
            torch.tensor(w, dtype=getattr(torch, weight_dtype)),
            torch.tensor(idx),
            torch.tensor(offsets),
            False,
            mode,
        )
        for a, t in list(zip(ours, theirs))[1:]:
            assert a.tolist() == t.tolist()


def test_embedding_renorm_(torch):
    w = rng.standard_normal((5, 3)) * 2
    ours, theirs = lg.tensor(w), torch.tensor(w)
    idx = [0, 2, 2]
    assert lg.embedding_renorm_(ours, lg.tensor(idx), 1.0, 2.0) is ours
    torch.embedding_renorm_(theirs, torch.tensor(idx), 1.0, 2.0)
    assert_close(ours, theirs.numpy())


def _rnn_weights(gates, size, hidden, layers, dirs, biases, proj=0):
    ws = []
    for layer in range(layers):
        inp = size if layer == 0 else (proj or hidden) * dirs
        for _ in range(dirs):
            ws += [rng.standard_normal((gates * hidden, inp)) * 0.5,
                   rng.standard_normal((gates * hidden, proj or hidden)) * 0.5]  # fmt: skip
            if biases:
                ws += [rng.standard_normal(gates * hidden) * 0.5 for _ in range(2)]
            if proj:
                ws.append(rng.standard_normal((proj, hidden)) * 0.5)
    return ws


@pytest.mark.parametrize("layers, dirs, biases, batch_first", [
    (1, 1, True, False), (2, 2, True, True), (2, 1, False, False)])  # fmt: skip
def test_lstm_gru_rnn_over_flat_weights(torch, layers, dirs, biases, batch_first):
    T, B, size, hidden = 4, 2, 3, 5
    x = rng.standard_normal((B, T, size) if batch_first else (T, B, size))
    h0 = rng.standard_normal((layers * dirs, B, hidden))
    c0 = rng.standard_normal((layers * dirs, B, hidden))
    flags = (biases, layers, 0.0, False, dirs == 2, batch_first)
    lstm_w = _rnn_weights(4, size, hidden, layers, dirs, biases)
    compare(lambda m, a, h, c, *w: m.lstm(a, (h, c), list(w), *flags), [x, h0, c0, *lstm_w],
            torch=torch, second=False)  # fmt: skip
    gru_w = _rnn_weights(3, size, hidden, layers, dirs, biases)
    compare(lambda m, a, h, *w: m.gru(a, h, list(w), *flags), [x, h0, *gru_w], torch=torch,
            second=False)  # fmt: skip
    rnn_w = _rnn_weights(1, size, hidden, layers, dirs, biases)
    for name in ("rnn_tanh", "rnn_relu"):
        compare(lambda m, a, h, *w, n=name: getattr(m, n)(a, h, list(w), *flags),
                [x, h0, *rnn_w], torch=torch, second=False)  # fmt: skip


def test_lstm_projected_and_a_2d_input_refused(torch):
    x = rng.standard_normal((4, 2, 3))
    h0, c0 = rng.standard_normal((1, 2, 2)), rng.standard_normal((1, 2, 5))
    w = _rnn_weights(4, 3, 5, 1, 1, True, proj=2)
    flags = (True, 1, 0.0, False, False, False)
    compare(lambda m, a, h, c, *ws: m.lstm(a, (h, c), list(ws), *flags), [x, h0, c0, *w],
            torch=torch, second=False)  # fmt: skip
    for m in (lg, torch):
        with pytest.raises(IndexError):
            m.gru(m.tensor(x[:, 0]), m.tensor(h0[:, 0]), [m.tensor(v) for v in w[:4]], *flags)
    with pytest.raises(RuntimeError, match="expected 4 weights"):
        lg.gru(lg.tensor(x), lg.tensor(h0), [lg.ones(1)], *flags)
