"""Burgers' equation written with leafgrad.pinn: the problem `leafgrad solve burgers` solves.

    python examples/pinn_burgers.py           # toy size, seconds
    python examples/pinn_burgers.py --full    # the settings that solve it (minutes)

u_t + u u_x = nu u_xx on x in [-1, 1], t in [0, 1], u(x, 0) = -sin(pi x), u(+-1, t) = 0,
nu = 0.01 / pi. The error is measured against the benchmark's Cole-Hopf reference.
"""

import sys

import numpy as np

from leafgrad import pinn

NU = 0.01 / np.pi
geometry = pinn.SpaceTime(pinn.Interval(-1.0, 1.0), pinn.TimeDomain(0.0, 1.0))


def residual(x, u):
    """u_t + u u_x - nu u_xx, columns of x named by index: 0 is x, 1 is t."""
    u_x = pinn.partial(u, x, 0)
    return pinn.partial(u, x, 1) + u * u_x - NU * pinn.partial(u, x, 0, 0)


problem = pinn.Problem(
    name="burgers-by-hand",
    geometry=geometry,
    residual=residual,
    conditions=[
        pinn.InitialCondition(geometry, lambda p: -np.sin(np.pi * p[:, 0]), name="initial"),
        pinn.DirichletBC(geometry, 0.0, name="boundary"),
    ],
    columns=("x", "t"),
    grid=lambda: {"x": np.linspace(-1, 1, 256), "t": np.linspace(0, 1, 100)},
    exact=pinn.problems.get("burgers").exact,
)

TOY = dict(width=8, depth=2, collocation=128, boundary=32, adam_steps=40, lbfgs_steps=20)
FULL = dict(width=20, depth=6, collocation=4000, boundary=200, adam_steps=2000, lr=2e-3,
            lbfgs_steps=2500)  # fmt: skip

if __name__ == "__main__":
    settings = FULL if "--full" in sys.argv[1:] else TOY
    trainer = pinn.solve(problem, seed=0, progress="--full" in sys.argv[1:], **settings)
    terms = {name: f"{values[-1]:.2e}" for name, values in trainer.history.terms.items()}
    print(f"{trainer.step} steps; last loss terms: {terms}")
    print(f"relative L2 error against the reference: {trainer.relative_l2():.3e}")
    print("u(x=0.5, t=0.25) =", float(trainer.predict(np.array([[0.5, 0.25]]))[0, 0]))
