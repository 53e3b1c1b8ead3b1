"""jet_dense (ops/jet_dense.py): where a layer's packed jet outgrows the caches, a Linear layer
and its activation map it in one primitive over row blocks. Results equal the two-primitive
path to round-off and nested reverse mode, gradients of gradients included; jets that fit
in one block keep the two primitives."""

import itertools

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import taylor
from leafgrad.ops import _gemm, jet_blocks
from tests._tolerance import assert_close

from .test_taylor_fused import _node_counts

ROWS, D = 37, 3
SIZES = [D, 5, 4, 6, 1]  # widths that change, so w is not square
# Layers jet_dense maps when blocked: all with an activation but the first, whose jet is the
# broadcast seed's (one row per channel, mapped once by jet_linear).
DENSE = len(SIZES) - 3
ACTIVATIONS = {
    "tanh": lg.tanh,
    "sin": lg.sin,
    "gelu": lambda h: lg.nn.functional.gelu(h),
}


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of one row: every layer's jet is 'too large', so jet_dense is used (also where
    MKL, taking the products on one BLAS thread, would leave layers whole)."""
    monkeypatch.setattr(jet_blocks, "BLOCK_BYTES", 1)
    monkeypatch.setattr(_gemm, "_mkl_in_use", lambda: False)


def _whole(monkeypatch):
    monkeypatch.setattr(jet_blocks, "BLOCK_BYTES", 1 << 60)


def _network(dtype, act, linear=False, skip=False):
    rng = np.random.default_rng(3)
    params = [
        (
            lg.tensor(rng.standard_normal((m, n)) / np.sqrt(m), dtype=dtype).requires_grad_(),
            lg.tensor(rng.standard_normal(n) * 0.3, dtype=dtype).requires_grad_(),
        )
        for m, n in itertools.pairwise(SIZES)
    ]

    def f(h):
        for i, (w, b) in enumerate(params):
            z = lg.nn.functional.linear(h, w.t(), b) if linear else h @ w + b
            if i == len(params) - 1:
                return z
            h = ACTIVATIONS[act](z)
            if skip and i == 1:  # the pre-activation's jet read again, past the activation
                h = h + z[:, :1]

    x = lg.tensor(rng.uniform(-1, 1, (ROWS, D)), dtype=dtype)
    return f, [t for pair in params for t in pair], x


def _step(dtype, act="tanh", kind="laplacian", create_graph=False, **net):
    """A PINN-style loss of the network's Laplacian (or collapsed u_xx) and its parameter
    gradients (and a gradient of those); the arrays, and the graph's node counts."""
    f, params, x = _network(dtype, act, **net)
    if kind == "laplacian":
        u, g, second = taylor.laplacian(f, x)
    else:
        u, g, second = taylor.collapsed(f, x, [1.0, 0.0, -0.5])
    loss = ((second + u) ** 2).mean() + (g**2).mean()
    grads = lg.autograd.grad(loss, params, create_graph=create_graph)
    out = [u, g, second, *grads]
    nodes = _node_counts([loss])
    if create_graph:
        nodes += _node_counts(grads)
        out += lg.autograd.grad(sum((p**2).sum() for p in grads), params)
    return [t.detach().numpy() for t in out], nodes


def _activations(nodes) -> int:
    """The activations' jet nodes: jet_act's, or jet_act_value's (tanh: the value too)."""
    return nodes["JetActBackward0"] + nodes["JetActValueBackward0"]


def _kind(dtype):
    return "direct" if dtype == lg.float64 else "iterative"


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
@pytest.mark.parametrize("act", ACTIVATIONS)
@pytest.mark.parametrize("kind", ["laplacian", "collapsed"])
@pytest.mark.parametrize("linear", [False, True], ids=["mm", "addmm"])
def test_blocked_layers_match_the_two_primitives(
    kind, act, dtype, linear, tiny_blocks, monkeypatch
):
    blocked, nodes = _step(dtype, act, kind, linear=linear)
    assert nodes["JetDenseBackward0"] == DENSE
    _whole(monkeypatch)
    whole, nodes = _step(dtype, act, kind, linear=linear)
    assert nodes["JetDenseBackward0"] == 0 and _activations(nodes) == len(SIZES) - 2
    for b, w in zip(blocked, whole, strict=True):
        assert b.dtype == w.dtype and b.shape == w.shape
        assert_close(b, w, _kind(dtype))


