"""Whole-function derivatives, as ``torch.autograd.functional``: jacobian, hessian, vjp, jvp,
hvp, vhp.

Each runs the user's ``func`` once on fresh copies of the inputs and differentiates it with
``autograd.grad``. Nesting follows PyTorch exactly: a Tensor ``inputs`` gives Tensor results,
a tuple gives tuples, and a Jacobian of tuple outputs by tuple inputs is a tuple of tuples
(``J[i][j]`` is output ``i`` by input ``j``, of shape ``out_i.shape + in_j.shape``). Only
tuples count as tuples here (a list is an error), as in PyTorch.

``create_graph=False`` returns detached results; ``create_graph=True`` keeps them in the
graph of the inputs (that require grad) so they can be differentiated again. ``strict=True``
raises RuntimeError where a result would be independent of an input (zeros otherwise).

``vectorize=True`` computes all rows of a Jacobian in one batched ``autograd.grad`` (reverse
mode: the seeds are the rows of an identity matrix, batched as by vmap) or all columns in one
batched forward-mode JVP (``strategy="forward-mode"``, which, as in PyTorch, requires
``vectorize=True``); without it, one call per output element.
"""

from __future__ import annotations

import numpy as np

from .._batched import STATE as _VMAP
from .._batched import batch_map, requires_grad_leaf, with_levels
from .._engine import forward as _forward
from .._engine.entry import grad as _grad
from .._engine.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .._tensor import Tensor, _wrap, _zeros_like
from ..ops.joining import stack
from . import forward_ad as fwAD

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


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


def _one_hot(shape: tuple, index: int, dtype) -> Tensor:
    data = np.zeros(shape, dtype=dtype)
    data.reshape(-1)[index] = 1
    return _wrap(data)


def _unpack(tensors: list, level: int) -> list:
    """``(primal, tangent)`` per tensor at a dual ``level`` that has just ended.

    The primal is the tensor itself, rid of that level's tangent: unlike ``unpack_dual`` this
    makes no view (no op to record, the graph stays as it is), and the tangent, no longer
    needed on the tensor, is not kept alive by it.
    """
    tangents = [_forward.tangent_of(t, level) if isinstance(t, Tensor) else None for t in tensors]
    for t in tensors:
        if isinstance(t, Tensor) and t._tangents and level in t._tangents:
            del t._tangents[level]
    return list(zip(tensors, tangents))


def _stack_rows(rows: list, out_shape: tuple, like: Tensor) -> Tensor:
    """The Jacobian ``out_shape + like.shape`` from its rows (one per output element)."""
    in_shape = tuple(like.shape)
    if not rows:
        return _wrap(np.zeros(out_shape + in_shape, dtype=like._data.dtype))
    return stack(rows, 0).reshape(out_shape + in_shape)


def _stack_columns(cols: list, out_shape: tuple, in_shape: tuple, like: Tensor) -> Tensor:
    """The Jacobian ``out_shape + in_shape`` from its columns (one per input element)."""
    if not cols:
        return _wrap(np.zeros(out_shape + in_shape, dtype=like._data.dtype))
    return stack(cols, -1).reshape(out_shape + in_shape)


