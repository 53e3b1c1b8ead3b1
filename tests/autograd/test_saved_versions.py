"""What each op saves for backward, as PyTorch saves it: an in-place change of a saved tensor
between forward and backward makes backward raise, a change of anything else does not (and
leaves the gradients as they were), and grad_fn shows the saves as ``_saved_<name>``.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture); the table states
PyTorch's saves (``derivatives.yaml``), which the PyTorch run confirms.
"""

from dataclasses import dataclass

import numpy as np
import pytest

from ._helpers import assert_values, values

M = (2, 3)  # elementwise operands


@dataclass
class Case:
    """``fn(torch, *inputs)``; ``inputs``: ``(kind, shape)`` each, kind ``f`` (floats in
    (0.2, 0.8)), ``F`` (floats in (1.5, 2.5)) or ``b`` (bools); ``grad``: the indices of the
    inputs that require grad (default: every float one); ``saves``: the inputs (by index)
    and ``"result"`` that PyTorch saves."""

    id: str
    fn: object
    inputs: tuple
    saves: tuple
    grad: tuple | None = None


def _unary(id, fn, saves, kind="f"):
    return Case(id, fn, ((kind, M),), saves)


R, S = ("result",), (0,)
CASES = [
    _unary("exp", lambda t, x: x.exp(), R),
    _unary("expm1", lambda t, x: x.expm1(), R),
    _unary("log", lambda t, x: x.log(), S),
    _unary("log1p", lambda t, x: x.log1p(), S),
    _unary("log2", lambda t, x: x.log2(), S),
    _unary("sin", lambda t, x: x.sin(), S),
    _unary("cos", lambda t, x: x.cos(), S),
    _unary("tan", lambda t, x: x.tan(), R),
    _unary("asin", lambda t, x: x.asin(), S),
    _unary("atan", lambda t, x: x.atan(), S),
    _unary("sinh", lambda t, x: x.sinh(), S),
    _unary("tanh", lambda t, x: x.tanh(), R),
    _unary("acosh", lambda t, x: x.acosh(), S, kind="F"),
    _unary("atanh", lambda t, x: x.atanh(), S),
    _unary("sigmoid", lambda t, x: x.sigmoid(), R),
    _unary("erf", lambda t, x: t.erf(x), S),
    _unary("erfinv", lambda t, x: t.erfinv(x), S),
    _unary("relu", lambda t, x: x.relu(), R),
    _unary("leaky_relu", lambda t, x: t.nn.functional.leaky_relu(x, 0.1), S),
    _unary("elu", lambda t, x: t.nn.functional.elu(x), S),
    _unary("gelu", lambda t, x: t.nn.functional.gelu(x), S),
    _unary("silu", lambda t, x: t.nn.functional.silu(x), S),
    _unary("softplus", lambda t, x: t.nn.functional.softplus(x), S),
    _unary("abs", lambda t, x: x.abs(), S),
    _unary("sign", lambda t, x: x.sign() * 1, ()),
    _unary("floor", lambda t, x: x.floor(), ()),
    _unary("neg", lambda t, x: -x, ()),
    _unary("reciprocal", lambda t, x: x.reciprocal(), R),
    _unary("sqrt", lambda t, x: x.sqrt(), R),
    _unary("rsqrt", lambda t, x: x.rsqrt(), R),
    _unary("square", lambda t, x: x.square(), S),
    _unary("pow-number", lambda t, x: x**3, S),
    _unary("number-pow", lambda t, x: 2**x, (0, "result")),
    _unary("clamp", lambda t, x: x.clamp(0.3, 0.6), S),
    _unary("clamp_min", lambda t, x: x.clamp(min=0.3), S),
    _unary("softmax", lambda t, x: x.softmax(-1), R),
    _unary("log_softmax", lambda t, x: x.log_softmax(-1), R),
    _unary("logsumexp", lambda t, x: x.logsumexp(-1), (0, "result")),
    _unary("sum", lambda t, x: x.sum(0), ()),
    _unary("mean", lambda t, x: x.mean(), ()),
    _unary("prod", lambda t, x: x.prod(1), (0, "result")),
    _unary("cumsum", lambda t, x: x.cumsum(1), ()),
    _unary("amax", lambda t, x: x.amax(1), (0, "result")),
    _unary("max", lambda t, x: x.max(), (0, "result")),
    _unary("max-dim", lambda t, x: x.max(1), ()),  # saves the indices, not the values
    _unary("sort", lambda t, x: x.sort(1).values, ()),  # saves the indices
    _unary("topk", lambda t, x: x.topk(2, 1).values, ()),  # saves the indices
    _unary("var", lambda t, x: x.var(), S),
    _unary("std", lambda t, x: x.std(1), (0, "result")),
    _unary("norm", lambda t, x: x.norm(), (0, "result")),
    _unary("to", lambda t, x: x.float(), ()),
    _unary("clone", lambda t, x: x.clone(), ()),
    _unary("expand", lambda t, x: x[:1].expand(4, 3) * 1, ()),
    _unary("transpose", lambda t, x: x.t() * 1, ()),
    _unary("select", lambda t, x: x[1] * 1, ()),
    _unary("flip", lambda t, x: x.flip(0), ()),
    _unary("repeat", lambda t, x: x.repeat(2, 1), ()),
    _unary("gather", lambda t, x: x.gather(1, t.tensor([[0, 2], [1, 1]])), S),
    _unary("index_select", lambda t, x: x.index_select(1, t.tensor([2, 0])), ()),
    _unary("advanced-index", lambda t, x: x[t.tensor([1, 0])], ()),
    _unary("split", lambda t, x: tuple(p * 1 for p in x.split(1)), ()),
    _unary("unbind", lambda t, x: tuple(p * 1 for p in x.unbind()), ()),
    _unary("cat", lambda t, x: t.cat([x, x]), ()),
    Case("mul", lambda t, x, y: x * y, (("f", M), ("f", M)), (0, 1)),
    Case("mul-by-constant", lambda t, x, y: x * y, (("f", M), ("f", M)), (1,), grad=(0,)),
    Case("constant-mul", lambda t, x, y: x * y, (("f", M), ("f", M)), (0,), grad=(1,)),
    Case("mul-number", lambda t, x: x * 3, (("f", M),), ()),
    Case("div", lambda t, x, y: x / y, (("f", M), ("f", M)), (0, 1)),
    Case("div-by-constant", lambda t, x, y: x / y, (("f", M), ("f", M)), (1,), grad=(0,)),
    Case("constant-div", lambda t, x, y: x / y, (("f", M), ("f", M)), (0, 1), grad=(1,)),
    Case("add", lambda t, x, y: x + y, (("f", M), ("f", M)), ()),
    Case("sub", lambda t, x, y: x - y, (("f", M), ("f", M)), ()),
    Case("atan2", lambda t, x, y: t.atan2(x, y), (("f", M), ("f", M)), (0, 1), grad=(0,)),
    Case("maximum", lambda t, x, y: t.maximum(x, y), (("f", M), ("f", M)), (0, 1), grad=(0,)),
    Case("minimum", lambda t, x, y: t.minimum(x, y), (("f", M), ("f", M)), (0, 1)),
    Case("pow", lambda t, x, y: x**y, (("f", M), ("f", M)), (0, 1, "result"), grad=(0,)),
    Case("remainder", lambda t, x, y: t.remainder(x, y), (("f", M), ("F", M)), (), grad=(0,)),
    Case("remainder-by-tensor", lambda t, x, y: t.remainder(x, y), (("f", M), ("F", M)), (0, 1)),
    Case("mm", lambda t, x, y: x @ y, (("f", (2, 3)), ("f", (3, 2))), (0, 1)),
    Case("mm-by-constant", lambda t, x, y: x @ y, (("f", (2, 3)), ("f", (3, 2))), (1,), (0,)),
    Case("bmm", lambda t, x, y: t.bmm(x, y), (("f", (2, 2, 3)), ("f", (2, 3, 2))), (0,), (1,)),
    Case("matmul-batched", lambda t, x, y: x @ y, (("f", (2, 2, 3)), ("f", (3, 2))), (1,), (0,)),
    Case("mv", lambda t, x, y: t.mv(x, y), (("f", (2, 3)), ("f", (3,))), (0, 1)),
    Case("dot", lambda t, x, y: t.dot(x, y), (("f", (3,)), ("f", (3,))), (0,), grad=(1,)),
    Case(
        "addmm",
        lambda t, b, x, y: t.addmm(b, x, y),
        (("f", (2, 2)), ("f", (2, 3)), ("f", (3, 2))),
        (1, 2),
    ),
    Case("where", lambda t, c, x, y: t.where(c, x, y), (("b", M), ("f", M), ("f", M)), (0,)),
    Case("masked_fill", lambda t, x, m: x.masked_fill(m, 0.5), (("f", M), ("b", M)), (1,)),
    Case("clamp-by-tensors", lambda t, x, lo, hi: x.clamp(lo, hi), (("f", M),) * 3, (0, 1, 2)),
]


