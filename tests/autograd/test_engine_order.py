"""Which nodes a backward call runs, and in what order, where that shows: a node that
computes no gradient still checks its saves (freed, or modified in place), and a node that
only raises runs as soon as it is ready, as a leaf's accumulator does.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import pytest


def _backward_raises(fn) -> bool:
    try:
        fn()
    except RuntimeError:
        return True
    return False


def test_a_node_whose_inputs_need_no_gradient_still_frees_its_saves(torch):
    # A view made under inference_mode of a tensor that requires grad: requires grad, but
    # its node has no edge, so var's node computes nothing; it still runs and frees.
    x = torch.tensor([[1.0, 2.0], [4.0, -1.0], [0.5, 3.0]], dtype=torch.float64)
    x.requires_grad_()
    with torch.inference_mode():
        v = x[::2]
    assert v.requires_grad and v.grad_fn is None
    y = v.var(unbiased=False)
    assert y.grad_fn.next_functions == ((None, 0),)
    out = y - x
    out.sum().backward()
    assert x.grad.tolist() == [[-1.0, -1.0]] * 3
    assert _backward_raises(lambda: out.sum().backward())  # var's saves were freed


def test_a_node_that_receives_no_gradient_still_checks_its_saves(torch):
    class Drop(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return None  # the node below receives no gradient

    w = torch.ones(3, requires_grad=True)
    x = torch.ones(3, requires_grad=True)
    h = x * 1
    y = h.exp()  # saves its result
    z = Drop.apply(y) + w
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()

    y = (x * 1).exp()
    z = Drop.apply(y) + w
    z.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0] and x.grad is None
    with pytest.raises(RuntimeError, match="second time"):
        z.sum().backward()


def _floor_and_leaf(torch):
    a = torch.tensor([[1.5, -0.5, 2.0]], requires_grad=True)
    leaf = torch.ones(2, 3).requires_grad_()
    return a // 2.0, leaf


@pytest.mark.parametrize("order", ["floor_first", "leaf_first"])
def test_a_node_that_only_raises_runs_as_soon_as_it_is_ready(torch, order):
    q, leaf = _floor_and_leaf(torch)
    assert q.requires_grad  # recorded, but its backward raises
    roots = [q, leaf] if order == "floor_first" else [leaf, q]
    with pytest.raises(RuntimeError):
        torch.autograd.backward(roots, [torch.ones_like(r) for r in roots])
    # the first root ready runs first: the raising node before the leaf fills its .grad
    if order == "floor_first":
        assert leaf.grad is None
    else:
        assert leaf.grad.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("order", ["floor_first", "product_first"])
def test_the_raising_node_runs_before_a_leaf_that_waits_on_a_newer_node(torch, order):
    q, leaf = _floor_and_leaf(torch)
    p = leaf * 2  # newer than q: runs before it, and then the leaf's sink is ready
    roots = [q, p] if order == "floor_first" else [p, q]
    with pytest.raises(RuntimeError):
        torch.autograd.backward(roots, [torch.ones_like(r) for r in roots])
    assert leaf.grad is None  # the raising node, ready first, went before the leaf's sink


def test_a_leafs_sink_runs_as_soon_as_it_is_ready(torch):
    order = []
    a = torch.ones(2, requires_grad=True)
    a.register_post_accumulate_grad_hook(lambda t: order.append("a"))
    a * 1  # a's sink is made here, before e's node
    e = torch.ones(2, requires_grad=True) * 3
    b = a * 2  # newest: runs first, then a's sink is ready, and goes before e's node
    e.register_hook(lambda g: order.append("e"))
    b.register_hook(lambda g: order.append("b"))
    torch.autograd.backward([b, e], [torch.ones(2), torch.ones(2)])
    assert order == ["b", "a", "e"]
