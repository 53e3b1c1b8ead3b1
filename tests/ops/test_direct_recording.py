"""An op on one or two plain floating tensors (or a tensor and a Python number) records
directly (``_primitive``'s first branch): the same result, node, edges, saves and gradients
to second order as the general path records, which these tests force by counting a special
mode as on (every mode itself stays off, so the general path changes nothing else)."""

import contextlib

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._engine import grad_mode
from leafgrad.ops import _primitive

RNG = np.random.default_rng(11)

# name -> (function of the inputs, which inputs require grad)
CASES = {
    "mul": (lambda a, b: a * b, (True, True)),
    "mul, only self requires grad": (lambda a, b: a * b, (True, False)),
    "mul, only other requires grad": (lambda a, b: a * b, (False, True)),
    "mul by a number": (lambda a, b: a * 0.5, (True, False)),
    "add a number": (lambda a, b: a + 1.0, (True, False)),
    "sub an int": (lambda a, b: a - 3, (True, False)),
    "div": (lambda a, b: a / (b * b + 1.0), (True, True)),
    "tanh": (lambda a, b: a.tanh(), (True, False)),
    "exp (saves its result)": (lambda a, b: a.exp(), (True, False)),
    "sin of a non-leaf": (lambda a, b: (a * b).sin(), (True, True)),
    "mm": (lambda a, b: a @ b.t(), (True, True)),
    "tanh_backward": (lambda a, b: lg.ops.elementwise.tanh_backward(a, b.tanh()), (True, True)),
    "the same tensor twice": (lambda a, b: a * a, (True, False)),
    "sum over a dim (parameters)": (lambda a, b: a.sum(0), (True, False)),
    "mean": (lambda a, b: a.mean(), (True, False)),
    "t (a view)": (lambda a, b: a.t(), (True, False)),
    "a slice (a view with parameters)": (lambda a, b: a[:, 1:3], (True, False)),
    "a view of a view": (lambda a, b: a.t()[0:2].unsqueeze(0), (True, False)),
    "expand": (lambda a, b: a[0:1].expand(3, 4), (True, False)),
    "addmm (three operands)": (lambda a, b: lg.addmm(b[0], a, b), (True, True)),
    "addcmul, one operand requiring grad": (lambda a, b: lg.addcmul(a, a, b), (False, True)),
}


def _inputs(dtype, requires):
    return [lg.tensor(RNG.uniform(-1, 1, (4, 4)), dtype=dtype, requires_grad=r) for r in requires]


@contextlib.contextmanager
def _general():
    """Every op takes the general path inside."""
    grad_mode.SPECIAL[0] += 1
    try:
        yield
    finally:
        grad_mode.SPECIAL[0] -= 1


def _record(fn, inputs):
    """The result, its node's saves and edges, and first and second-order gradients."""
    out = fn(*inputs)
    base = out._base
    shared = base is not None and out._version_counter is base._version_counter
    view = None if base is None else (base is inputs[0], shared)
    node = out.grad_fn
    saved = node._saved
    edges = [(type(n).__name__ if n is not None else None, nr) for n, nr in node.next_functions]
    used = lg.autograd.grad(
        out.sum(), [i for i in inputs if i.requires_grad], create_graph=True, allow_unused=True
    )
    leaves = [i for i, g in zip([i for i in inputs if i.requires_grad], used) if g is not None]
    firsts = [g for g in used if g is not None]
    total = sum(g.sin().sum() for g in firsts)  # constant where the op is linear
    seconds = (
        lg.autograd.grad(total, leaves, allow_unused=True)
        if total.requires_grad
        else [None] * len(leaves)
    )
    return {
        "value": out.detach().numpy().copy(),
        "view": view,
        "view_fn": None if out._view_fn is None else out._view_fn(base).tolist(),
        "dtype": out.dtype,
        "node": type(node).__name__,
        "edges": edges,
        "checked": saved._checked,
        "versions": tuple(saved._versions or ()),
        "output kept": saved.output is not None,
        "output saved": saved._output_saved,
        "params": saved.params,
        "first": [g.detach().numpy().copy() for g in firsts],
        "second": [None if g is None else g.numpy().copy() for g in seconds],
    }


