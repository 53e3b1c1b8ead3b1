"""Module backward hooks behave as PyTorch's: each test body runs with leafgrad and with
PyTorch (the ``torch`` fixture), and the values it records are compared across the two."""

import warnings

import numpy as np
import pytest

from .._tolerance import assert_close

X = np.array([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]])
W = np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2]])


def _linear(torch):
    layer = torch.nn.Linear(3, 2).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(W))
        layer.bias.copy_(torch.tensor(np.array([0.1, -0.3])))
    return layer


def _as_arrays(grads):
    return [None if g is None else np.array(g.detach().numpy()) for g in grads]


def _run_full_hook(torch):
    layer = _linear(torch)
    seen = []
    layer.register_full_backward_hook(
        lambda m, grad_input, grad_output: seen.append(
            (m is layer, _as_arrays(grad_input), _as_arrays(grad_output))
        )
    )
    x = torch.tensor(X, requires_grad=True)
    (layer(x) ** 2).sum().backward()
    return seen, x.grad.numpy().copy(), layer.weight.grad.numpy().copy()


def test_full_backward_hook_sees_the_grads_of_the_module_inputs_and_outputs(torch):
    seen, x_grad, _ = _run_full_hook(torch)
    assert len(seen) == 1
    is_module, grad_input, grad_output = seen[0]
    assert is_module and len(grad_input) == 1 and len(grad_output) == 1
    assert_close(grad_input[0], x_grad)
    assert_close(grad_output[0], 2 * (X @ W.T + np.array([0.1, -0.3])))


def test_full_backward_hook_records_what_pytorch_records():
    import leafgrad

    torch = pytest.importorskip("torch")
    ours, theirs = _run_full_hook(leafgrad), _run_full_hook(torch)
    for a, b in zip(ours[0][0][1] + ours[0][0][2], theirs[0][0][1] + theirs[0][0][2]):
        assert_close(a, b)
    assert_close(ours[1], theirs[1])
    assert_close(ours[2], theirs[2])


def test_full_backward_hook_can_replace_grad_input(torch):
    layer = _linear(torch)
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
    x = torch.tensor(X, requires_grad=True)
    layer(x).sum().backward()
    assert_close(x.grad.numpy(), 10 * np.ones((2, 2)) @ W)
    assert_close(layer.weight.grad.numpy(), np.ones((2, 2)).T @ X)  # parameters unaffected


def test_full_backward_pre_hook_can_replace_grad_output(torch):
    layer = _linear(torch)
    seen = []
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
    layer.register_full_backward_hook(lambda m, gi, go: seen.append(_as_arrays(go)[0]))
    x = torch.tensor(X, requires_grad=True)
    layer(x).sum().backward()
    assert_close(seen[0], 3 * np.ones((2, 2)))
    assert_close(x.grad.numpy(), 3 * np.ones((2, 2)) @ W)
    assert_close(layer.weight.grad.numpy(), 3 * np.ones((2, 2)).T @ X)


def test_grad_input_has_none_for_non_tensor_inputs_and_zeros_for_no_grad_ones(torch):
    class Scale(torch.nn.Module):
        def forward(self, a, factor, b):
            return a * factor + b * b

    module = Scale()
    seen = []
    module.register_full_backward_hook(
        lambda m, gi, go: seen.append([None if g is None else g.tolist() for g in gi])
    )
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    module(a, 2.0, b).sum().backward()
    assert seen == [[[2.0, 2.0], None, [0.0, 0.0]]]
    assert a.grad.tolist() == [2.0, 2.0]


def test_full_backward_hook_on_a_module_whose_inputs_need_no_grad_warns_and_gets_nones(torch):
    layer = _linear(torch)
    seen = []
    layer.register_full_backward_hook(lambda m, gi, go: seen.append((gi, len(go))))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        layer(torch.tensor(X)).sum().backward()
    assert seen == [((None,), 1)]


