"""The op table and the exposure registry refuse what is not well declared, and what they
hold is what the package shows: leafgrad's functions, Tensor's methods and in-place twins."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import _exposure
from leafgrad.ops._optable import (
    REGISTRY,
    Bilinear,
    Composite,
    Generic,
    Linear,
    NoDerivative,
    NonDifferentiable,
    PiecewiseLinear,
    Unary,
)
from leafgrad.ops._primitive import primitive


def _rule(grad, x, result):
    return grad


def test_a_key_declared_twice_raises_value_error():
    with pytest.raises(ValueError, match=r"sum\.dim_IntList"):
        primitive("sum", np.sum, _rule, kind=Linear(), overload="dim_IntList")


def test_an_unknown_keyword_raises_type_error():
    with pytest.raises(TypeError):
        primitive("typo_for_test", np.negative, _rule, kind=Linear(), piecewise_liner=True)
    assert "typo_for_test" not in REGISTRY


def test_an_unknown_kind_raises_type_error():
    with pytest.raises(TypeError, match="kind"):
        primitive("bad_kind_for_test", np.negative, _rule, kind="linear")
    with pytest.raises(TypeError, match="kind"):
        primitive("bad_kind_for_test", np.negative, _rule, kind=Linear)  # the class
    assert "bad_kind_for_test" not in REGISTRY


def test_saves_takes_only_the_result():
    with pytest.raises(TypeError, match="saves"):
        primitive("bad_saves_for_test", np.negative, _rule, kind=Linear(), saves=("x",))
    with pytest.raises(TypeError, match="saves"):
        primitive("bad_saves_for_test", np.negative, _rule, kind=Linear(), saves="result")


def test_materialize_grads_false_is_for_rules_of_several_outputs():
    with pytest.raises(TypeError, match="materialize_grads"):
        primitive(
            "bad_materialize_for_test", np.negative, _rule, kind=Linear(), materialize_grads=False
        )
    assert "bad_materialize_for_test" not in REGISTRY


def test_a_rule_that_takes_missing_gradients_gets_none_not_zeros():
    seen = []

    def rule(grads, x, *, result, needs):
        seen.append(grads)
        return (grads[0] * 2.0,)

    halves = primitive(
        "halves_for_test",
        lambda x: (x * 2.0, x * 3.0),
        vjp_all=rule,
        kind=Generic(),
        dtype_rule="keep",
        num_outputs=2,
        materialize_grads=False,
    )
    REGISTRY.pop("halves_for_test")
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    a, _ = halves(x)
    a.sum().backward()
    assert seen[0][1] is None and seen[0][0].tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [2.0, 2.0]


def test_saves_name_inputs_outputs_and_parameters_as_pytorch_does():
    rules = (lambda grad, x, y, result: grad * y, lambda grad, x, y, result: grad * x)
    declared = primitive(
        "saves_for_test", np.multiply, rules, kind=Bilinear(), saves=("self if other", "other")
    ).primitive
    REGISTRY.pop("saves_for_test")
    assert declared.inputs == ("self", "other") and declared.outputs == ("result",)
    assert declared.saved() == (("self", "input", 0, 1), ("other", "input", 1, None))
    for bad in (("self if result",), ("mat2",), ("other if nobody",)):
        with pytest.raises(TypeError, match="saves"):
            primitive("bad_saves_for_test", np.multiply, rules, kind=Bilinear(), saves=bad)
    assert "bad_saves_for_test" not in REGISTRY


def test_a_unary_d1_reading_the_result_must_save_it():
    with pytest.raises(TypeError, match="saves"):
        primitive("exp_for_test", np.exp, kind=Unary(d1=lambda x, result: result))


def test_a_differentiable_op_needs_rules():
    with pytest.raises(TypeError, match="vjp"):
        primitive("no_rules_for_test", np.negative, kind=Linear())


@pytest.mark.parametrize(
    "key, kind",
    [
        ("mul.Tensor", Bilinear),
        ("div.Tensor", Composite),
        ("pow.Tensor_Scalar", Unary),
        ("clamp_min.Tensor", PiecewiseLinear),
        ("sum.dim_IntList", Linear),
        ("softmax", Generic),
        ("floor_divide", NoDerivative),
        ("eq", NonDifferentiable),
    ],
)
def test_the_registry_is_keyed_by_name_and_overload(key, kind):
    assert type(REGISTRY[key].kind) is kind
    assert REGISTRY[key].key == key


def test_every_declared_function_is_in_the_package_namespace():
    missing = sorted(n for n, fn in _exposure.FUNCTIONS.items() if getattr(lg, n, None) is not fn)
    assert missing == [], f"declared public but not leafgrad.<name>: {missing}"


def _innermost(fn):
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return fn


def test_every_declared_method_and_inplace_twin_is_on_tensor():
    # Binary operators are bound wrapped (ops/_operands.py: they decline foreign operands),
    # and methods are bound without their out= wrapper (ops/_out.py: without_out).
    bound = {n: lg.Tensor.__dict__.get(n) for n in _exposure.METHODS}
    wrong = sorted(
        n
        for n, fn in _exposure.METHODS.items()
        if bound[n] is None or _innermost(bound[n]) is not _innermost(fn)
    )
    assert wrong == [], f"declared Tensor methods not bound as declared: {wrong}"
    missing = sorted(n for n in _exposure.INPLACE if not callable(getattr(lg.Tensor, n, None)))
    assert missing == [], f"declared in-place twins missing on Tensor: {missing}"


def test_a_name_exposed_twice_raises_value_error():
    with pytest.raises(ValueError, match="'add'"):
        _exposure.public(function=False, method=("add",))(lambda self: self)


def test_aliases_are_public_as_functions_methods_and_inplace_twins():
    assert lg.subtract is lg.sub and _innermost(lg.Tensor.subtract) is _innermost(lg.sub)
    assert lg.clip is lg.clamp and _innermost(lg.Tensor.clip) is _innermost(lg.clamp)
    x = lg.tensor([0.5, -2.0])
    assert x.clip_(-1.0, 1.0) is x and x.tolist() == [0.5, -1.0]
    assert "rsub" in _exposure.FUNCTIONS and "rsub" not in _exposure.METHODS
