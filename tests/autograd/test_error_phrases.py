"""Errors whose wording PyTorch's own tests match: leafgrad's message starts with the same
key phrase (then says what to do), with the same exception type. Each body runs on leafgrad
and on PyTorch."""

import pytest

# ----- autograd.functional: what the user passed, and strict mode


@pytest.mark.parametrize("name", ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"])
def test_a_non_tensor_input_names_the_function(torch, name):
    fn = getattr(torch.autograd.functional, name)
    x = torch.ones(2, dtype=torch.float64)
    args = (lambda a, b: (a * b).sum(), (x, 3.0))
    if name in ("vjp", "jvp", "vhp", "hvp"):
        args += ((torch.ones(2), torch.ones(2)),) if name != "vjp" else ()
    with pytest.raises(TypeError, match=f"The inputs given to {name} must be either a Tensor"):
        fn(*args)


@pytest.mark.parametrize("name", ["vjp", "jvp", "jacobian", "vhp", "hvp"])
def test_strict_mode_names_the_output_that_does_not_require_grad(torch, name):
    fn = getattr(torch.autograd.functional, name)
    x = torch.ones(3, dtype=torch.float64)
    v = torch.ones(3, dtype=torch.float64)
    args = (lambda a: a.detach().sum(), x) + ((v,) if name in ("jvp", "vhp", "hvp") else ())
    if name == "vjp":
        args += (torch.tensor(1.0, dtype=torch.float64),)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "):
        fn(*args, strict=True)


def test_strict_hessian_of_a_constant_names_output_zero(torch):
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "):
        torch.autograd.functional.hessian(lambda a: a.detach().sum(), x, strict=True)


def test_v_of_the_wrong_shape(torch):
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(RuntimeError, match=r"v has invalid size: should be torch\.Size"):
        torch.autograd.functional.vjp(lambda a: a * 2, x, torch.ones(4, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=r"The given v should contain a single Tensor\."):
        torch.autograd.functional.jvp(lambda a: a * 2, x, (x, x))


def test_hessian_of_a_function_returning_a_tuple(torch):
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="The function given to hessian should return a single"):
        torch.autograd.functional.hessian(lambda a: (a.sum(), a.sum()), x)


# ----- views that may not be modified in place


def test_a_no_grad_view_modified_in_place(torch):
    b = torch.ones(3, requires_grad=True).clone()
    with torch.no_grad():
        v = b[:2]
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modi"):
        v.zero_()
    w = v[:1]  # a view of that view, recorded: PyTorch names its node
    with pytest.raises(RuntimeError, match="Output 0 of Slice is a view of a view which was"):
        w.mul_(2)


def test_a_no_grad_view_whose_base_changed(torch):
    b = torch.ones(3, requires_grad=True).clone()
    with torch.no_grad():
        v = b[:2]
    b.mul_(2)
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and its base or"):
        v.sum()


def test_an_inference_mode_view_modified_in_place(torch):
    c = torch.ones(3)
    with torch.inference_mode():
        v = c[:2]
    with pytest.raises(RuntimeError, match="A view was created in inference mode and is being"):
        v.mul_(torch.ones(2, requires_grad=True))


@pytest.mark.parametrize("op", ["unbind", "split"])
def test_one_of_several_views_modified_in_place(torch, op):
    b = torch.ones(4, requires_grad=True).clone()
    first = b.unbind()[0] if op == "unbind" else b.split(2)[0]
    name = "Unbind" if op == "unbind" else "Split"
    with pytest.raises(RuntimeError, match=f"Output 0 of {name} is a view and is being modified"):
        first.add_(1)


def _alias(torch, how):
    class Alias(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:] if how == "slice" else x

        @staticmethod
        def backward(ctx, gx):
            return gx

    return Alias


def test_a_custom_function_view_made_in_no_grad_mode(torch):
    inp = torch.rand(2, requires_grad=True)
    with torch.no_grad():
        out = _alias(torch, "slice").apply(inp)
        plain = inp[:]
    assert out.requires_grad == plain.requires_grad
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modi"):
        out.zero_()


def test_a_custom_function_view_modified_in_place(torch):
    out = _alias(torch, "slice").apply(torch.rand(2, requires_grad=True).clone())
    with pytest.raises(RuntimeError, match="Output 0 of Alias is a view and is being modified"):
        out.mul_(2)


def test_an_input_returned_as_is_in_no_grad_mode_is_a_detached_alias(torch):
    inp = torch.rand(2, requires_grad=True).clone()
    with torch.no_grad():
        out = _alias(torch, "same").apply(inp)
    assert not out.requires_grad
    assert out._base is None
    out.zero_()  # no view: allowed, and it writes through to the input
    assert not inp.detach().any()


# ----- ctx.mark_dirty misuse


def _dirty_adder(torch, returns):
    class Adder(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            if returns == "made":
                c = 3 * a
                c.add_(b)
                ctx.mark_dirty(c)
                return c
            a.add_(b)
            ctx.mark_dirty(a)
            return (a, a + b) if returns == "both" else (a.clone(), a + b)

        @staticmethod
        def backward(ctx, *grads):
            return sum(grads), sum(grads)

    return Adder


def test_mark_dirty_of_a_tensor_made_in_forward_warns(torch):
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="ctx.mark_dirty\\(\\) received a tensor that was not an"):
        _dirty_adder(torch, "made").apply(a.clone(), b)


def test_a_dirty_view_input_with_two_outputs_raises(torch):
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="modifies inplace an input that is a view of another"):
        _dirty_adder(torch, "both").apply(a.clone().view_as(a), b)
    c, d = _dirty_adder(torch, "both").apply(a.clone(), b)  # not a view: fine
    (c * d).sum().backward()
    assert a.grad is not None


def test_a_dirty_input_not_returned_raises(torch):
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward"):
        _dirty_adder(torch, "clone").apply(a.clone(), b)


# ----- the engine's errors


def test_backward_twice_says_to_retain_the_graph(torch):
    x = torch.ones(2, requires_grad=True)
    y = x.exp().sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Specify retain_graph=True"):
        y.backward()


def test_an_unreachable_input_says_to_allow_unused(torch):
    x, z = torch.ones(2, requires_grad=True), torch.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="Set allow_unused=True"):
        torch.autograd.grad(x.sum(), [x, z])
    with pytest.raises(RuntimeError, match="differentiated Tensor at index 1 appears to not"):
        torch.autograd.grad(x.sum(), [x, z])


def test_a_gradient_of_the_wrong_shape_is_described_exactly(torch):
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        torch.autograd.grad(x * 2, x, torch.ones(3))
    assert str(info.value) == (
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has "
        "a shape of torch.Size([2])."
    )


def test_numpy_of_a_tensor_requiring_grad(torch):
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        x.numpy()
    assert str(info.value).startswith(
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    )
    with torch.no_grad():  # nothing recorded can be bypassed: allowed
        assert x.numpy().tolist() == [1.0, 1.0]
        assert (x * 3).numpy().tolist() == [3.0, 3.0]


def test_gradcheck_of_outputs_that_change_without_requiring_grad(torch):
    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Numerical gradient for function expected to be zero"):
        torch.autograd.gradcheck(lambda a: torch.detach(a) * 2, (x,))