# ----- public API -----


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    ``v`` has the outputs' structure and shapes; it may be None only for a function with a
    single one-element output. The product has the structure and shapes of ``inputs``.
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(
                "vjp: v may be None only when the function returns a single Tensor with a "
                "single element; pass v with the shape of the outputs"
            )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (
        _tuple_postprocess(outputs, is_outputs_tuple),
        _tuple_postprocess(result, is_inputs_tuple),
    )


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs``.

    ``v`` has the structure and shapes of ``inputs`` (None only for a single one-element
    input); the product has the outputs'. Computed, as in PyTorch, by the double-backward
    trick: differentiate ``u -> u^T J`` with respect to ``u``.
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError(
                "jvp: v may be None only when the function takes a single Tensor with a "
                "single element; pass v with the shape of the inputs"
            )
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jvp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        # u^T J is linear in u, so u's value never reaches the result; zeros are safe.
        grad_outputs = tuple(_zeros_like(out).requires_grad_() for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (
        _tuple_postprocess(outputs, is_outputs_tuple),
        _tuple_postprocess(result, is_outputs_tuple),
    )


def _check_strategy(strategy: str) -> None:
    if strategy not in ("forward-mode", "reverse-mode"):
        # PyTorch raises AssertionError here; so do we.
        raise AssertionError(
            f'strategy must be "forward-mode" or "reverse-mode", got {strategy!r}; '
            '"forward-mode" is usually faster when the function has more outputs than inputs'
        )


def _jacfwd(func, inputs, strict: bool, vectorize: bool):
    """The Jacobian by forward-mode AD: per input, one JVP batched over its elements."""
    if strict:
        raise RuntimeError(
            'jacobian: strict=True is not supported with strategy="forward-mode"; set '
            'strict=False or use strategy="reverse-mode"'
        )
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            'jacobian: strategy="forward-mode" (and a forward-mode outer Jacobian in hessian) '
            "is only implemented with vectorize=True, as in PyTorch"
        )
    columns = None  # columns[i][j]: output i's tangents, (n_j, *out_i.shape), n_j = numel(in_j)
    outputs = is_outputs_tuple = None
    for j, inp in enumerate(inputs):
        n = inp.numel()
        if n == 0:
            continue
        seeds = _wrap(np.eye(n, dtype=inp._data.dtype).reshape((n,) + tuple(inp.shape)))

        def column(tangent, j=j):
            nonlocal is_outputs_tuple
            with fwAD.dual_level() as level:
                duals = tuple(
                    fwAD.make_dual(x, tangent, level=level) if i == j else x
                    for i, x in enumerate(inputs)
                )
                is_outputs_tuple, dual_outputs = _as_tuple(
                    func(*duals), "outputs of the user-provided function", "jacobian"
                )
            unpacked = _unpack(list(dual_outputs), level)
            return tuple(_zeros_like(p) if t is None else t for p, t in unpacked) + tuple(
                p for p, _ in unpacked
            )

        found = batch_map(column, (seeds,), n)
        half = len(found) // 2
        if columns is None:
            outputs = tuple(p[0] for p in found[half:])  # any example's primal: all agree
            columns = [[None for _ in inputs] for _ in outputs]
        for i, t in enumerate(found[:half]):
            columns[i][j] = t
    if columns is None:  # every input is empty: run func once for the output shapes
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        columns = [[None for _ in inputs] for _ in outputs]
    # Lists, not tuples, where nesting survives: PyTorch's forward-mode result has them.
    jac = [
        [
            _columns_to_jacobian(columns[i][j], tuple(out.shape), tuple(inp.shape), out)
            for j, inp in enumerate(inputs)
        ]
        for i, out in enumerate(outputs)
    ]
    return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _columns_to_jacobian(columns, out_shape: tuple, in_shape: tuple, like: Tensor) -> Tensor:
    """``(n, *out_shape)`` tangents, one per input element, as the Jacobian ``out + in``."""
    if columns is None:  # an empty input
        return _wrap(np.zeros(out_shape + in_shape, dtype=like._data.dtype))
    return columns.movedim(0, -1).reshape(out_shape + in_shape)


def _vectorized_rows(out: Tensor, inputs: tuple, create_graph: bool) -> list:
    """All rows of d out / d inputs at once: one autograd.grad batched over the rows of an
    identity (None where an input is unreached)."""
    n, shape = out.numel(), tuple(out.shape)
    if n == 0:
        return [None] * len(inputs)
    seeds = _wrap(np.eye(n, dtype=out._data.dtype).reshape((n,) + shape))
    grads = batch_map(
        lambda seed: _autograd_grad((out,), inputs, (seed,), create_graph, retain_graph=True),
        (seeds,),
        n,
    )
    return [None if g is None else g.reshape(shape + tuple(x.shape)) for g, x in zip(grads, inputs)]


