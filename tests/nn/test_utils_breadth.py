"""nn.utils: packed sequences (and the recurrent layers reading them), gradient-clipping
helpers, skip_init, batch-norm fusion, weight memory formats and legacy spectral norm."""

import warnings

import numpy as np
import pytest

import leafgrad as lg

from ._compare import assert_close, copy_weights

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(21)
SEQS = [RNG.standard_normal((n, 3)) for n in (2, 5, 3)]


def _packed(lib, requires_grad=True):
    seqs = [lib.tensor(s, requires_grad=requires_grad) for s in SEQS]
    return seqs, lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)


RECURRENT = [("RNN", {}), ("GRU", {"bidirectional": True}),
             ("LSTM", {"num_layers": 2, "bidirectional": True}),
             ("LSTM", {"proj_size": 2, "batch_first": True})]  # fmt: skip


@pytest.mark.parametrize("name, kwargs", RECURRENT)
def test_recurrent_layers_run_packed_sequences_as_pytorch(name, kwargs):
    ours = getattr(lg.nn, name)(3, 4, **kwargs).double()
    theirs = getattr(torch.nn, name)(3, 4, **kwargs).double()
    copy_weights(ours, theirs)
    (seqs_ours, packed_ours), (seqs_theirs, packed_theirs) = _packed(lg), _packed(torch)
    out, hidden = ours(packed_ours)
    ref, ref_hidden = theirs(packed_theirs)
    assert isinstance(out, lg.nn.utils.rnn.PackedSequence)
    assert_close(out.data, ref.data)
    np.testing.assert_array_equal(out.batch_sizes.numpy(), ref.batch_sizes.numpy())
    hidden = hidden if isinstance(hidden, tuple) else (hidden,)
    ref_hidden = ref_hidden if isinstance(ref_hidden, tuple) else (ref_hidden,)
    for h, r in zip(hidden, ref_hidden):
        assert_close(h, r)
    padded, lengths = lg.nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=6)
    ref_padded, ref_lengths = torch.nn.utils.rnn.pad_packed_sequence(
        ref, batch_first=True, total_length=6
    )
    assert_close(padded, ref_padded)
    np.testing.assert_array_equal(lengths.numpy(), ref_lengths.numpy())
    loss = (padded**2).sum() + sum((h**2).sum() for h in hidden)
    ref_loss = (ref_padded**2).sum() + sum((h**2).sum() for h in ref_hidden)
    grads = lg.autograd.grad(loss, seqs_ours + list(ours.parameters()))
    ref_grads = torch.autograd.grad(ref_loss, seqs_theirs + list(theirs.parameters()))
    for g, r in zip(grads, ref_grads):
        assert_close(g, r)


def test_packed_lstm_takes_initial_states_in_caller_order():
    ours, theirs = lg.nn.LSTM(3, 4).double(), torch.nn.LSTM(3, 4).double()
    copy_weights(ours, theirs)
    h0, c0 = RNG.standard_normal((1, 3, 4)), RNG.standard_normal((1, 3, 4))
    out, (h, c) = ours(_packed(lg)[1], (lg.tensor(h0), lg.tensor(c0)))
    ref, (rh, rc) = theirs(_packed(torch)[1], (torch.tensor(h0), torch.tensor(c0)))
    assert_close(out.data, ref.data)
    assert_close(h, rh)
    assert_close(c, rc)


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sequence_matches_pytorch(batch_first):
    x = RNG.standard_normal((5, 3, 2))
    lengths = [2, 1, 2] if batch_first else [5, 2, 3]
    packed = [lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(x), lengths, batch_first=batch_first,
                                                    enforce_sorted=False)
              for lib in (lg, torch)]  # fmt: skip
    assert_close(packed[0].data, packed[1].data)
    for field in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        np.testing.assert_array_equal(
            getattr(packed[0], field).numpy(), getattr(packed[1], field).numpy()
        )


