"""Joining and splitting: cat, stack, split, chunk, unbind.

split/chunk/unbind return a tuple of views made by one multi-output node, as PyTorch's
``SplitBackward0`` / ``UnbindBackward0``; the machinery fills the grads of unused outputs
with zeros. Nothing is imported from ``shape`` at load time, so ``shape`` can re-export
this module.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .._engine.forward import jet_state as _jet_state
from .._exposure import exports, public
from .._memory_format import channels_last, channels_last_3d, is_laid_out
from .._tensor import Tensor, _normalize_dim
from ._optable import Linear
from ._out import with_out
from ._plain import operand, values_of
from ._primitive import primitive, with_outputs
from .shape import unsqueeze
from .slicing import narrow, select


def _tensor_list(tensors, op: str) -> tuple:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(
            f"{op}(): expected a tuple or list of Tensors, got {type(tensors).__name__}; wrap "
            "single tensors in a list"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{op}(): element {i} of the sequence is {type(t).__name__}, expected a Tensor"
            )
    return tuple(tensors)


def _common_dtype(tensors) -> np.dtype:
    """Plain promotion over all inputs (cat/stack give 0-d tensors no lower priority)."""
    dt = tensors[0]._data.dtype
    for t in tensors[1:]:
        other = t._data.dtype
        # A float beats any int or bool whatever its width (float32 + int64 -> float32);
        # within one kind NumPy's rule is PyTorch's.
        if (dt.kind == "f") != (other.kind == "f"):
            dt = dt if dt.kind == "f" else other
        else:
            dt = np.promote_types(dt, other)
    return dt


def _is_legacy_empty(data) -> bool:
    # PyTorch's cat skips 1-D empty tensors whatever the other operands' shapes.
    return data.shape == (0,)


# ----- cat -----


def _cat_forward(*arrays, dim, dtype):
    for a in arrays:
        if a.dtype != dtype or a.shape == (0,):
            break
    else:  # the common case: nothing to cast, nothing to skip
        return _cat_layout(np.concatenate(arrays, axis=dim))
    kept = [a for a in arrays if not _is_legacy_empty(a)] or [arrays[0]]
    joined = np.concatenate([a if a.dtype == dtype else a.astype(dtype) for a in kept], axis=dim)
    return _cat_layout(joined)


_CHANNELS_LAST_FORMATS = (channels_last, channels_last_3d)


def _cat_layout(out):
    """``out`` laid out as PyTorch's cat: channels-last kept, anything else row-major
    (NumPy follows its inputs' layout, transposed ones too)."""
    if out.flags.c_contiguous or any(is_laid_out(out, f) for f in _CHANNELS_LAST_FORMATS):
        return out
    return np.ascontiguousarray(out)


def _cat_grads(grad, *args, result, needs, dim, dtype):
    if type(grad) is np.ndarray and grad.ndim > 1:  # a plain rule: narrow's views, direct
        dim %= grad.ndim  # (a rule may pass a negative dim)
        outs, offset, key = [], 0, [slice(None)] * (dim + 1)
        for a, need in zip(args, needs):
            if _is_legacy_empty(a):  # (skipped by the forward)
                outs.append(np.zeros((0,), grad.dtype) if need else None)
                continue
            size = a.shape[dim]
            if need:
                key[dim] = slice(offset, offset + size)
                outs.append(grad[tuple(key)])
            else:
                outs.append(None)
            offset += size
        return outs
    outs, offset = [], 0
    for a, need in zip(args, needs):
        if _is_legacy_empty(a) and grad.ndim != 1:
            empty = np.zeros((0,), dtype=values_of(grad).dtype)
            outs.append(operand(empty, grad) if need else None)
            continue
        size = a.shape[dim]
        outs.append(narrow(grad, dim, offset, size) if need else None)
        offset += size
    return outs


_cat = primitive(
    "cat",
    _cat_forward,
    vjp_all=_cat_grads,
    kind=Linear(),
    node_name="CatBackward0",
    dtype_rule="keep",
    plain_rules=True,
    metadata=("dim",),
)


@public(method=False)
def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """``tensors`` joined along an existing ``dim``; dtypes promote as in PyTorch."""
    if out is None:
        dtype = _plain_cat_dtype(tensors, dim)
        if dtype is not None:
            return _cat(*tensors, dim=dim, dtype=dtype)
    tensors = _tensor_list(tensors, "cat")
    if out is not None:
        return with_out("cat", lambda: cat(tensors, dim), tensors, out)
    if not tensors:
        raise ValueError("cat(): expected a non-empty list of Tensors")
    shapes = [t._data.shape for t in tensors]
    if () in shapes:
        i = shapes.index(())
        raise RuntimeError(
            f"zero-dimensional tensor (at position {i}) cannot be concatenated (cat(): use "
            "stack, or unsqueeze it to shape [1])"
        )
    kept = [s for s in shapes if s != (0,)]  # PyTorch skips 1-D empty tensors (legacy)
    ref = (kept or shapes)[0]
    d = _normalize_dim(operator.index(dim), len(ref), "cat")
    # The common case checked at once: every (kept) shape is ``ref``'s but along ``d``.
    head, tail = ref[:d], ref[d + 1 :]
    for shape in kept or shapes:
        if len(shape) != len(ref) or shape[:d] != head or shape[d + 1 :] != tail:
            _refuse_cat_shapes(tensors, bool(kept), ref, d)
    # The dim as given (checked above): PyTorch's node shows it so (``_saved_dim``).
    return _cat(*tensors, dim=operator.index(dim), dtype=_common_dtype(tensors))


def _first_plain(tensors, dim):
    """The first tensor's array where ``tensors`` is a non-empty list or tuple starting with a
    tensor and ``dim`` a Python int (the common calls of cat and stack), else None."""
    if (type(tensors) is not list and type(tensors) is not tuple) or type(dim) is not int:
        return None
    if not tensors or not isinstance(first := tensors[0], Tensor):
        return None
    return first._data


def _plain_cat_dtype(tensors, dim):
    """The dtype of ``cat(tensors, dim)`` in the common call, else None (the general path
    then checks, promotes and raises): a list or tuple of tensors of one dtype and one shape
    but along ``dim``, a Python int in range, none of them 0-d or 1-D empty."""
    x = _first_plain(tensors, dim)
    if x is None:
        return None
    dtype, shape = x.dtype, x.shape
    n = len(shape)
    if not -n <= dim < n or shape == (0,):
        return None
    d = dim + n if dim < 0 else dim
    head = tail = None
    for t in tensors:
        if not isinstance(t, Tensor):
            return None
        y = t._data
        other = y.shape
        if y.dtype != dtype:
            return None
        if other != shape:
            if head is None:
                head, tail = shape[:d], shape[d + 1 :]
            if len(other) != n or other[:d] != head or other[d + 1 :] != tail or n == 1:
                return None
    return dtype


def _refuse_cat_shapes(tensors, skip_empty: bool, ref: tuple, d: int) -> None:
    """PyTorch's error for tensors ``cat`` cannot join along ``d`` (``ref``: the first kept
    shape; ``skip_empty``: 1-D empty tensors are skipped)."""
    for i, t in enumerate(tensors):
        shape = t._data.shape
        if _is_legacy_empty(t._data) and skip_empty:
            continue
        if len(shape) != len(ref):
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {len(ref)} and {len(shape)} "
                f"(cat(): shape {list(ref)} and, at position {i}, shape {list(shape)})"
            )
        for k, (a, b) in enumerate(zip(ref, shape)):
            if k != d and a != b:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {a} but "
                    f"got size {b} for tensor number {i} in the list. (cat(): shape {list(ref)} "
                    f"and, at position {i}, shape {list(shape)})"
                )


