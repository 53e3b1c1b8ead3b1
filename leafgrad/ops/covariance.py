"""Covariance, correlation and distance: ``cov`` and ``corrcoef``, composed of
differentiable ops (so every derivative order comes free), and ``dist``, one op
(DistBackward0, as PyTorch's) whose rules are the vector norm's applied to the difference."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._dtype import scalar_type_name
from .._exposure import exports, public
from .._tensor import Tensor
from .._warn import warn_at_user
from ._inputs import _check_tensors, scalar_type
from ._optable import Composite
from ._primitive import primitive
from ._reduce import _axes
from .statistics import _norm_forward, _norm_grad, _norm_jvp


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


def _dist_forward(x, y, *, p):
    diff = x - y
    return _norm_forward(diff, ord=p, dim=_axes(None, diff.ndim, "dist"), keepdim=False)


def _dist_grads(grad, x, y, *, result, needs, p):
    """The norm's gradient at ``x - y`` (its negative for ``other``); none at all for the
    0-"norm", a count (as the norm's)."""
    if p == 0:
        return None, None
    if type(grad) is np.ndarray:  # a plain rule: one difference for both
        g = _norm_grad(grad, x - y, result, ord=p, dim=None, keepdim=True)
        return (g if needs[0] else None), (-g if needs[1] else None)
    # PyTorch's formulas, each with its own ``self - other``, ``other``'s first (its
    # derivatives.yaml names sorted), norm_backward of every element (nothing unsqueezed).
    other = -_norm_grad(grad, x - y, result, ord=p, dim=None, keepdim=True) if needs[1] else None
    self = _norm_grad(grad, x - y, result, ord=p, dim=None, keepdim=True) if needs[0] else None
    return self, other


def _dist_jvp(tx, ty, x, y, result, *, p):
    t = tx if ty is None else (-ty if tx is None else tx - ty)
    diff = x - y
    return _norm_jvp(t, diff, result, ord=p, dim=_axes(None, diff.ndim, "dist"), keepdim=False)


_dist = primitive(
    "dist",
    _dist_forward,
    vjp_all=_dist_grads,
    kind=Composite(taylor_as=lambda x, y, *, p: (x - y).norm(p), jvp=_dist_jvp),
    inputs=("self", "other"),
    saves=("self", "other", "p", "result"),
    node_name="DistBackward0",
    broadcast=True,
    plain_rules=True,
)


@public()
def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), as a 0-D tensor."""
    _check_tensors("dist", input, other)
    dtype = _dtype.result_type(input, other)
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got "
            f"{scalar_type_name(dtype.np)} instead. Convert the inputs first (e.g. .float())"
        )
    return _dist(input, other, p=float(p))


__all__ = exports(globals())
