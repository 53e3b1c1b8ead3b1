"""The rest of ATen's tensor functions: Householder QR (``geqrf``, ``orgqr``, ``ormqr``),
the deprecated norms (``nuclear_norm``, ``frobenius_norm``, ``norm_except_dim``),
``slice_inverse``, ``hash_tensor``, ``histogramdd`` and memory makers (``empty_permuted``,
``frombuffer``, ``from_file``). Differentiable ones are compositions of differentiable ops.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.linalg.lapack as lapack

from .. import _dtype
from .._creation import empty, from_numpy
from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from .._torch_predicates import isreal as _isreal
from .._warn import warn_at_user
from ._reduce import check_keepdim
from ._returned import returned
from .joining import cat
from .matrix_functions import householder_product
from .norms import matrix_norm, vector_norm

geqrf_result = returned("geqrf", ["a", "tau"])
histogramdd_result = returned("histogramdd", ["hist", "bin_edges"])


def _float_matrix(op: str, A: Tensor) -> np.ndarray:
    if A.dtype == _dtype.float16 and A.dim() >= 2:  # no half LAPACK loop, as in PyTorch
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for 'Half' (torch.{op})")
    if A.dim() < 2 or not A.dtype.is_floating_point:
        raise RuntimeError(
            f"torch.{op}: expected a batch of float32 or float64 matrices (2 or more "
            f"dimensions), got {A.dtype} of shape {tuple(A.shape)}"
        )
    return A._data


@public()
def geqrf(input: Tensor, *, out=None) -> tuple:
    """``(a, tau)``: LAPACK's Householder QR of each matrix (R on and above the diagonal,
    the reflectors below it, their scales in ``tau``). Not differentiable, as PyTorch's."""
    data = _float_matrix("geqrf", input)
    routine = lapack.dgeqrf if data.dtype == np.float64 else lapack.sgeqrf
    m, n = data.shape[-2:]
    flat = data.reshape(-1, m, n)
    a = np.empty_like(flat)
    tau = np.empty((flat.shape[0], min(m, n)), dtype=data.dtype)
    for i, matrix in enumerate(flat):
        a[i], tau[i], _, _info = routine(matrix)
    return geqrf_result(_wrap(a.reshape(data.shape)), _wrap(tau.reshape(data.shape[:-2] + (-1,))))


@public()
def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    """The Q of a ``geqrf`` result: ``torch.linalg.householder_product(input, input2)``."""
    return householder_product(input, input2)


@public()
def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True,
          transpose: bool = False, *, out=None) -> Tensor:  # fmt: skip
    """``Q @ input3`` (``left``) or ``input3 @ Q``, Q (or its transpose) being the product of
    the Householder reflectors ``(input, input2)`` of ``geqrf``."""
    m = input.shape[-2]
    if input3.shape[-2 if left else -1] != m:
        raise RuntimeError(
            f"torch.ormqr: input3 must have {m} {'rows' if left else 'columns'} (the reflectors' "
            f"length), got shape {tuple(input3.shape)}"
        )
    # Q is m x m: the reflectors (the first min(m, n) columns) padded with zeros to square
    full = input[..., :m]
    if full.shape[-1] < m:
        full = cat([full, full.new_zeros(full.shape[:-1] + (m - full.shape[-1],))], -1)
    q = householder_product(full, input2)
    q = q.mT if transpose else q
    return q @ input3 if left else input3 @ q