def test_removed_backward_hooks_no_longer_run(torch):
    layer = _linear(torch)
    seen = []
    handle = layer.register_full_backward_hook(lambda m, gi, go: seen.append(1))
    pre = layer.register_full_backward_pre_hook(lambda m, go: seen.append(2))
    x = torch.tensor(X, requires_grad=True)
    layer(x).sum().backward()
    handle.remove()
    pre.remove()
    layer(x).sum().backward()
    assert seen == [2, 1]


def test_prepended_backward_hooks_run_first(torch):
    layer = _linear(torch)
    order = []
    layer.register_full_backward_hook(lambda m, gi, go: order.append("second"))
    layer.register_full_backward_hook(lambda m, gi, go: order.append("first"), prepend=True)
    layer(torch.tensor(X, requires_grad=True)).sum().backward()
    assert order == ["first", "second"]


def test_hooks_on_a_module_with_several_outputs_see_each_grad_output(torch):
    class Split(torch.nn.Module):
        def forward(self, x):
            return x * 2, x * 3

    module = Split()
    seen = []
    module.register_full_backward_hook(lambda m, gi, go: seen.append(_as_arrays(gi + go)))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = module(x)
    (a.sum() + 2 * b.sum()).backward()
    grad_input, grad_a, grad_b = seen[0]
    assert grad_input.tolist() == [8.0, 8.0]
    assert grad_a.tolist() == [1.0, 1.0] and grad_b.tolist() == [2.0, 2.0]


def test_hooked_module_output_has_the_hook_functions_node(torch):
    layer = _linear(torch)
    layer.register_full_backward_hook(lambda m, gi, go: None)
    out = layer(torch.tensor(X, requires_grad=True))
    assert out.grad_fn.name() == "BackwardHookFunctionBackward"


def test_mixing_legacy_and_full_backward_hooks_raises_runtime_error(torch):
    layer = _linear(torch)
    layer.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.raises(RuntimeError, match="both"):
        layer.register_backward_hook(lambda m, gi, go: None)
    other = _linear(torch)
    other.register_backward_hook(lambda m, gi, go: None)
    with pytest.raises(RuntimeError, match="both"):
        other.register_full_backward_hook(lambda m, gi, go: None)


def _run_legacy_hook(torch, module, x):
    seen = []
    module.register_backward_hook(
        lambda m, gi, go: seen.append(([None if g is None else tuple(g.shape) for g in gi],
                                       [tuple(g.shape) for g in go]))
    )  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = module(x)
    out.sum().backward()
    return seen, [type(w.message) for w in caught]


def test_legacy_backward_hook_sees_the_last_ops_grads_and_warns_as_pytorch():
    import leafgrad

    torch = pytest.importorskip("torch")
    results = []
    for lib in (leafgrad, torch):
        seen_tanh = _run_legacy_hook(lib, lib.nn.Tanh(), lib.tensor(X, requires_grad=True))
        seen_linear = _run_legacy_hook(lib, _linear(lib), lib.tensor(X, requires_grad=True))
        results.append((seen_tanh, seen_linear))
    assert results[0] == results[1]
    # Linear's hook sees addmm's three grads (bias, input, weight.t()), not the module's input.
    assert results[0][1][0] == [([(2,), (2, 3), (3, 2)], [(2, 2)])]
    assert results[0][1][1] == [FutureWarning]


def _run_double_backward_with_hooks(torch):
    layer = torch.nn.Sequential(_linear(torch), torch.nn.Tanh())
    calls = []
    layer.register_full_backward_hook(lambda m, gi, go: calls.append("full"))
    layer.register_full_backward_pre_hook(lambda m, go: calls.append("pre"))
    x = torch.tensor(X, requires_grad=True)
    (g,) = torch.autograd.grad(layer(x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad((g * g).sum(), x)
    return calls, g.detach().numpy().copy(), h.numpy().copy()


def test_backward_hooks_leave_second_derivatives_alone_as_in_pytorch():
    import leafgrad

    torch = pytest.importorskip("torch")
    ours, theirs = _run_double_backward_with_hooks(leafgrad), _run_double_backward_with_hooks(torch)
    assert ours[0] == theirs[0]
    assert_close(ours[1], theirs[1])
    assert_close(ours[2], theirs[2])
