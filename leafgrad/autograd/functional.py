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

from .._batched import requires_grad_leaf
from .._engine.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .._tensor import Tensor, _wrap, _zeros_like
from ._functional_tuples import (
    _as_tuple,
    _autograd_grad,
    _check_requires_grad,
    _fill_in_zeros,
    _grad_postprocess,
    _grad_preprocess,
    _tuple_postprocess,
    _validate_v,
)
from ._functional_vectorized import (
    _jacfwd,
    _one_hot,
    _share_rows,
    _stack_rows,
    _vectorized_rows,
)

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


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
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element. Pass v with the shape of the outputs."
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
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element. Pass v with the shape of the inputs."
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
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Set `strict=False` or `vectorize=False`."
            )

        _check_rows(outputs, inputs, vectorize)
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
                                f"Output {i} of the user-provided function is independent of "
                                f"input {j}. This is not allowed in strict mode; pass "
                                "strict=False for zeros instead."
                            )
                        g = _zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            f"The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True; pass strict=False instead."
                        )
                    rows[j].append(g)
            jac.append(tuple(_stack_rows(rows[j], out_shape, inp) for j, inp in enumerate(inputs)))
        if vectorize:
            out_shapes = [tuple(out.shape) for out in outputs]
            by_input = [
                _share_rows([row[j] for row in jac], out_shapes, tuple(inp.shape))
                for j, inp in enumerate(inputs)
            ]
            jac = [tuple(blocks[i] for blocks in by_input) for i in range(len(outputs))]
        jac = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _check_rows(outputs: tuple, inputs: tuple, vectorize: bool) -> None:
    """PyTorch's errors for a reverse-mode Jacobian with no rows: looped, an empty output
    (no rows to stack) is a RuntimeError; vectorized, no outputs an AssertionError and no
    output elements at all an IndexError (a batched grad over no rows), if there is a grad."""
    if vectorize:
        if not outputs:
            raise AssertionError("jacobian(vectorize=True): expected at least one output")
        if all(out.numel() == 0 for out in outputs) and any(o.requires_grad for o in outputs):
            raise IndexError(
                "jacobian(vectorize=True): the outputs have no elements, so the Jacobian has "
                "no rows to batch over"
            )
    elif inputs and any(out.numel() == 0 for out in outputs):
        raise RuntimeError(
            "jacobian: stack expects a non-empty TensorList (an output has no elements, so "
            "its Jacobian has no rows to stack)"
        )


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
            raise RuntimeError(
                "The function given to hessian should return a single Tensor, not a tuple"
            )
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                f"element; it has shape {list(out.shape)}. Reduce it (e.g. .sum()) or use "
                "jacobian."
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
        raise RuntimeError(
            f"The function given to {name} should return a single Tensor, not a tuple"
        )
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single "
            f"element; it has shape {list(outputs[0].shape)}. Reduce it (e.g. .sum())."
        )
    return is_outputs_tuple, outputs


def _prepare_v(v, inputs, is_inputs_tuple, create_graph, name):
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element. Pass v with the shape of the inputs."
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
