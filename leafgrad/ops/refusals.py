"""Tensor methods that a dense real CPU tensor answers with an error: sparse and quantized
accessors, methods PyTorch removed, other devices, and the conversions leafgrad refuses on
purpose (to sparse layouts, bfloat16 and complex dtypes), each raising the exception type
PyTorch raises with its key phrase and then what to do.

A docstring saying "Refused on purpose" marks a conversion PyTorch would make and leafgrad
does not (``leafgrad.coverage`` counts it as refused); "CPU-only build" marks what a
CPU-only build of PyTorch refuses as well.
"""

from __future__ import annotations

from .._exposure import exports, public
from .._tensor import Tensor

# ----- sparse accessors: a dense (strided) tensor has none, as in PyTorch -----


def _needs_layout(name: str, layout: str):
    def method(self: Tensor, *args, **kwargs):
        raise RuntimeError(
            f"{name} expected sparse {layout} tensor layout but got Strided; leafgrad tensors "
            "are all dense (strided), so there is nothing to take apart"
        )

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"RuntimeError: a dense tensor has no {name} (only sparse {layout} ones)."
    return public(function=False, method=(name,))(method)


_SPARSE_ACCESSORS = [
    _needs_layout("coalesce", "coordinate"),
    _needs_layout("is_coalesced", "coordinate"),
    _needs_layout("crow_indices", "row compressed"),
    _needs_layout("col_indices", "row compressed"),
    _needs_layout("ccol_indices", "column compressed"),
    _needs_layout("row_indices", "column compressed"),
]


def _no_kernel(name: str, what: str, function: bool = False):
    """An op PyTorch has no CPU kernel for on a dense tensor: NotImplementedError."""

    def op(*args, **kwargs):
        raise NotImplementedError(
            f"Could not run 'aten::{name}' with arguments from the 'CPU' backend: it takes "
            f"{what}, and leafgrad has only dense (strided) tensors"
        )

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"NotImplementedError: needs {what}, as PyTorch's on a dense tensor."
    return public(function=function, method=(name,))(op)


int_repr = _no_kernel("int_repr", "a quantized tensor", function=True)
q_scale = _no_kernel("q_scale", "a quantized tensor", function=True)
q_zero_point = _no_kernel("q_zero_point", "a quantized tensor", function=True)
q_per_channel_scales = _no_kernel("q_per_channel_scales", "a quantized tensor", function=True)
q_per_channel_zero_points = _no_kernel(
    "q_per_channel_zero_points", "a quantized tensor", function=True
)
q_per_channel_axis = _no_kernel("q_per_channel_axis", "a quantized tensor", function=True)
resize_as_sparse_ = _no_kernel("resize_as_sparse_", "a sparse tensor", function=True)
_SPARSE_ONLY = [
    _no_kernel("qscheme", "a quantized tensor"),
    _no_kernel("sparse_mask", "a sparse mask"),
    _no_kernel("sparse_resize_", "a sparse tensor"),
    _no_kernel("sparse_resize_and_clear_", "a sparse tensor"),
    _no_kernel("to_padded_tensor", "a nested tensor"),
]


@public()
def smm(input: Tensor, mat: Tensor) -> Tensor:
    """RuntimeError: ``input`` must be sparse, as PyTorch says for a dense one."""
    raise RuntimeError(
        "tensor.sspaddmm(...) can only be called on sparse tensors (smm multiplies a sparse "
        "matrix); leafgrad has only dense tensors: use input @ mat"
    )


@public()
def sspaddmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """RuntimeError: ``input`` must be sparse, as PyTorch says for a dense one."""
    raise RuntimeError(
        "tensor.sspaddmm(...) can only be called on sparse tensors; leafgrad has only dense "
        "tensors: use torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha)"
    )


@public()
def dequantize(tensor: Tensor) -> Tensor:
    """``tensor`` itself: a float tensor is not quantized (PyTorch returns it as it is)."""
    if isinstance(tensor, (list, tuple)):
        raise NotImplementedError(
            "Could not run 'aten::dequantize.tensors' with arguments from the 'CPU' backend: "
            "it takes quantized tensors, and leafgrad has none"
        )
    return tensor