@public(method=False)
def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Deprecated: ``torch.linalg.matrix_norm(input, 'nuc', dim, keepdim)``."""
    check_keepdim(keepdim, "nuclear_norm")
    warn_at_user(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. Please use "
        "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead"
    )
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else tuple(dim), keepdim=keepdim)


@public(method=False)
def frobenius_norm(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """Deprecated: ``torch.linalg.vector_norm(input, 2, dim, keepdim)``."""
    check_keepdim(keepdim, "frobenius_norm")
    warn_at_user(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. Please "
        "use `linalg.vector_norm(A, 2., dim, keepdim)` instead"
    )
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    return vector_norm(input, 2, dim=dim, keepdim=keepdim)


@public(method=False)
def norm_except_dim(v: Tensor, pow=2, dim: int = 0) -> Tensor:
    """The ``pow``-norm over every dimension but ``dim`` (kept, the others size 1); the
    norm of everything when ``dim`` is -1 (weight normalisation's helper)."""
    if dim == -1:
        return vector_norm(v, pow)
    dim = dim % v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    return vector_norm(v, pow, dim=others, keepdim=True)


@public()
def slice_inverse(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None,
                  step: int = 1) -> Tensor:  # fmt: skip
    """``input`` (a slice of ``src``) viewed with ``src``'s geometry: the view ``src`` had
    before ``src.slice(dim, start, end, step)``."""
    return input.as_strided(tuple(src.shape), src.stride(), src.storage_offset())


@public()
def hash_tensor(input: Tensor, dim=(), *, keepdim: bool = False, mode: int = 0) -> Tensor:
    """The XOR of the elements' bit patterns as uint64 (floats as float64, integers as int64)
    over ``dim`` (all dimensions by default); mode 0 is the only mode, as in PyTorch."""
    check_keepdim(keepdim, "hash_tensor")
    if mode != 0:
        raise RuntimeError(f"hash_tensor: mode {mode} is not supported (only 0, xor_sum)")
    data = input._data
    wide = data.astype(np.float64 if input.dtype.is_floating_point else np.int64)
    bits = wide.view(np.uint64)
    axes = None if dim in ((), [], None) else dim
    return _wrap(np.asarray(np.bitwise_xor.reduce(bits, axis=axes, keepdims=keepdim)))


@public(method=False)
def histogramdd(input: Tensor, bins=10, *, range=None, weight=None, density: bool = False,
                out=None) -> tuple:  # fmt: skip
    """``(hist, bin_edges)`` over the last dimension's coordinates (NumPy's histogramdd)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"torch.histogramdd: expected a floating input, got {input.dtype}")
    d = input.shape[-1]
    points = input._data.reshape(-1, d)
    if isinstance(bins, Tensor) or (isinstance(bins, (list, tuple)) and bins
                                    and isinstance(bins[0], Tensor)):  # fmt: skip
        bins = [b._data for b in bins]
    ranges = None if range is None else [tuple(range[2 * i : 2 * i + 2]) for i in builtin_range(d)]
    w = None if weight is None else weight._data.reshape(-1)
    hist, edges = np.histogramdd(points, bins=bins, range=ranges, weights=w, density=density)
    kind = input._data.dtype
    return histogramdd_result(_wrap(hist.astype(kind)), [_wrap(e.astype(kind)) for e in edges])


builtin_range = range


@public(function=False, method=("isreal",))
def _isreal_method(self: Tensor) -> Tensor:
    """``torch.isreal(self)``: True everywhere (leafgrad's tensors are real)."""
    return _isreal(self)


@public(method=False)
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """An uninitialised tensor of ``size`` laid out in memory in ``physical_layout``'s order
    (outermost dimension first)."""
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(builtin_range(len(size))):
        raise RuntimeError(
            f"empty_permuted: physical_layout {order} must be a permutation of "
            f"0..{len(size) - 1} (one entry per dimension of size {size})"
        )
    inverse = np.argsort(order).tolist()
    out = empty([size[p] for p in order], dtype=dtype, device=device).permute(inverse)
    return out.requires_grad_(requires_grad)


@public(method=False)
def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A 1-D tensor sharing the memory of a Python buffer (bytes, bytearray, array ...)."""
    view = memoryview(buffer)
    if (view.nbytes == 0 and count <= 0) or count == 0:
        raise ValueError(f"both buffer length ({view.nbytes}) and count ({count}) must not be 0")
    if view.readonly:
        warn_at_user(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors; writing to this tensor is undefined (copy the buffer first)"
        )
    data = np.frombuffer(buffer, dtype=_dtype.as_dtype(dtype).np, count=count, offset=offset)
    if view.readonly:
        data = data.copy()
    return from_numpy(data).requires_grad_(requires_grad)


@public(method=False)
def from_file(filename, shared=None, size: int = 0, *, dtype=None, layout=None, device=None,
              pin_memory: bool = False) -> Tensor:  # fmt: skip
    """``size`` elements of ``dtype`` mapped from a file: written back to it when ``shared``,
    private copy-on-write pages otherwise."""
    np_dtype = _dtype.as_dtype(dtype if dtype is not None else _dtype.get_default_dtype()).np
    need = size * np.dtype(np_dtype).itemsize
    have = os.path.getsize(filename)
    if have < need:
        raise RuntimeError(
            f"file <{filename}> size <{have}> is smaller than the required mapping size "
            f"<{need}>; pass a smaller size or a longer file"
        )
    if size == 0:
        return from_numpy(np.zeros(0, np_dtype))
    data = np.memmap(filename, dtype=np_dtype, mode="r+" if shared else "c", shape=(size,))
    return from_numpy(np.asarray(data))


__all__ = exports(globals())
