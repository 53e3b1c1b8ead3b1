"""Reordering entries: permute, transpose, movedim and diagonal (views), flip, fliplr, flipud,
rot90, roll and repeat (copies)."""

from __future__ import annotations

import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim
from .._warn import warn_once
from ._inputs import _dim_args, _unique_dims, _varargs_or_keyword
from ._optable import Linear
from ._primitive import adjoint_pair, primitive
from .shape import _plain_dims
from .slicing import alias

# ----- permutations -----


def _diagonal_forward(x, *, offset, dim1, dim2):
    out = np.diagonal(x, offset, dim1, dim2)
    out.flags.writeable = True  # NumPy hands out a read-only view; PyTorch's is writable
    return out


def _diagonal_backward_forward(grad, *, shape, offset, dim1, dim2):
    out = np.zeros(shape, dtype=grad.dtype)
    _diagonal_forward(out, offset=offset, dim1=dim1, dim2=dim2)[...] = grad
    return out


# The diagonal of dims ``dim1``/``dim2`` as the last dim of a view (DiagonalBackward0), and
# its adjoint, which places a gradient on that diagonal of zeros.
diagonal_view, _diagonal_backward = adjoint_pair(
    "diagonal",
    _diagonal_forward,
    "diagonal_backward",
    _diagonal_backward_forward,
    node_name="DiagonalBackward0",
    adjoint_node_name="DiagonalBackwardBackward0",
    view=True,
    metadata=("dim1", "dim2", "offset", "self_sym_sizes"),
)


def _permute_forward(x, *, dims):
    return x.transpose(dims)


_permute = primitive(
    "permute",
    _permute_forward,
    lambda grad, x, *, dims, **_: _permute(grad, dims=tuple(np.argsort(dims).tolist())),
    node_name="PermuteBackward0",
    dtype_rule="keep",
    kind=Linear(),
    view=True,
    plain_rules=True,
    metadata=("dims",),
)


@public()
def permute(input: Tensor, *dims, **kwargs) -> Tensor:
    """A view of ``input`` with its dims reordered: ``t.permute(1, 0)`` or ``t.permute((1, 0))``."""
    ndim = input._data.ndim
    if dims and not kwargs and len(dims) == ndim:
        plain = _plain_dims(dims, ndim)
        if plain is not None:  # the common call, ``t.permute(1, 0)``
            return _permute(input, dims=plain)
    if not dims and "dims" in kwargs:
        dims = (kwargs.pop("dims"),)
    if kwargs or not dims:
        raise TypeError(
            f"permute() takes the dims, e.g. t.permute(1, 0); got keywords {sorted(kwargs)}"
        )
    dims = _dim_args(dims)
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {ndim} is not "
            f"equal to len(dims) = {len(dims)} (permute: shape {list(input._data.shape)}, "
            f"ordering {list(dims)}; name every dim exactly once)"
        )
    return _permute(input, dims=_unique_dims(dims, ndim, "permute"))


# Tensor.T and .mT call the primitives directly: their dims are valid by construction, and
# PINN code transposes weights every step.
_REVERSED = tuple(tuple(range(n - 1, -1, -1)) for n in range(65))  # NumPy allows 64 dims


def _T(self: Tensor) -> Tensor:
    """All dims reversed (PermuteBackward0); on anything but a matrix deprecated, as in
    PyTorch."""
    ndim = self._data.ndim
    if ndim != 2:
        warn_once(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor."
        )
    return _permute(self, dims=_REVERSED[ndim])


def _mT(self: Tensor) -> Tensor:
    """The last two dims swapped (TransposeBackward0)."""
    ndim = self._data.ndim
    if ndim < 2:
        raise RuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices; got a {ndim}-D tensor"
        )
    return _transpose(self, dim0=ndim - 2, dim1=ndim - 1)


def _transpose_forward(x, *, dim0, dim1):
    return x.swapaxes(dim0, dim1) if x.ndim else x.view()


_transpose = primitive(
    "transpose",
    _transpose_forward,
    lambda grad, x, *, dim0, dim1, **_: _transpose(grad, dim0=dim0, dim1=dim1),
    overload="int",
    node_name="TransposeBackward0",
    dtype_rule="keep",
    kind=Linear(),
    view=True,
    plain_rules=True,
    metadata=("dim0", "dim1"),
)


Tensor.T = property(_T)
Tensor.mT = property(_mT)


@public()
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """A view of ``input`` with dims ``dim0`` and ``dim1`` swapped."""
    ndim = input.ndim  # an array too, in a plain rule
    dim0, dim1 = operator.index(dim0), operator.index(dim1)
    _normalize_dim(dim0, ndim, "transpose")  # (checked; the dims as given, as PyTorch's node
    _normalize_dim(dim1, ndim, "transpose")  # shows them: ``_saved_dim0``, ``_saved_dim1``)
    return _transpose(input, dim0=dim0, dim1=dim1)


