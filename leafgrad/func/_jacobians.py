"""``jacrev``, ``jacfwd`` and ``hessian``: Jacobians as vmaps over the rows or columns of an
identity, as in ``torch.func``.

``jacrev`` runs ``func`` once and differentiates each output leaf against every row of the
identity at once (one ``autograd.grad`` under a vmap over the rows; ``chunk_size`` rows at
a time), under an enclosing vmap too (the seeds are then batched at a level the outputs are
not, and the backward rules run batched over it); a one-element output needs a single
backward pass, so it skips the vmap.
``jacfwd`` pushes every column of the identity through one forward-mode pass under a vmap
with its ``randomness``, as PyTorch's does. That vmap batches the tangents only (its level
is ``tangent_only``, unless random ops draw per column): the primal is computed once, its
value carrying a tangent batched over the columns, and a reverse-mode transform inside does
not copy its arguments along the columns either, so ``hessian`` (forward over reverse) does
the primal work once. Measured (CPU time, one process): a 64 -> 64 two-layer tanh map,
jacrev 0.3 ms vs 6.5 ms row by row, jacfwd 0.3 ms vs 2.9 ms column by column.
"""

from __future__ import annotations

import functools

import numpy as np

from .._batched import STATE as _VMAP
from .._engine.grad_mode import enable_grad
from .._tensor import Tensor, _wrap
from ..autograd import forward_ad as fwAD
from ..autograd._functional_vectorized import (
    _columns_to_jacobian,
    _one_hot,
    _share_columns,
    _share_rows,
    _stack_rows,
    _unpack,
)
from ._pytree import tree_flatten, tree_map, tree_unflatten
from ._transforms import (
    _check_argnums,
    _check_leaf,
    _Level,
    _output_leaves,
    _per_argument,
    _split_aux,
    _wrap_args,
)
from ._vmap import vmap


def _jacobian_tree(jac: list, out_spec, specs: list, argnums):
    """``jac[o][l]`` (output leaf o by input leaf l) nested as output-of-argument structure."""
    return tree_unflatten([_per_argument(row, specs, argnums) for row in jac], out_spec)