def _inputs(torch, case):
    rng = np.random.default_rng(7)
    grad = case.grad if case.grad is not None else range(len(case.inputs))
    out = []
    for i, (kind, shape) in enumerate(case.inputs):
        if kind == "b":
            out.append(torch.tensor(rng.uniform(size=shape) > 0.5))
            continue
        lo, hi = (0.2, 0.8) if kind == "f" else (1.5, 2.5)
        a = rng.uniform(lo, hi, size=shape)
        out.append(torch.tensor(a, dtype=torch.float64, requires_grad=i in grad))
    return out


def _backward(torch, case, modify=None):
    """The gradients of the inputs that require grad, after ``modify`` (an input index or
    ``"result"``) was changed in place between forward and backward."""
    inputs = _inputs(torch, case)
    out = case.fn(torch, *inputs)
    out = out[0] if isinstance(out, tuple) else out
    if modify is not None:
        target = out if modify == "result" else inputs[modify]
        with torch.no_grad():
            if target.dtype == torch.bool:
                target.copy_(target.clone())  # a new version, the same values
            else:
                target.add_(0.25)
    wanted = [x for x in inputs if x.requires_grad]
    return torch.autograd.grad(out.sum(), wanted, allow_unused=True)


def _targets(case):
    return [*range(len(case.inputs)), "result"]


