"""Vectorized Jacobians for ``autograd.functional``: every row (reverse mode) or column
(forward mode) of a Jacobian in one call batched over the rows of an identity, as vmap does;
and the stacking of rows or columns into Jacobians (also used by ``func``'s transforms).

PyTorch's vectorized Jacobians come out of one batched computation per input (reverse mode:
the rows of every output at once) or per output (forward mode: the columns of every input),
split into blocks, so the blocks of one input (one output) are views of one tensor: all in
the graph, or none, even a block of zeros or a constant one. We compute block by block and
then join the blocks that disagree (``_share_rows``, ``_share_columns``) so that the same
blocks require grad.
"""

from __future__ import annotations

import numpy as np

from .._batched import batch_map
from .._engine import forward as _forward
from .._tensor import Tensor, _wrap, _zeros_like
from ..ops.joining import cat, stack
from . import forward_ad as fwAD
from ._functional_tuples import _as_tuple, _autograd_grad, _tuple_postprocess


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


def _share_rows(blocks: list, out_shapes: list, in_shape: tuple, flags=None) -> list:
    """One input's blocks (one per output, ``out_shape + in_shape``) as views of the one
    tensor of all their rows where some are in a graph and some not (``flags``: which are,
    by default those that require grad), as PyTorch's one batched grad per input gives them;
    unchanged otherwise."""
    flags = [b.requires_grad for b in blocks] if flags is None else flags
    if all(flags) or not any(flags):
        return blocks
    sizes = [int(np.prod(s, dtype=np.int64)) for s in out_shapes]
    joint = cat([b.reshape((n,) + in_shape) for b, n in zip(blocks, sizes)], 0)
    return [part.view(s + in_shape) for part, s in zip(joint.split(sizes, 0), out_shapes)]


def _share_columns(blocks: list, out_shape: tuple, in_shapes: list) -> list:
    """One output's blocks (one per input) as views of the one tensor of all their columns
    where some require grad and some not, as PyTorch's one batched JVP per output gives
    them; unchanged otherwise."""
    flags = [b.requires_grad for b in blocks]
    if all(flags) or not any(flags):
        return blocks
    sizes = [int(np.prod(s, dtype=np.int64)) for s in in_shapes]
    joint = cat([b.reshape(out_shape + (n,)) for b, n in zip(blocks, sizes)], -1)
    return [part.reshape(out_shape + s) for part, s in zip(joint.split(sizes, -1), in_shapes)]


def _jacfwd(func, inputs, strict: bool, vectorize: bool):
    """The Jacobian by forward-mode AD: per input, one JVP batched over its elements."""
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Set `strict=False` '
            'or `strategy="reverse-mode"`.'
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
    in_shapes = [tuple(inp.shape) for inp in inputs]
    jac = [
        _share_columns(
            [
                _columns_to_jacobian(columns[i][j], tuple(out.shape), in_shapes[j], out)
                for j in range(len(inputs))
            ],
            tuple(out.shape),
            in_shapes,
        )
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
