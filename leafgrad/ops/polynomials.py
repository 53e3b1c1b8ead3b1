"""The orthogonal polynomials of ``torch.special``: ``p(input, n)`` for the degree ``n`` (a
tensor or a number; broadcast with ``input``), evaluated with SciPy.

As PyTorch's: ``n`` is truncated to an integer, a negative degree gives 0, integer inputs give
the default float dtype, and the results never require grad (PyTorch defines no derivative).
Chebyshev polynomials of the third and fourth kind, which SciPy lacks, follow from the second:
``V_n = U_n - U_{n-1}`` and ``W_n = U_n + U_{n-1}``; the shifted ones are the plain ones at
``2x - 1``.
"""

from __future__ import annotations

import numpy as np
import scipy.special as sp

from ._optable import NonDifferentiable
from ._primitive import primitive


def _chebyshev_v(n, x):
    return sp.eval_chebyu(n, x) - np.where(n > 0, sp.eval_chebyu(np.maximum(n - 1, 0), x), 0)


def _chebyshev_w(n, x):
    return sp.eval_chebyu(n, x) + np.where(n > 0, sp.eval_chebyu(np.maximum(n - 1, 0), x), 0)


def _shifted(p):
    return lambda n, x: p(n, x + x - 1)


def _polynomial(name: str, evaluate):
    """``evaluate(n, x)`` on float64 arrays (``n`` integral, non-negative) as PyTorch's op."""

    def forward(x, n):
        # The machinery cast the tensor operands to the result dtype; a number stays a number.
        dtype = (x if isinstance(x, np.ndarray) else n).dtype
        x, n = np.broadcast_arrays(np.asarray(x), np.asarray(n))
        degree = np.trunc(n).astype(np.int64)  # PyTorch casts the degree to int64
        out = evaluate(np.maximum(degree, 0), x.astype(np.float64))
        return np.where(degree < 0, 0.0, out).astype(dtype, copy=False)

    return primitive(
        f"special_{name}",
        forward,
        kind=NonDifferentiable(),
        dtype_rule="float",
        broadcast=True,
        scalars=True,
    )


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", sp.eval_chebyt)
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", sp.eval_chebyu)
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _chebyshev_v)
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _chebyshev_w)
shifted_chebyshev_polynomial_t = _polynomial(
    "shifted_chebyshev_polynomial_t", _shifted(sp.eval_chebyt)
)
shifted_chebyshev_polynomial_u = _polynomial(
    "shifted_chebyshev_polynomial_u", _shifted(sp.eval_chebyu)
)
shifted_chebyshev_polynomial_v = _polynomial(
    "shifted_chebyshev_polynomial_v", _shifted(_chebyshev_v)
)
shifted_chebyshev_polynomial_w = _polynomial(
    "shifted_chebyshev_polynomial_w", _shifted(_chebyshev_w)
)
hermite_polynomial_h = _polynomial("hermite_polynomial_h", sp.eval_hermite)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", sp.eval_hermitenorm)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", sp.eval_laguerre)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", sp.eval_legendre)

# Only in torch.special (leafgrad/special.py), as in PyTorch: not leafgrad.<name>.
__all__ = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
]
