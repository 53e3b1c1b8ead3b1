"""forward_ad: dual_level, make_dual, unpack_dual, as ``torch.autograd.forward_ad``.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture). Nested dual levels
are a deliberate leafgrad extension (PyTorch raises); their tests state both behaviours.
"""

import importlib
import math

import pytest

import leafgrad

from ._helpers import assert_values


def _fwad(torch):
    return importlib.import_module(f"{torch.__name__}.autograd.forward_ad")


# ----- levels -----


def test_dual_level_yields_an_int_and_tangents_count_only_inside(torch):
    fwAD = _fwad(torch)
    x = torch.tensor([1.0, 2.0])
    with fwAD.dual_level() as level:
        assert isinstance(level, int)
        y = fwAD.make_dual(x, torch.tensor([3.0, 4.0])) * 2
        assert_values(fwAD.unpack_dual(y).tangent, [6.0, 8.0])
    primal, tangent = fwAD.unpack_dual(y)
    assert tangent is None
    assert_values(primal, [2.0, 4.0])
    with fwAD.dual_level():  # a later level does not see the old tangent either
        assert fwAD.unpack_dual(y).tangent is None


def test_enter_and_exit_dual_level_by_hand(torch):
    fwAD = _fwad(torch)
    level = fwAD.enter_dual_level()
    try:
        d = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))
        assert fwAD.unpack_dual(d * d).tangent.item() == 4.0
    finally:
        fwAD.exit_dual_level(level=level)
    with pytest.raises(RuntimeError):
        fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))


def test_dual_level_is_also_a_decorator(torch):
    fwAD = _fwad(torch)

    @fwAD.dual_level()
    def tangent_of_square(x, t):
        return fwAD.unpack_dual(fwAD.make_dual(x, t) ** 2).tangent

    assert_values(tangent_of_square(torch.tensor([1.0, 3.0]), torch.tensor([1.0, 1.0])), [2, 6])


def test_exiting_a_level_that_is_not_the_innermost_raises(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level() as level, pytest.raises(RuntimeError):
        fwAD.exit_dual_level(level=level + 7)


def test_exiting_with_no_active_level_raises(torch):
    with pytest.raises(RuntimeError):
        _fwad(torch).exit_dual_level()


def test_entering_a_second_level_nests_in_leafgrad_and_raises_in_pytorch(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        if torch is not leafgrad:
            with pytest.raises(RuntimeError):
                fwAD.enter_dual_level()
            return
        inner = fwAD.enter_dual_level()
        fwAD.exit_dual_level(level=inner)


# ----- make_dual -----


def test_make_dual_outside_a_level_raises(torch):
    with pytest.raises(RuntimeError):
        _fwad(torch).make_dual(torch.tensor([1.0]), torch.tensor([1.0]))


def test_make_dual_with_a_tangent_of_another_shape_raises(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError):
            fwAD.make_dual(torch.ones(2), torch.ones(3))
        with pytest.raises(RuntimeError):
            fwAD.make_dual(torch.ones(2, 1), torch.ones(1, 2))


def test_make_dual_with_an_integer_primal_raises_value_error(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level(), pytest.raises(ValueError):
        fwAD.make_dual(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))


def test_make_dual_with_an_integer_tangent_raises_value_error(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level(), pytest.raises(ValueError):
        fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1, 2]))


def test_make_dual_accepts_a_floating_tangent_of_another_dtype(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0], dtype=torch.float64))
        assert fwAD.unpack_dual(d).tangent.dtype == torch.float64


def test_make_dual_keeps_a_tangent_of_the_primals_layout_as_given(torch):
    fwAD = _fwad(torch)
    primal, tangent = torch.zeros(2, 3), torch.ones(2, 3, dtype=torch.float64)
    with fwAD.dual_level():
        assert fwAD.unpack_dual(fwAD.make_dual(primal, tangent)).tangent is tangent


def test_make_dual_copies_a_tangent_of_another_layout_into_the_primals(torch):
    fwAD = _fwad(torch)
    primal = torch.zeros(4, 3)
    tangent = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).requires_grad_()
    with fwAD.dual_level():
        got = fwAD.unpack_dual(fwAD.make_dual(primal, tangent.T)).tangent
        assert got.stride() == (3, 1) and got.dtype == torch.float32
        assert_values(got, tangent.T.detach())
        got.sum().backward()  # the copy stays in the tangent's graph
    assert_values(tangent.grad, torch.ones(3, 4, dtype=torch.float64))


def test_make_dual_of_a_tensor_that_has_a_tangent_at_this_level_raises(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([1.0]), torch.tensor([1.0]))
        with pytest.raises(RuntimeError):
            fwAD.make_dual(d, torch.tensor([2.0]))


def test_make_dual_with_an_inactive_level_raises(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level() as level, pytest.raises(RuntimeError):
        fwAD.make_dual(torch.tensor([1.0]), torch.tensor([1.0]), level=level + 5)


def test_the_dual_of_a_tensor_requiring_grad_is_a_view_in_the_graph(torch):
    fwAD = _fwad(torch)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.tensor([1.0, 0.0]))
        assert d is not x
        assert d.requires_grad and not d.is_leaf
        assert d.grad_fn.name() == "ViewBackward0"
        primal = fwAD.unpack_dual(d).primal
        assert primal.requires_grad and not primal.is_leaf
    (g,) = torch.autograd.grad((d * d).sum(), x)
    assert_values(g, [2.0, 4.0])


