"""bilinear against PyTorch: AddBackward0 (bias) over ViewBackward0 over TrilinearBackward0
over the inputs' ViewBackward0s, with its edges (None where no gradient is wanted) and node
order; derivatives (TrilinearBackward0 again) to the third; forward mode; errors."""

import numpy as np
import pytest

import leafgrad as lg


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _edges(fn, depth):
    """A node's name and, to ``depth``, its next_functions with their input numbers."""
    if fn is None or depth == 0:
        return None if fn is None else fn.name()
    return fn.name(), [(_edges(c, depth - 1), i) for c, i in fn.next_functions]


def _derivatives(m, lead, bias, dtype, wants):
    rng = np.random.default_rng(0)
    d = getattr(m, dtype)
    x1 = m.tensor(rng.standard_normal((*lead, 3)), dtype=d, requires_grad=wants[0])
    x2 = m.tensor(rng.standard_normal((*lead, 4)), dtype=d, requires_grad=wants[1])
    w = m.tensor(rng.standard_normal((2, 3, 4)), dtype=d, requires_grad=wants[2])
    b = m.tensor(rng.standard_normal(2), dtype=d, requires_grad=True) if bias else None
    y = m.nn.functional.bilinear(x1, x2, w, b)
    inputs = [t for t in (x1, x2, w) if t.requires_grad]
    gs = m.autograd.grad((y * y * y).sum(), inputs, create_graph=True)
    hs = m.autograd.grad(sum((g * g).sum() for g in gs), inputs, create_graph=True)
    ks = m.autograd.grad(sum(h.sum() for h in hs), inputs)
    graphs = [_edges(y.grad_fn, 5)] + [_edges(t.grad_fn, 4) for t in (*gs, *hs)]
    order = [t.grad_fn._sequence_nr() - y.grad_fn._sequence_nr() for t in (*gs, *hs)]
    return graphs, order, [t.detach().numpy() for t in (y, *gs, *hs, *ks)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("lead", [(5,), (2, 3), ()])
@pytest.mark.parametrize("wants", [(True, True, True), (True, False, False), (False, True, True)])
def test_bilinear_matches_pytorch_to_the_third_derivative(torch, lead, bias, dtype, wants):
    graphs, order, arrays = _derivatives(lg, lead, bias, dtype, wants)
    torch_graphs, torch_order, torch_arrays = _derivatives(torch, lead, bias, dtype, wants)
    assert graphs == torch_graphs
    assert order == torch_order
    for a, b in zip(arrays, torch_arrays):
        assert a.dtype == b.dtype and a.shape == b.shape
        rtol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.abs(b).max())


def test_trilinear_saves_an_operand_only_for_another_ones_gradient(torch):
    for m in (lg, torch):
        x1 = m.ones(2, 3, requires_grad=True)
        y = m.bilinear(x1, m.ones(2, 4), m.ones(5, 3, 4), None)
        node = y.grad_fn.next_functions[0][0]
        assert node.name() == "TrilinearBackward0"
        assert node._saved_i1 is None and tuple(node._saved_i2.shape) == (5, 3, 4)
        assert tuple(node._saved_expand1) == (1, 3) and tuple(node._saved_sumdim) == (2, 3)
        x1.detach().mul_(2)  # i1 is not saved: changing it in place breaks nothing
        m.autograd.grad(y.sum(), x1)


def test_bilinear_forward_mode_matches_pytorch(torch):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in ((4, 3), (4, 2), (2, 3, 2), (2,))]
    tangents = [rng.standard_normal(a.shape) for a in arrays]
    found = []
    for m in (lg, torch):
        fwad = m.autograd.forward_ad
        with fwad.dual_level():
            duals = [fwad.make_dual(m.tensor(a), m.tensor(t)) for a, t in zip(arrays, tangents)]
            out = fwad.unpack_dual(m.nn.functional.bilinear(*duals))
        found.append(out.tangent.numpy())
    np.testing.assert_allclose(found[0], found[1], rtol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.nn.functional.bilinear(m.ones(2, 3), m.ones(4), m.ones(2, 3, 4)),
        lambda m: m.nn.functional.bilinear(m.ones(2, 3), m.ones(3, 4), m.ones(2, 3, 4)),
        lambda m: m.nn.functional.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(3, 4)),
        lambda m: m.nn.functional.bilinear(m.ones(2, 4), m.ones(2, 4), m.ones(3, 4)),
        lambda m: m.nn.functional.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(2, 3, 4, 1)),
        lambda m: m.nn.functional.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(2, 3, 4), m.ones(3)),
        lambda m: m.nn.functional.bilinear(
            m.ones(2, 3), m.ones(2, 4), m.ones(2, 3, 4), m.tensor(1.0)
        ),
        lambda m: m.nn.functional.bilinear(
            m.ones(2, 3), m.ones(2, 4), m.ones(2, 3, 4, dtype=m.float64)
        ),
        lambda m: m.nn.functional.bilinear(m.tensor(1.0), m.tensor(1.0), m.ones(2, 1, 1)),
        lambda m: m.nn.functional.bilinear(
            m.ones(2, 3, dtype=m.bool), m.ones(2, 4, dtype=m.bool), m.ones(2, 3, 4, dtype=m.bool)
        ),
        lambda m: m.nn.functional.bilinear(np.ones((2, 3)), m.ones(2, 4), m.ones(2, 3, 4)),
        lambda m: m.nn.functional.bilinear(m.ones(1, 3), m.ones(1, 4), m.ones(2, 3, 4), 1.0),
    ],
)
def test_bilinear_refuses_what_pytorch_refuses(torch, call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(lg)
