"""block_diag against PyTorch: one node (BlockDiagBackward0) with an edge per tensor (None for
one without grad), PyTorch's slices as its gradient for 0-d, 1-d, 2-d, empty and mixed-dtype
tensors, to the second derivative; forward mode; and the one place it departs."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# (shape, dtype, requires_grad) of each tensor.
CASES = {
    "ranks": [((2, 3), "float64", True), ((3,), "float64", True), ((), "float64", True)],
    "one-element-1d": [((1,), "float64", True), ((2, 2), "float64", True)],
    "mixed-dtypes": [
        ((2, 3), "float32", True),
        ((3,), "float64", True),
        ((), "int32", False),
        ((1, 2), "float64", False),
    ],
    "empty": [
        ((2, 2), "float64", True),
        ((0, 2), "float64", True),
        ((2, 0), "float32", True),
        ((0,), "float64", True),
    ],
    "one": [((2, 3), "float64", True)],
}


def _tensors(m, case):
    out = []
    for i, (shape, dtype, grad) in enumerate(case):
        values = np.random.default_rng(i).uniform(-2, 2, shape)
        out.append(m.tensor(values, dtype=getattr(m, dtype), requires_grad=grad))
    return out


def _derivatives(m, case):
    xs = _tensors(m, case)
    y = m.block_diag(*xs)
    weights = m.tensor(np.random.default_rng(5).standard_normal(tuple(y.shape)), dtype=y.dtype)
    wanted = [x for x in xs if x.requires_grad]
    gs = m.autograd.grad((y * y * weights).sum(), wanted, create_graph=True)
    live = [(x, g) for x, g in zip(wanted, gs) if g.requires_grad]
    hs = m.autograd.grad(sum((g * g).sum() for _, g in live), [x for x, _ in live])
    graphs = node_names(y.grad_fn, 1), [node_names(g.grad_fn, 4) for g in gs]
    return graphs, [t.detach().numpy() for t in (y, *gs, *hs)]


@pytest.mark.parametrize("name", CASES)
def test_block_diag_matches_pytorch_to_the_second_derivative(torch, name):
    graphs, arrays = _derivatives(lg, CASES[name])
    torch_graphs, torch_arrays = _derivatives(torch, CASES[name])
    assert graphs == torch_graphs
    assert graphs[0][0] == "BlockDiagBackward0"
    for a, b in zip(arrays, torch_arrays):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6 if a.dtype == np.float32 else 1e-14)


def test_block_diag_edges_are_pytorchs(torch):
    found = []
    for m in (lg, torch):
        y = m.block_diag(*_tensors(m, CASES["mixed-dtypes"]))
        found.append([(None if f is None else f.name(), i) for f, i in y.grad_fn.next_functions])
    assert found[0] == found[1]
    assert found[0][2:] == [(None, 0), (None, 0)]


@pytest.mark.parametrize(
    "shapes_and_dtypes",
    [
        [((2,), "float16"), ((), "float64")],  # a 0-d tensor does not promote the rest
        [((2,), "int64"), ((), "float64")],  # but a higher category does
        [((2,), "bool"), ((1,), "bool")],
        [((0,), "float32")],
    ],
)
def test_block_diag_dtype_and_shape_are_pytorchs(torch, shapes_and_dtypes):
    found = []
    for m in (lg, torch):
        y = m.block_diag(*[m.ones(s, dtype=getattr(m, d)) for s, d in shapes_and_dtypes])
        found.append((str(y.dtype).split(".")[-1], tuple(y.shape), y.numpy().tolist()))
    assert found[0] == found[1]


def test_block_diag_forward_mode_matches_pytorch(torch):
    shapes = [(2, 3), (3,), ()]
    tangents = [np.random.default_rng(9 + i).standard_normal(s) for i, s in enumerate(shapes)]
    found = []
    for m in (lg, torch):
        fwad = m.autograd.forward_ad
        xs = _tensors(m, CASES["ranks"])
        with fwad.dual_level():
            duals = [fwad.make_dual(xs[0].detach(), m.tensor(tangents[0])), xs[1].detach(),
                     fwad.make_dual(xs[2].detach(), m.tensor(tangents[2]))]  # fmt: skip
            found.append(fwad.unpack_dual(m.block_diag(*duals)).tangent.numpy())
    np.testing.assert_array_equal(found[0], found[1])


def test_blocks_after_an_empty_1d_tensor_get_their_own_gradient():
    """PyTorch's block_diag_backward skips an empty 1-d tensor's row (its forward gives it
    one), so the blocks after it get the gradient of the rows above theirs; leafgrad's
    gradient is each block's own."""
    x = lg.tensor(np.arange(4.0).reshape(2, 2), requires_grad=True)
    y = lg.block_diag(lg.ones(0), x)
    weights = lg.tensor(np.arange(6.0).reshape(3, 2))
    (g,) = lg.autograd.grad((y * weights).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [[2.0, 3.0], [4.0, 5.0]])
