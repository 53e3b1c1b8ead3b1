"""Batched matmul and ``linear`` record PyTorch's composition (``_matmul_impl``: folded rows
through one ``mm``/``mv`` and a view back, transposed first where the second operand is the
larger; else expand, reshape and ``bmm``; ``linear``'s ``_flatten_nd_linear``), so the
graph below the first node is PyTorch's too. Against PyTorch: graphs to the leaves, values,
first and second derivatives."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import names_to_leaves

torch = pytest.importorskip("torch")

# (left shape, right shape, left requires grad, right requires grad, right transposed)
PRODUCTS = [
    ((2, 3, 4), (4, 5), True, True, False),
    ((2, 3, 4), (4, 5), True, False, False),
    ((2, 3, 4), (4,), True, True, False),
    ((3, 4), (2, 4, 5), True, True, False),
    ((3, 4), (2, 4, 5), False, True, False),
    ((4,), (2, 4, 5), True, True, False),
    ((2, 3, 4), (2, 4, 5), True, True, False),
    ((1, 3, 4), (2, 4, 5), True, True, False),
    ((2, 3, 4), (1, 4, 5), True, True, False),
    ((2, 1, 3, 4), (3, 4, 5), True, True, False),
    ((2, 2, 3, 4), (4, 5), True, False, False),
    ((2, 3, 4), (2, 5, 4), True, True, True),
    ((3, 2, 4), (5, 4), True, False, True),
]


def _run(m, make, arrays, grads):
    inputs = [m.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    y = make(m, *inputs)
    wanted = [t for t in inputs if t.requires_grad]
    weights = m.tensor(np.linspace(-1.0, 1.0, y.numel()).reshape(tuple(y.shape)))
    first = m.autograd.grad((y * y * weights).sum(), wanted, create_graph=True)
    second = m.autograd.grad(sum((g * g).sum() for g in first), wanted)
    return names_to_leaves(y.grad_fn), [y.detach().numpy()] + [
        g.detach().numpy() for g in first + second
    ]


def _check(make, arrays, grads):
    ours, got = _run(lg, make, arrays, grads)
    theirs, want = _run(torch, make, arrays, grads)
    assert ours == theirs
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("left", "right", "gl", "gr", "transposed"), PRODUCTS)
def test_batched_matmul_records_pytorchs_composition(left, right, gl, gr, transposed):
    rng = np.random.default_rng(len(left) * 10 + len(right))
    a = rng.standard_normal(left)
    b = rng.standard_normal(right)

    def make(m, x, w):
        return x @ (w.mT if transposed else w)

    _check(make, [a, b], [gl, gr])


@pytest.mark.parametrize(
    ("shape", "bias", "layout"),
    [
        ((2, 3, 4), True, "contiguous"),
        ((2, 2, 3, 4), True, "contiguous"),
        ((4,), True, "contiguous"),
        ((2, 3, 4), False, "contiguous"),
        ((3, 2, 4), True, "transposed"),
        ((2, 2, 3, 4), False, "contiguous"),
    ],
)
def test_linear_records_pytorchs_composition(shape, bias, layout):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    w = rng.standard_normal((5, 4))
    b = rng.standard_normal(5)

    def make(m, x, w, b):
        if layout == "transposed":
            x = x.transpose(0, 1)
        return m.nn.functional.linear(x, w, b if bias else None)

    _check(make, [x, w, b], [True, True, bias])


def test_matmul_without_grad_keeps_one_product():
    a, b = lg.randn(2, 3, 4), lg.randn(4, 5)
    out = a @ b
    assert out.grad_fn is None
    np.testing.assert_allclose(out.numpy(), np.matmul(a.numpy(), b.numpy()), rtol=1e-6)