swapdims = transpose


@public()
def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """``transpose`` under NumPy's name and parameter names."""
    return transpose(input, axis0, axis1)


@public()
def movedim(input: Tensor, source, destination) -> Tensor:
    """A view of ``input`` with dims ``source`` moved to positions ``destination``."""
    src = _dim_args((source,)) if isinstance(source, (tuple, list)) else (operator.index(source),)
    dst = (
        _dim_args((destination,))
        if isinstance(destination, (tuple, list))
        else (operator.index(destination),)
    )
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: source {list(src)} and destination {list(dst)} must name as many dims"
        )
    ndim = input._data.ndim
    src = _unique_dims(src, ndim, "movedim (source)")
    if ndim == 0:
        return alias(input)
    dst = _unique_dims(dst, ndim, "movedim (destination)")
    rest = iter(d for d in range(ndim) if d not in src)
    where = dict(zip(dst, src))
    dims = tuple(where[i] if i in where else next(rest) for i in range(ndim))
    return _permute(input, dims=dims)


moveaxis = movedim

# ----- flip / roll / repeat (copies) -----


_REVERSED_DIM = slice(None, None, -1)


def _flip_forward(x, *, dims):
    # np.flip's own key (each dim in ``dims`` reversed), without its ~1.5 us of argument
    # handling: the callers checked the dims (a negative one counts from the end here too).
    if not dims or not x.ndim:
        return x.copy()
    key = [slice(None)] * x.ndim
    for d in dims:
        key[d] = _REVERSED_DIM
    return x[tuple(key)].copy()


_flip = primitive(
    "flip",
    _flip_forward,
    lambda grad, x, *, dims, **_: _flip(grad, dims=dims),
    node_name="FlipBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
    metadata=("dims",),
)


@public()
def flip(input: Tensor, *dim_args, dims=None) -> Tensor:
    """A copy of ``input`` with the order of entries reversed along ``dims``."""
    if dims is None and _plain_dims(dim_args, input.ndim) is not None:  # ``t.flip(0)``
        return _flip(input, dims=dim_args)  # as given, as PyTorch's node shows them
    dims = _dim_args(_varargs_or_keyword(dim_args, dims, "dims", "flip"))
    _unique_dims(dims, input.ndim, "flip")  # (checked; .ndim: arrays too)
    return _flip(input, dims=tuple(dims))  # as given, as PyTorch's node shows them


@public()
def fliplr(input: Tensor) -> Tensor:
    """``input`` flipped left to right: along dim 1 (needs at least 2 dims)."""
    if input._data.ndim < 2:
        raise RuntimeError(
            f"fliplr: input must have at least 2 dims, got shape {list(input._data.shape)}"
        )
    return _flip(input, dims=(1,))


@public()
def flipud(input: Tensor) -> Tensor:
    """``input`` flipped upside down: along dim 0 (needs at least 1 dim)."""
    if input._data.ndim < 1:
        raise RuntimeError("flipud: input must have at least 1 dim, got a 0-dim tensor")
    return _flip(input, dims=(0,))


def _rot90_forward(x, *, k, dims):
    axes = tuple(d % x.ndim for d in dims)  # checked distinct; vmap's batch dim in front
    return np.rot90(x, k, axes).copy()


# One node, as PyTorch's (Rot90Backward0 saving k and dims as given); its adjoint turns back.
_rot90 = primitive(
    "rot90",
    _rot90_forward,
    lambda grad, x, *, k, dims, **_: _rot90(grad, k=-k, dims=dims),
    node_name="Rot90Backward0",
    saves=("k", "dims"),
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
)


