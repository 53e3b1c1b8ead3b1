"""Benchmark problems with exact or reference solutions, by name."""

from __future__ import annotations

from . import allen_cahn, burgers, heat1d, helmholtz2d, poisson2d, wave1d

PROBLEMS = {
    "burgers": burgers.make,
    "burgers-inverse": burgers.make_inverse,
    "poisson2d": poisson2d.make,
    "heat1d": heat1d.make,
    "wave1d": wave1d.make,
    "helmholtz2d": helmholtz2d.make,
    "allen-cahn": allen_cahn.make,
}


def get(name: str):
    """A fresh :class:`~leafgrad.pinn.problem.Problem` named ``name``."""
    if name not in PROBLEMS:
        raise KeyError(f"unknown problem {name!r}; problems: {', '.join(PROBLEMS)}")
    return PROBLEMS[name]()
