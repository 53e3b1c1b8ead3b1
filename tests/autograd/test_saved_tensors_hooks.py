"""Saved tensors hooks: what backward keeps of each saved tensor (``pack``) and how it gets
the value back (``unpack``); disabling them; allow_mutation_on_saved_tensors.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import gc
import weakref

import numpy as np
import pytest

from ._helpers import assert_values


def _numpy_hooks(torch, log):
    """Pack to a NumPy copy, unpack back: the tensor itself is not kept."""

    def pack(t):
        log.append("pack")
        return t.detach().numpy().copy()

    def unpack(array):
        log.append("unpack")
        return torch.from_numpy(array)

    return torch.autograd.graph.saved_tensors_hooks(pack, unpack)


def test_values_packed_to_numpy_give_the_same_gradients(torch):
    log = []
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    with _numpy_hooks(torch, log):
        y = x * x  # saves x twice
        z = y.sin()  # saves y
    z.sum().backward()
    assert log == ["pack", "pack", "pack", "unpack", "unpack", "unpack"]
    expected = np.cos(np.array([0.25, 1.0])) * 2 * np.array([0.5, 1.0])
    assert_values(x.grad, expected)


def test_an_intermediate_packed_to_numpy_is_not_kept_by_the_graph(torch):
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    with _numpy_hooks(torch, []):
        y = x * 2
        z = y.sin()
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None  # the graph holds a NumPy copy instead
    z.sum().backward()
    assert_values(x.grad, 2 * np.cos(np.array([1.0, 2.0])))


def test_unpack_runs_each_time_backward_reads_the_value(torch):
    log = []
    hooks = torch.autograd.graph.saved_tensors_hooks(
        lambda t: log.append("pack") or t, lambda t: log.append("unpack") or t
    )
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with hooks:
        y = a * a
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert log == ["pack", "pack"] + ["unpack"] * 4
    assert_values(a.grad, [4.0, 8.0])


def test_ops_that_only_need_shapes_pack_nothing(torch):
    log = []
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: log.append(1) or t, lambda t: t):
        (x + x).view(4).sum().mean()
        x.clone().neg()
    assert log == []


def test_pack_sees_exactly_what_each_op_saves(torch):
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    c = torch.tensor([2.0, 3.0])

    def packed(f):
        seen = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
            out = f()
        return seen, out

    seen, _ = packed(lambda: x * c)  # only the constant: x's own gradient needs it
    assert len(seen) == 1 and seen[0] is c
    seen, _ = packed(lambda: x * x)
    assert len(seen) == 2
    seen, out = packed(lambda: x.exp())  # the output, not the input
    assert len(seen) == 1 and seen[0] is out
    seen, _ = packed(lambda: x.sin())
    assert len(seen) == 1 and seen[0] is x
    seen, _ = packed(lambda: x * 2)  # a Python number is saved, but not as a tensor
    assert seen == []


def test_custom_function_saves_go_through_the_hooks(torch):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            return 2 * grad * a

    log = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    hooks = torch.autograd.graph.saved_tensors_hooks(
        lambda t: log.append("pack") or t * 10, lambda t: log.append("unpack") or t
    )
    with hooks:
        y = Square.apply(x)
    y.sum().backward()
    assert log == ["pack", "unpack"]
    assert_values(x.grad, [20.0, 40.0])  # backward saw what unpack returned


def test_a_saved_output_is_packed_with_its_grad_fn(torch):
    seen = []

    def pack(t):
        seen.append(None if t.grad_fn is None else t.grad_fn.name())
        return t

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = x.exp()  # ExpBackward0 saves its result
    assert "ExpBackward0" in seen
    y.sum().backward()
    assert_values(x.grad, np.exp([1.0, 2.0]))


def test_the_innermost_hooks_apply(torch):
    log = []

    def hooks(tag):
        return torch.autograd.graph.saved_tensors_hooks(
            lambda t: log.append("pack " + tag) or t, lambda t: log.append("unpack " + tag) or t
        )

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with hooks("outer"):
        with hooks("inner"):
            y = a.sin()
        z = a.cos()
    (y + z).sum().backward()
    assert log == ["pack inner", "pack outer", "unpack outer", "unpack inner"]


def test_pack_runs_without_grad_and_unpack_records_under_create_graph(torch):
    modes = []

    def pack(t):
        modes.append(("pack", torch.is_grad_enabled()))
        return t

    def unpack(t):
        modes.append(("unpack", torch.is_grad_enabled()))
        return t

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.sin()
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert modes == [("pack", False), ("unpack", True)]
    assert_values(gg, -np.sin([1.0, 2.0]))


def test_packed_values_are_not_version_checked(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = b * b
    b.add_(1)  # would make backward raise without the hooks
    y.sum().backward()
    assert_values(a.grad, [2.0, 4.0])  # the packed copies, taken before the change


def test_unpack_returning_a_non_tensor_raises_type_error(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = a * a
    with pytest.raises(TypeError):
        y.sum().backward()


def test_pack_modifying_its_input_in_place_raises(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([1.0, 2.0])
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.add_(0), lambda t: t):
        with pytest.raises(RuntimeError):
            a * b


def test_packed_values_are_freed_after_backward(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = a.sin()
    y.sum().backward()
    with pytest.raises(RuntimeError):
        y.sum().backward()


def test_save_on_cpu_keeps_gradients_unchanged(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.save_on_cpu():
        y = x.sin() * x
    y.sum().backward()
    assert_values(x.grad, np.cos([1.0, 2.0]) * [1.0, 2.0] + np.sin([1.0, 2.0]))


# ----- disable_saved_tensors_hooks -----


def test_hooks_are_refused_with_the_given_message_while_disabled(torch):
    with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="hooks in use"):
            with torch.autograd.graph.disable_saved_tensors_hooks("hooks in use"):
                pass


def test_nested_disables_restore_the_outer_message(torch):
    with torch.autograd.graph.disable_saved_tensors_hooks("outer"):
        with torch.autograd.graph.disable_saved_tensors_hooks("inner"):
            pass
        with pytest.raises(RuntimeError, match="outer"):
            with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass


# ----- allow_mutation_on_saved_tensors -----


def test_a_saved_tensor_modified_in_place_is_cloned_first(torch):
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        a = torch.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b**2).sum()
        b.sin_()
        out.backward()
    assert_values(a.grad, np.full((2, 3), 2.0))
    assert_values(b, np.full((2, 3), np.sin(1.0)))


def test_writing_through_a_view_at_the_same_address_clones_the_saved_base(torch):
    # As PyTorch, aliasing is found by the written tensor's address: a view starting at the
    # base's first element clones the base, one starting further in does not.
    for write, expected in (
        (lambda b: b[:2].mul_(10), [2.0, 4.0, 6.0]),
        (lambda b: b.view(3).mul_(10), [2.0, 4.0, 6.0]),
        (lambda b: b[1:].mul_(10), [2.0, 40.0, 60.0]),
    ):
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            b = a * 1
            out = (b * b).sum()
            write(b)
            out.backward()
        assert_values(a.grad, expected)


def test_backward_outside_the_mutation_block_raises(torch):
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        a = torch.ones(2, requires_grad=True)
        out = (a.clone() ** 2).sum()
    with pytest.raises(AssertionError):
        out.backward()


def test_mutation_blocks_cannot_be_nested(torch):
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        with pytest.raises(RuntimeError):
            with torch.autograd.graph.allow_mutation_on_saved_tensors():
                pass


def test_raw_saved_tensors_take_their_own_hooks_as_pytorch(torch):
    """``grad_fn._raw_saved_<name>.register_hooks(pack, unpack)``: one save packed now,
    unpacked when read; PyTorch's errors for a second pair, a freed save and a None one."""
    x = torch.ones(2, requires_grad=True)
    y = x * x
    raw = y.grad_fn._raw_saved_self
    packed = []
    raw.register_hooks(lambda t: packed.append(t.tolist()) or t * 2, lambda t: t)
    assert packed == [[1.0, 1.0]] and raw.unpack().tolist() == [2.0, 2.0]
    assert y.grad_fn._saved_self.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="whose hooks have already been set"):
        raw.register_hooks(lambda t: t, lambda t: t)
    (g,) = torch.autograd.grad(y.sum(), x, retain_graph=True)
    assert g.tolist() == [3.0, 3.0]  # d/dx: other (1) + self as unpacked (2)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after it has been freed"):
        raw.register_hooks(lambda t: t, lambda t: t)
    z = x.exp()
    z.grad_fn._raw_saved_result.register_hooks(lambda t: "token", lambda t: torch.full((2,), 5.0))
    assert torch.autograd.grad(z.sum(), x)[0].tolist() == [5.0, 5.0]
    unsaved = x * torch.ones(2)  # self is saved only if other needs a gradient
    with pytest.raises(RuntimeError, match="with value None is forbidden"):
        unsaved.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        hooked = x * x
    with pytest.raises(RuntimeError, match="whose hooks have already been set"):
        hooked.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(TypeError):
        hooked.grad_fn._raw_saved_other.register_hooks(1, 2)


