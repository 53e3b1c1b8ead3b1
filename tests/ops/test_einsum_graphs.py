"""einsum against PyTorch's graph: ATen's einsum is composite (permute / unsqueeze /
diagonal, then pairwise ``sumproduct_pair``: permute, reshape, bmm, view, permute), so
leafgrad records those ops, node for node to the leaves, with the same values and first and
second derivatives."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# equation, operand shapes, which operands require grad
CASES = {
    "mm": ("ij,jk->ik", [(3, 4), (4, 5)], (True, True)),
    "mm-transposed-out": ("ij,jk->ki", [(3, 4), (4, 5)], (True, True)),
    "mm-const-right": ("ij,jk->ki", [(3, 4), (4, 5)], (True, False)),
    "bmm": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], (True, True)),
    "dot": ("i,i->", [(4,), (4,)], (True, True)),
    "outer": ("i,j->ij", [(3,), (4,)], (True, True)),
    "outer-const-left": ("i,j->ij", [(3,), (4,)], (False, True)),
    "diagonal": ("ii->i", [(3, 3)], (True,)),
    "column-sums": ("ij->j", [(3, 4)], (True,)),
    "batched-ellipsis": ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)], (True, True)),
    "rowwise-dot": ("ij,ij->i", [(3, 4), (3, 4)], (True, True)),
    "three-operands": ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)], (True, True, True)),
    "three-operands-const-middle": (
        "bn,anm,bm->ba",
        [(2, 3), (4, 3, 5), (2, 5)],
        (True, False, True),
    ),
    "diagonal-then-contract": ("iij,jk->ik", [(3, 3, 4), (4, 5)], (True, True)),
    "implicit-output": ("ij,jk", [(3, 4), (4, 5)], (True, True)),
    "summed-in-one-operand": ("ij,k->ik", [(3, 4), (5,)], (True, True)),
    "broadcast-size-one": ("ij,ij->j", [(1, 4), (3, 4)], (True, True)),
}


TOLERANCES = {"float64": {"rtol": 1e-12, "atol": 1e-13}, "float32": {"rtol": 1e-5, "atol": 1e-5}}


def _run(m, eq, shapes, needs, dtype):
    rng = np.random.default_rng(7)
    ops = [
        m.tensor(rng.uniform(-1, 1, s), dtype=getattr(m, dtype), requires_grad=need)
        for s, need in zip(shapes, needs)
    ]
    y = m.einsum(eq, *ops)
    leaves = [o for o in ops if o.requires_grad]
    grads = m.autograd.grad((y * y).sum(), leaves, create_graph=True)
    second = m.autograd.grad(sum((g * g.sin()).sum() for g in grads), leaves)
    graphs = [node_names(y.grad_fn, 40)] + [node_names(g.grad_fn, 3) for g in grads]
    return graphs, [t.detach().numpy() for t in (y, *grads, *second)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_einsum_records_pytorchs_graph_to_the_second_derivative(torch, name, dtype):
    eq, shapes, needs = CASES[name]
    graphs, arrays = _run(lg, eq, shapes, needs, dtype)
    torch_graphs, torch_arrays = _run(torch, eq, shapes, needs, dtype)
    assert graphs == torch_graphs
    for a, b in zip(arrays, torch_arrays):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, **TOLERANCES[dtype])