@public(function=False)
def to_dense(self: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """This tensor (already dense), converted to ``dtype`` when given."""
    return self if dtype is None else self.to(dtype)


# ----- conversions PyTorch makes and leafgrad refuses on purpose -----


def _refused(name: str, exc: type, message: str):
    def method(self: Tensor, *args, **kwargs):
        raise exc(message)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Refused on purpose: {message}"
    return public(function=False, method=(name,))(method)


_NO_SPARSE = (
    "leafgrad has no sparse layouts (every tensor is dense and strided), so {name}() cannot "
    "convert; keep the dense tensor, or use PyTorch for sparse storage"
)
_TO_SPARSE = [
    _refused(name, NotImplementedError, f"{name}: " + _NO_SPARSE.format(name=name))
    for name in (
        "to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
        "to_sparse_bsc",
    )
]  # fmt: skip
_TO_MKLDNN = _refused(
    "to_mkldnn",
    NotImplementedError,
    "to_mkldnn: leafgrad has no MKL-DNN layout (its tensors are NumPy arrays); keep the "
    "dense tensor",
)
_NO_DTYPE = (
    "{name}(): leafgrad has no {dtype} dtype (supported: float16/32/64, int8/16/32/64, uint8, "
    "bool); use .float() or .double() instead"
)
_TO_DTYPE = [
    _refused(name, TypeError, _NO_DTYPE.format(name=name, dtype=dtype))
    for name, dtype in (
        ("bfloat16", "bfloat16"), ("cfloat", "complex64"), ("cdouble", "complex128"),
        ("chalf", "complex32"),
    )
]  # fmt: skip
_INDEX = _refused(
    "index",
    NotImplementedError,
    "Tensor.index(positions, dims) binds first-class dims (functorch.dim), which leafgrad "
    "does not have; index with t[...] or name dims by position",
)


# ----- removed from PyTorch: RuntimeError pointing at the replacement -----


def _removed(name: str, message: str):
    def method(self: Tensor, *args, **kwargs):
        raise RuntimeError(message)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Removed from PyTorch: raises a RuntimeError naming its replacement ({name})."
    return public(function=False, method=(name,))(method)


_GONE = "This function was deprecated since version 1.9 and is now removed. "
_REMOVED = [
    _removed("eig", _GONE + "Use torch.linalg.eig(A) (or torch.linalg.eigvals(A)); leafgrad "
             "has no complex dtype, so it supports matrices with real eigenvalues only."),
    _removed("symeig", _GONE + "Use torch.linalg.eigh(A, UPLO='U' if upper else 'L') (or "
             "torch.linalg.eigvalsh) instead."),
    _removed("lstsq", _GONE + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`, "
             "which takes its arguments reversed: X = torch.linalg.lstsq(A, B).solution."),
    _removed("solve", _GONE + "`torch.solve` is deprecated in favor of `torch.linalg.solve`, "
             "which takes its arguments reversed: X = torch.linalg.solve(A, B)."),
    _removed("reinforce", "reinforce() was removed.\nUse torch.distributions instead: "
             "m = torch.distributions.Categorical(probs); action = m.sample(); "
             "loss = -m.log_prob(action) * reward; loss.backward()"),
]  # fmt: skip


# ----- other devices: fail as a CPU-only build of PyTorch fails -----


@public(function=False)
def ipu(self: Tensor, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
    """Fails as on a CPU-only build of PyTorch: there is no IPU device."""
    raise RuntimeError(
        "PyTorch is not linked with support for ipu devices; leafgrad runs on the CPU only"
    )


@public(function=False)
def xpu(self: Tensor, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
    """Fails as on a CPU-only build of PyTorch: there is no XPU device."""
    raise AssertionError("Torch not compiled with XPU enabled (leafgrad runs on the CPU only)")


@public(function=False)
def mtia(self: Tensor, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
    """Fails as on a CPU-only build of PyTorch: there is no MTIA device."""
    raise AssertionError("Torch not compiled with MTIA enabled (leafgrad runs on the CPU only)")


@public(function=False)
def record_stream(self: Tensor, stream) -> None:
    """Fails as on a CPU-only build of PyTorch: streams belong to accelerators."""
    raise NotImplementedError(
        "Could not run 'aten::record_stream' with arguments from the 'CPU' backend: streams "
        "belong to accelerators, and leafgrad runs on the CPU only; leave the call out"
    )


__all__ = exports(globals())
