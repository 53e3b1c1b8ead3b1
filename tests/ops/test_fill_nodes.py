"""fill_ with a number and zero_ record one node with the target's edge alone (FillBackward2,
ZeroBackward0), as PyTorch's: the number is no operand."""

import pytest

import leafgrad as lg
import leafgrad.autograd.forward_ad as fwd


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _edges(m, write):
    x = m.tensor([[0.5, 1.5], [1.0, 2.0]], requires_grad=True)
    y = x * 1
    write(y)
    edges = [None if f is None else type(f).__name__ for f, _ in y.grad_fn.next_functions]
    (y * x).sum().backward()
    return type(y.grad_fn).__name__, edges, x.grad.tolist()


WRITES = {
    "fill_": lambda y: y.fill_(2.0),
    "zero_": lambda y: y.zero_(),
    "fill_ into a row": lambda y: y[0].fill_(3.0),
}


def test_fill_and_zero_have_the_target_edge_alone():
    assert _edges(lg, WRITES["fill_"]) == ("FillBackward2", ["MulBackward0"], [[2.0] * 2] * 2)
    assert _edges(lg, WRITES["zero_"]) == ("ZeroBackward0", ["MulBackward0"], [[0.0] * 2] * 2)
    node, _, grad = _edges(lg, WRITES["fill_ into a row"])
    assert node == "CopySlices" and grad == [[3.0, 3.0], [2.0, 4.0]]


@pytest.mark.parametrize("name", WRITES)
def test_fill_and_zero_nodes_match_torch(torch, name):
    assert _edges(lg, WRITES[name]) == _edges(torch, WRITES[name])


def test_fill_and_zero_under_vmap_and_forward_mode():
    out = lg.func.vmap(lambda r: (r * 2).fill_(5.0) + r)(lg.ones(3, 2))
    assert out.tolist() == [[6.0, 6.0]] * 3
    with fwd.dual_level():
        d = fwd.make_dual(lg.ones(2), lg.ones(2)) * 2
        d.zero_()
        assert fwd.unpack_dual(d).tangent.tolist() == [0.0, 0.0]
