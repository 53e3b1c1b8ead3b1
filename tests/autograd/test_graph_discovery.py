"""What one backward call walks: only the part of the graph that can matter for the inputs
asked for, so a long history behind them does not make each call slower step after step."""

from __future__ import annotations

import numpy as np

import leafgrad
from leafgrad._engine.graph import gradient_edge
from leafgrad._engine.plan import plan_backward
from tests._tolerance import assert_close


def _start(lib):
    rng = np.random.default_rng(0)
    w = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    v = lib.tensor(rng.standard_normal((4, 1)), requires_grad=True)
    x = lib.tensor(rng.uniform(-1, 1, (5, 3)))
    y = lib.tensor(rng.uniform(-1, 1, (5, 1)))
    return [w * 1.0, v * 1.0], x, y  # parameters carried as non-leaf tensors


def _loss(lib, params, x, y):
    w, v = params
    e = lib.tanh(x @ w) @ v - y
    return (e * e).mean()


def _out_of_place_step(lib, params, x, y):
    loss = _loss(lib, params, x, y)
    grads = lib.autograd.grad(loss, params, create_graph=True)
    return [p - 0.1 * g for p, g in zip(params, grads)], loss


def test_grad_with_respect_to_updated_parameters_walks_the_same_nodes_every_step():
    params, x, y = _start(leafgrad)
    walked, walked_for_backward = [], []
    for _ in range(8):
        loss = _loss(leafgrad, params, x, y)
        edges = [gradient_edge(p) for p in params]
        walked.append(len(plan_backward([loss.grad_fn], capture=edges).deps))
        walked_for_backward.append(len(plan_backward([loss.grad_fn]).deps))
        params, _ = _out_of_place_step(leafgrad, params, x, y)
    assert len(set(walked)) == 1, walked  # flat: the earlier steps are never walked
    # backward() accumulates into the leaves at the start, so it must walk the whole history.
    assert walked_for_backward == sorted(walked_for_backward)
    assert walked_for_backward[-1] > 4 * walked_for_backward[0]


def test_grad_through_a_long_history_matches_pytorch(pytorch):
    ours, theirs = _start(leafgrad), _start(pytorch)
    history = []
    for lib, (params, x, y) in ((leafgrad, ours), (pytorch, theirs)):
        losses = []
        first = params
        for _ in range(6):
            params, loss = _out_of_place_step(lib, params, x, y)
            losses.append(loss)
        # Gradients with respect to the newest and to the first parameters at once: the
        # walk stops at the oldest input asked for, not the newest.
        grads = lib.autograd.grad(_loss(lib, params, x, y), params + first)
        history.append((losses, params, grads))
    (our_losses, our_params, our_grads), (their_losses, their_params, their_grads) = history
    for a, b in zip(our_losses + our_params, their_losses + their_params):
        assert_close(a, b, "iterative")
    for a, b in zip(our_grads, their_grads):
        assert_close(a, b, "iterative")


def test_backward_with_inputs_deep_in_the_history_still_reaches_them(torch):
    params, x, y = _start(torch)
    w0 = params[0]
    w0.retain_grad()
    for _ in range(4):
        params, _ = _out_of_place_step(torch, params, x, y)
    newest = params[0]
    newest.retain_grad()
    _loss(torch, params, x, y).backward(inputs=[w0, newest])
    assert w0.grad is not None and newest.grad is not None
    assert w0.grad.shape == (3, 4) and float(w0.grad.abs().sum()) > 0