def _pack_order(torch, make):
    """The names of the inputs hooks pack, then unpack, while ``make()`` runs and backward."""
    a = torch.rand(3, 3, requires_grad=True) + 0.5
    b = torch.rand(3, 3, requires_grad=True) + 0.5
    names = {id(a): "a", id(b): "b"}
    seen = []

    def pack(x):
        seen.append(("pack", names.get(id(x), "other")))
        return x

    def unpack(x):
        seen.append(("unpack", names.get(id(x), "other")))
        return x

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = make(torch, a, b)
    y.sum().backward()
    return seen


@pytest.mark.parametrize(
    ("op", "first"),
    [(lambda t, a, b: a * b, "b"), (lambda t, a, b: a / b, "b"), (lambda t, a, b: a @ b, "b"),
     (lambda t, a, b: t.atan2(a, b), "b"), (lambda t, a, b: t.addcmul(a, a, b), "a")],
)  # fmt: skip
def test_inputs_are_packed_and_unpacked_in_the_order_of_their_names(torch, op, first):
    # PyTorch's nodes save (self, other) as other, self: the saved-tensors-hooks tutorial
    # prints "Packing" and "Unpacking" for b before a (addcmul: tensor1 before tensor2)
    seen = _pack_order(torch, op)
    second = "a" if first == "b" else "b"
    assert [n for k, n in seen if k == "pack"][:2] == [first, second]
    assert [n for k, n in seen if k == "unpack"][:2] == [first, second]