def test_blocked_laplacian_matches_nested_reverse(tiny_blocks):
    f, _params, x = _network(lg.float64, "tanh")
    u, g, lap = taylor.laplacian(f, x)
    x = x.detach().requires_grad_(True)
    u_ref = f(x)
    (g_ref,) = lg.autograd.grad(u_ref.sum(), x, create_graph=True)
    lap_ref = sum(
        lg.autograd.grad(g_ref[:, i].sum(), x, retain_graph=True)[0][:, i] for i in range(D)
    )
    assert_close(u, u_ref, "direct")
    assert_close(g[:, 0], g_ref, "direct")
    assert_close(lap[:, 0], lap_ref, "direct")


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
def test_pre_activation_jet_read_again_gets_its_gradient(dtype, tiny_blocks, monkeypatch):
    blocked, nodes = _step(dtype, skip=True)
    assert nodes["JetDenseBackward0"] == DENSE
    _whole(monkeypatch)
    for b, w in zip(blocked, _step(dtype, skip=True)[0], strict=True):
        assert_close(b, w, _kind(dtype))


@pytest.mark.parametrize("act", ["tanh", "sin"])
def test_gradients_of_gradients_through_blocked_layers(act, tiny_blocks, monkeypatch):
    blocked, nodes = _step(lg.float64, act, create_graph=True)
    assert nodes["JetDenseBackwardBackward0"] == DENSE  # the fused backward, recorded
    _whole(monkeypatch)
    for b, w in zip(blocked, _step(lg.float64, act, create_graph=True)[0], strict=True):
        assert_close(b, w, "direct")


def test_jets_within_one_block_keep_the_two_primitives():
    _arrays, nodes = _step(lg.float64)  # 37 rows: far below one block
    assert nodes["JetDenseBackward0"] == 0
    assert nodes["JetLinearBackward0"] + nodes["JetLinearValueBackward0"] == len(SIZES) - 1
    assert _activations(nodes) == len(SIZES) - 2


def _writes_weight_between_product_and_activation():
    w = lg.tensor(np.random.default_rng(0).standard_normal((D, 4)))

    def f(x):
        h = lg.tanh(x @ w[:, :D].T)  # a first layer: its channels differ from row to row
        h = h @ w
        w.mul_(2.0)
        return lg.tanh(h).sum(1, keepdim=True)

    return f, lg.tensor(np.random.default_rng(1).uniform(-1, 1, (ROWS, D)))


def test_weight_changed_in_place_before_its_pending_product_is_used_raises(tiny_blocks):
    """Where jet_dense takes a layer and its activation, the layer's channels are formed
    when first used: a weight modified in place in between would give the wrong ones, so
    that raises, as a saved tensor modified would."""
    f, x = _writes_weight_between_product_and_activation()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        taylor.laplacian(f, x)


def test_weight_changed_in_place_after_its_product_leaves_the_product_as_taken():
    """Within a block the product's channels are formed with its value (jet_linear_value):
    a later write to the weight changes neither, as for any product."""
    f, x = _writes_weight_between_product_and_activation()
    u, g, lap = taylor.laplacian(f, x)
    w = lg.tensor(np.random.default_rng(0).standard_normal((D, 4)))  # the products' weight

    def g_ref(x):
        return lg.tanh(lg.tanh(x @ w[:, :D].T) @ w).sum(1, keepdim=True)

    u_ref, g_ref, lap_ref = taylor.laplacian(g_ref, x)
    for a, b in ((u, u_ref), (g, g_ref), (lap, lap_ref)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
