"""``var_mean`` and ``std_mean`` as one op each with two outputs, as PyTorch records them
(``VarMeanBackward0``, ``StdMeanBackward0``, saving ``self``, ``dim``, ``correction``,
``keepdim`` and std_mean its ``result0``): the variance's (or standard deviation's) and the
mean's rules of ``statistics.py`` and ``reduction.py`` added, for the outputs a gradient
reached.
"""

from __future__ import annotations

import numpy as np

from ._optable import Composite
from ._primitive import primitive
from ._tangents import tangent_sum
from .reduction import _mean_forward, _mean_grad, mean
from .statistics import _moment, _std_grad, _std_jvp, _var_backward, _var_forward, _var_jvp


def _mean_of(x, dim, keepdim):
    return mean(x, dim, keepdim=keepdim) if dim is not None else mean(x, keepdim=keepdim)


def _as_welford(x, mean, dim):
    """``mean`` as PyTorch's var_mean computes it, by Welford's update ``m += (v - m) / n``
    along each row: once an infinity has entered, any later value makes it NaN (``inf -
    inf``), so a row's mean stays infinite only when its infinity comes last."""
    if x.dtype.kind != "f" or x.ndim == 0:
        return mean
    infinite = np.isinf(mean)
    if not infinite.any():
        return mean
    axes = range(x.ndim) if dim is None or dim == () else np.atleast_1d(dim) % x.ndim
    axes = sorted(set(int(a) for a in axes))
    kept = [a for a in range(x.ndim) if a not in axes]
    rows = np.transpose(x, kept + axes).reshape([x.shape[a] for a in kept] + [-1])
    earlier = ~np.isfinite(rows[..., :-1]).all(-1)  # an infinity before the last value
    return np.where(infinite & earlier.reshape(np.shape(mean)), np.nan, mean).astype(mean.dtype)


def _spread_and_mean(name: str, spread_forward, spread_grad, spread_jvp, spread_op, saves):
    """var_mean or std_mean: ``spread`` (var or std) of ``x`` and its mean, one node."""

    def forward(x, *, dim, correction, keepdim):
        spread = spread_forward(x, dim=dim, correction=correction, keepdim=keepdim)
        return spread, _as_welford(x, _mean_forward(x, dim=dim, keepdim=keepdim), dim)

    def vjp_all(grads, x, *, result, needs, dim, correction, keepdim):
        g_spread, g_mean = grads
        spread = None if result is None else result[0]
        terms = (
            None
            if g_spread is None
            else spread_grad(g_spread, x, spread, dim, correction, keepdim),
            None if g_mean is None else _mean_grad(g_mean, x, None, dim=dim, keepdim=keepdim),
        )
        return (tangent_sum(*terms),)

    def jvp(tx, x, *, result, dim, correction, keepdim):
        params = {"dim": dim, "correction": correction, "keepdim": keepdim}
        return spread_jvp(tx, x, result[0], **params), _mean_of(tx, dim, keepdim)

    def taylor_as(x, *, dim, correction, keepdim):
        spread = spread_op(x, dim, correction=correction, keepdim=keepdim)
        return spread, _mean_of(x, dim, keepdim)

    return primitive(
        name,
        forward,
        vjp_all=vjp_all,
        kind=Composite(taylor_as=taylor_as, jvp=jvp),
        overload="correction",
        saves=saves,
        node_name="".join(part.capitalize() for part in name.split("_")) + "Backward0",
        dtype_rule="keep",
        num_outputs=2,
        materialize_grads=False,
    )


_var_mean = _spread_and_mean(
    "var_mean",
    _var_forward,
    lambda g, x, spread, dim, correction, keepdim: _var_backward(g, x, dim, correction, keepdim),
    _var_jvp,
    lambda x, *args, **kwargs: x.var(*args, **kwargs),
    ("self", "dim", "correction", "keepdim"),
)
_std_mean = _spread_and_mean(
    "std_mean",
    lambda x, **params: np.sqrt(_var_forward(x, **params)),
    lambda g, x, spread, dim, correction, keepdim: _std_grad(
        g, x, spread, dim=dim, correction=correction, keepdim=keepdim
    ),
    _std_jvp,
    lambda x, *args, **kwargs: x.std(*args, **kwargs),
    ("self", "result0", "dim", "correction", "keepdim"),
)


def var_mean(input, dim, unbiased, keepdim, correction) -> tuple:
    """The variance and the mean over ``dim`` (all when None), checked as ``var``'s."""
    return tuple(_moment("var_mean", _var_mean, input, dim, unbiased, keepdim, correction))


def std_mean(input, dim, unbiased, keepdim, correction) -> tuple:
    """The standard deviation and the mean over ``dim``, checked as ``std``'s."""
    return tuple(_moment("std_mean", _std_mean, input, dim, unbiased, keepdim, correction))
