"""Tensor.backward and autograd.backward(tensors, grad_tensors, retain_graph, create_graph,
inputs): seeds, accumulation, freeing the graph, higher-order graphs, and ``inputs=``.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import subprocess
import sys
import warnings

import pytest

import leafgrad

from ._helpers import assert_values, ignore_create_graph_warning, no_warnings

# ----- the implicit gradient -----


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
def test_implicit_gradient_for_single_element_outputs(torch, shape):
    x = torch.tensor(3.0, requires_grad=True)
    y = (x * x).reshape(shape)
    y.backward()
    assert x.grad.item() == 6


def test_implicit_gradient_for_a_vector_output_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="scalar"):
        (x * x).backward()
    assert x.grad is None


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_create_graph_takes_any_truthy_value(torch):
    # PyTorch's parameter is a C++ bool: 1 records the backward as True does (and 0 not).
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward(create_graph=1)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    (g,) = torch.autograd.grad((x * x).sum(), x, create_graph=1)
    assert g.requires_grad is True
    assert_values(g, [2.0, 4.0])
    (g,) = torch.autograd.grad((x * x).sum(), x, create_graph=0)
    assert g.requires_grad is False
    assert torch.is_grad_enabled()


def test_explicit_gradient_gives_a_vector_jacobian_product(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).backward(torch.tensor([1.0, 0.5, -1.0]))
    assert_values(x.grad, [2.0, 2.0, -6.0])


def test_gradient_of_the_wrong_shape_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"\[3\]"):
        (x * x).backward(torch.ones(3))
    with pytest.raises(RuntimeError):
        (x * x).sum().backward(torch.ones(1))  # [1] is not the shape [] of a 0-dim output


def test_gradient_of_another_dtype_is_converted(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).backward(torch.tensor([1, 1]))  # an integer gradient is accepted
    (x * x).backward(torch.tensor([1.0, 1.0], dtype=torch.float64))
    assert x.grad.dtype == torch.float32
    assert_values(x.grad, [4.0, 8.0])


def test_gradient_that_is_not_a_tensor_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError):
        torch.autograd.backward([(x * x).sum()], [2.0])


def test_backward_of_a_tensor_not_requiring_grad_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = (x * x).sum()
    for out in (y, (x * 2).sum().detach(), torch.tensor(1.0)):
        with pytest.raises(RuntimeError):
            out.backward()


def test_backward_of_a_leaf_accumulates_the_gradient_itself(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.backward(torch.tensor([3.0, 4.0]))
    assert_values(x.grad, [3.0, 4.0])


# ----- accumulation -----


def test_gradients_accumulate_across_calls(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for expected in ([2.0, 4.0], [4.0, 8.0], [6.0, 12.0]):
        (x * x).sum().backward()
        assert_values(x.grad, expected)


def test_leaf_grad_is_updated_in_place(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    held = x.grad
    (x * 2).sum().backward()
    assert x.grad is held
    assert_values(held, [4.0, 4.0])


def test_first_gradient_is_a_copy_of_the_seed(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seed = torch.tensor([3.0, 4.0])
    (x + 0).backward(seed)
    assert x.grad is not seed
    (x + 0).backward(seed)
    assert_values(seed, [3.0, 4.0])  # the seed was not modified by accumulation
    assert_values(x.grad, [6.0, 8.0])


def test_gradients_of_every_use_are_summed(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * 3
    z = y * y + y + x  # a diamond: y is used three times, x twice
    z.backward()
    assert x.grad.item() == 2 * 3 * 6 + 3 + 1


def test_broadcast_gradients_are_summed_back(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.tensor([[1.0], [2.0]], requires_grad=True)
    (x * y).sum().backward()
    assert_values(x.grad, [3.0, 3.0, 3.0])
    assert_values(y.grad, [[6.0], [6.0]])


def test_float64_leaves_get_float64_grads(torch):
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.dtype == torch.float64


# ----- retain_graph -----


def test_backward_twice_without_retain_graph_raises(torch):
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        b.backward()
    assert a.grad.item() == 6


def test_retain_graph_keeps_the_graph_until_a_call_without_it(torch):
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.backward(retain_graph=True)
    b.backward(retain_graph=True)
    b.backward()
    assert a.grad.item() == 18
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        b.backward()


def test_autograd_grad_also_frees_the_graph(torch):
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    torch.autograd.grad(b, a)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        b.backward()


def test_freed_graph_of_ops_that_save_no_tensors_can_run_again(torch):
    # PyTorch frees saved tensors, not the graph: add, sum and views need none of them.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1).reshape(2, 1).sum()
    y.backward()
    y.backward()
    assert_values(x.grad, [2.0, 2.0])
    z = (x * x).sum() + y  # but as soon as one node needs its saved tensors...
    z.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        z.backward()


def test_freed_error_names_the_node_and_retain_graph():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = (a * a).exp()
    b.backward()
    with pytest.raises(RuntimeError, match="ExpBackward0") as info:
        b.backward()
    assert "retain_graph=True" in str(info.value)


def test_a_shared_subgraph_freed_by_one_output_fails_the_other(torch):
    x = torch.tensor([2.0], requires_grad=True)
    h = x * x
    (h * 2).backward()
    with pytest.raises(RuntimeError):
        (h * 3).backward()  # the MulBackward0 of h was freed by the first backward


# ----- create_graph -----


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_create_graph_records_the_gradient_computation(torch):
    x = torch.tensor([2.0], requires_grad=True)
    (x**3).backward(create_graph=True)
    g = x.grad
    assert g.requires_grad is True and g.is_leaf is False and g.grad_fn is not None
    assert g.item() == 12
    assert "grad_fn=<CopyBackwards>" in repr(g)  # copied into a fresh tensor, as PyTorch does
    (d2,) = torch.autograd.grad(g, x)
    assert d2.item() == 12  # d/dx 3x^2 = 6x


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_create_graph_retains_the_graph_by_default(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x**3
    y.backward(create_graph=True)
    y.backward(create_graph=True)
    assert x.grad.item() == 24
    assert x.grad.requires_grad is True  # the sum is recorded as well


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_create_graph_with_retain_graph_false_frees(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x**3
    y.backward(create_graph=True, retain_graph=False)
    with pytest.raises(RuntimeError):
        y.backward()


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_create_graph_gradient_of_a_linear_function_does_not_require_grad(torch):
    x = torch.tensor([2.0], requires_grad=True)
    (x * 5).backward(create_graph=True)
    assert x.grad.requires_grad is False and x.grad.item() == 5


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_create_graph_then_plain_backward_adds_into_the_recorded_grad(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x**3
    y.backward(create_graph=True)
    y.backward()
    assert x.grad.item() == 24


def test_backward_with_create_graph_warns():
    x = leafgrad.tensor([2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="create_graph=True"):
        (x * x).backward(create_graph=True)
    with pytest.warns(UserWarning, match="autograd.grad"):
        leafgrad.autograd.backward([(x * x).sum()], create_graph=True)


def test_backward_without_create_graph_does_not_warn(torch):
    x = torch.tensor([2.0], requires_grad=True)
    with no_warnings():
        (x * x).backward()
        torch.autograd.grad(x * x, x, create_graph=True)


def test_pytorch_warns_about_create_graph(pytorch):
    # PyTorch warns once per process, so look at a fresh one.
    code = (
        "import warnings, torch\n"
        "x = torch.tensor([2.0], requires_grad=True)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    (x * x).backward(create_graph=True)\n"
        "assert any(issubclass(i.category, UserWarning) and 'create_graph=True' in str(i.message)"
        " for i in w), w\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr


# ----- inputs= -----


def test_inputs_restricts_accumulation_to_the_given_leaves(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0], requires_grad=True)
    z = (x * y).sum()
    z.backward(inputs=[y], retain_graph=True)
    assert x.grad is None
    assert y.grad.item() == 3
    z.backward(inputs=x)  # a single tensor works too
    assert_values(x.grad, [3.0, 3.0])
    assert y.grad.item() == 3


def test_inputs_accepts_a_non_leaf_and_makes_it_retain_its_grad(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 3
    c = (b * b).sum()
    c.backward(inputs=[b], retain_graph=True)
    assert x.grad is None
    assert b.retains_grad is True
    with no_warnings():
        assert_values(b.grad, [6.0, 12.0])
    c.backward(inputs=[b, x])
    assert_values(b.grad, [12.0, 24.0])
    assert_values(x.grad, [18.0, 36.0])


def test_inputs_upstream_and_downstream_of_each_other(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    z = y * 3
    torch.autograd.backward(z, inputs=[x, y])
    assert x.grad.item() == 12 and y.grad.item() == 3


def test_empty_inputs_raises(torch):
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        (x * x).backward(inputs=[])


def test_inputs_not_requiring_grad_raises(torch):
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        (x * x).backward(inputs=[torch.ones(1)])
    with pytest.raises(RuntimeError):
        (x * x).backward(inputs=[x.detach()])


def test_unreachable_input_gets_no_grad(torch):
    x = torch.tensor([1.0], requires_grad=True)
    other = torch.tensor([1.0], requires_grad=True)
    (x * x).backward(inputs=[other])
    assert other.grad is None and x.grad is None


def test_inputs_may_be_a_dict(torch):
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([2.0], requires_grad=True)
    (x * y).backward(inputs={"y": y})
    assert x.grad is None and y.grad.item() == 1


# ----- autograd.backward -----


def test_autograd_backward_sums_over_several_outputs(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.backward([x * x, (x * 3).sum()], [torch.ones(2), None])
    assert_values(x.grad, [5.0, 7.0])
    x.grad = None
    torch.autograd.backward(((x * x).sum(), (x * 3).sum()))
    assert_values(x.grad, [5.0, 7.0])


def test_autograd_backward_with_a_gradient_count_mismatch_raises(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.autograd.backward([x * x, (x * 3).sum()], [torch.ones(2)])


def test_autograd_backward_grad_variables_is_deprecated(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(FutureWarning):
        torch.autograd.backward(x * x, grad_variables=torch.ones(2))
    assert_values(x.grad, [2.0, 4.0])
    with pytest.raises(RuntimeError), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.autograd.backward(x * x, torch.ones(2), grad_variables=torch.ones(2))


def test_outputs_may_be_a_generator(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.backward((x * k).sum() for k in (1.0, 2.0))
    assert_values(x.grad, [3.0, 3.0])


def test_backward_under_no_grad_still_computes_gradients(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    with torch.no_grad():
        y.backward()
    assert x.grad.item() == 4


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_create_graph_under_no_grad_still_records(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    with torch.no_grad():
        y.backward(create_graph=True)
    assert x.grad.requires_grad is True
    assert torch.is_grad_enabled() is True


def test_backward_and_grad_warnings_name_the_callers_line():
    # leafgrad only: PyTorch warns about create_graph once per process. The entry points run
    # compiled (no Python frames), where a fixed stacklevel would name the wrong line;
    # PyTorch's warnings come from C++ and name the caller's.
    x = leafgrad.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        (x * x).sum().backward(create_graph=True)
        leafgrad.autograd.backward((x * x).sum(), create_graph=True)
        leafgrad.autograd.grad((x * x).sum(), x, only_inputs=False)
    found = [(w.filename, w.lineno, w.category) for w in caught]
    assert found == [
        (__file__, line, UserWarning),
        (__file__, line + 1, UserWarning),
        (__file__, line + 2, FutureWarning),
    ]
