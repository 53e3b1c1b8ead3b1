"""NumPy's keyword names where PyTorch takes them: ``axis=`` for ``dim``, ``keepdims=`` for
``keepdim``, ``x=``/``a=``/``x1=`` for ``input`` and ``x2=`` for ``other``, in every native
PyTorch function and method (its argument parser takes them), not in the few PyTorch writes
in Python (``torch.norm``, ``torch.split``, ``nn.functional.softmax`` ...)."""

import inspect

import numpy as np
import pytest

import leafgrad
from leafgrad import _exposure
from tests._tolerance import assert_close

CALLS = {
    "sum axis keepdims": lambda m, x: m.sum(x, axis=1, keepdims=True),
    "sum axis tuple": lambda m, x: m.sum(x, axis=(0, 1)),
    "sum axis list": lambda m, x: x.sum(axis=[0]),
    "sum axis None": lambda m, x: m.sum(x, axis=None),
    "sum positional dim keepdims": lambda m, x: x.sum(1, keepdims=True),
    "sum input alias a": lambda m, x: m.sum(a=x),
    "sum input alias x": lambda m, x: m.sum(x=x, axis=0),
    "mean": lambda m, x: m.mean(x, axis=1, keepdims=True),
    "mean method": lambda m, x: x.mean(axis=0),
    "prod": lambda m, x: x.prod(axis=1, keepdims=True),
    "std": lambda m, x: m.std(x, axis=1, keepdims=True),
    "var correction": lambda m, x: m.var(x, 1, correction=0, keepdims=True),
    "std_mean": lambda m, x: m.std_mean(x, axis=1, keepdims=True)[0],
    "max values": lambda m, x: m.max(x, axis=1, keepdims=True).values,
    "min indices": lambda m, x: x.min(axis=0).indices,
    "amax": lambda m, x: m.amax(x, axis=1),
    "amin method": lambda m, x: x.amin(axis=0, keepdims=True),
    "argmax": lambda m, x: x.argmax(axis=1, keepdims=True),
    "argmin": lambda m, x: m.argmin(x, axis=0),
    "logsumexp": lambda m, x: m.logsumexp(x, axis=1, keepdims=True),
    "softmax": lambda m, x: m.softmax(x, axis=1),
    "log_softmax method": lambda m, x: x.log_softmax(axis=0),
    "cumsum": lambda m, x: m.cumsum(x, axis=1),
    "any": lambda m, x: m.any(x > 1, axis=1, keepdims=True),
    "all method": lambda m, x: (x > 1).all(axis=0),
    "count_nonzero": lambda m, x: m.count_nonzero(x, axis=1),
    "cat": lambda m, x: m.cat([x, x], axis=1),
    "concat": lambda m, x: m.concat([x, x], axis=0),
    "stack": lambda m, x: m.stack([x, x], axis=2),
    "squeeze": lambda m, x: m.squeeze(x[:1], axis=0),
    "unsqueeze method": lambda m, x: x.unsqueeze(axis=1),
    "sort": lambda m, x: m.sort(x, axis=0, descending=True).values,
    "argsort": lambda m, x: x.argsort(axis=1),
    "topk": lambda m, x: m.topk(x, 1, axis=1).values,
    "chunk": lambda m, x: m.chunk(x, 3, axis=1)[1],
    "unbind": lambda m, x: x.unbind(axis=1)[2],
    "gather": lambda m, x: m.gather(x, axis=1, index=m.tensor([[1], [0]])),
    "index_select": lambda m, x: x.index_select(axis=1, index=m.tensor([2, 0])),
    "select": lambda m, x: m.select(x, axis=1, index=1),
    "narrow": lambda m, x: x.narrow(axis=1, start=1, length=2),
    "take_along_dim": lambda m, x: m.take_along_dim(x, m.tensor([[1], [0]]), axis=1),
    "repeat_interleave": lambda m, x: x.repeat_interleave(2, axis=0),
    "cross": lambda m, x: m.cross(x, x.flip(0), axis=1),
    "size": lambda m, x: m.tensor(x.size(axis=1)),
    "swapaxes": lambda m, x: m.swapaxes(x, axis0=0, axis1=1),
    "add x1 x2": lambda m, x: m.add(x1=x, x2=x),
    "linalg.norm": lambda m, x: m.linalg.norm(x, axis=1, keepdims=True),
    "linalg.vector_norm": lambda m, x: m.linalg.vector_norm(x, axis=0),
    "linalg.matrix_norm": lambda m, x: m.linalg.matrix_norm(x, axis=(0, 1)),
    "cosine_similarity": lambda m, x: m.nn.functional.cosine_similarity(x, x + 1, axis=1),
    "pairwise_distance": lambda m, x: m.nn.functional.pairwise_distance(x, -x, keepdims=True),
    # Refused by PyTorch: Python-level functions, and a name given twice.
    "torch.norm": lambda m, x: m.norm(x, axis=1),
    "Tensor.norm": lambda m, x: x.norm(2, axis=1),
    "split": lambda m, x: m.split(x, 1, axis=1),
    "F.softmax": lambda m, x: m.nn.functional.softmax(x, axis=1),
    "F.normalize": lambda m, x: m.nn.functional.normalize(x, axis=1),
    "dim and axis": lambda m, x: m.sum(x, dim=1, axis=1),
    "keepdim and keepdims": lambda m, x: m.mean(x, 1, keepdim=True, keepdims=True),
    "positional dim and axis": lambda m, x: m.cumsum(x, 1, axis=1),
}


