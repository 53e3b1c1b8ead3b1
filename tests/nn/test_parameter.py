"""nn.Parameter: a leaf that requires grad, prints as PyTorch's, and works with every op."""

import copy
import pickle

import numpy as np
import pytest

import leafgrad
from leafgrad import nn


def test_parameter_is_a_leaf_that_requires_grad(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert isinstance(p, torch.Tensor) and isinstance(p, torch.nn.Parameter)


def test_parameter_requires_grad_false(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]), requires_grad=False)
    assert p.is_leaf and not p.requires_grad


def test_parameter_requires_grad_even_under_no_grad(torch):
    with torch.no_grad():
        p = torch.nn.Parameter(torch.ones(2))
    assert p.requires_grad


def test_parameter_of_a_non_leaf_is_a_new_leaf_sharing_values(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    p = torch.nn.Parameter(y)
    assert p.is_leaf and p.grad_fn is None
    assert p.tolist() == [2.0, 4.0]


def test_parameter_shares_values_with_its_data(torch):
    t = torch.zeros(3)
    p = torch.nn.Parameter(t)
    with torch.no_grad():
        p.fill_(5.0)
    assert t.tolist() == [5.0, 5.0, 5.0]


def test_default_parameter_is_empty(torch):
    p = torch.nn.Parameter()
    assert p.shape == (0,) and p.requires_grad


def test_ops_on_a_parameter_return_plain_tensors(torch):
    p = torch.nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    results = [p * 2, p + p, p.t(), p.sum(), p @ p, torch.tanh(p), p.reshape(4), p[0], p.detach()]
    for r in results:
        assert type(r) is torch.Tensor
        assert not isinstance(r, torch.nn.Parameter)


def test_gradients_reach_the_parameter(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    (p * p).sum().backward()
    assert p.grad.tolist() == [2.0, 4.0, 6.0]
    assert type(p.grad) is torch.Tensor


def test_parameter_in_every_op_family(torch):
    p = torch.nn.Parameter(torch.tensor([[0.5, -1.0], [2.0, 0.25]]))
    out = (
        torch.matmul(p, p).sum()
        + torch.exp(p).mean()
        + p.softmax(dim=1)[0, 0]
        + torch.relu(p).sum()
        + p.gather(1, torch.tensor([[0], [1]])).sum()
        + torch.cat([p, p]).sum()
        + p.abs().max()
        + torch.where(p > 0, p, 0.0).sum()
    )
    (g,) = torch.autograd.grad(out, [p])
    assert g.shape == (2, 2)


def test_parameter_repr_matches_pytorch(torch):
    assert repr(torch.nn.Parameter(torch.tensor([1.0, 2.0]))) == (
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    )
    assert repr(torch.nn.Parameter(torch.tensor([1.0, 2.0]), requires_grad=False)) == (
        "Parameter containing:\ntensor([1., 2.])"
    )
    assert repr(torch.nn.Parameter(torch.tensor([1.0], dtype=torch.float64))) == (
        "Parameter containing:\ntensor([1.], dtype=torch.float64, requires_grad=True)"
    )


def test_deepcopy_gives_an_independent_parameter(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert type(q) is torch.nn.Parameter and q.requires_grad and q is not p
    with torch.no_grad():
        q.fill_(0.0)
    assert p.tolist() == [1.0, 2.0]


def test_parameter_survives_pickling():
    p = nn.Parameter(leafgrad.tensor([1.0, 2.0]), requires_grad=False)
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is nn.Parameter and not q.requires_grad and q.tolist() == [1.0, 2.0]


def test_parameter_of_non_tensor_raises_type_error():
    with pytest.raises(TypeError, match="Parameter"):
        nn.Parameter(np.ones(3))


def test_core_ops_treat_tensor_subclasses_as_tensors():
    """nn.Parameter is a Tensor subclass, so every op must read its values and record a
    gradient edge to it: the core must test ``isinstance(a, Tensor)``, not ``type(a) is
    Tensor`` (ops/_primitive.py, _engine/graph.py). Most of tests/nn fails without this."""
    p = nn.Parameter(leafgrad.tensor([1.0, 2.0]))
    for out in (p * 3.0, p.t(), leafgrad.tanh(p), p.exp()):
        assert out.grad_fn is not None, f"an op on a Parameter did not record {out}"
    (p * 3.0).sum().backward()
    assert p.grad.tolist() == [3.0, 3.0]
