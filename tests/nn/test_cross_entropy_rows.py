"""cross_entropy's common case ((N, C) logits, (N,) int64 targets, no weights) and nll_loss's
rows without masks (``losses._rows_counted``): the same bits, errors and graph as the
general path, and PyTorch's values."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import losses

torch = pytest.importorskip("torch")


def _general(monkeypatch):
    monkeypatch.setattr(losses, "_rows_counted", lambda *args: False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_counted_rows_give_the_general_paths_bits(dtype, reduction, monkeypatch):
    rng = np.random.default_rng(0)
    logp = rng.standard_normal((33, 7)).astype(dtype)
    target = rng.integers(0, 7, 33)
    grad = np.asarray(rng.standard_normal(33 if reduction == 0 else ()), dtype)
    params = dict(target=target, weight=None, ignore_index=-100, reduction=reduction, class_dim=1)
    assert losses._rows_counted(2, logp.dtype, target, None, -100, 1)
    fast = losses._nll_forward(logp, **params), losses._nll_grad(grad, logp, None, **params)
    _general(monkeypatch)
    slow = losses._nll_forward(logp, **params), losses._nll_grad(grad, logp, None, **params)
    for a, b in zip(fast, slow):
        assert np.asarray(a).dtype == np.asarray(b).dtype and np.shape(a) == np.shape(b)
        np.testing.assert_array_equal(a, b)


def test_rows_counted_only_without_weights_ignored_targets_or_other_shapes():
    t = np.array([0, 2, 1])
    f32 = np.dtype(np.float32)
    assert losses._rows_counted(2, f32, t, None, -100, 1)
    assert not losses._rows_counted(2, f32, t, np.ones(3, np.float32), -100, 1)
    assert not losses._rows_counted(2, f32, t, None, 2, 1)  # a target ignored
    assert not losses._rows_counted(3, f32, t, None, -100, 1)
    assert not losses._rows_counted(2, np.dtype(np.float16), t, None, -100, 1)
    assert not losses._rows_counted(2, f32, t[:0], None, -100, 1)  # 0 / 0


@pytest.mark.parametrize("ignore_index", [-100, 3])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_matches_torch_and_records_its_graph(ignore_index, reduction):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((64, 10)) * 3).astype(np.float32)
    t = rng.integers(0, 10, 64)
    a = lg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    la = lg.nn.functional.cross_entropy(
        a, lg.tensor(t), ignore_index=ignore_index, reduction=reduction
    )
    lb = torch.nn.functional.cross_entropy(
        b, torch.tensor(t), ignore_index=ignore_index, reduction=reduction
    )
    np.testing.assert_allclose(la.detach().numpy(), lb.detach().numpy(), rtol=2e-6, atol=1e-7)
    assert la.grad_fn.name() == lb.grad_fn.name() == "NllLossBackward0"
    inner = la.grad_fn.next_functions[0][0]
    assert inner.name() == "LogSoftmaxBackward0" and inner._saved_dim == 1
    assert inner.next_functions[0][0].variable is a
    assert la.grad_fn._saved_ignore_index == ignore_index
    np.testing.assert_array_equal(la.grad_fn._saved_target.numpy(), t)
    seed = np.ones(la.shape, np.float32)
    la.backward(lg.tensor(seed))
    lb.backward(torch.tensor(seed))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_cross_entropy_common_case_keeps_the_errors():
    x = lg.randn(4, 5, requires_grad=True)
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        lg.nn.functional.cross_entropy(x, lg.tensor([0, 1, 5, 2]))
    with pytest.raises(ValueError, match="Expected input batch_size"):
        lg.nn.functional.cross_entropy(x, lg.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
        lg.nn.functional.cross_entropy(x, lg.tensor(np.array([0, 1, 2, 3], np.int32)))
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        lg.nn.functional.cross_entropy(x, lg.tensor([0, 1, 2, 3]), reduction="avg")
    with pytest.raises(NotImplementedError):
        lg.nn.functional.cross_entropy(lg.tensor([[1, 2]]), lg.tensor([0]))
