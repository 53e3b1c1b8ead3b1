"""Behaviours found by the device-type part of PyTorch's test_autograd.py run on leafgrad
(tools/pytorch_suite): each is checked here in our words, with leafgrad and with PyTorch."""

import math
import warnings

import numpy as np
import pytest

from ._helpers import assert_values

# ----- .grad assignment: a tensor cannot hold itself as its gradient


def test_a_tensor_cannot_be_assigned_as_its_own_grad(torch):
    x = torch.randn(3, 3)
    with pytest.raises(RuntimeError):
        x.grad = x
    assert x.grad is None
    x.grad = x.detach().clone()  # a copy is fine
    assert x.grad is not x


# ----- backends.cudnn.flags: a context manager that sets the flags and restores them


def test_cudnn_flags_set_the_flags_inside_the_block_only(torch):
    cudnn = torch.backends.cudnn
    before = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic)
    with cudnn.flags(enabled=False, benchmark=True, deterministic=True):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, True, True)
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == before
    with pytest.raises(ValueError), cudnn.flags(enabled=False):
        raise ValueError("restored on the way out too")
    assert cudnn.enabled == before[0]


# ----- cdist: rows at distance 0 get gradient 0 (not nan), for every p


ROWS = np.array([[[0.5, -1.0, 2.0], [1.0, 1.0, 1.0], [-0.3, 0.2, 0.9]]])
OTHER = np.array([[[0.5, -1.0, 2.0], [1.0, 3.0, 1.0], [-0.3, 0.7, 0.1], [2.0, 0.0, -1.0]]])
WEIGHTS = np.arange(12.0).reshape(1, 3, 4) / 7.0 - 0.5


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf])
def test_cdist_gradient_is_finite_where_rows_coincide(torch, pytorch, p):
    def run(lib):
        x = lib.tensor(ROWS, requires_grad=True)
        y = lib.tensor(OTHER, requires_grad=True)
        d = lib.cdist(x, y, p=p)
        (d * lib.tensor(WEIGHTS)).sum().backward()
        return d, x.grad, y.grad

    ours, theirs = run(torch), run(pytorch)
    for a, b in zip(ours, theirs):
        assert bool(torch.isfinite(a).all())
        assert_values(a, b.detach().numpy())
    assert ours[0].requires_grad


def test_cdist_infinity_norm_gives_every_tied_entry_the_whole_gradient(torch):
    a = torch.tensor([[1.0, -1.0, 0.5]], requires_grad=True)
    torch.cdist(a, torch.zeros(1, 3), p=math.inf).sum().backward()
    assert_values(a.grad, [[1.0, -1.0, 0.0]])


def test_cdist_of_a_batch_with_itself_backpropagates_finite_values(torch):
    x = torch.randn(1, 6, 4)
    y = x.clone()
    x.requires_grad_()
    torch.cdist(x, y).backward(torch.randn(1, 6, 6))
    assert bool(torch.isfinite(x.grad).all())


# ----- a leaf's first gradient takes the leaf's layout when the leaf is dense


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last"])
def test_a_dense_leafs_gradient_has_the_leafs_strides(torch, fmt):
    a = torch.rand(2, 3, 4, 5).to(memory_format=getattr(torch, fmt)).requires_grad_()
    b = torch.rand(2, 3, 4, 5)
    a.sum().backward()  # a broadcast gradient
    assert a.grad.stride() == a.stride()
    a.grad = None
    (a * b).sum().backward()
    assert a.grad.stride() == a.stride()
    a.grad = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both warn of the cycle .grad and graph make
        (a * b).sum().backward(create_graph=True)  # the copy that keeps a graph, too
    assert a.grad.stride() == a.stride()
    assert_values(a.grad, b.tolist())


def test_a_leaf_with_gaps_gets_a_row_major_gradient(torch):
    c = torch.rand(4, 6)[::2, ::3].requires_grad_()
    assert c.stride() == (12, 3)
    c.sum().backward()
    assert c.grad.stride() == (2, 1)
    c.grad = None
    (c * torch.rand(2, 2).t()).sum().backward()
    assert c.grad.stride() == (2, 1)


def test_later_gradients_add_into_the_first_one_keeping_its_layout(torch):
    a = torch.ones(1, 2, 2, 3).to(memory_format=torch.channels_last).requires_grad_()
    a.sum().backward()
    first = a.grad
    (a * 2.0).sum().backward()
    assert a.grad is first
    assert a.grad.stride() == a.stride()
    assert_values(a.grad, np.full((1, 2, 2, 3), 3.0))


def test_a_transposed_leaf_gets_a_transposed_gradient(torch):
    x = torch.rand(3, 4).t().requires_grad_()
    (x * 2.0).sum().backward()
    assert x.grad.stride() == x.stride() == (1, 4)
    assert_values(x.grad, np.full((4, 3), 2.0))


# ----- in-place leaky ReLUs with a negative slope: forward works, backward refuses


def test_in_place_leaky_relu_with_a_negative_slope_has_no_backward(torch):
    a = torch.tensor([-1.0, 1.0], requires_grad=True)
    b = torch.nn.functional.leaky_relu_(a.clone(), -2)
    assert_values(b, [2.0, 1.0])
    assert type(b.grad_fn).__name__ == "LeakyReluBackward1"
    with pytest.raises(RuntimeError, match="please call out-of-place version instead"):
        b.backward(torch.ones(2))
    assert a.grad is None


def test_in_place_rrelu_outside_training_with_a_negative_mean_slope_has_no_backward(torch):
    a = torch.tensor([-1.0, 1.0], requires_grad=True)
    b = torch.nn.functional.rrelu_(a.clone(), -5.0, 1.0)  # slope (lower + upper) / 2 = -2
    assert_values(b, [2.0, 1.0])
    with pytest.raises(RuntimeError, match="please call out-of-place version instead"):
        b.backward(torch.ones(2))


def test_in_place_leaky_relu_with_slope_zero_or_more_differentiates(torch):
    a = torch.tensor([-2.0, 0.0, 2.0], requires_grad=True)
    torch.nn.functional.leaky_relu_(a.clone(), 0.0).backward(torch.ones(3))
    assert_values(a.grad, [0.0, 0.0, 1.0])
    a.grad = None
    torch.nn.functional.leaky_relu_(a.clone(), 0.5).sum().backward()
    assert_values(a.grad, [0.5, 0.5, 1.0])
    plain = torch.tensor([-1.0, 3.0])  # nothing needs a gradient: no error either way
    torch.nn.functional.leaky_relu_(plain, -2)
    assert_values(plain, [2.0, 3.0])


# ----- ctc_loss: empty targets (some or all target lengths 0)


@pytest.mark.parametrize("target_lengths", [[0, 0, 0], [0, 2, 1], [3, 0, 2]])
def test_ctc_loss_with_empty_targets_matches_torch(torch, pytorch, target_lengths):
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((6, 3, 5))
    targets = rng.integers(1, 5, (3, 3))

    def run(lib):
        x = lib.tensor(logits, requires_grad=True)
        log_probs = lib.log_softmax(x, 2)
        args = (log_probs, lib.tensor(targets), [6, 4, 5], target_lengths)
        loss = lib.nn.functional.ctc_loss(*args, reduction="none")
        lib.nn.functional.ctc_loss(*args).backward()
        return loss, x.grad

    for ours, theirs in zip(run(torch), run(pytorch)):
        assert_values(ours, theirs.detach().numpy())