@public()
def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """``input`` rotated by ``k`` quarter turns in the plane of ``dims``, from the first
    towards the second."""
    dims = tuple(operator.index(d) for d in dims)
    nd = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"rot90: dims must name 2 dims, got {list(dims)}")
    if nd < 2:
        raise RuntimeError(f"rot90: input must have at least 2 dims, got shape {list(input.shape)}")
    d0, d1 = (_normalize_dim(d, nd, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(f"rot90: the two dims must differ, got {list(dims)}")
    return _rot90(input, k=operator.index(k), dims=dims)


def _roll_forward(x, *, shifts, dims):
    if dims is None:
        return _roll_forward(x.reshape(-1), shifts=shifts, dims=(0,)).reshape(x.shape)
    if len(dims) == 1:
        # np.roll's two copies for one dim, without its argument handling (8.3 -> 4.5 us
        # for an (8, 8) roll): the tail moves to the front.
        dim, n = dims[0], x.shape[dims[0]]
        k = shifts[0] % n if n else 0
        out = np.empty_like(x)
        lead = (slice(None),) * dim
        out[lead + (slice(k, None),)] = x[lead + (slice(None, n - k),)]
        out[lead + (slice(None, k),)] = x[lead + (slice(n - k, None),)]
        return out
    return np.roll(x, shifts, dims)


_roll = primitive(
    "roll",
    _roll_forward,
    lambda grad, x, *, shifts, dims, **_: _roll(grad, shifts=tuple(-s for s in shifts), dims=dims),
    node_name="RollBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
    metadata=(("dims", lambda values, params: params["dims"] or ()), "shifts"),
)


@public()
def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """A copy of ``input`` with entries shifted cyclically along ``dims`` (flattened if None)."""
    if type(shifts) is int and type(dims) is int:  # the common call, ``t.roll(1, 0)``
        plain = _plain_dims((dims,), input._data.ndim)
        if plain is not None:
            return _roll(input, shifts=(shifts,), dims=plain)
    shifts = (
        _dim_args((shifts,)) if isinstance(shifts, (tuple, list)) else (operator.index(shifts),)
    )
    if dims is not None:
        dims = _dim_args((dims,)) if isinstance(dims, (tuple, list)) else (operator.index(dims),)
    n_dims = 1 if dims is None else len(dims)
    if len(shifts) != n_dims:
        raise RuntimeError(
            f"roll: got {len(shifts)} shifts for {'no' if dims is None else len(dims)} dims; "
            "pass one shift per dim (or a single shift with dims=None)"
        )
    if dims is not None:
        if not input._data.ndim:  # (PyTorch's dims elsewhere take a 0-d tensor as 1-d)
            raise IndexError(
                f"Dimension specified as {dims[0]} but tensor has no dimensions (roll: a 0-d "
                "tensor has no dim to roll along; pass dims=None)"
            )
        dims = tuple(_normalize_dim(d, input._data.ndim, "roll") for d in dims)
    return _roll(input, shifts=shifts, dims=dims)


def _repeat_forward(x, *, repeats):
    shape = (1,) * (len(repeats) - x.ndim) + x.shape
    if not x.size or 0 in repeats:
        return np.tile(x.reshape(shape), repeats)
    if repeats.count(1) == len(repeats):  # a row-major copy, as PyTorch's (np.tile keeps x's)
        return np.array(x.reshape(shape), order="C")
    # np.tile's values (row-major, as np.tile's), ~3 us sooner: the input, a size-1 dim
    # before each of its dims, broadcast into the result viewed with those dims interleaved.
    tiled, single = [], []
    for r, n in zip(repeats, shape):
        tiled += (r, n)
        single += (1, n)
    out = np.empty(tuple(r * n for r, n in zip(repeats, shape)), x.dtype)
    out.reshape(tiled)[...] = x.reshape(single)
    return out


def _repeat_grad(grad, x, *, repeats, **_):
    shape = tuple(x.shape)
    padded = (1,) * (len(repeats) - len(shape)) + shape
    interleaved = tuple(v for pair in zip(repeats, padded) for v in pair)
    summed = grad.reshape(interleaved).sum(tuple(range(0, len(interleaved), 2)))
    return summed if tuple(summed.shape) == shape else summed.reshape(shape)


_repeat = primitive(
    "repeat",
    _repeat_forward,
    _repeat_grad,
    node_name="RepeatBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
    metadata=("repeats", "self_sym_sizes"),
)


@public(function=False)
def repeat(input: Tensor, *sizes, repeats=None) -> Tensor:
    """``input`` tiled ``sizes[i]`` times along dim i (extra sizes add leading dims)."""
    if repeats is None and _plain_repeats(sizes, input._data.ndim):  # ``t.repeat(2, 1)``
        return _repeat(input, repeats=sizes)
    sizes = _varargs_or_keyword(sizes, repeats, "repeats", "repeat")
    if not sizes:
        raise TypeError("repeat() missing the repeats: pass one count per dim, e.g. t.repeat(2, 1)")
    sizes = _dim_args(sizes)
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            f"of tensor (repeat: {list(sizes)} for a tensor of shape {list(shape)}; pass at "
            "least one count per dim)"
        )
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"repeat: repeats must be non-negative, got {list(sizes)}")
    return _repeat(input, repeats=sizes)


def _plain_repeats(sizes: tuple, ndim: int) -> bool:
    """Whether ``sizes`` are non-negative Python ints, at least one per dim of ``ndim``: the
    common call, which needs no other check."""
    if len(sizes) < ndim or not sizes:
        return False
    for s in sizes:
        if type(s) is not int or s < 0:
            return False
    return True


__all__ = exports(globals())
