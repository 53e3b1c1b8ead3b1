"""SavedTensors: the one object every node keeps its saved tensors in."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._engine.saved import SavedTensors


def test_unpack_returns_the_saved_values_as_given():
    x = lg.tensor([1.0, 2.0])
    saved = SavedTensors((x, 2.0), {"dim": 0})
    values = saved.unpack("MulBackward0")
    assert values[0] is x and values[1] == 2.0
    assert saved.params == {"dim": 0} and len(saved) == 2


def test_modifying_a_saved_tensor_in_place_makes_unpack_raise_naming_the_owner():
    x = lg.tensor([1.0, 2.0])
    saved = SavedTensors((x,))
    x.add_(1)
    with pytest.raises(RuntimeError, match=r"version 1; expected version 0 .*by SinBackward0"):
        saved.unpack("SinBackward0")


def test_a_tensor_modified_before_it_was_saved_unpacks():
    x = lg.tensor([1.0, 2.0])
    x.add_(1)
    assert SavedTensors((x,)).unpack("SinBackward0")[0] is x


def test_saves_without_version_checks_keep_shapes_only_and_ignore_in_place_changes():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    saved = SavedTensors((x,), check_versions=False, owner="AddBackward0")
    x.detach().add_(1)  # shares x's version counter
    (stand_in,) = saved.unpack("AddBackward0")
    assert stand_in is not x and stand_in.shape == (2,) and stand_in.requires_grad
    with pytest.raises(RuntimeError, match="AddBackward0: its backward rule read the values"):
        stand_in + 1


def test_a_saved_output_is_guarded_by_the_version_counter_of_its_tensor():
    out = lg.tensor([1.0])
    saved = SavedTensors(())
    saved.save_output(out._data, out)
    saved.unpack("ExpBackward0")
    out.add_(1)
    with pytest.raises(RuntimeError, match="ExpBackward0"):
        saved.unpack("ExpBackward0")


def test_a_saved_output_can_be_guarded_by_the_tensor_it_moved_to():
    out, target = lg.tensor([1.0]), lg.tensor([1.0])
    saved = SavedTensors(())
    saved.save_output(out._data, out)
    saved.guard_output_with(target)
    out.add_(1)
    saved.unpack("ExpBackward0")
    target.add_(1)
    with pytest.raises(RuntimeError, match="ExpBackward0"):
        saved.unpack("ExpBackward0")


def test_replacing_a_saved_value_checks_the_new_tensor_from_its_current_version():
    x, y = lg.tensor([1.0]), lg.tensor([2.0])
    y.add_(1)
    saved = SavedTensors((x, 3))
    saved.replace(0, y)
    x.add_(1)
    assert saved.unpack("MulBackward0") == (y, 3)
    y.add_(1)
    with pytest.raises(RuntimeError, match="version 2; expected version 1"):
        saved.unpack("MulBackward0")


def test_released_op_saves_keep_shapes_and_refuse_values_pointing_to_retain_graph():
    x = lg.tensor([[1.0, 2.0, 3.0]])
    # Held for their shapes only, not saved: unpacking after release gives stand-ins, and a
    # number operand nobody saved stays (PyTorch frees only what it saved).
    saved = SavedTensors((x, 2.0), {"index": np.array([0])}, check_versions=False)
    saved.save_output(np.ones(3), None)
    saved.release("MulBackward0")
    assert saved.released
    stand_in, number = saved.unpack("MulBackward0")
    assert stand_in.shape == (1, 3) and saved.output.shape == (3,) and number == 2.0
    with pytest.raises(RuntimeError, match="its backward rule read the values"):
        stand_in + 1
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        saved.output + 1
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        np.asarray(saved.params["index"])


def test_released_saved_values_become_stand_ins_that_point_to_retain_graph():
    x = lg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    saved = SavedTensors((x, 2.0, "mode"), check_versions=(0, 1, 2))
    saved.release("MulBackward0")
    freed, number, other = saved.values
    assert freed.shape == (1, 3) and freed.dtype == lg.float32 and freed.requires_grad
    assert number.shape == () and other == "mode"
    for value in (freed, number):
        with pytest.raises(RuntimeError, match="MulBackward0 released its saved tensors"):
            value + 1
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        saved.unpack("MulBackward0")
    saved.release("MulBackward0")  # idempotent
    assert saved.values[0].shape == (1, 3)


def test_released_op_saves_holding_values_raise_on_unpack():
    x = lg.tensor([1.0, 2.0])
    for saved in (SavedTensors((x, 2.0), check_versions=(1,)), SavedTensors((x,), None, False)):
        if not saved.holds_saves:
            saved.save_output(np.ones(2), x)  # a saved output counts too
        saved.release("MulBackward0")
        with pytest.raises(RuntimeError, match="retain_graph=True"):
            saved.unpack("MulBackward0")


def test_released_ctx_saves_raise_on_unpack():
    saved = SavedTensors((lg.tensor([1.0]),), from_ctx=True)
    saved.check_not_released("KeepBackward")
    saved.release("KeepBackward")
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        saved.unpack("KeepBackward")
    with pytest.raises(RuntimeError, match="KeepBackward released"):
        saved.check_not_released("KeepBackward")


def test_released_empty_ctx_saves_still_run_but_refuse_unpacking():
    saved = SavedTensors((), from_ctx=True)
    saved.release("NoSaveBackward")
    saved.check_not_released("NoSaveBackward")
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        saved.unpack("NoSaveBackward")


def test_a_ctx_save_modified_in_place_names_its_index():
    a, b = lg.tensor([1.0]), lg.tensor([2.0])
    saved = SavedTensors((a, None, b), from_ctx=True)
    b.mul_(2)
    with pytest.raises(RuntimeError, match=r"input 2 saved by KeepBackward"):
        saved.unpack("KeepBackward")


def test_op_nodes_and_custom_function_nodes_keep_their_saves_in_one_object_kind():
    class Keep(lg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    x = lg.tensor([1.0, 2.0], requires_grad=True)
    custom = Keep.apply(x).grad_fn
    op = (x * x).grad_fn
    assert type(custom._saved) is SavedTensors and type(op._saved) is SavedTensors


def test_an_in_place_op_keeps_the_old_value_where_it_saved_its_target():
    a = lg.tensor([2.0], requires_grad=True)
    z = lg.tensor([3.0], requires_grad=True)
    y = a * 1
    y.mul_(z)
    node = y.grad_fn
    assert node.saved_input(0) is not y and node.saved_input(0).tolist() == [2.0]
    y.sum().backward()
    assert z.grad.tolist() == [2.0] and a.grad.tolist() == [3.0]
