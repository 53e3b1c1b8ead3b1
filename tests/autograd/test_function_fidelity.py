"""Custom Functions as PyTorch runs them: gradients they receive, inputs they modify in
place, views they return, forward mode through ``jvp``, and the helper classes.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import numpy as np
import pytest

from ._helpers import assert_values


def _double_in_place(torch):
    class DoubleInPlace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return DoubleInPlace


def _first_two(torch):
    """A Function returning a view of its input."""

    class FirstTwo(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:2]

        @staticmethod
        def backward(ctx, grad):
            out = torch.zeros(3)
            out[:2] = grad
            return out

    return FirstTwo


def _identity(torch):
    class Identity(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    return Identity


# ----- gradients a backward receives -----


def test_outputs_that_are_not_tensors_get_none_gradients(torch):
    class WithCount(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k, k + 1, "tag"

        @staticmethod
        def backward(ctx, grad, grad_count, grad_tag):
            seen.append((grad.tolist(), grad_count, grad_tag))
            return grad * 3, None

    seen = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y, count, tag = WithCount.apply(x, 3)
    assert (count, tag) == (4, "tag")
    y.sum().backward()
    assert seen == [([1.0, 1.0], None, None)]
    assert_values(x.grad, [3.0, 3.0])


def test_an_incoming_mean_gradient_can_be_modified_in_place(torch):
    class DoubleGrad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            grad.mul_(2)
            return grad

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    DoubleGrad.apply(x).mean().backward()
    assert_values(x.grad, [1.0, 1.0])
    x.grad = None
    with pytest.raises(RuntimeError):  # a summed gradient is an expanded one: not writable
        DoubleGrad.apply(x).sum().backward()


def test_each_function_has_its_own_node_class(torch):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.k = 3
            return x * 3

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x)
    assert type(y.grad_fn).__name__ == "ScaleBackward"
    assert isinstance(y.grad_fn, torch.autograd.function.BackwardCFunction)
    assert y.grad_fn.k == 3 and y.grad_fn.needs_input_grad == (True,)


# ----- ctx.mark_dirty -----


def test_mark_dirty_on_a_view_rebases_the_base(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    v = b[:2]
    y = _double_in_place(torch).apply(v)
    assert y is v and b.grad_fn.name().endswith("CopySlices")
    (b * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert_values(b, [2.0, 4.0, 3.0])
    assert_values(a.grad, [2.0, 4.0, 3.0])


def test_mark_dirty_on_a_view_of_a_view(torch):
    a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = a.clone()
    v = b[1:]
    y = _double_in_place(torch).apply(v[:2])
    (b * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert_values(b, [1.0, 4.0, 6.0, 4.0])
    assert_values(a.grad, [1.0, 4.0, 6.0, 4.0])
    a.grad = None
    b = a.clone()
    y = _double_in_place(torch).apply(b[1:][:2])
    (y * torch.tensor([1.0, 2.0])).sum().backward()
    assert_values(a.grad, [0.0, 2.0, 4.0, 0.0])


def test_mark_dirty_on_a_leaf_requiring_grad_raises(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        _double_in_place(torch).apply(a)


# ----- views returned from forward -----


def test_a_view_returned_from_forward_is_a_view_of_the_input(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    y = _first_two(torch).apply(b)
    assert y._base is b and y.grad_fn.name() == "FirstTwoBackward"
    y.sum().backward()
    assert_values(a.grad, [1.0, 1.0, 0.0])


def test_a_view_returned_from_forward_cannot_be_modified_in_place(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    y = _first_two(torch).apply(b)
    with pytest.raises(RuntimeError):
        y.mul_(2)
    assert_values(b, [1.0, 2.0, 3.0])  # refused before writing
    with torch.no_grad():
        y.mul_(2)  # outside grad mode nothing is recorded, so it is allowed
    assert_values(b, [2.0, 4.0, 3.0])


def test_a_view_returned_from_forward_under_no_grad_is_still_refused_in_place(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    with torch.no_grad():
        y = _first_two(torch).apply(b)
    assert y._base is b
    with pytest.raises(RuntimeError):
        y.mul_(2)


def test_a_view_returned_from_forward_under_no_grad_requires_grad_as_its_base(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    with torch.no_grad():
        y = _first_two(torch).apply(b)
    assert y.requires_grad and y.grad_fn is None and y.is_leaf


def test_a_view_returned_from_forward_gets_no_new_history_when_its_base_changes(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    y = _first_two(torch).apply(b)
    b.mul_(2)
    assert_values(y, [2.0, 4.0])  # it still shares the memory
    with pytest.raises(RuntimeError):
        _ = y.grad_fn
    with pytest.raises(RuntimeError):
        y * 2


def test_a_view_returned_from_forward_of_a_tensor_without_grad_may_change_in_place(torch):
    c = torch.tensor([1.0, 2.0, 3.0])
    y = _first_two(torch).apply(c)
    assert not y.requires_grad
    y.mul_(2)
    assert_values(c, [2.0, 4.0, 3.0])


def test_an_input_returned_as_is_comes_back_as_a_view(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    y = _identity(torch).apply(b)
    assert y is not b and y._base is b
    with pytest.raises(RuntimeError):
        y.mul_(2)
    z = _identity(torch).apply(a)
    assert z is not a and z._base is a and not z.is_leaf
    z.sum().backward()
    assert_values(a.grad, [1.0, 1.0, 1.0])


# ----- forward mode: save_for_forward and jvp -----


def _scale_with_jvp(torch):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            seen.append(("forward sees a tangent", fa.unpack_dual(x).tangent is not None))
            ctx.save_for_forward(w)
            ctx.save_for_backward(w)
            return x * w

        @staticmethod
        def backward(ctx, grad):
            (w,) = ctx.saved_tensors
            return grad * w, None

        @staticmethod
        def jvp(ctx, tangent_x, tangent_w):
            (w,) = ctx.saved_tensors
            seen.append(
                ("jvp", tangent_x.tolist(), None if tangent_w is None else tangent_w.tolist())
            )
            return tangent_x * w

    fa = torch.autograd.forward_ad
    seen = []
    return Scale, seen


def test_jvp_gives_the_outputs_tangents(torch):
    fa = torch.autograd.forward_ad
    Scale, seen = _scale_with_jvp(torch)
    with fa.dual_level():
        x = fa.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.5]))
        y = Scale.apply(x, torch.tensor([3.0, 4.0]))
        assert_values(fa.unpack_dual(y).tangent, [3.0, 2.0])
    assert seen == [("forward sees a tangent", False), ("jvp", [1.0, 0.5], [0.0, 0.0])]


def test_jvp_gets_none_for_inputs_without_tangent_when_not_materializing(torch):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.set_materialize_grads(False)
            ctx.save_for_forward(w)
            return x * w

        @staticmethod
        def backward(ctx, grad):
            return grad, None

        @staticmethod
        def jvp(ctx, tangent_x, tangent_w):
            seen.append(tangent_w)
            return tangent_x * ctx.saved_tensors[0]

    seen = []
    fa = torch.autograd.forward_ad
    with fa.dual_level():
        x = fa.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
        y = Scale.apply(x, torch.tensor([3.0, 4.0]))
        assert_values(fa.unpack_dual(y).tangent, [3.0, 4.0])
    assert seen == [None]


def test_jvp_composes_with_reverse_mode(torch):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * grad * x

        @staticmethod
        def jvp(ctx, tangent):
            (x,) = ctx.saved_tensors
            return 2 * x * tangent

    fa = torch.autograd.forward_ad
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    with fa.dual_level():
        y = Square.apply(fa.make_dual(p, torch.tensor([1.0, 1.0])))
        tangent = fa.unpack_dual(y).tangent
        assert tangent.requires_grad
        tangent.sum().backward()
    assert_values(p.grad, [2.0, 2.0])


def test_forward_mode_without_jvp_raises_not_implemented(torch):
    fa = torch.autograd.forward_ad
    with fa.dual_level():
        x = fa.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
        with pytest.raises(NotImplementedError):
            _identity(torch).apply(x * 1)


# ----- helpers -----


def test_once_differentiable_guards_the_result_with_an_error_node(torch):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * grad * x

    x = torch.tensor([3.0], requires_grad=True)
    seed = torch.ones(1, requires_grad=True)
    (g,) = torch.autograd.grad(Square.apply(x), x, seed, create_graph=True)
    assert g.grad_fn.name() == "torch::autograd::Error"
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_inplace_function_knows_whether_it_works_in_place(torch):
    InplaceFunction = torch.autograd.function.InplaceFunction

    class AddOne(InplaceFunction):
        @staticmethod
        def forward(ctx, x, inplace=False):
            if inplace:
                ctx.mark_dirty(x)
                return x.add_(1)
            return x + 1

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    assert issubclass(InplaceFunction, torch.autograd.Function)
    assert InplaceFunction(inplace=True).inplace and not InplaceFunction().inplace
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x.clone()
    y = AddOne.apply(b, True)
    assert y is b and y.grad_fn.name() == "AddOneBackward"
    y.sum().backward()
    assert_values(x.grad, [1.0, 1.0])
    assert_values(b, np.array([2.0, 3.0]))


def test_instantiating_a_function_warns_and_bad_gradients_raise_pytorchs_types(torch):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return "not a gradient"

    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        Double(1, key=2)
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got str\)"):
        Double.apply(x).sum().backward()
    y = x * 2
    y.register_hook(lambda g: 3)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        y.sum().backward()
