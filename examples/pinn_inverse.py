"""An inverse problem: learn the diffusivity k of u_t = k u_xx from noisy measurements of u.

    python examples/pinn_inverse.py            # toy size, seconds
    python examples/pinn_inverse.py --full     # a bigger network and more steps (minutes)

The coefficient is a trainable leaf tensor (log k, so k stays positive) that the residual
uses; the measurements are a PointData condition. The trainer fits the network and k
together. Exact solution: u = exp(-k pi^2 t) sin(pi x), with k = 0.1.
"""

import math
import sys

import numpy as np

import leafgrad as torch
from leafgrad import pinn

K_TRUE = 0.1
geometry = pinn.SpaceTime(pinn.Interval(0.0, 1.0), pinn.TimeDomain(0.0, 1.0))


def exact(p):
    return (np.exp(-K_TRUE * np.pi**2 * p[:, 1]) * np.sin(np.pi * p[:, 0])).reshape(-1, 1)


def make_problem(observations=300, noise=0.01, seed=0):
    rng = np.random.default_rng(seed)
    points = geometry.interior_points(observations, method="uniform", seed=rng)
    values = exact(points) * (1 + noise * rng.standard_normal((observations, 1)))
    # log k starts five times too large. The residual reads it from this dict when it runs:
    # the trainer puts its own trainable copy there.
    parameters = {"log_k": torch.tensor(math.log(0.5), dtype=torch.float64)}

    def residual(x, u):
        k = torch.exp(parameters["log_k"])
        return pinn.partial(u, x, 1) - k * pinn.partial(u, x, 0, 0)

    return pinn.Problem(
        name="heat-inverse",
        geometry=geometry,
        residual=residual,
        conditions=[pinn.PointData(points, values, geometry=geometry, name="data")],
        columns=("x", "t"),
        grid=lambda: {"x": np.linspace(0, 1, 51), "t": np.linspace(0, 1, 51)},
        exact=exact,
        parameters=parameters,
        true_parameters={"k": K_TRUE},
        report=lambda p: {"k": math.exp(p["log_k"])},
    )


if __name__ == "__main__":
    full = "--full" in sys.argv[1:]
    if full:
        settings = dict(width=20, depth=3, collocation=1000, adam_steps=3000, lbfgs_steps=1000)
    else:
        settings = dict(width=12, depth=2, collocation=128, adam_steps=60, lbfgs_steps=30)
    trainer = pinn.solve(make_problem(), seed=0, progress=full, **settings)
    k = trainer.learned_coefficients()["k"]
    assert math.isfinite(k) and 0 < k < 0.5  # it moved towards the truth
    print(f"learned k = {k:.4f} (true {K_TRUE}, started at 0.5) after {trainer.step} steps")
    print(f"relative L2 error of u: {trainer.relative_l2():.3e}")
