"""jet_act_value: an activation and its packed jet as one node, with the bits of the two
nodes it replaces (the op's own and jet_act), forward, backward and second backward."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import taylor
from leafgrad.ops import _fused, _jets, jet_blocks

ACTIVATIONS = {"tanh": lg.tanh, "sigmoid": lg.sigmoid, "exp": lambda h: lg.exp(h * 0.1)}


def _network(dtype, act, n, width=20, depth=3):
    rng = np.random.default_rng(0)
    sizes = [2] + [width] * depth + [1]
    params = [
        (
            lg.tensor(rng.normal(size=(a, b)) / np.sqrt(a), dtype=dtype, requires_grad=True),
            lg.tensor(rng.normal(size=b) * 0.1, dtype=dtype, requires_grad=True),
        )
        for a, b in itertools.pairwise(sizes)
    ]

    def f(h):
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = ACTIVATIONS[act](h)
        return h

    x = lg.tensor(rng.uniform(-1, 1, (n, 2)), dtype=dtype)
    return f, [t for pair in params for t in pair], x


def _burgers(dtype, act, n, create_graph=False):
    """A Burgers-like loss of collapsed jets; its values, parameter gradients (and, with
    ``create_graph``, a gradient of those) as arrays, and the graph's node names."""
    f, params, x = _network(dtype, act, n)
    u, g, u_xx = taylor.collapsed(f, x, [1.0, 0.0])
    r = g[:, :, 1] + u * g[:, :, 0] - 0.01 * u_xx
    loss = (r * r).mean()
    grads = lg.autograd.grad(loss, params, create_graph=create_graph)
    out = [u, g, u_xx, *grads]
    if create_graph:
        out += lg.autograd.grad(sum((p * p).sum() for p in grads), params)
    names, stack, seen = set(), [loss.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.add(node.name())
        stack.extend(fn for fn, _ in node.next_functions)
    return [t.detach().numpy() for t in out], names


def _two_nodes(monkeypatch):
    monkeypatch.setattr(_jets, "CALLS", set())  # every activation through the op and jet_act


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
@pytest.mark.parametrize("act", ACTIVATIONS)
@pytest.mark.parametrize("n", [7, 600])  # 600 x 20 points: the compiled loops, where numba is
def test_one_node_gives_the_two_nodes_bits(act, dtype, n, monkeypatch):
    fused, names = _burgers(dtype, act, n)
    assert "JetActValueBackward0" in names and "JetActBackward0" not in names
    _two_nodes(monkeypatch)
    two, names = _burgers(dtype, act, n)
    assert "JetActValueBackward0" not in names and "JetActBackward0" in names
    for a, b in zip(fused, two, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_row_blocks_give_the_whole_arrays_bits(monkeypatch):
    if not _fused.available():
        pytest.skip("the compiled loops need numba")
    whole, _ = _burgers(lg.float32, "tanh", 600)
    # A layer's (3, 600, 20) float32 channels (144 kB) within a block, so no jet_dense, but
    # the backward's five arrays of their size over three blocks.
    monkeypatch.setattr(jet_blocks, "BLOCK_BYTES", 256 * 1024)
    blocks = []
    monkeypatch.setattr(jet_blocks, "row_blocks", _recording(jet_blocks.row_blocks, blocks))
    blocked, names = _burgers(lg.float32, "tanh", 600)
    assert "JetDenseBackward0" not in names and max(blocks) == 3
    for a, b in zip(whole, blocked, strict=True):
        np.testing.assert_array_equal(a, b)


def _recording(row_blocks, counts):
    def recorded(jet, live=1.0):
        rows = row_blocks(jet, live)
        counts.append(len(rows))
        return rows

    return recorded


@pytest.mark.parametrize("act", ["tanh", "sigmoid"])
def test_second_backward_matches_the_two_nodes(act, monkeypatch):
    fused, _ = _burgers(lg.float64, act, 9, create_graph=True)
    _two_nodes(monkeypatch)
    two, _ = _burgers(lg.float64, act, 9, create_graph=True)
    for a, b in zip(fused, two, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
