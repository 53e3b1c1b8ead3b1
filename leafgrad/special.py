"""``torch.special``: PyTorch's names for the special functions, differentiable where
PyTorch's are (the Bessel functions j, y, k and the scaled k are not, as in PyTorch).

The kernels live in ``leafgrad.ops`` (``special.py``, ``gamma.py``, and the existing erf,
sigmoid, softmax ...); integer inputs promote to the default float dtype. The orthogonal
polynomials (``chebyshev_polynomial_t`` ...) live in ``ops/polynomials.py``.
"""

from __future__ import annotations

from .ops.composites import erfinv, exp2, sinc
from .ops.elementwise import erf, erfc, expm1, log1p
from .ops.elementwise import sigmoid as expit
from .ops.gamma import digamma, igamma, igammac, lgamma, mvlgamma, polygamma, zeta
from .ops.piecewise import special_round as round
from .ops.polynomials import *  # noqa: F403
from .ops.polynomials import __all__ as _polynomials
from .ops.softmax import log_softmax, logsumexp, softmax
from .ops.special import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    entr,
    erfcx,
    i0,
    i0e,
    i1,
    i1e,
    log_ndtr,
    logit,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    ndtr,
    ndtri,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
    xlog1py,
    xlogy,
)

psi = digamma
gammaln = lgamma
multigammaln = mvlgamma
gammainc = igamma
gammaincc = igammac

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
    *_polynomials,
]