@pytest.mark.parametrize("side", ["left", "right"])
def test_pad_sequence_matches_pytorch(side):
    ours = lg.nn.utils.rnn.pad_sequence([lg.tensor(s) for s in SEQS], True, -1.0, side)
    theirs = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in SEQS], True, -1.0, side)
    assert_close(ours, theirs)


def test_unpack_and_unpad_give_the_sequences_back():
    seqs, packed = _packed(lg, requires_grad=False)
    for got, want in zip(lg.nn.utils.rnn.unpack_sequence(packed), SEQS):
        np.testing.assert_array_equal(got.numpy(), want)
    padded = lg.nn.utils.rnn.pad_sequence(seqs)
    for got, want in zip(lg.nn.utils.rnn.unpad_sequence(padded, lg.tensor([2, 5, 3])), SEQS):
        np.testing.assert_array_equal(got.numpy(), want)


def test_packing_errors_match_pytorch():
    for lib in (lg, torch):
        rnn = lib.nn.utils.rnn
        with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
            rnn.pack_padded_sequence(lib.zeros(3, 2), [1, 2])
        with pytest.raises(RuntimeError, match="has to be greater than 0"):
            rnn.pack_padded_sequence(lib.zeros(3, 2), [0, 2], enforce_sorted=False)
        packed = rnn.pack_sequence([lib.zeros(3), lib.zeros(2)])
        with pytest.raises(ValueError, match="total_length to be at least"):
            rnn.pad_packed_sequence(packed, total_length=2)


def _graded_pair():
    ours, theirs = lg.nn.Linear(4, 3).double(), torch.nn.Linear(4, 3).double()
    copy_weights(ours, theirs)
    x = RNG.standard_normal((2, 4))
    (ours(lg.tensor(x)) ** 2).sum().backward()
    (theirs(torch.tensor(x)) ** 2).sum().backward()
    return ours, theirs


def test_clip_grads_with_norm_and_deprecated_clip_grad_norm_match_pytorch():
    ours, theirs = _graded_pair()
    total = lg.nn.utils.get_total_norm([p.grad for p in ours.parameters()])
    ref_total = torch.nn.utils.get_total_norm([p.grad for p in theirs.parameters()])
    lg.nn.utils.clip_grads_with_norm_(ours.parameters(), 0.5, total)
    torch.nn.utils.clip_grads_with_norm_(theirs.parameters(), 0.5, ref_total)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert_close(p.grad, q.grad)
    ours, theirs = _graded_pair()
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        norm = lg.nn.utils.clip_grad_norm(ours.parameters(), 0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ref_norm = torch.nn.utils.clip_grad_norm(theirs.parameters(), 0.3)
    assert_close(norm, ref_norm)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert_close(p.grad, q.grad)


def test_skip_init_builds_the_module_and_wants_a_device_argument():
    layer = lg.nn.utils.skip_init(lg.nn.Linear, 4, 3, bias=False)
    assert tuple(layer.weight.shape) == (3, 4) and layer.bias is None

    class NoDevice(lg.nn.Module):
        def __init__(self, n):
            super().__init__()

    with pytest.raises(RuntimeError, match="support a 'device' arg"):
        lg.nn.utils.skip_init(NoDevice, 2)


def _eval_pair(ours, theirs):
    copy_weights(ours, theirs)
    return ours.double().eval(), theirs.double().eval()


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval_matches_pytorch(transpose):
    kind = "ConvTranspose2d" if transpose else "Conv2d"
    bn_ours, bn_theirs = lg.nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    with lg.no_grad():
        bn_ours.running_mean.copy_(lg.tensor(RNG.standard_normal(3)))
        bn_ours.running_var.copy_(lg.tensor(RNG.uniform(0.5, 2.0, 3)))
        bn_ours.weight.copy_(lg.tensor(RNG.standard_normal(3)))
        bn_ours.bias.copy_(lg.tensor(RNG.standard_normal(3)))
    in_ch, out_ch = (3, 3) if transpose else (2, 3)
    conv_ours, conv_theirs = _eval_pair(getattr(lg.nn, kind)(in_ch, out_ch, 3),
                                        getattr(torch.nn, kind)(in_ch, out_ch, 3))  # fmt: skip
    bn_ours, bn_theirs = _eval_pair(bn_ours.double(), bn_theirs.double())
    fused = lg.nn.utils.fuse_conv_bn_eval(conv_ours, bn_ours, transpose=transpose)
    ref = torch.nn.utils.fuse_conv_bn_eval(conv_theirs, bn_theirs, transpose=transpose)
    assert_close(fused.weight, ref.weight)
    assert_close(fused.bias, ref.bias)
    assert isinstance(fused.weight, lg.nn.Parameter) and fused.weight.requires_grad
    x = lg.tensor(RNG.standard_normal((1, in_ch, 5, 5)))
    assert_close(fused(x), bn_ours(conv_ours(x)))
    assert conv_ours.weight is not fused.weight


def test_fuse_linear_bn_eval_matches_pytorch_and_refuses_training_mode():
    lin_ours, lin_theirs = _eval_pair(lg.nn.Linear(4, 3), torch.nn.Linear(4, 3))
    bn_ours, bn_theirs = lg.nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)
    with lg.no_grad():
        bn_ours.running_var.copy_(lg.tensor(RNG.uniform(0.5, 2.0, 3)))
        bn_ours.running_mean.copy_(lg.tensor(RNG.standard_normal(3)))
    bn_ours, bn_theirs = _eval_pair(bn_ours.double(), bn_theirs.double())
    fused = lg.nn.utils.fuse_linear_bn_eval(lin_ours, bn_ours)
    ref = torch.nn.utils.fuse_linear_bn_eval(lin_theirs, bn_theirs)
    assert_close(fused.weight, ref.weight)
    assert_close(fused.bias, ref.bias)
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        lg.nn.utils.fuse_linear_bn_eval(lin_ours.train(), bn_ours)