def _assert_same(direct, general):
    """Every recorded fact equal; the arrays bit for bit."""
    assert direct.keys() == general.keys()
    for key in direct:
        if key == "value":
            np.testing.assert_array_equal(direct[key], general[key])
        elif key in ("first", "second"):
            assert len(direct[key]) == len(general[key]), key
            for d, g in zip(direct[key], general[key]):
                assert (d is None) == (g is None), key
                if d is not None:
                    np.testing.assert_array_equal(d, g)
        else:
            assert direct[key] == general[key], key


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
@pytest.mark.parametrize("case", list(CASES))
def test_direct_path_records_what_the_general_path_records(case, dtype):
    fn, requires = CASES[case]
    inputs = _inputs(dtype, requires)
    direct = _record(fn, inputs)
    with _general():
        general = _record(fn, inputs)
    _assert_same(direct, general)


PARAMETER_CASES = {
    "x @ W": lambda x, w, b: x @ w,
    "W * 2.0": lambda x, w, b: w * 2.0,
    "W.t()": lambda x, w, b: w.t(),
    "nn.Linear's addmm": lambda x, w, b: lg.nn.functional.linear(x, w, b),
}


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
@pytest.mark.parametrize("case", list(PARAMETER_CASES))
def test_parameters_record_directly_as_the_general_path_records_them(case, dtype):
    fn = PARAMETER_CASES[case]
    x = _inputs(dtype, (True,))[0]
    w = lg.nn.Parameter(_inputs(dtype, (True,))[0])
    b = lg.nn.Parameter(_inputs(dtype, (True,))[0][0])
    inputs = [x, w, b]
    direct = _record(fn, inputs)
    with _general():
        general = _record(fn, inputs)
    _assert_same(direct, general)


def test_the_direct_path_is_taken_for_plain_tensors_and_not_in_a_mode(monkeypatch):
    calls = []
    edge = _primitive._edge
    monkeypatch.setattr(_primitive, "_edge", lambda t: calls.append(t) or edge(t))
    a, b = _inputs(lg.float64, (True, True))
    a * b
    a.tanh()
    a + 1.0
    w = lg.nn.Parameter(lg.ones(4, 4))
    w * 2.0
    assert len(calls) == 5
    b32 = b.float()

    class Marked(lg.Tensor):
        """A subclass of the user's: the general path."""

    marked = a.detach().as_subclass(Marked).requires_grad_()
    calls.clear()
    marked * 2.0
    with lg.no_grad():
        a * b
    lg.tensor([1.0, 2.0]) * lg.tensor([3.0, 4.0])  # nothing requires grad
    a * b32  # two dtypes: promotion is the general path's
    with pytest.raises(RuntimeError, match="out="):  # out= refuses a graph, as PyTorch
        lg.mul(a, b, out=lg.empty(4, 4))
    with lg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        a * b
    with _general():
        a * b
    assert calls == []


def test_an_inference_tensor_takes_the_general_path_and_its_error():
    with lg.inference_mode():
        frozen = lg.ones(3)
    a = lg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="inference tensors"):
        a * frozen
    assert (a + frozen).requires_grad  # add saves neither operand


def test_a_broadcast_error_names_the_op_and_the_shapes():
    a, b = lg.ones(3, requires_grad=True), lg.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"mul.*\[3\].*\[4\]"):
        a * b


def test_hot_paths_make_no_closure_cells():
    """A variable a nested lambda, generator or comprehension reads is a closure cell, made
    anew on every call: the functions every op and every backward node run have none."""
    from leafgrad._engine import engine, graph, saved
    from leafgrad.ops import arithmetic, reduction

    hot = [
        arithmetic.mul,  # every primitive's op shares this code
        engine.execute,
        graph.OpNode._record,
        graph.OpNode.apply_on_arrays,
        saved.SavedTensors._setup,
        saved.SavedTensors.release,
        saved.SavedTensors.unpack,
        reduction._mean_grad,
    ]
    assert {f.__qualname__: f.__code__.co_cellvars for f in hot} == {
        f.__qualname__: () for f in hot
    }
