"""An optional tensor an op was not given is a ``(None, 0)`` edge of its node, where PyTorch
lists one: a convolution's bias, clamp's other bound, a normalisation's weight or bias."""

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


def _leaf(m, shape):
    values = np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape)
    return m.tensor(values, requires_grad=True)


CALLS = {
    "conv1d": lambda m: m.nn.functional.conv1d(_leaf(m, (1, 1, 5)), _leaf(m, (1, 1, 3))),
    "conv2d": lambda m: m.nn.functional.conv2d(_leaf(m, (1, 1, 4, 4)), _leaf(m, (2, 1, 3, 3))),
    "clamp-min": lambda m: m.clamp(_leaf(m, (3,)), min=m.tensor([0.0, 0.1, 0.2])),
    "clamp-max": lambda m: m.clamp(_leaf(m, (3,)), max=_leaf(m, (3,)) * 0.5),
    "layer_norm": lambda m: m.nn.functional.layer_norm(_leaf(m, (2, 3)), (3,)),
    "layer_norm-weight": lambda m: m.nn.functional.layer_norm(
        _leaf(m, (2, 3)), (3,), _leaf(m, (3,))
    ),
    "group_norm": lambda m: m.nn.functional.group_norm(_leaf(m, (2, 4, 3)), 2),
    "batch_norm-bias": lambda m: m.nn.functional.batch_norm(
        _leaf(m, (4, 3)), None, None, bias=_leaf(m, (3,)), training=True
    ),
}


def _edges(y):
    return [None if fn is None else fn.name() for fn, _ in y.grad_fn.next_functions]


@pytest.mark.parametrize("name", list(CALLS))
def test_absent_optional_tensor_is_a_none_edge(name):
    ours, theirs = CALLS[name](lg), CALLS[name](torch)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert _edges(ours) == _edges(theirs)
    assert None in _edges(ours)


SECOND_ORDER = {
    "conv1d": ((1, 1, 5), (1, 1, 3), lambda m, x, w: m.nn.functional.conv1d(x, w)),
    "clamp-max": ((3,), (3,), lambda m, x, b: m.clamp(x, max=b)),
    "layer_norm-weight": ((2, 3), (3,), lambda m, x, w: m.nn.functional.layer_norm(x, (3,), w)),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_gradients_skip_the_absent_edges(name):
    """The rules still see one need per input: gradients as PyTorch's, to second order."""
    first, second, call = SECOND_ORDER[name]
    found = []
    for m in (lg, torch):
        x, other = _leaf(m, first), _leaf(m, second) * 0.3
        other = other.detach().requires_grad_()
        y = call(m, x, other)
        grads = m.autograd.grad((y * y).sum(), (x, other), create_graph=True)
        again = m.autograd.grad(sum((g * g).sum() for g in grads), (x, other))
        found.append([g.detach().numpy() for g in grads + again])
    for ours, theirs in zip(*found):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
