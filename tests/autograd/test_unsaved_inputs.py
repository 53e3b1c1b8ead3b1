"""A recorded op keeps only the inputs it saves: the others' arrays are freed as soon as
nothing else holds them (PyTorch keeps only their sizes), which halves a PINN step's memory."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops._optable import REGISTRY, Generic
from leafgrad.ops._primitive import primitive
from tests._tolerance import assert_close


def _product_and_its_array():
    x = lg.tensor(np.ones((4, 3)), requires_grad=True)
    w = lg.tensor(np.full((3, 2), 0.5), requires_grad=True)
    p = x @ w
    return x, w, p, weakref.ref(p._data)


def test_an_add_does_not_keep_the_product_before_it_alive():
    x, w, p, array = _product_and_its_array()
    y = p + lg.tensor([1.0, 2.0], dtype=lg.float64)
    del p
    gc.collect()
    assert array() is None  # the add saved nothing, so only its shape stayed
    y.sum().backward()
    assert_close(x.grad, np.ones((4, 3)))
    assert_close(w.grad, np.full((3, 2), 4.0))


def test_a_tanh_keeps_its_result_and_not_its_input():
    x, _w, p, array = _product_and_its_array()
    y = p.tanh()
    del p
    gc.collect()
    assert array() is None
    y.sum().backward()
    assert_close(x.grad, np.full((4, 3), 2 * 0.5 * (1 - np.tanh(1.5) ** 2)))


def test_a_mul_keeps_the_inputs_its_rule_reads():
    _x, w, p, array = _product_and_its_array()
    y = p * p
    del p
    gc.collect()
    assert array() is not None
    y.sum().backward()
    assert_close(w.grad, np.full((3, 2), 4 * 2 * 1.5))


def test_a_rule_reading_an_input_it_does_not_save_raises_naming_the_op():
    square = primitive(
        "undeclared_save_for_test",
        lambda x: x * x,
        (lambda grad, x, result: 2 * grad * x,),
        kind=Generic(),
        node_name="UndeclaredSaveBackward0",
    )
    REGISTRY.pop("undeclared_save_for_test")
    y = square(lg.tensor([1.0, 2.0], requires_grad=True))
    with pytest.raises(RuntimeError, match=r"UndeclaredSaveBackward0.*saves="):
        y.sum().backward()
