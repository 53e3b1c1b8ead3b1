"""torch.utils.checkpoint: the same values and gradients as running the function plainly,
with nothing of the checkpointed part saved, both ways (reentrant or not), as PyTorch's."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import leafgrad
from leafgrad.utils import checkpoint as cp

LIBS = [leafgrad]
if importlib.util.find_spec("torch") is not None:
    import torch

    LIBS.append(torch)

by_lib = pytest.mark.parametrize("m", LIBS, ids=lambda m: m.__name__)


def _mlp(m, seed=0):
    rng = np.random.default_rng(seed)
    ws = [m.tensor(rng.standard_normal(s) / 2, requires_grad=True) for s in [(2, 8), (8, 8)]]
    w_out = m.tensor(rng.standard_normal((8, 1)), requires_grad=True)
    return ws, w_out


def _block(m, ws):
    def run(h):
        for w in ws:
            h = m.tanh(h @ w)
        return h

    return run


def _x(m):
    return m.tensor(np.linspace(-1, 1, 20).reshape(10, 2), requires_grad=True)


@by_lib
@pytest.mark.parametrize("reentrant", [False, True])
def test_gradients_equal_the_plain_run(m, reentrant):
    ws, w_out = _mlp(m)
    x = _x(m)
    plain = (_block(m, ws)(x) @ w_out).pow(2).sum()
    expected = m.autograd.grad(plain, [x, *ws, w_out])
    h = m.utils.checkpoint.checkpoint(_block(m, ws), x, use_reentrant=reentrant)
    loss = (h @ w_out).pow(2).sum()
    assert abs(loss.item() - plain.item()) < 1e-12
    loss.backward()
    for got, want in zip([x.grad, *(w.grad for w in ws), w_out.grad], expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)


@by_lib
def test_without_reentrant_grad_and_second_derivatives_work(m):
    # a PINN's u_xx through a checkpointed network
    ws, w_out = _mlp(m, seed=1)
    x = _x(m)

    def u_xx(net):
        u = net(x) @ w_out
        (g,) = m.autograd.grad(u.sum(), x, create_graph=True)
        (g2,) = m.autograd.grad(g[:, 0].sum(), x, create_graph=True)
        return g2[:, 0]

    plain = u_xx(_block(m, ws))
    ours = u_xx(lambda z: m.utils.checkpoint.checkpoint(_block(m, ws), z, use_reentrant=False))
    np.testing.assert_allclose(ours.detach().numpy(), plain.detach().numpy(), rtol=1e-10)
    want = m.autograd.grad(plain.pow(2).sum(), ws)
    got = m.autograd.grad(ours.pow(2).sum(), ws)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-13)


@by_lib
def test_reentrant_refuses_grad_and_backward_inputs(m):
    x = _x(m)
    y = m.utils.checkpoint.checkpoint(lambda t: t.sin() * 2, x, use_reentrant=True)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"
    with pytest.raises(RuntimeError, match="use_reentrant=False"):
        m.autograd.grad(y.sum(), x)
    y = m.utils.checkpoint.checkpoint(lambda t: t.sin() * 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="use_reentrant=False"):
        y.sum().backward(inputs=[x])


@by_lib
def test_without_reentrant_the_graph_is_the_functions(m):
    x = _x(m)
    y = m.utils.checkpoint.checkpoint(lambda t: t.sin() * 2, x, use_reentrant=False)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "SinBackward0"


@by_lib
def test_random_draws_repeat_in_the_recomputation(m):
    # dropout inside: the recomputation restores the generator, so the mask is the same
    x = _x(m)
    ws, w_out = _mlp(m, seed=2)

    def net(h):
        return m.nn.functional.dropout(_block(m, ws)(h), p=0.5, training=True)

    for reentrant in (False, True):
        m.manual_seed(7)
        plain = (net(x) @ w_out).sum()
        (want,) = m.autograd.grad(plain, ws[0])
        m.manual_seed(7)
        y = m.utils.checkpoint.checkpoint(net, x, use_reentrant=reentrant)
        ws[0].grad = None
        (y @ w_out).sum().backward()
        np.testing.assert_allclose(ws[0].grad.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)


@by_lib
def test_use_reentrant_must_be_chosen_or_it_warns(m):
    x = _x(m)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        y = m.utils.checkpoint.checkpoint(lambda t: t * 3, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"  # still the reentrant
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.utils.checkpoint.checkpoint(lambda t: t * 3, x, use_reentrant=False)


@by_lib
def test_keyword_arguments_only_without_reentrant(m):
    x = _x(m)
    y = m.utils.checkpoint.checkpoint(lambda t, scale: t * scale, x, scale=3.0, use_reentrant=False)
    y.sum().backward()
    assert x.grad.tolist() == [[3.0, 3.0]] * 10
    with pytest.raises(ValueError):
        m.utils.checkpoint.checkpoint(lambda t, scale: t * scale, x, scale=3.0, use_reentrant=True)


@by_lib
@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_sequential_matches_the_model(m, reentrant):
    m.manual_seed(0)
    model = m.nn.Sequential(*[m.nn.Linear(4, 4) if i % 2 == 0 else m.nn.Tanh() for i in range(8)])
    x = m.randn(5, 4, requires_grad=True)
    plain = model(x).sum()
    want = m.autograd.grad(plain, list(model.parameters()))
    out = m.utils.checkpoint.checkpoint_sequential(model, 3, x, use_reentrant=reentrant)
    assert abs(out.sum().item() - plain.item()) < 1e-5
    out.sum().backward()
    for p, w in zip(model.parameters(), want):
        np.testing.assert_allclose(p.grad.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_nothing_of_the_checkpointed_part_is_kept():
    # leafgrad: the forward's saved tensors are numbers only, so the layer activations are
    # freed once the forward moves on (counted through the saved-tensors hooks)
    packed = []
    x = _x(leafgrad)
    ws, w_out = _mlp(leafgrad)
    with leafgrad.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        h = cp.checkpoint(_block(leafgrad, ws), x, use_reentrant=False)
    assert packed == []  # the inner hooks took every save
    (h @ w_out).sum().backward()
    assert x.grad is not None


def test_a_recomputation_that_saves_differently_raises():
    x = _x(leafgrad)
    calls = []

    def moody(t):
        calls.append(1)
        return t.sin() if len(calls) == 1 else t.sin().exp()

    y = cp.checkpoint(moody, x, use_reentrant=False)
    with pytest.raises(cp.CheckpointError, match="different number of tensors"):
        y.sum().backward()