@pytest.mark.parametrize(
    "case, modify",
    [(c, m) for c in CASES for m in _targets(c)],
    ids=[f"{c.id}-{m if m == 'result' else f'input{m}'}" for c in CASES for m in _targets(c)],
)
def test_modifying_what_an_op_saves_makes_backward_raise_and_nothing_else_does(torch, case, modify):
    if modify in case.saves:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _backward(torch, case, modify)
        return
    untouched = _backward(torch, case)
    for got, expected in zip(_backward(torch, case, modify), untouched):
        assert (got is None) == (expected is None)
        if got is not None:
            np.testing.assert_allclose(values(got), values(expected), rtol=1e-12)


def test_tanh_saves_its_output_so_its_input_may_change_in_place(torch):
    x = torch.ones(3, requires_grad=True)
    h = x * 2
    y = torch.tanh(h)
    h.add_(1)
    y.sum().backward()
    assert_values(x.grad, [2 * (1 - np.tanh(2.0) ** 2)] * 3)


# ----- grad_fn's _saved_<name> attributes -----


def test_grad_fn_shows_the_saved_inputs_and_parameters_by_pytorchs_names(torch):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    a = x * 2
    assert a.sin().grad_fn._saved_self is a
    p = x**3
    assert p.grad_fn._saved_self is x and p.grad_fn._saved_exponent == 3
    s = a.softmax(0)
    assert s.grad_fn._saved_dim == 0
    assert_values(s.grad_fn._saved_result, values(s))
    w = torch.where(x > 1, x, a)
    assert_values(w.grad_fn._saved_condition, [False, False, True])
    m = x.reshape(3, 1) @ a.reshape(1, 3)
    assert m.grad_fn._saved_self._base is x and m.grad_fn._saved_mat2._base is a
    c = x.clamp(min=0.7)
    assert c.grad_fn._saved_min == 0.7 and c.grad_fn._saved_max is None
    with pytest.raises(AttributeError):
        _ = a.grad_fn._saved_nothing_like_this


