"""The plumbing of ``autograd.functional``: tuples in and out, fresh inputs, strict-mode
checks, and ``autograd.grad`` that tolerates outputs and inputs outside the graph."""

from __future__ import annotations

from .._batched import STATE as _VMAP
from .._batched import requires_grad_leaf, with_levels
from .._engine.entry import grad as _grad
from .._tensor import Tensor, _zeros_like

# ----- tuples in, tuples out -----


def _as_tuple(inp, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """``(was_tuple, inp as a tuple of Tensors)``; TypeError for anything but Tensors."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"entry {i} of the {arg_name}" if is_tuple else f"the {arg_name}"
            raise TypeError(
                f"{fn_name}: the {arg_name} must be a Tensor or a tuple of Tensors, but "
                f"{where} is a {type(el).__name__}"
            )
    return is_tuple, items


def _tuple_postprocess(res, to_unpack):
    """Undo ``_as_tuple``: unwrap the levels of nesting whose flag says "was not a tuple".

    ``to_unpack`` is one flag, or ``(outer, inner)`` for the two levels of a Jacobian.
    """
    if isinstance(to_unpack, tuple):
        outer, inner = to_unpack
        if not inner:
            res = tuple(el[0] for el in res)
        if not outer:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """New Tensor objects for the inputs, so ``func`` sees arguments distinct from any tensor
    it captures. With ``create_graph`` an input that requires grad stays connected (a view);
    otherwise it is a detached copy that requires grad when ``need_graph``."""
    res = []
    for inp in inputs:
        if _VMAP.active:  # batched at every level, for per-example gradients (as func.grad)
            inp = with_levels(inp, tuple(lv.level for lv in reversed(_VMAP.active)))
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        elif need_graph:
            res.append(requires_grad_leaf(inp.detach()))
        else:
            res.append(inp.detach())
    return tuple(res)


def _grad_postprocess(results: tuple, create_graph: bool) -> tuple:
    """Detach the results (a tuple, or a tuple of tuples) unless a graph was asked for."""
    if not results:
        return results
    if isinstance(results[0], Tensor):
        return results if create_graph else tuple(r.detach() for r in results)
    return tuple(_grad_postprocess(r, create_graph) for r in results)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    """RuntimeError unless ``v`` has one Tensor of the right shape per entry of ``other``."""
    if len(v) != len(other):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of {len(v)} Tensors but it must have one per entry, {len(other)}"
            )
        raise RuntimeError(f"v must be a single Tensor here, got a tuple of {len(v)}")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            where = f"entry {i} of v" if is_other_tuple else "v"
            raise RuntimeError(
                f"{where} has shape {list(el_v.shape)} but must have shape {list(el_other.shape)}"
            )


_STRICT_MESSAGES = {
    "outputs": (
        "output {i} of the user-provided function does not require grad; in strict mode "
        "every output must be computed differentiably from the inputs"
    ),
    "grad_inputs": (
        "the gradient with respect to input {i} does not depend on the inputs of the "
        "user-provided function, which strict mode does not allow"
    ),
    "jacobian": (
        "while computing the Hessian, the Jacobian with respect to input {i} turned out "
        "independent of the inputs (a linear function?), which strict mode does not allow; "
        "the function must be twice differentiable with a Jacobian that depends on the inputs"
    ),
    "hessian": (
        "the Hessian with respect to input {i} is independent of the inputs, which strict "
        "mode does not allow; the function must be thrice differentiable"
    ),
}


def _check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """In strict mode, RuntimeError for an entry that is None or does not require grad."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"the output of the user-provided function is independent of input {i}, "
                "which strict mode does not allow"
            )
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _autograd_grad(
    outputs: tuple, inputs: tuple, grad_outputs=None, create_graph=False, retain_graph=None
):
    """``autograd.grad`` that skips outputs not requiring grad (None for unreached inputs)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept_outputs, kept_grads = [], []
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            kept_outputs.append(out)
            kept_grads.append(g)
    if not kept_outputs:
        return (None,) * len(inputs)
    return _grad(
        tuple(kept_outputs),
        inputs,
        tuple(kept_grads),
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_FILL_MESSAGES = {
    "back": "the output of the user-provided function is independent of input {i}",
    "back_trick": (
        "the gradient with respect to the inputs is independent of entry {i} of the "
        "grad_outputs used by the double-backward trick for forward-mode products"
    ),
    "double_back": "the Jacobian of the user-provided function is independent of input {i}",
    "double_back_trick": (
        "the Hessian of the user-provided function is independent of entry {i} of the "
        "grad_jacobian used by the double-backward trick"
    ),
}


def _fill_in_zeros(
    grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str
) -> tuple:
    """Zeros shaped like ``refs[i]`` where ``grads[i]`` is None; strict mode raises instead."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(
                    _FILL_MESSAGES[stage].format(i=i) + ", which strict mode does not allow"
                )
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "Hessian" if "double" in stage else "Jacobian"
            raise RuntimeError(
                f"the {what} of the user-provided function is independent of input {i}, which "
                "strict mode with create_graph=True does not allow"
            )
        res.append(g)
    return tuple(res)
