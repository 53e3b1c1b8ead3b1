"""Sizes and dims given by PyTorch's keyword names (``t.flip(dims=...)``, ``t.view(size=...)``),
operands given by theirs (``exp(input=x)``, ``x.mul(other=y)``), ``t.view(dtype)``,
``Tensor.split``'s own parameter name, and Tensor methods refusing ``out=`` as PyTorch's do —
each compared with torch."""

import numpy as np
import pytest

import leafgrad as lg


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _both(torch, expr):
    """``expr`` evaluated with ``m`` bound to each library on ``x = arange(6.).reshape(2, 3)``:
    (values or None, exception type or None) per library."""
    results = []
    for m in (lg, torch):
        x = m.arange(6.0).reshape(2, 3)
        try:
            r = eval(expr, {"m": m, "x": x})
        except Exception as exc:  # the type is what is compared
            results.append((None, type(exc)))
            continue
        r = r if isinstance(r, tuple) else (r,)
        results.append(([(str(t.dtype), t.detach().numpy().copy()) for t in r], None))
    return results


KEYWORD_FORMS = [
    "x.flip(dims=(0, 1))",
    "m.flip(x, dims=[0])",
    "x.flip(0, dims=(1,))",
    "x.repeat(repeats=(2, 1))",
    "x.view(size=(3, 2))",
    "x.reshape(shape=(3, 2))",
    "m.reshape(x, shape=(-1,))",
    "x.expand(size=(2, 2, 3))",
    "x.split(split_size=1)",
    "x.split(split_size_or_sections=1)",
    "m.split(x, split_size_or_sections=[1, 2], dim=1)",
    "m.split(x, split_size=1)",
]


@pytest.mark.parametrize("expr", KEYWORD_FORMS)
def test_keyword_forms_as_pytorch(torch, expr):
    (ours, our_error), (theirs, their_error) = _both(torch, expr)
    assert our_error is their_error
    if theirs is None:
        return
    assert len(ours) == len(theirs)
    for (d1, a1), (d2, a2) in zip(ours, theirs):
        assert d1 == d2
        np.testing.assert_array_equal(a1, a2)


# Operands by keyword: one operand, two, a number, methods, in-place, a gap (TypeError).
OPERAND_KEYWORDS = [
    "m.exp(input=x)",
    "m.sin(input=x)",
    "m.relu(input=x - 2)",
    "m.sigmoid(input=x)",
    "m.abs(input=-x)",
    "m.isnan(input=x)",
    "m.mul(input=x, other=x)",
    "m.mul(x, other=3)",
    "x.mul(other=x)",
    "x.mul(other=2.5)",
    "m.atan2(input=x, other=x + 1)",
    "x.atan2(other=x + 1)",
    "m.maximum(x, other=x.flip(0))",
    "x.lt(other=3)",
    "m.eq(input=x, other=x.t().t())",
    "m.floor_divide(input=x, other=2)",
    "m.logical_and(input=x, other=x > 2)",
    "m.pow(x, exponent=2)",
    "x.clone().mul_(other=x)",
    "m.mul(other=x)",
    "m.atan2(other=x)",
]


def _with_graph(m, expr):
    x = m.arange(6.0, dtype=m.float64).reshape(2, 3).requires_grad_()
    r = eval(expr, {"m": m, "x": x})
    grad = None
    if r.requires_grad:
        (grad,) = m.autograd.grad(r.sum(), x)
    return r, grad


@pytest.mark.parametrize("expr", OPERAND_KEYWORDS)
def test_operands_by_keyword_as_pytorch(torch, expr):
    outcomes = []
    for m in (lg, torch):
        try:
            outcomes.append((_with_graph(m, expr), None))
        except Exception as exc:  # the type is what is compared
            outcomes.append((None, type(exc)))
    (ours, our_error), (theirs, their_error) = outcomes
    assert our_error is their_error
    if theirs is None:
        return
    (r1, g1), (r2, g2) = ours, theirs
    assert str(r1.dtype) == str(r2.dtype)
    assert type(r1.grad_fn).__name__ == type(r2.grad_fn).__name__
    np.testing.assert_allclose(r1.detach().numpy(), r2.detach().numpy(), rtol=1e-12)
    assert (g1 is None) == (g2 is None)
    if g2 is not None:
        np.testing.assert_allclose(g1.numpy(), g2.numpy(), rtol=1e-12)


VIEW_DTYPE = [
    "x.view(m.int32)",
    "x.view(dtype=m.int32)",
    "x.view(m.int16)",
    "x.view(m.uint8)",
    "x.t().view(m.int32)",
    "m.arange(8.0).reshape(2, 4).view(m.float64)",
    "m.arange(8.0, dtype=m.float64).view(m.float32)",
    "x.view(m.float64)",  # the last dim (3) is not divisible by 2
    "x.t().view(m.int16)",  # different element sizes need a unit last stride
    "x.view((3, 2), dtype=m.int32)",
]


@pytest.mark.parametrize("expr", VIEW_DTYPE)
def test_view_as_another_dtype_reads_the_same_memory(torch, expr):
    (ours, our_error), (theirs, their_error) = _both(torch, expr)
    assert our_error is their_error
    if theirs is None:
        return
    (d1, a1), (d2, a2) = ours[0], theirs[0]
    assert d1 == d2
    np.testing.assert_array_equal(a1, a2)


def test_a_dtype_view_shares_memory_and_leaves_the_graph(torch):
    for m in (lg, torch):
        x = m.ones(2, 2, requires_grad=True)
        v = x.view(m.float32)
        assert not v.requires_grad and v.grad_fn is None
        with m.no_grad():
            x.view(m.int32)[0, 0] = 0
        assert x[0, 0].item() == 0.0


@pytest.mark.parametrize("call", ["x.add(x, out=o)", "x.sum(out=o)", "x.matmul(x, out=o)"])
def test_tensor_methods_take_no_out_but_functions_do(torch, call):
    for m in (lg, torch):
        names = {"m": m, "x": m.ones(2, 2), "o": m.empty(2, 2)}
        with pytest.raises(TypeError):
            eval(call, names)
        function_form = call.replace("x.", "m.", 1).replace("(", "(x, ", 1)
        if "sum" in call:
            function_form = "m.sum(x, dim=(0, 1), keepdim=True, out=o)"
        assert eval(function_form, names) is names["o"]


def test_the_out_resize_warning_points_at_the_callers_line():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lg.sum(lg.ones(2, 2), dim=0, out=lg.empty(3))
    assert [w.filename for w in caught] == [__file__]
    assert "resized" in str(caught[0].message)
