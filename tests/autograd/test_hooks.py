"""Tensor hooks (register_hook), retain_grad with hooks, post-accumulate-grad hooks and
grad_fn hooks, under backward() and autograd.grad().

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import pytest

from ._helpers import assert_values, ignore_create_graph_warning

# ----- register_hook -----


def test_hook_on_a_leaf_sees_and_replaces_its_gradient(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    assert_values(x.grad, [30.0, 30.0])


def test_hook_on_a_non_leaf_changes_what_flows_upstream(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    assert_values(x.grad, [180.0, 360.0])  # 10 * 2y * 3


def test_hook_returning_none_leaves_the_gradient(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(1))
    (x * 3).sum().backward()
    assert calls == [1]
    assert_values(x.grad, [3.0, 3.0])


def test_hooks_run_in_registration_order_each_on_the_last_result(torch):
    x = torch.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 10)
    (x * 2).backward()
    assert x.grad.item() == 30


def test_removed_hook_no_longer_runs(torch):
    x = torch.tensor([1.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 10)
    y = x * 2
    z = y * 1
    h2 = y.register_hook(lambda g: g * 100)
    h2.remove()
    handle.remove()
    handle.remove()  # removing twice is harmless
    z.backward()
    assert x.grad.item() == 2


def test_removable_handle_is_a_context_manager(torch):
    x = torch.tensor([1.0], requires_grad=True)
    with x.register_hook(lambda g: g * 10):
        (x * 2).backward()
    (x * 2).backward()
    assert x.grad.item() == 22


def test_leaf_hook_runs_once_with_the_summed_gradient(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(g.tolist()))
    (x * 2 + x * 3).sum().backward()
    assert calls == [[5.0, 5.0]]


def test_hook_on_a_tensor_not_requiring_grad_raises(torch):
    with pytest.raises(RuntimeError):
        torch.tensor([1.0]).register_hook(lambda g: g)


def test_hook_returning_another_shape_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: torch.ones(3))
    with pytest.raises(RuntimeError):
        y.sum().backward()
    x2 = torch.tensor([1.0, 2.0], requires_grad=True)
    x2.register_hook(lambda g: torch.ones(3))
    with pytest.raises(RuntimeError):
        (x2 * 2).sum().backward()


def test_hook_registered_on_a_leaf_before_it_is_used(torch):
    x = torch.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    for _ in range(2):
        (x * 3).backward()  # each new graph sees the leaf's hook
    assert x.grad.item() == 12


# ----- hooks under autograd.grad -----


def test_hooks_fire_under_autograd_grad(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    y = x * 3
    y.register_hook(lambda g: g + 1)
    (gx,) = torch.autograd.grad(y.sum(), x, retain_graph=True)
    assert_values(gx, [12.0, 12.0])  # (1 + 1) * 3 * 2
    (gy,) = torch.autograd.grad(y.sum(), y)
    assert_values(gy, [2.0, 2.0])  # the captured non-leaf gradient passed its hook
    assert x.grad is None


def test_captured_gradient_of_a_node_that_also_runs_precedes_its_hooks(torch):
    # PyTorch captures y's gradient before y's hooks when y's node must run anyway (to reach
    # x); the hook still changes what reaches x.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g + 1)
    gx, gy = torch.autograd.grad(y.sum(), [x, y])
    assert_values(gx, [6.0, 6.0])
    assert_values(gy, [1.0, 1.0])


# ----- retain_grad with hooks -----


@pytest.mark.parametrize("retain_first", [True, False])
def test_retained_grad_is_the_gradient_after_all_hooks(torch, retain_first):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    if retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g * 2)
    if not retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    assert_values(y.grad, [3.0, 3.0])  # (1 * 2) + 1, whatever the order of registration
    assert_values(x.grad, [9.0, 9.0])


def test_retain_grad_fills_grad_under_autograd_grad(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    torch.autograd.grad(y.sum(), x)
    assert_values(y.grad, [1.0, 1.0])  # PyTorch's retain_grad hook runs whenever y's node does
    assert x.grad is None


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_retained_grad_with_create_graph_records_when_the_gradient_does(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    z = y * y
    y.retain_grad()
    z.backward(create_graph=True)
    assert y.grad.item() == 8  # 2y
    assert y.grad.requires_grad is True and y.grad.is_leaf is False


# ----- hooks and create_graph -----


def test_a_hook_can_be_part_of_the_recorded_gradient(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    y.register_hook(lambda g: g * x)  # makes dy/dx read 2x * x
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    assert g.item() == 8
    (h,) = torch.autograd.grad(g, x)
    assert h.item() == 8  # d/dx of x * 2x (the hook's x is differentiated too)


# ----- post-accumulate-grad hooks -----


def test_post_accumulate_grad_hook_runs_after_grad_is_updated(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, t.grad.tolist())))
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert seen == [(True, [2.0, 2.0]), (True, [4.0, 4.0])]
    handle.remove()
    (x * 2).sum().backward()
    assert len(seen) == 2


def test_post_accumulate_grad_hook_does_not_run_under_autograd_grad(torch):
    x = torch.tensor([1.0], requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(1))
    torch.autograd.grad(x * 2, x)
    assert seen == []
    (x * 2).backward(inputs=[x])
    assert seen == [1]


def test_post_accumulate_grad_hook_can_consume_the_grad(torch):
    # The optimizer-in-backward pattern: step in the hook, then drop the gradient.
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    def step(t):
        with torch.no_grad():
            t.data = t.data - 0.5 * t.grad
        t.grad = None

    x.register_post_accumulate_grad_hook(step)
    (x * x).sum().backward()
    assert x.grad is None
    assert_values(x, [0.0, 0.0])


def test_post_accumulate_grad_hook_needs_a_leaf_requiring_grad(torch):
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError):
        torch.tensor([1.0]).register_post_accumulate_grad_hook(lambda t: None)


# ----- grad_fn hooks -----


def test_node_pre_and_post_hooks(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    events = []
    y.grad_fn.register_prehook(
        lambda grad_outputs: events.append(("pre", grad_outputs[0].tolist()))
    )
    y.grad_fn.register_hook(
        lambda grad_inputs, grad_outputs: events.append(
            ("post", [None if g is None else g.tolist() for g in grad_inputs])
        )
    )
    y.sum().backward()
    assert events == [("pre", [1.0, 1.0]), ("post", [[3.0, 3.0], None])]


def test_node_prehook_can_replace_the_incoming_gradient(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 2,))
    y.sum().backward()
    assert_values(x.grad, [6.0, 6.0])


def test_node_post_hook_can_replace_the_outgoing_gradients(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1, None))
    y.sum().backward()
    assert_values(x.grad, [4.0, 4.0])
