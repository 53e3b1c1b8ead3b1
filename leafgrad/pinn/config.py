"""Every setting of a PINN training run, checked, with per-problem defaults and presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import float32, float64
from .operators import METHODS
from .sampling import METHODS as SAMPLERS

DTYPES = {"float32": float32, "float64": float64}


@dataclass
class TrainConfig:
    """Every setting of a run; saved in checkpoints and ``metrics.json``."""

    width: int = 20
    depth: int = 4
    activation: str = "tanh"
    collocation: int = 2000
    boundary: int = 200  # points per boundary/initial condition without its own n
    sampler: str = "lhs"
    resample_every: int = 0  # draw new collocation points every K Adam steps (0: never)
    # ... and every K L-BFGS steps, restarting L-BFGS's memory (its curvature pairs belong to
    # the old points).
    lbfgs_resample_every: int = 0
    # "uniform": fresh points from the sampler; "rad": residual-based adaptive distribution
    # (Wu et al. 2023): from 8x as many candidates, keep points with probability
    # proportional to |residual| / mean|residual| + 1, so they gather where the PDE is missed.
    resample: str = "uniform"
    adam_steps: int = 2000
    lr: float = 1e-3
    lr_decay: float = 1.0  # Adam's learning rate is multiplied by this every 1000 steps
    lbfgs_steps: int = 1000
    lbfgs_history: int = 50
    method: str = "taylor"  # how derivatives are taken: "taylor" (faster) or "reverse"
    dtype: str = "float64"
    seed: int = 0
    hard_constraints: bool = False
    pde_weight: float = 1.0
    # Causal weighting (Wang, Sankaran & Perdikaris 2024, "Respecting causality"): the PDE
    # loss is averaged over `causal_bins` time slices, slice k weighted by
    # exp(-causal * (sum of the earlier slices' losses)), so later times are fitted only once
    # earlier ones are. 0: off. Needs an input column named "t".
    causal: float = 0.0
    causal_bins: int = 32
    tol: float = 0.0  # stop once the total loss is below this
    checkpoint_every: int = 500
    time_limit: float = 0.0  # seconds; 0: none

    def validate(self) -> None:
        positive = ("width", "depth", "collocation", "boundary", "lbfgs_history", "causal_bins")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"TrainConfig: {name} must be positive, got {getattr(self, name)}")
        counts = ("adam_steps", "lbfgs_steps", "resample_every", "lbfgs_resample_every",
                  "checkpoint_every")  # fmt: skip
        for name in counts:
            if getattr(self, name) < 0:
                raise ValueError(f"TrainConfig: {name} must be >= 0, got {getattr(self, name)}")
        if self.resample not in ("uniform", "rad"):
            raise ValueError(
                f"TrainConfig: resample must be 'uniform' or 'rad', not {self.resample!r}"
            )
        if self.sampler not in SAMPLERS:
            raise ValueError(
                f"TrainConfig: sampler must be one of {SAMPLERS}, got {self.sampler!r}"
            )
        if self.method not in METHODS:
            raise ValueError(f"TrainConfig: method must be one of {METHODS}, got {self.method!r}")
        if self.dtype not in DTYPES:
            raise ValueError(
                f"TrainConfig: dtype must be one of {tuple(DTYPES)}, got {self.dtype!r}"
            )
        if not self.causal >= 0:
            raise ValueError(f"TrainConfig: causal must be >= 0, got {self.causal}")
        if not self.lr > 0:
            raise ValueError(f"TrainConfig: lr must be positive, got {self.lr}")

    @classmethod
    def for_problem(cls, problem, preset: str | None = None, **overrides) -> TrainConfig:
        """The problem's defaults, then a named preset's, then ``overrides`` (None: skipped)."""
        settings = dict(problem.defaults)
        if preset is not None:
            if preset not in problem.presets:
                raise ValueError(
                    f"{problem.name}: unknown preset {preset!r}; presets: {sorted(problem.presets)}"
                )
            settings.update(problem.presets[preset])
        settings.update({k: v for k, v in overrides.items() if v is not None})
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(settings) - names)
        if unknown:
            raise ValueError(f"TrainConfig: unknown settings {unknown}")
        config = cls(**settings)
        config.validate()
        return config
