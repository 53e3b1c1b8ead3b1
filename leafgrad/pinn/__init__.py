"""Physics-informed neural networks: derivative operators, geometry, conditions, training."""

from .operators import (
    Evaluation,
    divergence,
    grad,
    hessian,
    jacobian,
    laplacian,
    partial,
)

__all__ = ["Evaluation", "divergence", "grad", "hessian", "jacobian", "laplacian", "partial"]