def test_a_tangent_that_requires_grad_is_accepted(torch):
    fwAD = _fwad(torch)
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        y = fwAD.make_dual(torch.tensor([3.0, 4.0]), t) ** 2
        tangent = fwAD.unpack_dual(y).tangent
        assert_values(tangent, [6.0, 16.0])
    (g,) = torch.autograd.grad(tangent.sum(), t)  # d/dt of 2 x t
    assert_values(g, [6.0, 8.0])


# ----- unpack_dual -----


def test_unpack_dual_outside_a_level_returns_the_tensor_and_no_tangent(torch):
    fwAD = _fwad(torch)
    x = torch.tensor([1.0, 2.0])
    primal, tangent = fwAD.unpack_dual(x)
    assert primal is x and tangent is None


def test_unpack_dual_is_a_named_tuple(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        t = torch.tensor([3.0, 4.0])
        unpacked = fwAD.unpack_dual(fwAD.make_dual(torch.tensor([1.0, 2.0]), t))
    assert type(unpacked).__name__ == "UnpackedDualTensor"
    assert unpacked._fields == ("primal", "tangent")
    assert unpacked.tangent is t


def test_the_primal_shares_memory_with_the_original(torch):
    fwAD = _fwad(torch)
    x = torch.tensor([1.0, 2.0])
    with fwAD.dual_level():
        primal = fwAD.unpack_dual(fwAD.make_dual(x, torch.tensor([3.0, 4.0]))).primal
        x.add_(10.0)
        assert_values(primal, [11.0, 12.0])


def test_unpack_dual_of_a_plain_tensor_inside_a_level_has_no_tangent(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        fwAD.make_dual(torch.tensor([1.0]), torch.tensor([1.0]))
        x = torch.tensor([5.0])
        assert fwAD.unpack_dual(x * 2).tangent is None


def test_unpack_dual_with_an_inactive_level_raises(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level() as level:
        d = fwAD.make_dual(torch.tensor([1.0]), torch.tensor([1.0]))
        with pytest.raises(RuntimeError):
            fwAD.unpack_dual(d, level=level + 5)


# ----- propagation -----


def test_tangents_propagate_under_no_grad(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level(), torch.no_grad():
        y = fwAD.make_dual(torch.tensor([0.5, 1.0]), torch.tensor([2.0, 1.0])).sin()
        assert_values(fwAD.unpack_dual(y).tangent, [2 * math.cos(0.5), math.cos(1.0)])


def test_detach_drops_the_tangent(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([1.0]), torch.tensor([1.0]))
        assert fwAD.unpack_dual(d.detach()).tangent is None


def test_an_integer_result_has_no_tangent(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
        assert fwAD.unpack_dual(d.to(torch.int64)).tangent is None


def test_comparisons_and_argmax_have_no_tangent(torch):
    fwAD = _fwad(torch)
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
        assert fwAD.unpack_dual(d > 1).tangent is None
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        values, indices = d.max(0)
        assert values.item() == 2.0 and fwAD.unpack_dual(values).tangent.item() == 4.0
        assert fwAD.unpack_dual(indices).tangent is None


def test_a_reduction_chain_matches_the_closed_form(torch):
    fwAD = _fwad(torch)
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], dtype=torch.float64)
    t = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]], dtype=torch.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        y = d.softmax(1).mul(d).sum(1).logsumexp(0)
        jvp = fwAD.unpack_dual(y).tangent
    eps = 1e-6
    plus = (x + eps * t).softmax(1).mul(x + eps * t).sum(1).logsumexp(0)
    minus = (x - eps * t).softmax(1).mul(x - eps * t).sum(1).logsumexp(0)
    assert abs(jvp.item() - (plus - minus).item() / (2 * eps)) < 1e-7


# ----- nested levels: leafgrad only (PyTorch raises on entering a second level) -----


def _second_derivative(fn, x0: float, read_outer_of_inner: bool):
    fwAD = leafgrad.autograd.forward_ad
    x = leafgrad.tensor(x0, dtype=leafgrad.float64)
    one = leafgrad.tensor(1.0, dtype=leafgrad.float64)
    with fwAD.dual_level() as outer, fwAD.dual_level() as inner:
        d = fwAD.make_dual(fwAD.make_dual(x, one, level=outer), one, level=inner)
        y = fn(d)
        if read_outer_of_inner:
            first = fwAD.unpack_dual(y, level=inner).tangent
            return fwAD.unpack_dual(first, level=outer).tangent
        first = fwAD.unpack_dual(y, level=outer).tangent
        return fwAD.unpack_dual(first, level=inner).tangent


@pytest.mark.parametrize(
    "read_outer_of_inner", [True, False], ids=["outer-of-inner", "inner-of-outer"]
)
def test_nested_levels_give_second_derivatives_of_rules_reading_inputs(read_outer_of_inner):
    second = _second_derivative(lambda d: d.sin() * d, 0.7, read_outer_of_inner)
    assert abs(second.item() - (2 * math.cos(0.7) - 0.7 * math.sin(0.7))) < 1e-12


def test_nested_levels_give_second_derivatives_of_rules_reading_the_result_outer_of_inner():
    second = _second_derivative(lambda d: d.exp(), 0.7, True)
    assert abs(second.item() - math.exp(0.7)) < 1e-12


def test_nested_levels_give_second_derivatives_of_rules_reading_the_result_inner_of_outer():
    second = _second_derivative(lambda d: d.exp(), 0.7, False)
    assert second is not None and abs(second.item() - math.exp(0.7)) < 1e-12
