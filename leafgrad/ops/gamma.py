"""The gamma family: ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``, the Hurwitz
``zeta`` and the regularized incomplete gamma functions ``igamma`` / ``igammac``.

Forwards are SciPy's kernels, but digamma's and trigamma's, which are PyTorch's own
(``_digamma``); derivatives go up the family (``lgamma' = digamma``,
``polygamma(n)' = polygamma(n + 1)``), so every order is available. As in PyTorch, ``zeta``
has no derivative in its first argument and ``igamma`` / ``igammac`` none in ``a``: those
raise NotImplementedError in backward (and forward mode).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from . import _digamma
from ._optable import Composite, Generic
from ._primitive import _keeping_half, primitive, unary
from .elementwise import exp, log

_gammaln = _keeping_half(sp.gammaln)


def _lgamma_forward(x):
    """``log |gamma(x)|``; +inf at -inf, as the C library's lgamma (SciPy's gives -inf)."""
    out = _gammaln(x)
    if np.ndim(out):
        out[x == -np.inf] = np.inf
    elif x == -np.inf:
        out = out.dtype.type(np.inf)
    return out


lgamma = unary(
    "lgamma",
    _lgamma_forward,
    d1=lambda x: digamma(x),
    d2=lambda x: _polygamma(x, n=1),
    expose=public(inplace=True),
    plain_rules=True,
)

digamma = unary(
    "digamma",
    _digamma.digamma,
    d1=lambda x: _polygamma(x, n=1),
    d2=lambda x: _polygamma(x, n=2),
    expose=public(inplace=True),
    plain_rules=True,
)


def _polygamma_forward(x, *, n):
    if n <= 1:
        return _digamma.trigamma(x) if n else _digamma.digamma(x)
    return sp.polygamma(n, x).astype(x.dtype, copy=False)


_polygamma = unary(
    "polygamma",
    _polygamma_forward,
    d1=lambda x, *, n: _polygamma(x, n=n + 1),
    d2=lambda x, *, n: _polygamma(x, n=n + 2),
    plain_rules=True,
    metadata=("n",),
)


def _int_argument(op: str, name: str, value) -> int:
    """``value`` as an int, as PyTorch's int parameters take it (an int, a NumPy integer or
    an integer tensor of one element); TypeError for anything else, bools included."""
    if isinstance(value, Tensor) and value.numel() == 1 and value._data.dtype.kind in "iu":
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(value).__name__}")
    return int(value)


def _check_order(n) -> int:
    n = _int_argument("polygamma", "n", n)
    if n < 0:
        raise RuntimeError(f"polygamma: n must be a non-negative integer, got {n!r}")
    return n


@public(method=False)
def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of ``digamma`` (``n = 0``: digamma itself)."""
    return _polygamma(input, n=_check_order(n))


@public(function=False, method=("polygamma",), inplace_operators=("polygamma_",))
def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """``Tensor.polygamma(n)``: the tensor comes first here."""
    return _polygamma(self, n=_check_order(n))


@public(inplace=True)
def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``:
    ``sum_{i<p} lgamma(x - i/2) + p (p - 1) / 4 log(pi)``."""
    p = _int_argument("mvlgamma", "p", p)
    if p < 1:
        raise RuntimeError(f"mvlgamma: p must be at least 1, got {p}")
    if not input.dtype.is_floating_point:
        input = input.float()
    return _mvlgamma(input, p=p)


def _offsets(p: int, dtype) -> np.ndarray:
    """``-(p - 1) / 2, ..., -1/2, 0``: PyTorch's ``arange(-p / 2 + 0.5, 0.5, 0.5)``."""
    return np.arange(-p / 2 + 0.5, 0.5, 0.5, dtype=dtype)


def _mvlgamma_forward(x, *, p):
    """PyTorch's: ``lgamma(offsets + x)`` summed over the offsets, plus ``p (p - 1) / 4
    log(pi)``."""
    terms = _lgamma_forward(_offsets(p, x.dtype) + x[..., None])
    return (terms.sum(-1) + p * (p - 1) * math.log(math.pi) / 4).astype(x.dtype, copy=False)


