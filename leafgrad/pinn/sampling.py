"""Points in the unit cube [0, 1)^dim: random, Latin hypercube, quasi-random or a regular grid.

Geometries map these samples onto their domains, so every method works for every geometry.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
from scipy.stats import qmc

METHODS = ("uniform", "lhs", "sobol", "halton", "grid")

Seed = int | np.random.Generator | None

# SciPy 1.15 renamed the qmc engines' `seed` argument to `rng`; use whichever this SciPy has
# so neither old versions break nor new ones warn.
_QMC_RNG_KEYWORD = "rng" if "rng" in inspect.signature(qmc.Sobol).parameters else "seed"


def check_method(method: str) -> str:
    """Return ``method`` if it names a sampling method; raises ValueError listing the valid ones."""
    if method not in METHODS:
        raise ValueError(f"unknown sampling method {method!r}; valid methods are {METHODS}")
    return method


def grid_points_per_axis(n: int, dim: int) -> int:
    """The smallest k with k**dim >= n: the points per axis of the grid asked for with n."""
    k = max(1, round(n ** (1.0 / dim)))
    # The float root can land one off either way (8 ** (1/3) is 2.0000000000000004).
    while k**dim < n:
        k += 1
    while k > 1 and (k - 1) ** dim >= n:
        k -= 1
    return k


def sample_unit_cube(n: int, dim: int, method: str = "uniform", seed: Seed = None) -> np.ndarray:
    """Sample points in [0, 1)^dim: float64 array of shape (n, dim).

    Methods: ``"uniform"`` (independent uniform draws), ``"lhs"`` (Latin hypercube: in each
    dimension exactly one point per stratum [i/n, (i+1)/n)), ``"sobol"`` (scrambled Sobol'),
    ``"halton"`` (scrambled Halton), ``"grid"`` (regular, ignores ``seed``).

    ``"grid"`` returns k**dim points, not n: k = ceil(n ** (1/dim)) per axis (computed in
    integers), cell-centred at (i + 1/2) / k, so no point lies on the cube's faces.

    ``seed`` is None, an int (same int, same points) or a Generator (which is advanced).
    Raises ValueError for an unknown method or n < 1 or dim < 1.
    """
    check_method(method)
    n = _check_count(n, "sample_unit_cube")
    if isinstance(dim, bool) or int(dim) != dim or dim < 1:
        raise ValueError(f"sample_unit_cube: dim must be a positive integer, got {dim!r}")
    dim = int(dim)
    if method == "grid":
        return _cell_centred_grid(grid_points_per_axis(n, dim), dim)
    rng = np.random.default_rng(seed)
    if method == "uniform":
        return rng.random((n, dim))
    # SciPy's engines spawn child generators from a Generator's seed sequence, a counter its
    # saved state does not hold; seeding them from a draw keeps runs resumable from a state.
    rng = np.random.default_rng(rng.integers(2**63))
    if method == "lhs":
        return qmc.LatinHypercube(dim, **{_QMC_RNG_KEYWORD: rng}).random(n)
    if method == "halton":
        return qmc.Halton(dim, **{_QMC_RNG_KEYWORD: rng}).random(n)
    sobol = qmc.Sobol(dim, scramble=True, **{_QMC_RNG_KEYWORD: rng})
    if n & (n - 1) == 0:
        return sobol.random_base2(n.bit_length() - 1)
    # A prefix of any length is still well spread; the balance warning only says it is not
    # perfectly balanced, which callers asking for exactly n points accept.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*balance properties of Sobol.*")
        return sobol.random(n)


def _cell_centred_grid(k: int, dim: int) -> np.ndarray:
    """All k**dim cell centres of a k-per-axis grid on the unit cube; first axis varies slowest."""
    axis = (np.arange(k, dtype=np.float64) + 0.5) / k
    mesh = np.meshgrid(*([axis] * dim), indexing="ij")
    return np.stack([m.reshape(-1) for m in mesh], axis=1)


def _check_count(n: int, owner: str) -> int:
    """Return n as an int; raises ValueError naming ``owner`` unless n is a positive integer."""
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"{owner}: the number of points must be a positive integer, got {n!r}")
    return int(n)


__all__ = ["METHODS", "check_method", "grid_points_per_axis", "sample_unit_cube"]
