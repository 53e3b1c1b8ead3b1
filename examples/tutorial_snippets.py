"""The leaf/grad tutorial's points, one function each, checked with asserts.

    python examples/tutorial_snippets.py

Each function makes one of the tutorial's claims about PyTorch's autograd and checks that
leafgrad behaves that way (the walk-through with explanations is docs/guides/
leaves-and-grads.md).
"""

import warnings

import leafgrad as torch
from leafgrad.autograd import grad


def leaves_and_constants():
    """Created tensors are leaves; so is anything that does not require grad."""
    w = torch.tensor([2.0], requires_grad=True)
    y = w * 3
    data = torch.tensor([4.0])
    scaled = data * 0.5
    assert w.is_leaf and w.requires_grad
    assert not y.is_leaf and y.requires_grad
    assert data.is_leaf and not data.requires_grad
    assert scaled.is_leaf and not scaled.requires_grad  # computed, yet a leaf


def requires_grad_is_inherited():
    """A result requires grad as soon as one of its inputs does."""
    p = torch.tensor([1.0], requires_grad=True)
    q = torch.tensor([1.0])
    for inputs in ((p, q), (q, q), (q, p)):
        out = torch.cos(inputs[0] + inputs[1])
        assert out.requires_grad == any(t.requires_grad for t in inputs)


def only_leaves_keep_grad():
    """backward() fills .grad of leaves only; reading a non-leaf's .grad warns."""
    w = torch.tensor([2.0], requires_grad=True)
    y = w * w
    y.backward()
    assert w.grad.item() == 4.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert y.grad is None
    assert caught and issubclass(caught[0].category, UserWarning)


def retain_grad_keeps_it():
    """retain_grad() asks backward to keep a non-leaf's gradient."""
    w = torch.tensor([2.0], requires_grad=True)
    y = w * w
    y.retain_grad()
    y.backward()
    assert y.grad.item() == 1.0 and y.retains_grad


def a_grad_is_a_constant_tensor():
    """Gradients are tensors, leaves, and do not require grad."""
    w = torch.tensor([2.0], requires_grad=True)
    (w * w).backward()
    g = w.grad
    assert isinstance(g, torch.Tensor)
    assert g.is_leaf and not g.requires_grad and not g.retains_grad


def backward_twice_needs_retain_graph():
    """A second backward through a freed graph raises; retain_graph keeps it; grads add up."""
    w = torch.tensor([2.0], requires_grad=True)
    y = w * w
    y.backward()
    try:
        y.backward()
    except RuntimeError as error:
        assert "retain_graph=True" in str(error)
    else:
        raise AssertionError("a second backward should raise")
    w.grad = None
    y = w * w
    seen = []
    for retain in (True, True, False):
        y.backward(retain_graph=retain)
        seen.append(w.grad.item())
    assert seen == [4.0, 8.0, 12.0]


def create_graph_makes_grads_differentiable():
    """With create_graph=True, w.grad has a graph; y.grad (dy/dy = 1) still does not."""
    w = torch.tensor([5.0], requires_grad=True)
    y = w * w
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True) warns about a cycle
        y.backward(create_graph=True)
    assert w.grad.requires_grad and not w.grad.is_leaf
    assert not y.grad.requires_grad and y.grad.is_leaf
    (second,) = grad(w.grad, w)
    assert second.item() == 2.0


def autograd_grad_to_any_order():
    """autograd.grad returns derivatives without touching .grad, to any order."""
    w = torch.tensor([2.0], requires_grad=True)
    y = w**4
    first = grad(y, w, create_graph=True)[0]
    second = grad(first, w, create_graph=True)[0]
    third = grad(second, w)[0]
    assert (first.item(), second.item(), third.item()) == (32.0, 48.0, 48.0)
    assert w.grad is None


CHECKS = [
    leaves_and_constants,
    requires_grad_is_inherited,
    only_leaves_keep_grad,
    retain_grad_keeps_it,
    a_grad_is_a_constant_tensor,
    backward_twice_needs_retain_graph,
    create_graph_makes_grads_differentiable,
    autograd_grad_to_any_order,
]

if __name__ == "__main__":
    for check in CHECKS:
        check()
        print(f"ok  {check.__name__}: {check.__doc__}")