def _shifted(x, p: int):
    """``offsets + x``, a tensor with the offsets on a new last dim (PyTorch's ``args``)."""
    return _wrap(_offsets(p, x._data.dtype)) + x.unsqueeze(-1)


def _mvlgamma_composite(x, *, p):
    """``_mvlgamma_forward`` in leafgrad ops (Taylor mode, vmap)."""
    return lgamma(_shifted(x, p)).sum(-1) + p * (p - 1) * math.log(math.pi) / 4


def _mvlgamma_slope(x, p):
    """PyTorch's ``mvlgamma_backward`` factor: digamma of ``offsets + x``, summed, taken in
    place as there (its node saves a clone, which a second derivative meets)."""
    return _shifted(x, p).digamma_().sum(-1)


_mvlgamma = primitive(
    "mvlgamma",
    _mvlgamma_forward,
    (lambda grad, x, result, *, p: grad * _mvlgamma_slope(x, p),),
    kind=Composite(
        taylor_as=_mvlgamma_composite,
        jvp=lambda tx, x, result, *, p: tx * _mvlgamma_slope(x, p),
    ),
    saves=("self", "p"),
    node_name="MvlgammaBackward0",
    dtype_rule="keep",
)


def _not_implemented(name: str, argument: str):
    def rule(*args, **kwargs):
        raise NotImplementedError(
            f"the derivative for '{name}' with respect to {argument} is not implemented (nor "
            "is it in PyTorch)"
        )

    return rule


def _zeta_forward(x, q):
    dtype = np.result_type(x, q)
    return np.asarray(sp.zeta(x, q)).astype(dtype, copy=False)


def _zeta_q(grad, x, q, *, result):
    return grad * -x * zeta(x + 1, q)


def _zeta_jvp(tx, tq, x, q, *, result):
    if tx is not None:
        _not_implemented("zeta", "its first argument")()
    return None if tq is None else _zeta_q(tq, x, q, result=result)


_zetas = [
    primitive(
        "special_zeta",
        _zeta_forward,
        (_not_implemented("zeta", "its first argument"), _zeta_q),
        kind=Generic(jvp=_zeta_jvp),
        overload=overload,
        saves=("self", "other"),
        node_name=f"SpecialZetaBackward{i}",
        dtype_rule="float",
        broadcast=True,
        scalars=True,
        plain_rules=True,
    )
    for i, overload in enumerate(("", "self_scalar", "other_scalar"))
]


def zeta(input, other) -> Tensor:
    """The Hurwitz zeta function ``sum_k (k + other)^-input``; either may be a number."""
    if not isinstance(input, Tensor):
        return _zetas[1](input, other)
    return _zetas[0 if isinstance(other, Tensor) else 2](input, other)


def _igamma_density(a, x):
    """``d igamma(a, x) / dx = x^(a-1) e^-x / Gamma(a)``."""
    log_gamma = lgamma(a) if isinstance(a, Tensor) else math.lgamma(a)
    return exp((a - 1) * log(x) - x - log_gamma)


def _igamma_x(sign):
    def rule(grad, a, x, *, result):
        return grad * (sign * _igamma_density(a, x))

    return rule


def _igamma_jvp(name, sign):
    def jvp(ta, tx, a, x, *, result):
        if ta is not None:
            _not_implemented(name, "a")()
        return None if tx is None else tx * (sign * _igamma_density(a, x))

    return jvp


igamma = primitive(
    "igamma",
    _keeping_half(sp.gammainc),
    (_not_implemented("igamma", "a"), _igamma_x(1.0)),
    kind=Generic(jvp=_igamma_jvp("igamma", 1.0)),
    saves=("self", "other"),
    dtype_rule="float",
    broadcast=True,
    expose=public(inplace=True),
)
igammac = primitive(
    "igammac",
    _keeping_half(sp.gammaincc),
    (_not_implemented("igammac", "a"), _igamma_x(-1.0)),
    kind=Generic(jvp=_igamma_jvp("igammac", -1.0)),
    saves=("self", "other"),
    dtype_rule="float",
    broadcast=True,
    expose=public(inplace=True),
)

__all__ = exports(globals())
