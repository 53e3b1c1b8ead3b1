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
            # PyTorch's sentence first (its tests match it), then what to pass instead.
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but {where} has type {type(el)}. Pass Tensors (wrap numbers with "
                "torch.tensor)."
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
    """Detach the results (a tuple, or a tuple of tuples) unless a graph was asked for.

    An empty tuple (no inputs, or no outputs) is an IndexError, as PyTorch's (which reads
    the first entry to tell the two nestings apart)."""
    if not results:
        raise IndexError(
            "autograd.functional: no inputs or no outputs (an empty tuple): there is nothing "
            "to differentiate"
        )
    if isinstance(results[0], Tensor):
        return results if create_graph else tuple(r.detach() for r in results)
    return tuple(_grad_postprocess(r, create_graph) for r in results)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    """RuntimeError unless ``v`` has one Tensor of the right shape per entry of ``other``."""
    if len(v) != len(other):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}. "
                "Pass one Tensor per entry."
            )
        raise RuntimeError(
            f"The given v should contain a single Tensor. It is a tuple of {len(v)}; pass "
            "one Tensor."
        )
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.shape} but got "
                f"{el_v.shape}. Give v the shape of what it multiplies."
            )


# PyTorch's sentences lead (its tests match them), followed by what to change.
_STRICT_MESSAGES = {
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The outputs "
        "must be computed in a differentiable manner from the input when running in strict "
        "mode."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of the "
        "user-provided function. This is not allowed in strict mode."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function "
        "with respect to input {i} is independent of the input. This is not allowed in strict "
        "mode: the function must be twice differentiable with a Jacobian that depends on the "
        "inputs (a linear function is not)."
    ),
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is independent "
        "of the input. This is not allowed in strict mode: the function must be thrice "
        "differentiable with a Hessian that depends on the inputs."
    ),
}


def _check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """In strict mode, RuntimeError for an entry that is None or does not require grad."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode; pass strict=False for zeros instead."
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
    "back": "The output of the user-provided function is independent of input {i}.",
    "back_trick": (
        "The gradient with respect to the input is independent of entry {i} in the "
        "grad_outputs when using the double backward trick to compute forward mode gradients."
    ),
    "double_back": "The jacobian of the user-provided function is independent of input {i}.",
    "double_back_trick": (
        "The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian, which prevents using the double backward trick to replace forward "
        "mode AD."
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
                    _FILL_MESSAGES[stage].format(i=i) + " This is not allowed in strict mode; "
                    "pass strict=False for zeros instead."
                )
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True; pass strict=False for "
                "a result that does not require grad."
            )
        res.append(g)
    return tuple(res)