def test_convert_conv_weight_memory_format_relays_nested_convolutions():
    model = lg.nn.Sequential(
        lg.nn.Conv2d(2, 3, 3), lg.nn.Sequential(lg.nn.ConvTranspose2d(3, 2, 2))
    )
    values = [m.weight.detach().numpy().copy() for m in (model[0], model[1][0])]
    assert lg.nn.utils.convert_conv2d_weight_memory_format(model, lg.channels_last) is model
    for layer, before in zip((model[0], model[1][0]), values):
        weight = layer.weight
        expected = torch.empty(tuple(weight.shape)).contiguous(memory_format=torch.channels_last)
        assert weight.stride() == expected.stride()
        np.testing.assert_array_equal(weight.detach().numpy(), before)
        assert isinstance(weight, lg.nn.Parameter)


SPECTRAL = [(lambda m: m.nn.Linear(4, 3), (2, 4)),
            (lambda m: m.nn.ConvTranspose2d(2, 3, 2), (1, 2, 4, 4))]  # fmt: skip


@pytest.mark.parametrize("make, shape", SPECTRAL)
def test_legacy_spectral_norm_matches_pytorch(make, shape):
    ours = lg.nn.utils.spectral_norm(make(lg).double(), n_power_iterations=2)
    theirs = torch.nn.utils.spectral_norm(make(torch).double(), n_power_iterations=2)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    copy_weights(ours, theirs)
    x = RNG.standard_normal(shape)
    for _ in range(3):  # each training call advances the power iteration
        out, ref = ours(lg.tensor(x)), theirs(torch.tensor(x))
        assert_close(out, ref)
        grad = lg.autograd.grad(out.sum(), ours.weight_orig)[0]
        assert_close(grad, torch.autograd.grad(ref.sum(), theirs.weight_orig)[0])
    assert_close(ours.weight_u, theirs.weight_u)
    ours.eval(), theirs.eval()
    assert_close(ours(lg.tensor(x)), theirs(torch.tensor(x)))
    lg.nn.utils.remove_spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_close(ours.weight, theirs.weight)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        lg.nn.utils.remove_spectral_norm(ours)