def test_grad_fn_shows_the_dims_and_indices_of_reductions_and_sorts(torch):
    x = torch.tensor([[0.5, 2.0, 1.0], [3.0, 1.5, 2.5]], requires_grad=True)
    s = x.sum(1, keepdim=True).grad_fn
    assert tuple(s._saved_dim) == (1,) and s._saved_keepdim is True
    m = x.mean((0, 1)).grad_fn
    assert tuple(m._saved_dim) == (0, 1) and m._saved_keepdim is False
    assert x.cumsum(1).grad_fn._saved_dim == 1
    ordered, indices = x.sort(1, descending=True)
    assert ordered.grad_fn.name() == "SortBackward0" and ordered.grad_fn._saved_dim == 1
    assert_values(ordered.grad_fn._saved_indices, values(indices))
    top = x.topk(2, 0).values.grad_fn
    assert top.name() == "TopkBackward0" and top._saved_dim == 0
    assert_values(top._saved_indices, [[1, 0, 1], [0, 1, 0]])
    ordered.sum().backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        _ = ordered.grad_fn._saved_indices  # freed with the graph
    with pytest.raises(AttributeError):
        _ = x.sum().grad_fn._saved_dim


def test_a_saved_result_is_a_tensor_computed_by_the_node(torch):
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert saved.grad_fn is y.grad_fn and saved.requires_grad
    assert_values(saved, values(y))
    (g,) = torch.autograd.grad(saved.sum(), x)  # it is the output, in the graph
    assert_values(g, values(y))


def test_guarded_saves_show_as_none(torch):
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    by_constant = (x * c).grad_fn
    assert by_constant._saved_self is None and by_constant._saved_other is c
    by_number = (x * 3).grad_fn
    assert by_number._saved_self is None
    assert by_number._saved_other.item() == 3 and by_number._saved_other.shape == ()
    constant_by = (c / x).grad_fn
    assert constant_by._saved_self is c and constant_by._saved_other is x


def test_reading_a_save_after_an_in_place_change_or_after_backward_raises(torch):
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    a = x * 2
    s = a.sin()
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _ = s.grad_fn._saved_self
    p = x**3
    p.sum().backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        _ = p.grad_fn._saved_self
    assert p.grad_fn._saved_exponent == 3  # numbers are not freed


def test_a_second_backward_raises_exactly_where_the_node_saved_something(torch):
    def twice(f):
        x = torch.tensor([[0.5, 1.0], [1.5, 2.0]], requires_grad=True)
        y = f(x)
        y.sum().backward()
        try:
            y.sum().backward()
        except RuntimeError:
            return "raises"
        return "runs"

    ones = torch.ones(2)
    assert twice(lambda x: x * 3) == "raises"  # saves the number
    assert twice(lambda x: x.gather(0, torch.tensor([[0, 1]]))) == "raises"  # saves self
    assert twice(lambda x: torch.div(x, ones, rounding_mode="floor")) == "raises"
    assert twice(lambda x: x.max(0).values) == "raises"  # saves the indices
    assert twice(lambda x: x**0) == "raises"  # saves self, though its gradient is zeros
    assert twice(lambda x: torch.remainder(x, ones)) == "runs"  # saves nothing
    assert twice(lambda x: x.sum() + x.split(1)[0].sum()) == "runs"