concat = concatenate = cat

# ----- stack -----


def _stack_forward(*arrays, dim, dtype):
    # np.stack's own steps (a new axis at ``dim`` on each array, then one concatenate),
    # without its ~3 us of argument handling: the callers checked the shapes.
    if dim < 0:
        dim += arrays[0].ndim + 1
    new_axis = (slice(None),) * dim + (None,)
    for a in arrays:
        if a.dtype != dtype:
            arrays = [a.astype(dtype) for a in arrays]  # (a no-op where it has it)
            break
    if dim == 0:
        # One C pass over the list, where np.stack's way makes a view per array first: the
        # same array, faster at every count measured (1000 rows of 2 elements, a
        # DataLoader's collation: 248 -> 105 us; two (64, 32): 1.9 -> 1.4 us).
        return np.array(arrays)
    return np.concatenate([a[new_axis] for a in arrays], axis=dim)


def _stack_grads(grad, *args, result, needs, dim, dtype):
    if type(grad) is np.ndarray:  # a plain rule: views of the array
        pieces = unbind(grad, dim)
        return [p if need else None for p, need in zip(pieces, needs)]
    # PyTorch's stack_tensors_backward selects each input's slice (SelectBackward0).
    return [select(grad, dim, i) if need else None for i, need in enumerate(needs)]


_stack = primitive(
    "stack",
    _stack_forward,
    vjp_all=_stack_grads,
    kind=Linear(),
    node_name="StackBackward0",
    dtype_rule="keep",
    plain_rules=True,
    metadata=("dim",),
)


