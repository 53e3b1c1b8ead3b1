"""einsum's remembered plans: what a call records depends only on the equation and the
operands' shapes, so it is planned once per pair of them. A call that reuses a plan records
the graph a fresh plan records (node for node, in the same order, with the same saved
values) and computes the same values, and a plan made for one set of shapes is never used
for another."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import einsum as einsum_module

# equation, operand shapes, whether operands come transposed (a strided layout, so that
# reshapes copy or alias as the strides say)
CASES = {
    "mm": ("ij,jk->ik", [(3, 4), (4, 5)], False),
    "mm-strided": ("ij,jk->ik", [(3, 4), (4, 5)], True),
    "bmm-strided": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], True),
    "implicit-output": ("ij,jk", [(3, 4), (4, 5)], False),
    "ellipsis-broadcast": ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)], False),
    "ellipsis-size-one": ("...i,...i", [(2, 1, 3), (4, 3)], False),
    "ellipsis-middle": ("a...b,b...c->a...c", [(2, 3, 1, 4), (4, 1, 5, 3)], False),
    "diagonal": ("ii->i", [(3, 3)], False),
    "trace-implicit": ("ii", [(3, 3)], False),
    "diagonal-summed": ("iji->j", [(3, 4, 3)], False),
    "diagonals-then-contract": ("iij,jkk,k->ij", [(3, 3, 4), (4, 2, 2), (2,)], False),
    "broadcast-size-one": ("ij,ij->j", [(1, 4), (3, 4)], False),
    "sum-over-one-operand": ("ij,k->ik", [(3, 4), (5,)], False),
    "sum-everything": ("ij,jk->", [(3, 4), (4, 5)], False),
    "outer": ("i,j->ij", [(3,), (4,)], False),
    "three-operands": ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)], False),
    "transpose": ("ij->ji", [(3, 4)], True),
    "column-sums": ("ij->j", [(3, 4)], False),
}


def _operands(m, shapes, strided, seed=3):
    rng = np.random.default_rng(seed)
    leaves, operands = [], []
    for s in shapes:
        if strided and len(s) >= 2:
            flipped = (s[1], s[0], *s[2:])
            leaf = m.tensor(rng.uniform(-1, 1, flipped), requires_grad=True)
            operands.append(leaf.transpose(0, 1))
        else:
            leaf = m.tensor(rng.uniform(-1, 1, s), requires_grad=True)
            operands.append(leaf)
        leaves.append(leaf)
    return leaves, operands


def _value(v):
    if hasattr(v, "detach"):
        a = v.detach().numpy()
        return ("tensor", str(a.dtype), a.shape, a.tolist())
    return repr(v)


def _graph(fn):
    """Every node below ``fn`` in creation order: its name, its edges (as positions in that
    order) and its saved attributes."""
    nodes, stack, seen = [], [fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(node)
        stack.extend(child for child, _ in node.next_functions)
    nodes.sort(key=lambda n: n._sequence_nr())
    at = {id(n): i for i, n in enumerate(nodes)}
    return [
        (
            n.name(),
            [None if c is None else (at[id(c)], k) for c, k in n.next_functions],
            {a: _value(getattr(n, a)) for a in dir(n) if a.startswith("_saved_")},
        )
        for n in nodes
    ]


def _record(equation, shapes, strided):
    leaves, operands = _operands(lg, shapes, strided)
    y = lg.einsum(equation, *operands)
    graph = _graph(y.grad_fn)  # (before the backward frees the saved tensors)
    grads = lg.autograd.grad((y * y).sum(), leaves)
    arrays = [t.detach().numpy() for t in (y, *grads)]
    return graph, [(a.dtype, a.shape, a.strides, a.tolist()) for a in arrays]


def _forget_plans():
    einsum_module._aten_plan.cache_clear()
    einsum_module._contraction.cache_clear()


@pytest.mark.parametrize("name", CASES)
def test_a_remembered_plan_records_what_a_fresh_one_records(name):
    equation, shapes, strided = CASES[name]
    _forget_plans()
    fresh = _record(equation, shapes, strided)
    hits = einsum_module._aten_plan.cache_info().hits
    again = _record(equation, shapes, strided)
    assert einsum_module._aten_plan.cache_info().hits == hits + 1
    assert again == fresh


@pytest.mark.parametrize("name", CASES)
def test_a_remembered_plan_computes_what_numpy_does_without_grad(name):
    equation, shapes, strided = CASES[name]
    _forget_plans()
    _, operands = _operands(lg, shapes, strided)
    arrays = [o.detach().numpy() for o in operands]
    with lg.no_grad():
        fresh = lg.einsum(equation, *operands)
        again = lg.einsum(equation, *operands)
    expected = np.einsum(equation, *arrays)
    for y in (fresh, again):
        assert y.dtype == lg.float64 and tuple(y.shape) == expected.shape
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize(
    "equation, shape_sets",
    [
        ("ij,jk->ik", [[(3, 4), (4, 5)], [(1, 4), (4, 5)], [(3, 1), (1, 5)], [(2, 6), (6, 1)]]),
        ("...ij,...jk->...ik", [[(2, 3, 4), (4, 5)], [(3, 4), (2, 1, 4, 5)], [(3, 4), (4, 5)]]),
        ("ii->i", [[(3, 3)], [(1, 1)], [(5, 5)]]),
        ("...,...->...", [[(3,), (2, 3)], [(2, 1), (1, 4)], [(), (4,)]]),
    ],
)
def test_each_set_of_shapes_gets_its_own_plan(equation, shape_sets):
    remembered = []
    _forget_plans()
    for shapes in shape_sets:  # one after another, each reusing nothing it should not
        remembered.append(_record(equation, shapes, False))
    for shapes, graph_and_values in zip(shape_sets, remembered):
        _forget_plans()
        assert _record(equation, shapes, False) == graph_and_values


def test_a_remembered_plan_records_pytorchs_nodes(torch_module):
    from tests._graphs import names_to_leaves  # why: only this test compares with PyTorch

    for name, (equation, shapes, strided) in CASES.items():
        graphs = []
        for m in (lg, lg, torch_module):  # the second leafgrad call reuses the plan
            leaves, operands = _operands(m, shapes, strided)
            y = m.einsum(equation, *operands)
            grads = m.autograd.grad((y * y).sum(), leaves)
            graphs.append((names_to_leaves(y.grad_fn), [g.detach().numpy() for g in grads]))
        for ours in graphs[:2]:
            assert ours[0] == graphs[2][0], name
            for a, b in zip(ours[1], graphs[2][1]):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_a_failed_check_is_not_remembered():
    a, b = lg.ones(3, 4, requires_grad=True), lg.ones(5, 6)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="einsum\\(\\): subscript j has size 5"):
            lg.einsum("ij,jk->ik", a, b)
        with pytest.raises(RuntimeError, match="einsum\\(\\): subscript j has size 5"):
            lg.einsum("ij,jk->ik", a.detach(), b)


@pytest.fixture
def torch_module():
    return pytest.importorskip("torch")
