"""AdaptiveLogSoftmaxWithLoss against PyTorch with copied weights."""

import numpy as np
import pytest

import leafgrad as lg

from ._compare import assert_close, copy_weights

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(13)


def _pair(**kwargs):
    ours = lg.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], **kwargs).double()
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], **kwargs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    copy_weights(ours, theirs)
    return ours, theirs


@pytest.mark.parametrize("kwargs", [{}, {"div_value": 2.0, "head_bias": True}])
def test_adaptive_log_softmax_matches_pytorch(kwargs):
    ours, theirs = _pair(**kwargs)
    x = RNG.standard_normal((6, 8))
    target = np.array([0, 5, 19, 12, 3, 11])
    x_ours = lg.tensor(x, requires_grad=True)
    x_theirs = torch.tensor(x, requires_grad=True)
    out = ours(x_ours, lg.tensor(target))
    ref = theirs(x_theirs, torch.tensor(target))
    assert_close(out.output, ref.output)
    assert_close(out.loss, ref.loss)
    grads = lg.autograd.grad(out.loss, [x_ours, *ours.parameters()])
    ref_grads = torch.autograd.grad(ref.loss, [x_theirs, *theirs.parameters()])
    for g, r in zip(grads, ref_grads):
        assert_close(g, r)
    assert_close(ours.log_prob(x_ours), theirs.log_prob(x_theirs))
    np.testing.assert_array_equal(ours.predict(x_ours).numpy(), theirs.predict(x_theirs).numpy())
    single = ours(x_ours[0], lg.tensor(target[0]))
    assert_close(single.output, theirs(x_theirs[0], torch.tensor(target[0])).output)


def test_adaptive_log_softmax_errors(torch):
    nn = torch.nn
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3])
    layer = nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])
    with pytest.raises(RuntimeError, match="Target values should be in \\[0, 9\\]"):
        layer(torch.zeros(2, 4), torch.tensor([1, 10]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        layer(torch.zeros(3, 4), torch.tensor([1, 2]))
