"""The PINN network: input scaling, output transforms and periodic inputs."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.pinn import MLP, partial
from leafgrad.pinn.operators import Evaluation


def _random_network(**kwargs):
    lg.manual_seed(0)
    model = MLP(2, 1, width=10, depth=3, **kwargs).to(lg.float64)
    with lg.no_grad():
        for p in model.parameters():
            p.add_(lg.randn(p.shape, dtype=lg.float64) * 0.3)
    return model


def test_a_periodic_column_makes_the_output_and_its_derivatives_periodic():
    model = _random_network(bounds=([-1.0, 0.0], [1.0, 1.0]), periodic={0: 2.0})
    t = np.linspace(0, 1, 7)
    left = lg.tensor(np.stack([np.full(7, -1.0), t], axis=1))
    right = lg.tensor(np.stack([np.full(7, 1.0), t], axis=1))
    values = []
    for x in (left, right):
        with Evaluation(model, x) as ev:
            values.append(
                [ev.output, partial(ev.output, ev.inputs, 0), partial(ev.output, ev.inputs, 0, 0)]
            )
    for a, b in zip(*values):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=0, atol=1e-12)
    # ... and the network is not constant in x: periodicity is not bought by ignoring x.
    middle = lg.tensor(np.stack([np.zeros(7), t], axis=1))
    assert np.abs(model(middle).detach().numpy() - values[0][0].detach().numpy()).max() > 1e-3


def test_without_periodic_columns_the_first_layer_sees_the_scaled_inputs():
    model = _random_network(bounds=([0.0, 0.0], [2.0, 4.0]))
    x = lg.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=lg.float64)
    first = model.layers[0]
    expected = model.layers[1:](first(lg.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=lg.float64)))
    np.testing.assert_allclose(model(x).detach().numpy(), expected.detach().numpy(), rtol=1e-14)
    assert first.in_features == 2
    assert _random_network(periodic={1: 1.0}).layers[0].in_features == 3


@pytest.mark.parametrize("periodic", [{2: 1.0}, {0: 0.0}, {-1: 1.0}])
def test_bad_periodic_columns_are_refused_by_name(periodic):
    with pytest.raises(ValueError, match="periodic"):
        MLP(2, 1, periodic=periodic)