def _outcome(m, call):
    x = m.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=m.float64)
    try:
        return call(m, x)
    except TypeError:
        return TypeError


@pytest.mark.parametrize("name", CALLS)
def test_numpy_keyword_names_are_taken_where_pytorch_takes_them(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _outcome(leafgrad, CALLS[name]), _outcome(torch, CALLS[name])
    if theirs is TypeError:
        assert ours is TypeError
        return
    assert ours is not TypeError
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    assert_close(ours, theirs.numpy())


def test_a_numpy_name_and_its_torch_name_together_raise_type_error_naming_both():
    with pytest.raises(TypeError, match=r"'dim'.*'axis'"):
        leafgrad.sum(leafgrad.ones(2), dim=0, axis=0)


def test_the_gradient_flows_through_numpy_keyword_names():
    x = leafgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x * x).sum(axis=1, keepdims=True).mean(axis=0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), x.detach().numpy())


def _takes_numpy_names(fn) -> bool:
    return hasattr(fn, "_numpy_names")


def _native(fn) -> bool:
    return type(fn).__name__ in ("builtin_function_or_method", "method_descriptor")


# PyTorch's Tensor.unflatten is Python but torch.unflatten native; ours is one function.
_LENIENT = {"unflatten"}


def test_numpy_names_are_taken_exactly_by_the_callables_pytorch_has_natively():
    torch = pytest.importorskip("torch")
    spaces = [
        (leafgrad, torch),
        (leafgrad.Tensor, torch.Tensor),
        (leafgrad.linalg, torch.linalg),
        (leafgrad.special, torch.special),
        (leafgrad.nn.functional, torch.nn.functional),
    ]
    wrong = []
    for ours, theirs in spaces:
        for name in dir(ours):
            fn = getattr(ours, name)
            if name.startswith("_") or not callable(fn) or isinstance(fn, type):
                continue
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if not params.keys() & {"dim", "keepdim"} or not hasattr(theirs, name):
                continue
            if _takes_numpy_names(fn) != _native(getattr(theirs, name)) and name not in _LENIENT:
                wrong.append(f"{theirs.__name__}.{name}")
    assert wrong == []


def test_the_numpy_name_table_is_pytorchs():
    # torch/csrc/utils/python_arg_parser.cpp: numpy_compatibility_arg_names
    assert _exposure.NUMPY_NAMES == {
        "axis": "dim",
        "keepdims": "keepdim",
        "x": "input",
        "a": "input",
        "x1": "input",
        "x2": "other",
    }