@public(method=False)
def stack(tensors, dim: int = 0, *, out=None) -> Tensor:
    """``tensors`` (all of one shape) joined along a new ``dim``."""
    if out is None:
        plan = _plain_stack(tensors, dim)
        if plan is not None:
            return _stack(*tensors, dim=plan[0], dtype=plan[1])
    tensors = _tensor_list(tensors, "stack")
    if out is not None:
        return with_out("stack", lambda: stack(tensors, dim), tensors, out)
    if not tensors:
        raise RuntimeError("stack(): expected a non-empty list of Tensors")
    ref = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                f"{list(t._data.shape)} at entry {i}"
            )
    d = _normalize_dim(operator.index(dim), len(ref) + 1, "stack")
    return _stack(*tensors, dim=d, dtype=_common_dtype(tensors))


def _plain_stack(tensors, dim):
    """``(dim, dtype)`` of ``stack(tensors, dim)`` in the common call, else None (the general
    path then checks, promotes and raises): a list or tuple of tensors of one dtype and one
    shape, ``dim`` a Python int in range (made non-negative)."""
    x = _first_plain(tensors, dim)
    if x is None:
        return None
    dtype, shape = x.dtype, x.shape
    n = len(shape) + 1
    if not -n <= dim < n:
        return None
    for t in tensors:
        if not isinstance(t, Tensor):
            return None
        y = t._data
        if y.shape != shape or y.dtype != dtype:
            return None
    return (dim + n if dim < 0 else dim), dtype


# ----- split / chunk / unbind: one node with one output per piece -----


def _split_forward(x, *, dim, sizes):
    # Slices, not np.split (the same views; its Python costs ~25 us a call).
    key = [slice(None)] * x.ndim
    pieces, start = [], 0
    for n in sizes:
        key[dim] = slice(start, start + n)
        pieces.append(x[tuple(key)])
        start += n
    return tuple(pieces) if len(pieces) > 1 else pieces[0]


def _split_grads(grad, x, *, result, needs, dim, sizes):
    if type(grad) is not tuple:  # a single piece: the identity
        return [grad]
    # cat's op itself (the public cat checks its list of tensors; the pieces share a dtype)
    return [_cat(*grad, dim=dim, dtype=values_of(grad[0]).dtype)]


def _split_primitive(name, overload, node_name):
    if overload:  # split: PyTorch keeps the size asked for, the first piece's
        pieces = ("split_size", lambda values, params: params["sizes"][0])
    else:
        pieces = ("split_sizes", lambda values, params: tuple(params["sizes"]))
    return primitive(
        name,
        _split_forward,
        vjp_all=_split_grads,
        kind=Linear(),
        overload=overload,
        node_name=node_name,
        dtype_rule="keep",
        num_outputs=2,
        view=True,
        plain_rules=True,
        metadata=("dim", "self_sym_sizes", pieces),
    )


_SPLITS = {
    "SplitBackward0": _split_primitive("split", "Tensor", "SplitBackward0"),
    "SplitWithSizesBackward0": _split_primitive("split_with_sizes", "", "SplitWithSizesBackward0"),
}


@functools.cache
def _split_op(n: int, node_name: str):
    # num_outputs is fixed per op, so each piece count has its own (of one declaration); the
    # outputs are kept only for the shapes of missing grads (PyTorch saves sizes only).
    return with_outputs(_SPLITS[node_name], n)


def _split_sizes(input, dim, sizes, node_name):
    if _jet_state.mode is not None:
        # Taylor mode gives jets only to single-output ops, so split piece by piece there.
        offsets = np.cumsum((0, *sizes[:-1])).tolist()
        return tuple(narrow(input, dim, o, n) for o, n in zip(offsets, sizes))
    out = _split_op(len(sizes), node_name)(input, dim=dim, sizes=tuple(sizes))
    return out if isinstance(out, tuple) else (out,)


