"""Top-level tensor predicates and the complex-number family as a real-only library has them.

``torch.is_signed(x)``, ``torch.conj(x)``, ``torch.real(x)`` ... For real dtypes PyTorch's
conjugation and negation bits are never set, so ``conj``, ``resolve_conj``, ``resolve_neg`` and
``real`` return their input itself. leafgrad has no complex dtype, so the functions that make
or need complex tensors raise, saying so.

The Tensor methods of the same names are declared in ``ops/attributes.py``.
"""

from __future__ import annotations

import numpy as np

from ._storage import TypedStorage, UntypedStorage
from ._tensor import Tensor, _wrap


def _tensor_arg(op: str, value, name: str = "input", position: int = 1) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )
    return value


def is_complex(input) -> bool:
    """False: leafgrad has no complex dtype."""
    return _tensor_arg("is_complex", input).dtype.is_complex


def is_signed(input) -> bool:
    """Whether the dtype holds negative values (floats and signed integers)."""
    return _tensor_arg("is_signed", input).dtype.is_signed


def is_same_size(input, other) -> bool:
    """Whether the two tensors have the same shape."""
    _tensor_arg("is_same_size", input)
    _tensor_arg("is_same_size", other, "other", 2)
    return tuple(input.shape) == tuple(other.shape)


def is_nonzero(input) -> bool:
    """The truth of a one-element tensor; RuntimeError for none or several elements."""
    data = _tensor_arg("is_nonzero", input)._data
    if data.size == 0:
        raise RuntimeError(
            "Boolean value of Tensor with no values is ambiguous: is_nonzero needs exactly one "
            "element"
        )
    if data.size > 1:
        raise RuntimeError(
            f"Boolean value of Tensor with more than one value is ambiguous: is_nonzero got "
            f"{data.size} elements; reduce with .any() or .all() first"
        )
    return bool(data.reshape(()))


def is_conj(input) -> bool:
    """False: a real tensor never carries PyTorch's lazy-conjugation bit."""
    _tensor_arg("is_conj", input)
    return False


def is_neg(input) -> bool:
    """False: a real tensor never carries PyTorch's lazy-negation bit."""
    _tensor_arg("is_neg", input)
    return False


def conj(input) -> Tensor:
    """The input itself: conjugating a real tensor changes nothing."""
    return _tensor_arg("conj", input)


def resolve_conj(input) -> Tensor:
    """The input itself: there is no pending conjugation to materialise."""
    return _tensor_arg("resolve_conj", input)


def resolve_neg(input) -> Tensor:
    """The input itself: there is no pending negation to materialise."""
    return _tensor_arg("resolve_neg", input)


def real(input) -> Tensor:
    """The input itself, as PyTorch returns for real dtypes."""
    return _tensor_arg("real", input)


def imag(input) -> Tensor:
    """RuntimeError: a real tensor has no imaginary part."""
    _tensor_arg("imag", input)
    raise RuntimeError(
        "imag is not implemented for tensors with non-complex dtypes; leafgrad has no complex "
        "dtype, so the imaginary part of a real tensor is zeros_like(input)"
    )


def isreal(input) -> Tensor:
    """All True (bool, the input's shape): every element of a real tensor is real."""
    data = _tensor_arg("isreal", input)._data
    return _wrap(np.ones(data.shape, dtype=np.bool_))


def positive(input) -> Tensor:
    """The input itself (unary ``+``); RuntimeError for bool, as PyTorch."""
    _tensor_arg("positive", input)
    if input._data.dtype == np.bool_:
        raise RuntimeError(
            "The `+` operator, on a bool tensor is not supported; convert it first, e.g. "
            "input.int()"
        )
    return input


def adjoint(input) -> Tensor:
    """The conjugate transpose of the last two dims: for a real tensor, ``transpose(-2, -1)``."""
    _tensor_arg("adjoint", input)
    if input.dim() < 2:
        raise RuntimeError(
            f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
            f"{input.dim()}-D tensor; use .t() or unsqueeze a dimension first"
        )
    return input.transpose(-2, -1)


def get_device(input) -> int:
    """-1: the index PyTorch gives a CPU tensor."""
    _tensor_arg("get_device", input)
    return -1


def is_distributed(input) -> bool:
    """False: leafgrad tensors are never distributed."""
    _tensor_arg("is_distributed", input)
    return False


def is_storage(obj) -> bool:
    """Whether ``obj`` is a storage (``x.untyped_storage()``), not a tensor."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


def _no_complex(op: str):
    def refuse(*args, **kwargs):
        raise RuntimeError(
            f"{op}: leafgrad has no complex dtype, so it cannot make or read complex tensors; "
            "keep the real and imaginary parts as two real tensors (or a trailing dim of 2)"
        )

    refuse.__name__ = refuse.__qualname__ = op
    refuse.__doc__ = f"RuntimeError: ``{op}`` needs complex tensors, which leafgrad lacks."
    return refuse


polar = _no_complex("polar")
complex = _no_complex("complex")
view_as_real = _no_complex("view_as_real")
view_as_complex = _no_complex("view_as_complex")


__all__ = [
    "is_complex", "is_signed", "is_same_size", "is_nonzero", "is_conj", "is_neg", "conj",
    "resolve_conj", "resolve_neg", "real", "imag", "isreal", "positive", "adjoint",
    "get_device", "is_distributed", "is_storage", "polar", "complex", "view_as_real",
    "view_as_complex",
]  # fmt: skip
