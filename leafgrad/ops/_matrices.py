"""Shared by the matrix families (solvers, determinants, decompositions, matrix functions):
argument checks with PyTorch's error types, ``LinAlgError``, and small Tensor helpers that the
derivative rules are written with (leafgrad ops, so the rules stay differentiable; ``mT``,
``eye``, ``diag_embed``, ``as_column`` and ``from_column`` also take a plain rule's arrays)."""

from __future__ import annotations

import numpy as np

from .._batched import all_values
from .._tensor import Tensor
from ._plain import operand, values_of
from .reorder import transpose
from .shape import unsqueeze


class LinAlgError(RuntimeError):
    """A factorization or solve failed (singular, not positive-definite): PyTorch's
    ``torch.linalg.LinAlgError``, a RuntimeError (its class calls itself ``_LinAlgError``)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


# ----- checks -----


def check_tensor(op: str, x, name: str = "A") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, not {type(x).__name__}")


_HALF_CHECKED_FIRST = frozenset({
    "linalg.inv", "linalg.inv_ex", "linalg.slogdet", "logdet", "linalg.pinv", "linalg.lstsq",
    "linalg.matrix_rank", "linalg.matrix_norm", "linalg.lu_solve",
})  # fmt: skip


def check_float(op: str, *tensors) -> None:
    """float32 or float64 only (PyTorch's CPU kernels refuse integers and half precision)."""
    for x in tensors:
        kind, size = x._data.dtype.kind, x._data.dtype.itemsize
        if kind != "f":
            raise RuntimeError(
                f"{op}: expected a floating point tensor, got {x.dtype}; convert with .float() "
                "or .double() first"
            )
        if size < 4:
            # PyTorch's LAPACK kernels have no half loops (NotImplementedError); the
            # functions that check the dtype first raise RuntimeError
            error = RuntimeError if op in _HALF_CHECKED_FIRST else NotImplementedError
            raise error(f"{op}: low precision dtypes are not supported, got {x.dtype}")
    if len({x._data.dtype for x in tensors}) > 1:
        names = " and ".join(str(x.dtype) for x in tensors)
        raise RuntimeError(f"{op}: expected inputs of one dtype, got {names}")


def check_matrix(op: str, x: Tensor, name: str = "A") -> None:
    check_tensor(op, x, name)
    if x._data.ndim < 2:
        raise RuntimeError(
            f"{op}: {name} must have at least 2 dimensions (a matrix or a batch of them), got "
            f"shape {list(x._data.shape)}"
        )


def check_square(op: str, x: Tensor, name: str = "A") -> None:
    check_matrix(op, x, name)
    m, n = x._data.shape[-2:]
    if m != n:
        raise RuntimeError(
            f"{op}: {name} must be batches of square matrices, but they are {m} by {n} matrices"
        )


def check_linalg(op: str, A: Tensor, *, square: bool = True) -> None:
    """A (batch of) square (or any) float32/float64 matrix."""
    (check_square if square else check_matrix)(op, A)
    check_float(op, A)


def batch_shape(op: str, *shapes) -> tuple:
    """The broadcast batch shape of several ``(*, m, n)`` shapes; RuntimeError if none."""
    try:
        return np.broadcast_shapes(*(s[:-2] for s in shapes))
    except ValueError:
        batches = " and ".join(str(list(s[:-2])) for s in shapes)
        raise RuntimeError(f"{op}: batch dimensions {batches} do not broadcast") from None


def failure(op: str, infos: np.ndarray, text) -> LinAlgError:
    """LinAlgError for the first failed matrix (``text(info)`` says why), naming its batch
    element as PyTorch does when there is a batch."""
    flat = infos.reshape(-1)
    first = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {first}): " if infos.ndim else ""
    return LinAlgError(f"{op}: {where}{text(int(flat[first]))}")


# ----- helpers for rules (Tensor in, Tensor out, differentiable) -----


def mT(x: Tensor) -> Tensor:
    # The function, not the method: ndarray.transpose(-2, -1) would permute, not swap.
    return transpose(x, -2, -1)


def eye(n: int, like: Tensor) -> Tensor:
    """The identity in ``like``'s dtype, an operand beside it (an array in a plain rule)."""
    return operand(np.eye(n, dtype=values_of(like).dtype), like)


def diag_embed(v: Tensor) -> Tensor:
    """``(*, n)`` -> ``(*, n, n)`` with ``v`` on the diagonal."""
    return unsqueeze(v, -1) * eye(v.shape[-1], v)


def absent(grad) -> bool:
    """Whether an output's gradient is a zero that no graph produced: the engine's stand-in
    for an output that got no gradient, so a rule may take PyTorch's shortcut for it."""
    # all_values: a gradient batched under vmap (jacrev's rows) is absent in every example
    return grad is None or (not grad.requires_grad and not all_values(grad).any())


def as_column(x: Tensor, vector: bool) -> Tensor:
    return unsqueeze(x, -1) if vector else x


def from_column(x: Tensor, vector: bool) -> Tensor:
    return x.squeeze(-1) if vector else x


def is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """PyTorch's rule: B is a (batch of) vector(s) when 1-D, or when its shape is A's batch
    shape and one size more."""
    b, a = B._data.shape, A._data.shape
    return len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])
