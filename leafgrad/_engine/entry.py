"""``backward`` and ``grad``: argument checking around the one traversal in ``engine``."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from .._tensor import Tensor, _wrap
from .engine import accumulate_grad, execute
from .graph import gradient_edge

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)

UNUSED_INPUT_MESSAGE = (
    "autograd.grad: input {i} (shape {shape}) was not used to compute the outputs, so it has "
    "no gradient. A common cause: the input was derived from another tensor (for example "
    "sliced, x[:, 0]) after that tensor was used, so the slice is a new tensor that is not "
    "part of the graph; slice first and build the outputs from the slices. Pass "
    "allow_unused=True to get None (or materialize_grads=True for zeros) instead."
)


def _as_tuple(x, what: str) -> tuple:
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, Sequence) and not isinstance(x, str):
        return tuple(x)
    if x is None:
        return ()
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, got {type(x).__name__}")


def _make_grads(outputs: tuple, grad_outputs: tuple, caller: str) -> list:
    """Seed gradients: ones for single-element outputs, else the user's (checked)."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise TypeError(f"{caller}: outputs[{i}] must be a Tensor, got {type(out).__name__}")
        if g is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError(
                    f"{caller}: grad can be implicitly created only for scalar outputs; "
                    f"output {i} has shape {list(out._data.shape)}. Pass a gradient of that "
                    "shape (grad_outputs= / gradient=), or reduce the output first, e.g. .sum()"
                )
            grads.append(_wrap(np.ones_like(out._data)) if out._requires_grad else None)
            continue
        if not isinstance(g, Tensor):
            if isinstance(g, (int, float)):
                g = _wrap(np.full_like(out._data, g))
            else:
                raise TypeError(
                    f"{caller}: grad_outputs[{i}] must be a Tensor or None, got {type(g).__name__}"
                )
        if g._data.shape != out._data.shape:
            raise RuntimeError(
                f"{caller}: grad_outputs[{i}] has shape {list(g._data.shape)} but output {i} "
                f"has shape {list(out._data.shape)}; they must match"
            )
        if g._data.dtype.kind != "f" and out._data.dtype.kind == "f":
            raise RuntimeError(
                f"{caller}: grad_outputs[{i}] has dtype {g.dtype} but output {i} is {out.dtype}; "
                "pass a floating-point gradient"
            )
        if g._data.dtype != out._data.dtype:
            g = g.to(out.dtype)
        grads.append(g)
    return grads


def _roots(outputs: tuple, grads: list, caller: str) -> tuple[list, list]:
    roots, seeds = [], []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        edge = gradient_edge(out)
        if edge[0] is None:
            raise RuntimeError(
                f"{caller}: element {i} of the outputs does not require grad and has no "
                "grad_fn, so there is nothing to differentiate. Did you compute it under "
                "no_grad(), from detached tensors, or from inputs without requires_grad=True?"
            )
        roots.append(edge)
        seeds.append(g)
    return roots, seeds


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables=None,
    inputs=None,
) -> None:
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad`` (torch.autograd.backward)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors, "backward: tensors")
    grad_outputs = _as_tuple(grad_tensors, "backward: grad_tensors") or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"backward: got {len(outputs)} tensors but {len(grad_outputs)} gradients; "
            "pass one gradient per tensor"
        )
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs, "backward: inputs") if inputs is not None else None
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("backward: inputs= was given but is empty; pass the tensors to accumulate into")
    grads = _make_grads(outputs, grad_outputs, "backward")
    roots, seeds = _roots(outputs, grads, "backward")
    if create_graph:
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    if inputs is None:
        execute(roots, seeds, keep_graph=retain_graph, create_graph=create_graph)
        return
    edges = []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"backward: inputs[{i}] must be a Tensor, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(f"backward: inputs[{i}] does not require grad; there is nothing to accumulate")
        edges.append(gradient_edge(t))
    captured = execute(roots, seeds, keep_graph=retain_graph, create_graph=create_graph, capture=edges)
    for t, g in zip(inputs, captured):
        if g is not None:
            accumulate_grad(t, g, create_graph)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """d(outputs)/d(inputs) as a tuple; never touches ``.grad`` (torch.autograd.grad)."""
    if is_grads_batched:
        raise NotImplementedError("autograd.grad: is_grads_batched=True needs vmap, which leafgrad lacks")
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "autograd.grad: materialize_grads=True needs allow_unused=True (or None); "
            "it was given allow_unused=False"
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs, "grad: outputs")
    inputs = _as_tuple(inputs, "grad: inputs")
    if not inputs:
        raise RuntimeError("autograd.grad: inputs is empty; pass the tensors to differentiate with respect to")
    grad_outputs = _as_tuple(grad_outputs, "grad: grad_outputs") if grad_outputs is not None else (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"autograd.grad: got {len(outputs)} outputs but {len(grad_outputs)} grad_outputs; "
            "pass one per output"
        )
    if retain_graph is None:
        retain_graph = create_graph
    edges = []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"autograd.grad: inputs[{i}] must be a Tensor, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(
                f"autograd.grad: inputs[{i}] does not require grad, so no gradient can flow to "
                "it. Create it with requires_grad=True (or call .requires_grad_())."
            )
        edges.append(gradient_edge(t))
    grads = _make_grads(outputs, grad_outputs, "autograd.grad")
    roots, seeds = _roots(outputs, grads, "autograd.grad")
    captured = execute(roots, seeds, keep_graph=retain_graph, create_graph=create_graph, capture=edges)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(UNUSED_INPUT_MESSAGE.format(i=i, shape=list(t._data.shape)))
            if materialize_grads:
                g = _wrap(np.zeros_like(t._data))
        elif not create_graph and g.grad_fn is not None:
            g = g.detach()
        result.append(g)
    return tuple(result)


def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
    """Accumulate the gradient of this tensor into the leaves (Tensor.backward)."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = tensor_backward