@public(method=False)
def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Views of ``tensor`` along ``dim``: pieces of one size (the last may be smaller), or of
    the listed sizes (which must add up to the dim's size)."""
    if type(split_size_or_sections) is int and type(dim) is int:  # ``t.split(4, 1)``
        plan = _remembered_plan("split", tensor._data.shape, split_size_or_sections, dim)
    else:
        plan = split_plan(tensor, split_size_or_sections, dim, "split")
    return _split_sizes(tensor, *plan)


def split_plan(tensor: Tensor, split_size_or_sections, dim, op: str) -> tuple:
    """``(dim, sizes, node name)`` of ``split`` (checked), for it and the unsafe splits."""
    return _split_plan(tensor._data.shape, split_size_or_sections, dim, op)


def _split_plan(shape: tuple, split_size_or_sections, dim, op: str) -> tuple:
    if not shape:
        raise RuntimeError(f"{op}: a 0-dim tensor cannot be split; unsqueeze it first")
    d = _normalize_dim(operator.index(dim), len(shape), op)
    size = shape[d]
    if isinstance(split_size_or_sections, (tuple, list)):
        sizes = [operator.index(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes) or sum(sizes) != size:
            raise RuntimeError(
                f"{op}: sizes {sizes} must be non-negative and add up to {size}, the size of "
                f"dim {d} of a tensor of shape {list(shape)}"
            )
        return d, sizes, "SplitWithSizesBackward0"
    step = operator.index(split_size_or_sections)
    if step < 0 or (step == 0 and size != 0):
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            f" ({op}: split_size {step} for dim {d})"
            if step == 0
            else f"split expects split_size be non-negative, but got split_size={step}"
        )
    sizes = [step] * (size // step) + ([size % step] if size % step else []) if step else []
    return d, sizes or [size], "SplitBackward0"


@public(function=False, method=("split",))
def _split_method(self: Tensor, split_size, dim: int = 0) -> tuple:
    """``Tensor.split``: ``torch.split`` with PyTorch's method parameter name ``split_size``."""
    return split(self, split_size, dim)


@public()
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` views of equal size (the last may be smaller) along ``dim``."""
    if type(chunks) is int and type(dim) is int:  # ``t.chunk(2, 1)``
        plan = _remembered_plan("chunk", input._data.shape, chunks, dim)
    else:
        plan = chunk_plan(input, chunks, dim, "chunk")
    return _split_sizes(input, *plan)


def chunk_plan(input: Tensor, chunks: int, dim, op: str) -> tuple:
    """``(dim, sizes, node name)`` of ``chunk`` (checked), for it and ``unsafe_chunk``."""
    return _chunk_plan(input._data.shape, chunks, dim, op)


def _chunk_plan(shape: tuple, chunks: int, dim, op: str) -> tuple:
    chunks = operator.index(chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if not shape:
        raise RuntimeError(f"{op}: a 0-dim tensor cannot be chunked; unsqueeze it first")
    d = _normalize_dim(operator.index(dim), len(shape), op)
    size = shape[d]
    if size == 0:  # PyTorch keeps the number of chunks here
        return d, [0] * chunks, "SplitWithSizesBackward0"
    return _split_plan(shape, -(-size // chunks), d, op)


@functools.lru_cache(maxsize=256)
def _remembered_plan(op: str, shape: tuple, size: int, dim: int) -> tuple:
    """The plan of ``op`` ("split" or "chunk") for Python int arguments, made once per
    ``shape``: it depends on nothing else. (A bad call raises each time: errors are not
    remembered.)"""
    d, sizes, node_name = (_split_plan if op == "split" else _chunk_plan)(shape, size, dim, op)
    return d, tuple(sizes), node_name


def _unbind_forward(x, *, dim):
    pieces = tuple(x[(slice(None),) * dim + (i, Ellipsis)] for i in range(x.shape[dim]))
    return pieces if len(pieces) > 1 else pieces[0]


def _unbind_grads(grad, x, *, result, needs, dim):
    if type(grad) is not tuple:  # a single piece
        return [unsqueeze(grad, dim)]
    # stack's op itself, as _split_grads uses cat's
    return [_stack(*grad, dim=dim, dtype=values_of(grad[0]).dtype)]


_unbind = primitive(
    "unbind",
    _unbind_forward,
    vjp_all=_unbind_grads,
    kind=Linear(),
    overload="int",
    node_name="UnbindBackward0",
    dtype_rule="keep",
    num_outputs=2,
    view=True,
    plain_rules=True,
    metadata=("dim",),
)


@functools.cache
def _unbind_op(n: int):
    return with_outputs(_unbind, n)


@public()
def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices of ``input`` along ``dim``, each without that dim."""
    shape = tuple(input.shape)  # an array too, in a plain rule
    if not shape:
        raise IndexError(
            f"Dimension specified as {dim} but tensor has no dimensions (unbind: a 0-dim tensor "
            "has no dim to unbind along)"
        )
    d = _normalize_dim(operator.index(dim), len(shape), "unbind")
    if shape[d] == 0:
        return ()
    if _jet_state.mode is not None:  # as in _split_sizes
        return tuple(select(input, d, i) for i in range(shape[d]))
    out = _unbind_op(shape[d])(input, dim=d)
    return out if isinstance(out, tuple) else (out,)


__all__ = exports(globals())
