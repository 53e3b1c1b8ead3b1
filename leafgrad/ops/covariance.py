"""Covariance, correlation and distance: ``cov``, ``corrcoef``, ``dist``, composed of
differentiable ops (so every derivative order comes free)."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._exposure import exports, public
from .._tensor import Tensor
from .._warn import warn_at_user
from ._inputs import _check_tensors, scalar_type


def _check_weights(w, name: str, n: int, integral: bool):
    if w is None:
        return None
    if w._data.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w._data.ndim} dimensions"
        )
    if w._data.size != n:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w._data.size} != {n}"
        )
    kind = w._data.dtype.kind
    if integral and kind not in "iu":
        raise RuntimeError(
            f"cov(): expected {name} to have integral dtype but got {name} with "
            f"{scalar_type(w)} dtype"
        )
    if not integral and kind != "f":
        raise RuntimeError(
            f"cov(): expected {name} to have floating point dtype but got {name} with "
            f"{scalar_type(w)} dtype"
        )
    if np.any(w._data < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return w


@public()
def cov(input: Tensor, *, correction: int = 1, fweights=None, aweights=None) -> Tensor:
    """Covariance of the rows of ``input`` (variables) over its columns (observations); a
    1-D input is one variable (a 0-D result). ``fweights`` (integers) repeat observations,
    ``aweights`` (floats) weigh them; ``correction=1`` is Bessel's."""
    if input._data.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    if input._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input; convert it first")
    x = input if input._data.ndim == 2 else input.reshape(1, -1)
    if not input.is_floating_point():
        x = x.to(_dtype.get_default_dtype())
    n = x._data.shape[1]
    fweights = _check_weights(fweights, "fweights", n, integral=True)
    aweights = _check_weights(aweights, "aweights", n, integral=False)
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        mean = x.mean(1, keepdim=True)
        factor = x.new_tensor(float(n - correction))
    else:
        w = w.to(x.dtype)
        total = w.sum()
        mean = (x * w).sum(1, keepdim=True) / total
        if correction == 0:
            factor = total
        elif aweights is None:
            factor = total - correction
        else:
            factor = total - correction * (w * aweights.to(x.dtype)).sum() / total
    if factor.item() <= 0:
        warn_at_user(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations."
        )
        factor = factor * 0
    centred = x - mean
    weighted = centred if w is None else centred * w
    out = weighted.matmul(centred.t()) / factor
    return out.squeeze()  # as PyTorch: one variable gives a 0-D result


@public()
def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows of ``input`` (``cov`` normalised by the
    standard deviations, clipped to [-1, 1]); NaN for a constant row."""
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c.clamp(-1, 1)


@public()
def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), as a 0-D tensor."""
    _check_tensors("dist", input, other)
    diff = input - other
    if not diff.is_floating_point():
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got "
            f"{scalar_type(diff)} instead. Convert the inputs first (e.g. .float())"
        )
    return diff.norm(float(p))


__all__ = exports(globals())
