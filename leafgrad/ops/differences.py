"""Finite differences and power tables: ``gradient`` and ``vander``, composed of primitives.

Being compositions they differentiate to any order. ``gradient`` uses second-order central
differences inside and one-sided differences of order ``edge_order`` at the ends, on a
uniform spacing or on given coordinates (NumPy's formulas, as PyTorch's).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim, _wrap
from .cumulative import cumprod
from .joining import cat
from .reorder import flip


def _tensor(value, op: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(value).__name__}")
    return value


@public(method=False)
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """Columns ``x**(N-1), ..., x, 1`` (or ascending powers with ``increasing``); x: (n,).

    Integer and bool inputs give int64, as PyTorch.
    """
    _tensor(x, "vander")
    if x.dim() != 1:
        raise RuntimeError(
            f"x must be a one-dimensional tensor. vander got a {x.dim()}-D tensor; flatten it"
        )
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError(f"N must be non-negative. vander got N={n}")
    if not x.is_floating_point():
        x = x.to(_dtype.int64)
    ones = _wrap(np.ones((x.shape[0], min(n, 1)), dtype=x._data.dtype))
    if n > 1:
        powers = cumprod(x.unsqueeze(1).expand(x.shape[0], n - 1), 1)
        table = cat([ones, powers], 1)
    else:
        table = ones if n else x.unsqueeze(1)[:, :0]
    return table if increasing else flip(table, 1)


def _dims(input: Tensor, dim) -> list:
    ndim = input.dim()
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    out = [_normalize_dim(d, ndim, "gradient") for d in dims]
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def _spacings(spacing, dims: list, given_dim: bool) -> list:
    """One entry per dim: a number (uniform step) or a 1-D tensor of coordinates."""
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, Tensor):
        raise TypeError(
            "gradient(): spacing must be a number or a list/tuple of numbers or 1-D tensors, "
            "not a Tensor; wrap the coordinates in a tuple: spacing=(coords,)"
        )
    if not isinstance(spacing, (list, tuple)):
        return [spacing] * len(dims)
    if len(spacing) != len(dims):
        which = "len(dim)" if given_dim else f"'self.dim() = {len(dims)}'"
        raise RuntimeError(
            f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to {which}, but got a list of length {len(spacing)}"
        )
    for s in spacing:
        if isinstance(s, Tensor) and s.dim() != 1:
            raise RuntimeError(
                "torch.gradient expected each element of spacing to have one dimension, but got "
                f"an element with {s.dim()} dimensions!"
            )
    return list(spacing)


def _along(coef: Tensor, d: int, ndim: int) -> Tensor:
    """A 1-D coefficient shaped to broadcast along dim ``d`` of an ``ndim``-D tensor."""
    return coef.reshape((-1,) + (1,) * (ndim - 1 - d))


def _uniform(f: Tensor, d: int, h, edge_order: int) -> Tensor:
    n = f.shape[d]
    inner = (f.narrow(d, 2, n - 2) - f.narrow(d, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (f.narrow(d, 1, 1) - f.narrow(d, 0, 1)) / h
        last = (f.narrow(d, n - 1, 1) - f.narrow(d, n - 2, 1)) / h
    else:
        f0, f1, f2 = (f.narrow(d, i, 1) for i in (0, 1, 2))
        g0, g1, g2 = (f.narrow(d, i, 1) for i in (n - 3, n - 2, n - 1))
        first = (-1.5 * f0 + 2 * f1 - 0.5 * f2) / h
        last = (0.5 * g0 - 2 * g1 + 1.5 * g2) / h
    return cat([first, inner, last], d)


def _coordinates(f: Tensor, d: int, x: Tensor, edge_order: int) -> Tensor:
    n, ndim = f.shape[d], f.dim()
    if x.shape[0] != n:
        raise RuntimeError(
            f"torch.gradient: the coordinates along dim {d} have {x.shape[0]} entries but the "
            f"input has size {n} there; give one coordinate per entry"
        )
    dx = x[1:] - x[:-1]
    hl, hr = dx[:-1], dx[1:]
    a = _along(-hr / (hl * (hl + hr)), d, ndim)
    b = _along((hr - hl) / (hl * hr), d, ndim)
    c = _along(hl / (hr * (hl + hr)), d, ndim)
    inner = a * f.narrow(d, 0, n - 2) + b * f.narrow(d, 1, n - 2) + c * f.narrow(d, 2, n - 2)
    if edge_order == 1:
        first = (f.narrow(d, 1, 1) - f.narrow(d, 0, 1)) / dx[0]
        last = (f.narrow(d, n - 1, 1) - f.narrow(d, n - 2, 1)) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        first = (
            -(2 * h1 + h2) / (h1 * (h1 + h2)) * f.narrow(d, 0, 1)
            + (h1 + h2) / (h1 * h2) * f.narrow(d, 1, 1)
            - h1 / (h2 * (h1 + h2)) * f.narrow(d, 2, 1)
        )
        h1, h2 = dx[-2], dx[-1]
        last = (
            h2 / (h1 * (h1 + h2)) * f.narrow(d, n - 3, 1)
            - (h1 + h2) / (h1 * h2) * f.narrow(d, n - 2, 1)
            + (2 * h2 + h1) / (h2 * (h1 + h2)) * f.narrow(d, n - 1, 1)
        )
    return cat([first, inner, last], d)


@public(method=False)
def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """The derivative estimate of ``input`` along each of ``dim`` (all dims by default).

    ``spacing``: one number for every dim, a number per dim, or a 1-D tensor of coordinates
    per dim. Integer inputs give the default float dtype.
    """
    _tensor(input, "gradient")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims(input, dim)
    steps = _spacings(spacing, dims, dim is not None)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1; "
                f"dim {d} has size {input.shape[d]} (edge_order={edge_order})"
            )
    out = []
    for d, h in zip(dims, steps):
        if isinstance(h, Tensor):
            out.append(_coordinates(input, d, h, edge_order))
        else:
            out.append(_uniform(input, d, h, edge_order))
    return tuple(out)


__all__ = exports(globals())
