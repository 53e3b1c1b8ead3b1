"""F.max_unpool1d/2d/3d against PyTorch: one node (MaxUnpool2DBackward0 /
MaxUnpool3DBackward0, 1-D the 2-D op between unsqueeze and squeeze) with an edge to the
input only, saving the indices; its gradient PyTorch's view-gather-view to the leaves,
values and first and second derivatives (float64), output_size given, unbatched inputs,
forward mode, vmap, and the errors for bad indices and dtypes."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# (nd, pooled input shape, kernel, options, output_size)
CASES = {
    "1d": (1, (2, 3, 8), 2, {}, None),
    "1d-unbatched-padded": (1, (3, 9), 3, {"stride": 2, "padding": 1}, [9]),
    "2d": (2, (2, 3, 6, 7), 2, {}, [2, 3, 7, 7]),
    "2d-unbatched": (2, (3, 5, 6), (3, 2), {"stride": (2, 1), "padding": (1, 0)}, None),
    "3d": (3, (1, 2, 4, 4, 5), 2, {}, [4, 4, 5]),
    "3d-unbatched": (3, (2, 4, 5, 4), (2, 1, 2), {"stride": (2, 1, 1)}, None),
}


def _pooled(torch, nd, shape, kernel, options):
    x = torch.tensor(np.random.default_rng(nd).standard_normal(shape))
    pool = getattr(torch.nn.functional, f"max_pool{nd}d")
    pooled, indices = pool(x, kernel, **options, return_indices=True)
    return pooled.numpy(), indices.numpy()


def _graphs_and_derivatives(m, nd, pooled, indices, kernel, options, output_size, depth=8):
    x = m.tensor(pooled, requires_grad=True)
    idx = m.tensor(indices)
    unpool = getattr(m.nn.functional, f"max_unpool{nd}d")
    y = unpool(x, idx, kernel, **options, output_size=output_size)
    w = m.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)), requires_grad=True)
    (g,) = m.autograd.grad(y, x, w, create_graph=True)  # a function of w: the gather
    (gw,) = m.autograd.grad((g * g * x).sum(), w, create_graph=True)
    (gx,) = m.autograd.grad((gw * gw).sum(), x)
    node = y.grad_fn if nd > 1 else y.grad_fn.next_functions[0][0]
    saved = node._saved_indices.numpy()
    graphs = (node_names(y.grad_fn, 6), node_names(g.grad_fn, depth), len(node.next_functions))
    return graphs, [t.detach().numpy() for t in (y, g, gw, gx)] + [saved]


@pytest.mark.parametrize("name", CASES)
def test_max_unpool_records_pytorchs_op_to_second_order(torch, name):
    nd, shape, kernel, options, output_size = CASES[name]
    pooled, indices = _pooled(torch, nd, shape, kernel, options)
    # 1-D: the gradient's graph down to the gather's view of w (the whole graph below)
    args = (nd, pooled, indices, kernel, options, output_size, 3 if nd == 1 else 8)
    ours = _graphs_and_derivatives(lg, *args)
    theirs = _graphs_and_derivatives(torch, *args)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1], strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_max_unpool1d_gradient_graph_to_the_leaves(torch):
    nd, shape, kernel, options, output_size = CASES["1d"]
    pooled, indices = _pooled(torch, nd, shape, kernel, options)
    args = (nd, pooled, indices, kernel, options, output_size)
    assert _graphs_and_derivatives(lg, *args)[0] == _graphs_and_derivatives(torch, *args)[0]


def test_max_unpool_equal_indices_keep_the_last_value_as_pytorch(torch):
    pooled, indices = _pooled(torch, 2, (2, 3, 4, 4), 2, {})
    indices[0, 0, 0, 1] = indices[0, 0, 0, 0]
    indices[1, 2, 1, :] = indices[1, 2, 0, 0]
    out = [
        m.nn.functional.max_unpool2d(m.tensor(pooled), m.tensor(indices), 2).numpy()
        for m in (lg, torch)
    ]
    np.testing.assert_array_equal(*out)


@pytest.mark.parametrize(
    ("nd", "shape", "position", "bad"),
    [(2, (2, 3, 4, 4), (0, 0, 0, 0), -1), (2, (2, 3, 4, 4), (1, 2, 1, 1), 16),
     (3, (2, 2, 4, 4, 4), (0, 1, 1, 0, 1), 64), (1, (2, 3, 8), (1, 1, 2), 8),
     (1, (3, 8), (2, 0), 100)],
)  # fmt: skip
def test_max_unpool_bad_indices_raise_as_pytorch(torch, nd, shape, position, bad):
    pooled, indices = _pooled(torch, nd, shape, 2, {})
    indices[position] = bad
    messages = []
    for m in (lg, torch):
        unpool = getattr(m.nn.functional, f"max_unpool{nd}d")
        with pytest.raises(RuntimeError) as info:
            unpool(m.tensor(pooled), m.tensor(indices), 2)
        messages.append(str(info.value))
    assert messages[0] == messages[1]  # "Found an invalid max index: 16 (output ... 4x4)"


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_max_unpool_of_integers_is_not_implemented_as_pytorch(torch, dtype):
    messages = []
    for m in (lg, torch):
        x = m.ones(1, 1, 2, 2, dtype=getattr(m, dtype))
        with pytest.raises(NotImplementedError) as info:
            m.nn.functional.max_unpool2d(x, m.zeros(1, 1, 2, 2, dtype=m.int64), 2)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_max_unpool_float32_keeps_its_dtype(torch):
    pooled, indices = _pooled(torch, 2, (2, 3, 4, 4), 2, {})
    out = [
        m.nn.functional.max_unpool2d(m.tensor(pooled, dtype=m.float32), m.tensor(indices), 2)
        for m in (lg, torch)
    ]
    assert out[0].dtype == lg.float32
    np.testing.assert_array_equal(out[0].numpy(), out[1].numpy())


def _forward_mode_and_vmap(m, pooled, indices, tangent):
    unpool = m.nn.functional.max_unpool2d
    idx = m.tensor(indices)
    _, jvp = m.func.jvp(lambda t: unpool(t, idx, 2), (m.tensor(pooled),), (m.tensor(tangent),))
    batched = m.func.vmap(lambda t, i: unpool(t, i, 2))(m.tensor(pooled), idx)
    shared = m.func.vmap(lambda t: unpool(t, idx[0], 2))(m.tensor(pooled))  # unbatched idx
    grads = m.func.vmap(
        m.func.grad(lambda t, i: (unpool(t, i, 2) ** 2 * 0.5).sum() + unpool(t, i, 2).sum())
    )(m.tensor(pooled), idx)
    return [r.numpy() for r in (jvp, batched, shared, grads)]


def test_max_unpool_forward_mode_and_vmap_as_pytorch(torch):
    pooled, indices = _pooled(torch, 2, (3, 2, 4, 6), 2, {})  # the batch of 3 in front
    tangent = np.random.default_rng(5).standard_normal(pooled.shape)
    ours = _forward_mode_and_vmap(lg, pooled, indices, tangent)
    theirs = _forward_mode_and_vmap(torch, pooled, indices, tangent)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13)
