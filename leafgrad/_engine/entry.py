"""``backward`` and ``grad``: argument checking around the one traversal in ``engine``."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._batched import (
    BatchedTensor,
    batch_map,
    levels_of,
    lift,
    lower,
    physical,
    union_levels,
)
from .._exposure import public
from .._tensor import Tensor, _wrap
from .._warn import warn_at_user
from .engine import execute
from .graph import GradientEdge, gradient_edge

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)

UNUSED_INPUT_MESSAGE = (
    "The differentiated Tensor at index {i} appears to not have been used in the graph. Set "
    "allow_unused=True if this is the desired behavior (None, or materialize_grads=True for "
    "zeros). Input {i} has shape {shape}; a common cause: it was derived from another tensor "
    "(for example sliced, x[:, 0]) after that tensor was used, so it is a new tensor outside "
    "the graph; slice first and build the outputs from the slices."
)


def _as_tuple(x, what: str) -> tuple:
    """A Tensor (or GradientEdge) becomes a 1-tuple; any other iterable a tuple."""
    if isinstance(x, (Tensor, GradientEdge)):
        return (x,)
    if x is None:
        return ()
    try:
        return tuple(x)
    except TypeError:
        raise TypeError(
            f"{what} must be a Tensor or an iterable of Tensors, got {type(x).__name__}"
        ) from None


def _inputs_tuple(inputs, caller: str) -> tuple:
    """``inputs`` as a tuple: a Tensor, an iterable of Tensors, or a dict (its values)."""
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(
            f"{caller}: inputs must be a Tensor, a sequence of Tensors or a dict, not a "
            f"{type(inputs).__name__}; convert it with dict(...)"
        )
    return _as_tuple(inputs, f"{caller}: inputs")


def _make_grads(outputs: tuple, grad_outputs: tuple, caller: str) -> list:
    """Seed gradients: ones for single-element outputs, else the user's (checked)."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(out, GradientEdge):
            if g is None:
                raise RuntimeError(
                    f"{caller}: output {i} is a GradientEdge, whose shape is unknown, so its "
                    "gradient cannot be implicitly created (as for scalar outputs); pass one"
                )
            grads.append(g)
            continue
        if not isinstance(out, Tensor):
            raise TypeError(f"{caller}: outputs[{i}] must be a Tensor, got {type(out).__name__}")
        if g is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError(
                    f"{caller}: grad can be implicitly created only for scalar outputs; "
                    f"output {i} has shape {list(out._data.shape)}. Pass a gradient of that "
                    "shape (grad_outputs= / gradient=), or reduce the output first, e.g. .sum()"
                )
            grads.append(_ones_like(out._data) if out._requires_grad else None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(
                f"{caller}: gradients must be Tensors or None, but gradient {i} is a "
                f"{type(g).__name__}; wrap it, e.g. torch.tensor(...)"
            )
        if g._data.shape != out._data.shape:
            # PyTorch's exact sentence: its own tests compare the whole message.
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                f"has a shape of {out.shape}."
            )
        # Like PyTorch, a gradient of another dtype (even an integer one) is converted.
        if g._data.dtype != out._data.dtype:
            g = g.to(out.dtype)
        grads.append(g)
    return grads


def _ones_like(data: np.ndarray) -> Tensor:
    """The implicit seed of a one-element output (``np.ones_like`` costs a few Python calls)."""
    seed = np.empty(data.shape, data.dtype)
    seed.fill(1)
    return _wrap(seed)


def _roots(outputs: tuple, grads: list, caller: str) -> tuple[list, list]:
    roots, seeds = [], []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        edge = (out.node, out.output_nr) if isinstance(out, GradientEdge) else gradient_edge(out)
        if edge[0] is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn "
                f"({caller}: nothing to differentiate. Was it computed under no_grad(), from "
                "detached tensors, or from inputs without requires_grad=True?)"
            )
        roots.append(edge)
        seeds.append(g)
    return roots, seeds


def _graph_flags(retain_graph, create_graph) -> tuple:
    """``(retain_graph, create_graph)`` for the engine: ``create_graph`` any truthy value, as
    PyTorch's bool parameter takes, and ``retain_graph`` defaulting to it."""
    create_graph = bool(create_graph)
    return (create_graph if retain_graph is None else retain_graph), create_graph