def jacobian(
    func,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape ``out_i.shape + in_j.shape``.

    A Tensor in and out gives one Tensor; a tuple on either side adds that level of tuple.
    ``strategy="forward-mode"`` (needs ``vectorize=True``; not with ``create_graph`` or
    ``strict``) uses one forward-mode JVP per input element; the default uses one
    ``autograd.grad`` per output element, or with ``vectorize=True`` one batched over them.
    """
    _check_strategy(strategy)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'jacobian: create_graph=True is not supported with strategy="forward-mode"; '
                'set create_graph=False or use strategy="reverse-mode"'
            )
        return _jacfwd(func, inputs, strict, vectorize)

    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "jacobian: strict=True and vectorize=True are not supported together; set "
                "strict=False or vectorize=False"
            )

        jac = []
        for i, out in enumerate(outputs):
            if vectorize:
                blocks = _vectorized_rows(out, inputs, create_graph)
                jac.append(
                    tuple(
                        _wrap(np.zeros(tuple(out.shape) + tuple(x.shape), x._data.dtype))
                        if b is None
                        else b
                        for b, x in zip(blocks, inputs)
                    )
                )
                continue
            rows = [[] for _ in inputs]
            out_shape = tuple(out.shape)
            for k in range(out.numel()):
                seed = _one_hot(out_shape, k, out._data.dtype)
                grads = _autograd_grad(
                    (out,), inputs, (seed,), create_graph=create_graph, retain_graph=True
                )
                for j, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"output {i} of the user-provided function is independent of "
                                f"input {j}, which strict mode does not allow"
                            )
                        g = _zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            f"the Jacobian of the user-provided function is independent of "
                            f"input {i}, which strict mode with create_graph=True does not "
                            "allow"
                        )
                    rows[j].append(g)
            jac.append(tuple(_stack_rows(rows[j], out_shape, inp) for j, inp in enumerate(inputs)))
        jac = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(
    func,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The Hessian of a scalar ``func`` at ``inputs``: the Jacobian of its gradient.

    A Tensor input gives one Tensor of shape ``x.shape + x.shape``; a tuple gives a tuple of
    tuples, ``H[i][j]`` of shape ``in_i.shape + in_j.shape``. RuntimeError when ``func`` does
    not return a single one-element Tensor. ``outer_jacobian_strategy="forward-mode"`` (needs
    ``vectorize=True``) takes the outer Jacobian by forward mode, over reverse mode.
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'outer_jacobian_strategy must be "forward-mode" or "reverse-mode", got '
            f"{outer_jacobian_strategy!r}"
        )

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("hessian: the function must return a single Tensor, not a tuple")
        if out.numel() != 1:
            raise RuntimeError(
                f"hessian: the function must return a Tensor with a single element, got shape "
                f"{list(out.shape)}; reduce it (e.g. .sum()) or use jacobian"
            )
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            # The inner jacobian keeps an input connected only if it requires grad.
            inp = tuple(requires_grad_leaf(t) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_function_output(func, inputs, name: str, strict: bool):
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_outputs_tuple:
        raise RuntimeError(f"{name}: the function must return a single Tensor, not a tuple")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"{name}: the function must return a Tensor with a single element, got shape "
            f"{list(outputs[0].shape)}"
        )
    return is_outputs_tuple, outputs


def _prepare_v(v, inputs, is_inputs_tuple, create_graph, name):
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError(
            f"{name}: v may be None only when the function takes a single Tensor with a "
            "single element; pass v with the shape of the inputs"
        )
    return v


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)`` for a scalar ``func``; the product has the inputs' structure."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp")
        is_outputs_tuple, outputs = _scalar_function_output(func, inputs, "vhp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (
        _tuple_postprocess(outputs, is_outputs_tuple),
        _tuple_postprocess(result, is_inputs_tuple),
    )


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)`` for a scalar ``func``; the product has the inputs' structure.

    As in PyTorch, by the double-backward trick (slower than ``vhp``; equal to it for a
    twice continuously differentiable function, whose Hessian is symmetric).
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp")
        is_outputs_tuple, outputs = _scalar_function_output(func, inputs, "hvp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        grad_jac = tuple(_zeros_like(inp).requires_grad_() for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (
        _tuple_postprocess(outputs, is_outputs_tuple),
        _tuple_postprocess(result, is_inputs_tuple),
    )
