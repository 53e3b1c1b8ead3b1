"""nn.utils: gradient clipping and parameter vectors, against PyTorch."""

import numpy as np
import pytest

import leafgrad

GRADS = [np.array([3.0, -4.0, 0.5]), np.array([[1.0, 2.0], [-2.0, 0.25]])]


def _params(m, grads=GRADS):
    params = []
    for g in grads:
        p = m.nn.Parameter(m.ones(g.shape, dtype=m.float64))
        p.grad = m.tensor(g)
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), "inf", 3.0])
@pytest.mark.parametrize("max_norm", [1.0, 100.0])
def test_clip_grad_norm_scales_like_pytorch(norm_type, max_norm):
    torch = pytest.importorskip("torch")
    ours, theirs = _params(leafgrad), _params(torch)
    total = leafgrad.nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-12)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_edge_cases(torch):
    assert torch.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    p = torch.nn.Parameter(torch.ones(2))
    assert torch.nn.utils.clip_grad_norm_(p, 1.0).item() == 0.0  # no grad yet
    p.grad = torch.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        torch.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_clamps_each_element(torch):
    params = _params(torch)
    torch.nn.utils.clip_grad_value_(params, 1.0)
    assert params[0].grad.tolist() == [1.0, -1.0, 0.5]
    assert params[1].grad.tolist() == [[1.0, 1.0], [-1.0, 0.25]]


def test_parameters_and_vectors_round_trip(torch):
    model = torch.nn.Linear(3, 2)
    vec = torch.nn.utils.parameters_to_vector(model.parameters())
    assert vec.shape == (8,) and vec.requires_grad
    torch.nn.utils.vector_to_parameters(torch.arange(8.0), model.parameters())
    assert model.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert model.bias.tolist() == [6.0, 7.0]
    with pytest.raises(TypeError):
        torch.nn.utils.vector_to_parameters([1.0], model.parameters())