def _check_counts(outputs: tuple, grads: tuple, caller: str) -> None:
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"{caller}: got {len(outputs)} outputs but {len(grads)} gradients; "
            "pass exactly one gradient (or None) per output"
        )


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables=None,
    inputs=None,
) -> None:
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad`` (torch.autograd.backward).

    ``inputs`` restricts accumulation to those tensors (leaves or not; a non-leaf is made to
    retain its grad). ``retain_graph`` defaults to ``create_graph``.
    """
    if grad_variables is not None:
        warn_at_user(
            "backward: grad_variables is deprecated; pass grad_tensors instead", FutureWarning
        )
        if grad_tensors is not None:
            raise RuntimeError(
                "backward: both grad_tensors and the deprecated grad_variables were given; "
                "pass only grad_tensors"
            )
        grad_tensors = grad_variables
    if inputs is not None:
        inputs = _inputs_tuple(inputs, "backward")
        if len(inputs) == 0:
            raise RuntimeError(
                "backward: inputs= was given but is empty; pass the tensors to accumulate "
                "into, or leave inputs=None for all leaves"
            )
    outputs = _as_tuple(tensors, "backward: tensors")
    if grad_tensors is None:
        grad_outputs = (None,) * len(outputs)
    else:
        grad_outputs = _as_tuple(grad_tensors, "backward: grad_tensors")
    grads = _make_grads(outputs, grad_outputs, "backward")
    _check_counts(outputs, grad_outputs, "backward")
    retain_graph, create_graph = _graph_flags(retain_graph, create_graph)
    roots, seeds = _roots(outputs, grads, "backward")
    edges = None
    if inputs is not None:
        edges = []
        for i, t in enumerate(inputs):
            if isinstance(t, GradientEdge):
                edges.append((t.node, t.output_nr))
                continue
            if not isinstance(t, Tensor):
                raise TypeError(f"backward: inputs[{i}] must be a Tensor, got {type(t).__name__}")
            if not t._requires_grad:
                raise RuntimeError(
                    f"backward: inputs[{i}] does not require grad, so nothing can be "
                    "accumulated into it; create it with requires_grad=True"
                )
            # A non-leaf input gets its .grad through the retain_grad hook, as in PyTorch.
            t.retain_grad()
            edges.append(gradient_edge(t))
    if create_graph:
        warn_at_user(CREATE_GRAPH_WARNING)
    execute(roots, seeds, keep_graph=retain_graph, create_graph=create_graph, inputs=edges)


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
):
    """d(outputs)/d(inputs) as a tuple (a dict for dict ``inputs``); never touches ``.grad``.

    ``grad_outputs`` is required for outputs of more than one element. An input the outputs
    do not depend on raises, unless ``allow_unused`` (None for it) or ``materialize_grads``
    (zeros). ``retain_graph`` defaults to ``create_graph`` (torch.autograd.grad).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "autograd.grad: materialize_grads=True needs allow_unused=True (or None); "
            "it was given allow_unused=False"
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs, "autograd.grad: outputs")
    input_tuple = _inputs_tuple(inputs, "autograd.grad")
    if not input_tuple:
        raise RuntimeError(
            "`inputs` argument to `grad()` cannot be empty. (Pass the tensors to differentiate "
            "with respect to.)"
        )
    if not only_inputs:
        warn_at_user(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
        )
    if is_grads_batched:
        return _grads_batched(
            outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
            materialize_grads,
        )  # fmt: skip
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs, "autograd.grad: grad_outputs")
    grads = _make_grads(outputs, grad_outputs, "autograd.grad")
    _check_counts(outputs, grad_outputs, "autograd.grad")
    retain_graph, create_graph = _graph_flags(retain_graph, create_graph)
    if any(type(o) is BatchedTensor for o in outputs) or any(
        type(t) is BatchedTensor for t in input_tuple
    ):
        return _batched_grad(
            outputs, grads, inputs, input_tuple, retain_graph, create_graph, allow_unused,
            materialize_grads,
        )  # fmt: skip
    roots, seeds = _roots(outputs, grads, "autograd.grad")
    edges = []
    for i, t in enumerate(input_tuple):
        if isinstance(t, GradientEdge):
            if materialize_grads:
                raise RuntimeError(
                    f"autograd.grad: input {i} is a GradientEdge, whose shape is unknown, so "
                    "materialize_grads=True cannot make zeros for it"
                )
            edges.append((t.node, t.output_nr))
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"autograd.grad: inputs[{i}] must be a Tensor, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(
                f"One of the differentiated Tensors does not require grad (autograd.grad: "
                f"inputs[{i}]; create it with requires_grad=True or call .requires_grad_())"
            )
        edges.append(gradient_edge(t))
    captured = execute(
        roots, seeds, keep_graph=retain_graph, create_graph=create_graph, capture=edges
    )
    result = []
    for i, (t, g) in enumerate(zip(input_tuple, captured)):
        if g is None:
            if not allow_unused:
                shape = "unknown" if isinstance(t, GradientEdge) else list(t._data.shape)
                raise RuntimeError(UNUSED_INPUT_MESSAGE.format(i=i, shape=shape))
            if materialize_grads:
                g = _wrap(np.zeros_like(t._data), create_graph)
        result.append(g)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return tuple(result)


