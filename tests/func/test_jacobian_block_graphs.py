"""Which blocks of a vectorized Jacobian are in the graph, as in PyTorch.

PyTorch computes a vectorized Jacobian in one batched pass per input (reverse mode) or per
output (forward mode) and splits it into blocks, so the blocks of one input (output) are
views of one tensor: in the graph together, even a block of zeros or a constant one. And a
tangent computed inside a reverse-mode transform leaves it unwrapped, like the primal: no
graph to the transform's own copies of its arguments.
"""

import pytest

import leafgrad as lg


def _flags(r):
    if isinstance(r, (tuple, list)):
        return [_flags(x) for x in r]
    return r.requires_grad


def _inputs(m, rg_x, rg_y):
    x = m.tensor([0.1, -0.4, 0.7], dtype=m.float64, requires_grad=bool(rg_x))
    y = m.tensor([0.3, 1.2], dtype=m.float64, requires_grad=bool(rg_y))
    return x, y


def _two_out(m):
    return lambda x, y: (x * m.full((3,), 2.0, dtype=m.float64), x.sin() * y.sum())


def _indep(m):
    return lambda x, y: (x * m.full((3,), 2.0, dtype=m.float64), y.cos())


def _one(m):
    return lambda x, y: x.exp() * y.sum()


def _scalar(m):
    return lambda x, y: (x.exp() * y.sum()).sum()


def _rg_cases(m):
    af, fn = m.autograd.functional, m.func
    return {
        # reverse mode: one input's blocks share the graph (x's for both outputs)
        "func.jacrev two_out x": lambda: fn.jacrev(_two_out(m), (0, 1))(*_inputs(m, 1, 0)),
        "func.jacrev indep y": lambda: fn.jacrev(_indep(m), (0, 1))(*_inputs(m, 0, 1)),
        "jacobian cg vec two_out": lambda: af.jacobian(
            _two_out(m), _inputs(m, 0, 0), create_graph=True, vectorize=True
        ),
        "jacobian cg vec indep": lambda: af.jacobian(
            _indep(m), _inputs(m, 0, 0), create_graph=True, vectorize=True
        ),
        "hessian cg vec": lambda: af.hessian(
            _scalar(m), _inputs(m, 0, 0), create_graph=True, vectorize=True
        ),
        # forward mode: one output's blocks share the graph
        "func.jacfwd one y": lambda: fn.jacfwd(_one(m), (0, 1))(*_inputs(m, 0, 1)),
        "func.jacfwd scalar y": lambda: fn.jacfwd(_scalar(m), (0, 1))(*_inputs(m, 0, 1)),
        "jacobian fwd one y": lambda: af.jacobian(
            _one(m), _inputs(m, 0, 1), vectorize=True, strategy="forward-mode"
        ),
        "hessian fwd": lambda: af.hessian(
            _scalar(m), _inputs(m, 0, 0), vectorize=True, outer_jacobian_strategy="forward-mode"
        ),
        # a tangent made inside jacrev has no graph to jacrev's own copies
        "func.hessian y": lambda: fn.hessian(_scalar(m), (0, 1))(*_inputs(m, 0, 1)),
    }


EXPECTED = {  # PyTorch 2.13's
    "func.jacrev two_out x": [[True, True], [True, True]],
    "func.jacrev indep y": [[False, True], [False, True]],
    "jacobian cg vec two_out": [[True, True], [True, True]],
    "jacobian cg vec indep": [[False, True], [False, True]],
    "hessian cg vec": [[True, True], [True, True]],
    "func.jacfwd one y": [True, True],
    "func.jacfwd scalar y": [True, True],
    "jacobian fwd one y": [True, True],
    "hessian fwd": [[True, True], [True, True]],
    "func.hessian y": [[True, True], [False, False]],
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_blocks_in_the_graph(case):
    assert _flags(_rg_cases(lg)[case]()) == EXPECTED[case]


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_blocks_in_the_graph_match_pytorch(case):
    torch = pytest.importorskip("torch")
    ours, theirs = _rg_cases(lg)[case](), _rg_cases(torch)[case]()
    assert _flags(ours) == _flags(theirs)

    def flat(r):
        return [b for x in r for b in flat(x)] if isinstance(r, (tuple, list)) else [r]

    for a, b in zip(flat(ours), flat(theirs)):
        assert tuple(a.shape) == tuple(b.shape)
        assert (a.detach().numpy() - b.detach().numpy()).__abs__().max() < 1e-12


def test_shared_blocks_differentiate_like_their_own():
    x, y = _inputs(lg, True, False)
    (j00, j01), (j10, _) = lg.autograd.functional.jacobian(
        _two_out(lg), (x, y), create_graph=True, vectorize=True
    )
    assert j00.grad_fn is not None and j01.grad_fn is not None  # views of x's rows
    assert j00.detach().diagonal().tolist() == [2.0, 2.0, 2.0]
    assert not j01.detach().any()
    (g,) = lg.autograd.grad(j10.sum() + j00.sum() + j01.sum(), [x])
    expected = -(x.detach().sin() * y.sum())  # d/dx of the diagonal cos(x) * sum(y)
    assert (g - expected).abs().max().item() < 1e-12