def _identity(x: Tensor) -> Tensor:
    """The rows of the identity over ``x``'s elements, each shaped like ``x``."""
    n = x.numel()
    return _wrap(np.eye(n, dtype=x._data.dtype).reshape((n,) + tuple(x.shape)))


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size: int | None = None):
    """``func`` -> its Jacobian by reverse mode: all rows of each output at once (a vmap over
    the rows of an identity, ``chunk_size`` rows at a time).

    For each output leaf (of the output's structure), the Jacobian with respect to each
    selected argument (with its structure) has shape ``out.shape + in.shape``.
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"jacrev: chunk_size must be None or a positive int, got {chunk_size}")

    @functools.wraps(func)
    def wrapper(*args):
        caller = "jacrev(f, argnums)(*args)"
        level = _Level()
        positions = _check_argnums(argnums, len(args))
        with enable_grad():
            new_args, inputs, specs = _wrap_args(level, args, positions)
            output, aux = _split_aux(func(*new_args), has_aux, caller)
            out_leaves, out_spec = _output_leaves(output, caller)
            for o in out_leaves:  # PyTorch's jacrev is a vjp: its outputs' check
                if not o.is_floating_point():
                    raise RuntimeError(
                        f"{caller}: all outputs of f must be floating-point or complex "
                        f"Tensors, got Tensor with dtype {o.dtype}"
                    )
            create_graph = level.outer_grad and any(level.reaches_outside(o) for o in out_leaves)
            jac = []
            for out in out_leaves:
                shape = tuple(out.shape)
                if out.numel() == 1:  # one row: one backward pass, no vmap needed
                    seed = _one_hot(shape, 0, out._data.dtype)
                    found = level.gradients([out], [seed], inputs, create_graph)
                    blocks = [_stack_rows([g], shape, x) for g, x in zip(found, inputs)]
                elif out.numel() == 0:
                    blocks = [_stack_rows([], shape, x) for x in inputs]
                else:

                    def row(seed, out=out):
                        return tuple(level.gradients([out], [seed], inputs, create_graph))

                    found = vmap(row, chunk_size=chunk_size)(_identity(out))
                    blocks = [g.reshape(shape + tuple(x.shape)) for g, x in zip(found, inputs)]
                jac.append(blocks)
            # Each input's blocks are views of one tensor (PyTorch splits one per input), so
            # they all keep the graph if one does; the rest are detached.
            out_shapes = [tuple(out.shape) for out in out_leaves]
            for li, x in enumerate(inputs):
                blocks = [row[li] for row in jac]
                found = [level.unwrap(b) for b in blocks]
                kept = [u is b and b.requires_grad for u, b in zip(found, blocks)]
                if any(kept) and not all(kept):
                    shared = _share_rows(blocks, out_shapes, tuple(x.shape), kept)
                    found = [level.unwrap(b) for b in shared]
                for row, u in zip(jac, found):
                    row[li] = u
        result = _jacobian_tree(jac, out_spec, specs, argnums)
        if has_aux:
            return result, tree_map(level.unwrap, aux)
        return result

    return wrapper


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """``func`` -> its Jacobian by forward mode: every column of the identity in one JVP,
    vmapped with ``randomness`` ('error': random ops inside raise).

    Same layout as ``jacrev``.
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            f"jacfwd: randomness must be 'error', 'different' or 'same', got {randomness!r}"
        )

    @functools.wraps(func)
    def wrapper(*args):
        caller = "jacfwd(f, argnums)(*args)"
        positions = _check_argnums(argnums, len(args))
        flat, specs = [], []
        for p in positions:
            leaves, spec = tree_flatten(args[p])
            flat.extend(_check_leaf(x) for x in leaves)
            specs.append((spec, len(leaves)))
        for x in flat:
            if x._data.dtype.kind != "f":
                raise ValueError(
                    f"{caller}: the differentiated inputs must be floating point, got {x.dtype}"
                )

        def call(leaves):
            new_args, start = list(args), 0
            for p, (spec, n) in zip(positions, specs):
                new_args[p] = tree_unflatten(leaves[start : start + n], spec)
                start += n
            return _split_aux(func(*new_args), has_aux, caller)

        columns = None  # columns[o][l]: output o's tangents (n_l, *out.shape), or None
        outputs = aux = out_spec = None
        for li, x in enumerate(flat):
            if x.numel() == 0:
                continue
            specs_seen = []

            def push(tangent, li=li, x=x, specs_seen=specs_seen):
                # This vmap batches tangents only, unless random ops draw per column.
                _VMAP.active[-1].tangent_only = randomness != "different"
                with fwAD.dual_level() as level:
                    leaves = list(flat)
                    leaves[li] = fwAD.make_dual(x, tangent, level=level)
                    output, aux_k = call(leaves)
                    out_leaves, spec = _output_leaves(output, caller)
                unpacked = _unpack(out_leaves, level)
                aux_leaves, aux_spec = tree_flatten(aux_k) if has_aux else ([], None)
                specs_seen.append((spec, aux_spec))
                aux_leaves = [p for p, _ in _unpack(aux_leaves, level)]
                tangents = tuple(p * 0 if t is None else t for p, t in unpacked)
                return tangents, tuple(p for p, _ in unpacked), tuple(aux_leaves)

            tangents, primals, aux_leaves = vmap(push, randomness=randomness)(_identity(x))
            if columns is None:
                out_spec, aux_spec = specs_seen[0]
                outputs = [p[0] for p in primals]  # expanded along the columns: any one
                if has_aux:
                    aux = tree_unflatten([a[0] for a in aux_leaves], aux_spec)
                columns = [[None for _ in flat] for _ in outputs]
            for o, t in enumerate(tangents):
                columns[o][li] = t
        if columns is None:  # no input elements at all: one plain call for the outputs
            output, aux = call(flat)
            outputs, out_spec = _output_leaves(output, caller)
            columns = [[None for _ in flat] for _ in outputs]
        in_shapes = [tuple(x.shape) for x in flat]
        jac = [
            _share_columns(
                [
                    _columns_to_jacobian(columns[o][li], tuple(out.shape), in_shapes[li], out)
                    for li in range(len(flat))
                ],
                tuple(out.shape),
                in_shapes,
            )
            for o, out in enumerate(outputs)
        ]
        result = _jacobian_tree(jac, out_spec, specs, argnums)
        return (result, aux) if has_aux else result

    return wrapper


def hessian(func, argnums=0):
    """``func`` -> its Hessian, ``jacfwd(jacrev(func, argnums), argnums)`` (forward over
    reverse), as in ``torch.func.hessian``."""
    return jacfwd(jacrev(func, argnums), argnums)
