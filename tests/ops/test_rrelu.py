"""rrelu against PyTorch: recorded as rrelu_with_noise (RreluWithNoiseBackward0, its backward
RreluWithNoiseBackwardBackward0), and while training the same slopes for the same seed,
leaving the generator where PyTorch's is."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names

NAN = float("nan")


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _run(m, dtype, call, values):
    m.manual_seed(7)
    x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
    y = call(m, x)
    (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
    (h,) = m.autograd.grad(g.sum(), x)
    after = m.rand(3, dtype=getattr(m, dtype))  # the generator left where PyTorch's is
    graphs = node_names(y.grad_fn, 1), node_names(g.grad_fn, 2)
    return graphs, [t.detach().numpy() for t in (y, g, h, after)]


CALLS = {
    "training": lambda m, x: m.nn.functional.rrelu(x, training=True),
    "training-bounds": lambda m, x: m.nn.functional.rrelu(x, 0.05, 0.9, True),
    "training-no-spread": lambda m, x: m.nn.functional.rrelu(x, 0.2, 0.2, True),
    "eval": lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.3),
    "module": lambda m, x: m.nn.RReLU(0.1, 0.4)(x),
    "torch-level": lambda m, x: m.rrelu(x, 0.1, 0.3, True),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", CALLS)
def test_rrelu_matches_pytorch(torch, name, dtype):
    values = np.concatenate([np.linspace(-3, 3, 23), [0.0, -0.0, NAN]])
    graphs, arrays = _run(lg, dtype, CALLS[name], values)
    torch_graphs, torch_arrays = _run(torch, dtype, CALLS[name], values)
    assert graphs == torch_graphs
    for a, b in zip(arrays, torch_arrays):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_rrelu_draws_from_a_given_generator(torch):
    """torch.rrelu's ``generator``: its stream, not the global one."""
    found = []
    for m in (lg, torch):
        m.manual_seed(0)
        g = m.Generator().manual_seed(3)
        x = m.tensor(np.linspace(-2, 1, 7))
        found.append((m.rrelu(x, 0.1, 0.3, True, g).numpy(), m.rand(2).numpy()))
    for a, b in zip(*found):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("randomness", ["different", "same"])
def test_rrelu_under_vmap_draws_by_the_randomness_mode(randomness):
    """Under vmap the slopes come from rand and its randomness modes (no PyTorch stream to
    follow there): within the bounds, per example or shared."""
    x = -lg.ones(3, 50)
    y = lg.vmap(lambda t: lg.nn.functional.rrelu(t, 0.1, 0.3, True), randomness=randomness)(x)
    slopes = -y.numpy()
    assert ((slopes >= 0.1) & (slopes <= 0.3)).all()
    assert (slopes[0] == slopes[1]).all() == (randomness == "same")


def test_rrelu_refuses_half_in_training_as_pytorch(torch):
    for m in (lg, torch):
        x = m.ones(3, dtype=m.float16)
        with pytest.raises(NotImplementedError, match="rrelu_with_noise_out_cpu"):
            m.nn.functional.rrelu(x, training=True)
        assert m.nn.functional.rrelu(-x).dtype == m.float16  # outside training: leaky_relu
