"""When hooks run and what they see: the hooks of a leaf's AccumulateGrad node in PyTorch's
order, hooks that see None where no gradient arrived, and the checks on what hooks return.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import pytest

from ._helpers import assert_values


def _no_grad_for_first(torch):
    """A custom Function ``a + b`` whose backward gives ``a`` no gradient (None)."""

    class NoGradForFirst(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return None, grad

    return NoGradForFirst


def _as_lists(grads):
    return [None if g is None else g.tolist() for g in grads]


# ----- the AccumulateGrad node of a leaf -----


def test_accumulate_grad_node_hooks_run_in_pytorch_order(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    accumulator = y.grad_fn.next_functions[0][0]
    assert x.grad_fn is None and accumulator.name() == "torch::autograd::AccumulateGrad"
    events = []
    x.register_hook(lambda g: events.append(("tensor pre-hook", g.tolist())))
    accumulator.register_prehook(lambda go: events.append(("node pre-hook", _as_lists(go))))
    accumulator.register_hook(
        lambda gi, go: events.append(("node post-hook", gi, _as_lists(go), x.grad.tolist()))
    )
    x.register_post_accumulate_grad_hook(lambda t: events.append(("accumulated", t.grad.tolist())))
    y.sum().backward()
    assert events == [
        ("tensor pre-hook", [2.0, 2.0]),
        ("node pre-hook", [[2.0, 2.0]]),
        ("accumulated", [2.0, 2.0]),
        ("node post-hook", (), [[2.0, 2.0]], [2.0, 2.0]),
    ]


def test_accumulate_grad_prehook_sees_the_tensor_hooks_result_and_replaces_it(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    accumulator = y.grad_fn.next_functions[0][0]
    seen = []
    x.register_hook(lambda g: g * 3)
    accumulator.register_prehook(lambda go: (go[0] * 100,))
    accumulator.register_hook(lambda gi, go: seen.append(go[0].tolist()))
    y.sum().backward()
    assert seen == [[600.0, 600.0]]
    assert_values(x.grad, [600.0, 600.0])


def test_accumulate_grad_post_hook_may_not_return_gradients(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (go[0],))
    with pytest.raises(RuntimeError):
        y.sum().backward()


def test_accumulate_grad_post_hook_is_removable(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    calls = []
    handle = y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: calls.append(1))
    y.sum().backward(retain_graph=True)
    handle.remove()
    y.sum().backward()
    assert calls == [1]


def test_accumulate_grad_hooks_run_under_backward_with_inputs_but_not_under_grad(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    accumulator = y.grad_fn.next_functions[0][0]
    events = []
    accumulator.register_hook(lambda gi, go: events.append("post"))
    accumulator.register_prehook(lambda go: events.append("pre"))
    x.register_post_accumulate_grad_hook(lambda t: events.append("accumulated"))
    torch.autograd.grad(y.sum(), x, retain_graph=True)
    assert events == []
    y.sum().backward(inputs=[x])
    assert events == ["pre", "accumulated", "post"]


# ----- hooks where no gradient arrived -----


def test_tensor_hook_on_an_unused_output_of_a_multi_output_op_sees_none(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    first, second = (x * 1).unbind()
    seen = []
    first.register_hook(lambda g: seen.append(g))
    (second * 3).backward()
    assert seen == [None]
    assert_values(x.grad, [0.0, 3.0])


def test_hooks_below_a_missing_gradient_all_run_with_none(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    events = []
    y.register_hook(lambda g: events.append(("y", g)))
    y.grad_fn.register_prehook(lambda go: events.append(("pre", go)))
    y.grad_fn.register_hook(lambda gi, go: events.append(("post", gi, go)))
    x.register_hook(lambda g: events.append(("x", g)))
    x.register_post_accumulate_grad_hook(lambda t: events.append(("accumulated", t.grad)))
    _no_grad_for_first(torch).apply(y, w).sum().backward()
    assert events == [
        ("y", None),
        ("pre", (None,)),
        ("post", (None, None), (None,)),
        ("x", None),
        ("accumulated", None),
    ]
    assert x.grad is None
    assert_values(w.grad, [1.0, 1.0])


def test_a_tensor_hook_cannot_replace_a_missing_gradient(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: torch.ones(2))
    with pytest.raises(RuntimeError):
        _no_grad_for_first(torch).apply(y, w).sum().backward()


def test_custom_backward_runs_with_zeros_when_no_gradient_arrived(torch):
    class Identity(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, materialize):
            ctx.set_materialize_grads(materialize)
            return a.clone()

        @staticmethod
        def backward(ctx, grad):
            seen.append(None if grad is None else grad.tolist())
            return grad, None

    for materialize, expected, grad in ((True, [0.0, 0.0], [0.0, 0.0]), (False, None, None)):
        seen = []
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        _no_grad_for_first(torch).apply(Identity.apply(x, materialize), w).sum().backward()
        assert seen == [expected]
        assert (x.grad is None) if grad is None else x.grad.tolist() == grad


# ----- what node hooks may return -----


def test_node_post_hook_returning_the_wrong_count_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2  # MulBackward0 has two edges: x and the number 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0],))
    with pytest.raises(RuntimeError):
        y.sum().backward()


def test_node_prehook_returning_the_wrong_count_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    with pytest.raises(RuntimeError):
        y.sum().backward()


def test_node_hooks_of_a_backward_target_run_though_nothing_below_is_needed(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * 3
    events = []
    y.grad_fn.register_hook(lambda gi, go: events.append(("post", gi, _as_lists(go))))
    y.grad_fn.register_prehook(lambda go: events.append(("pre", _as_lists(go))))
    y.register_hook(lambda g: events.append(("tensor", g.tolist())))
    z.sum().backward(inputs=[y])
    assert events == [
        ("tensor", [3.0, 3.0]),
        ("pre", [[3.0, 3.0]]),
        ("post", (None, None), [[3.0, 3.0]]),
    ]
    assert x.grad is None