@public(function=False, method=("backward",))
def tensor_backward(
    self, gradient=None, retain_graph=None, create_graph=False, inputs=None
) -> None:
    """Accumulate the gradient of this tensor into the leaves (Tensor.backward)."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


# A Python method of PyTorch's Tensor: ``x.backward`` shows ``<bound method Tensor.backward ...>``.
tensor_backward.__name__, tensor_backward.__qualname__ = "backward", "Tensor.backward"


def _batched_grad(outputs, grads, inputs, input_tuple, retain_graph, create_graph, allow_unused,
                  materialize_grads):  # fmt: skip
    """autograd.grad under vmap: the graph was recorded on the batched tensors' values, so
    differentiate the values, each output seeded with its gradient batched like it, and batch
    the input gradients again. Each input must be batched at every level its outputs are
    (what is differentiated is then one example's function of one example's input). A
    gradient batched at levels its output is not (jacrev's rows of an identity) stays batched
    there: the backward rules run under those levels, one pass for all of them."""
    out_levels = union_levels(*outputs)
    values, seeds = [], []
    for o, g in zip(outputs, grads):
        values.append(physical(o))
        seeds.append(None if g is None else lower(g, levels_of(o)))
    for i, t in enumerate(input_tuple):
        missing = set(out_levels) - set(levels_of(t))
        if missing and t._requires_grad:
            raise RuntimeError(
                f"autograd.grad: under vmap, input {i} is not batched at a vmap level the "
                "outputs are batched at, so its per-example gradient is not defined; make the "
                "input inside the vmapped function, or use leafgrad.func.grad / vjp"
            )
    result = grad(
        tuple(values),
        tuple(physical(t) for t in input_tuple),
        tuple(seeds),
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=allow_unused,
        materialize_grads=materialize_grads,
    )
    result = [None if g is None else lift(g, levels_of(t)) for g, t in zip(result, input_tuple)]
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return tuple(result)


def _grads_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                   materialize_grads):  # fmt: skip
    """autograd.grad with is_grads_batched=True: dim 0 of every grad_output is a batch of
    gradients, all sent back in one batched pass (as vmap over autograd.grad)."""
    if grad_outputs is None:
        raise RuntimeError("autograd.grad: is_grads_batched=True needs grad_outputs")
    grad_outputs = _as_tuple(grad_outputs, "autograd.grad: grad_outputs")
    batched = [i for i, g in enumerate(grad_outputs) if g is not None]
    sizes = {grad_outputs[i].shape[0] if grad_outputs[i].dim() else None for i in batched}
    if not batched or None in sizes or len(sizes) != 1:
        raise RuntimeError(
            "autograd.grad: with is_grads_batched=True every grad_output needs the same size "
            f"in its first (batch) dim; got shapes {[list(grad_outputs[i].shape) for i in batched]}"
        )
    input_tuple = _inputs_tuple(inputs, "autograd.grad")

    def one(*rows):
        gos = list(grad_outputs)
        for i, r in zip(batched, rows):
            gos[i] = r
        return grad(
            outputs, input_tuple, tuple(gos), retain_graph=retain_graph,
            create_graph=create_graph, allow_unused=allow_unused,
            materialize_grads=materialize_grads,
        )  # fmt: skip

    result = batch_map(one, tuple(grad_outputs[i] for i in batched), sizes.pop())
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return result
