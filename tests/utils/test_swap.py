"""torch.utils.swap_tensors and torch.__future__'s conversion flags: tensors exchange their
contents keeping their identities, and Module conversions and load_state_dict swap, assign
or set ``.data`` as PyTorch's (the swap-tensors recipe)."""

from __future__ import annotations

import importlib.util
import weakref

import pytest

import leafgrad

LIBS = [leafgrad]
if importlib.util.find_spec("torch") is not None:
    import torch

    LIBS.append(torch)

by_lib = pytest.mark.parametrize("m", LIBS, ids=lambda m: m.__name__)


@pytest.fixture
def swapping():
    """Turn the swap flag on in both libraries, and off again afterwards."""
    for m in LIBS:
        m.__future__.set_swap_module_params_on_conversion(True)
    yield
    for m in LIBS:
        m.__future__.set_swap_module_params_on_conversion(False)


@by_lib
def test_swap_tensors_exchanges_contents_and_keeps_identities(m):
    t1, t2 = m.arange(2), m.ones(3, dtype=m.float64, requires_grad=True)
    m.utils.swap_tensors(t1, t2)
    assert t1.tolist() == [1.0, 1.0, 1.0] and t1.dtype == m.float64 and t1.requires_grad
    assert t2.tolist() == [0, 1] and not t2.requires_grad
    p = m.nn.Parameter(m.zeros(2))
    t = m.ones(2)
    m.utils.swap_tensors(p, t)
    assert type(p) is m.Tensor and type(t) is m.nn.Parameter


@by_lib
def test_swap_tensors_refuses_a_weakly_referenced_tensor(m):
    t1, t2 = m.zeros(2), m.ones(2)
    ref = weakref.ref(t2)
    with pytest.raises(RuntimeError, match="Cannot swap t2 because it has weakref"):
        m.utils.swap_tensors(t1, t2)
    assert ref() is t2


@by_lib
def test_backward_through_a_swapped_leaf_raises(m):
    w = m.ones(2, requires_grad=True)
    loss = (w + 1).sum()  # nothing saves w: PyTorch refuses to swap a saved tensor
    m.utils.swap_tensors(w, m.zeros(2, requires_grad=True))
    with pytest.raises(RuntimeError, match="poisoned by swap_tensors"):
        loss.backward()


@by_lib
def test_the_future_flags_default_to_off(m):
    assert m.__future__.get_swap_module_params_on_conversion() is False
    assert m.__future__.get_overwrite_module_params_on_conversion() is False


@by_lib
def test_conversion_keeps_parameter_objects_with_or_without_swapping(m, swapping):
    lin = m.nn.Linear(3, 2)
    w = lin.weight
    w.grad = m.ones(2, 3)
    g = w.grad
    lin.double()
    assert lin.weight is w and w.dtype == m.float64
    assert w.grad is g and g.dtype == m.float64


@by_lib
def test_overwrite_flag_makes_conversions_assign_new_parameters(m):
    m.__future__.set_overwrite_module_params_on_conversion(True)
    try:
        lin = m.nn.Linear(3, 2)
        w = lin.weight
        lin.double()
        assert lin.weight is not w and w.dtype == m.float32
        assert type(lin.weight) is m.nn.Parameter and lin.weight.dtype == m.float64
    finally:
        m.__future__.set_overwrite_module_params_on_conversion(False)


@pytest.mark.parametrize("assign", [False, True])
@by_lib
def test_load_state_dict_swaps_keeping_the_parameter_the_optimizer_holds(m, swapping, assign):
    lin = m.nn.Linear(3, 2, dtype=m.float64)
    w = lin.weight
    opt = m.optim.SGD(lin.parameters(), lr=0.1)
    state = m.nn.Linear(3, 2).state_dict()
    lin.load_state_dict(state, assign=assign)
    assert lin.weight is w and opt.param_groups[0]["params"][0] is w
    assert w.dtype == (m.float32 if assign else m.float64)
    assert w.tolist() == state["weight"].tolist() and type(w) is m.nn.Parameter
