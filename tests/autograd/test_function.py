"""Custom autograd.Function: forward/backward, ctx, errors, higher order, against PyTorch."""

import pytest

import leafgrad as lg
from leafgrad.autograd import Function, once_differentiable
from tests._tolerance import assert_close


def _cube_fn(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x * x * x * scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x * ctx.scale, None

    return Cube


def test_apply_records_a_node_named_after_the_class_with_tensor_edges_only():
    Cube = _cube_fn(lg)
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward" and not y.is_leaf and y.requires_grad
    assert len(y.grad_fn.next_functions) == 1
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 24.0]


def test_backward_in_leafgrad_ops_is_differentiable_to_higher_order():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (lg, torch):
        Cube = _cube_fn(lib)
        x = lib.tensor([0.5, -1.5], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(Cube.apply(x, 2.0).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        results.append((g.detach().numpy(), h.numpy()))
    assert_close(results[0][0], results[1][0], "direct")
    assert_close(results[0][1], results[1][1], "direct")


def test_gradcheck_and_gradgradcheck_pass_on_a_custom_function():
    Cube = _cube_fn(lg)
    x = lg.tensor([0.3, -0.8, 1.1], dtype=lg.float64, requires_grad=True)
    assert lg.autograd.gradcheck(lambda t: Cube.apply(t, 1.5), (x,))
    assert lg.autograd.gradgradcheck(lambda t: Cube.apply(t, 1.5), (x,))


class TwoOut(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        ctx.seen = (g1, g2)
        return g1 * 2 + g2 * 3


def test_several_outputs_share_one_node_and_missing_grads_are_zeros():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    a, b = TwoOut.apply(x)
    assert a.grad_fn is b.grad_fn and (a.output_nr, b.output_nr) == (0, 1)
    a.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    assert a.grad_fn.seen[1].tolist() == [0.0, 0.0]


def test_set_materialize_grads_false_passes_none():
    class NoMat(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            assert g2 is None
            return g1 * 2

    x = lg.tensor([1.0], requires_grad=True)
    NoMat.apply(x)[0].sum().backward()
    assert x.grad.tolist() == [2.0]


def test_needs_input_grad_and_mark_non_differentiable():
    class ArgMaxAndDouble(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.flags = ctx.needs_input_grad
            i = x.argmax()
            ctx.mark_non_differentiable(i)
            return x * 2 + y, i

        @staticmethod
        def backward(ctx, g, gi):
            return g * 2, None

    x = lg.tensor([1.0, 3.0], requires_grad=True)
    y = lg.tensor([1.0, 1.0])
    out, idx = ArgMaxAndDouble.apply(x, y)
    assert out.grad_fn.flags == (True, False)
    assert idx.requires_grad is False and out.requires_grad is True
    out.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_no_record_without_grad_or_in_no_grad_mode():
    Cube = _cube_fn(lg)
    assert Cube.apply(lg.tensor([1.0]), 2.0).grad_fn is None
    x = lg.tensor([1.0], requires_grad=True)
    with lg.no_grad():
        y = Cube.apply(x, 2.0)
    assert y.requires_grad is False and y.is_leaf


def test_identity_forward_returns_a_new_tensor_with_history():
    class Ident(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = lg.tensor([1.0], requires_grad=True)
    y = Ident.apply(x)
    assert y is not x and y.grad_fn.name() == "IdentBackward" and x.is_leaf


def test_wrong_number_of_gradients_raises_runtime_error():
    class TooMany(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = lg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients.*expected 1, got 2"):
        TooMany.apply(x).sum().backward()
    assert x.grad is None


def test_wrong_gradient_shape_raises_and_no_grad_is_half_written():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, lg.ones(3)

    x = lg.tensor([1.0, 2.0], requires_grad=True)
    y = lg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"invalid gradient at index 1.*\[3\].*\[2\]"):
        BadShape.apply(x, y).sum().backward()
    assert x.grad is None and y.grad is None


def test_larger_broadcast_gradient_is_summed_to_the_input_shape():
    class Wide(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return lg.ones(3, 2)

    x = lg.tensor([1.0, 2.0], requires_grad=True)
    Wide.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_saved_tensors_are_version_checked_and_freed_after_backward():
    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    x = lg.tensor([1.0, 2.0], requires_grad=True)
    w = x * 1
    out = Keep.apply(w)
    w.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    out = Keep.apply(x * 1)
    out.sum().backward()
    with pytest.raises(RuntimeError, match="retain_graph"):
        out.sum().backward()


def test_once_differentiable_backward_cannot_be_differentiated_again():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    x = lg.tensor([3.0], requires_grad=True)
    (g,) = lg.autograd.grad(Square.apply(x), x)
    assert g.tolist() == [6.0]
    seed = lg.ones(1, requires_grad=True)
    (g,) = lg.autograd.grad(Square.apply(x), x, seed, create_graph=True)
    assert g.tolist() == [6.0] and g.requires_grad
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_setup_context_style_forward():
    class Mul(Function):
        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    x = lg.tensor([2.0], requires_grad=True)
    y = lg.tensor([5.0], requires_grad=True)
    Mul.apply(x, y).backward()
    assert x.grad.tolist() == [5.0] and y.grad.tolist() == [2.0]


def test_instantiating_a_function_warns():
    with pytest.warns(DeprecationWarning):
        TwoOut()
