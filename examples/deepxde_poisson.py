"""DeepXDE's PyTorch backend on leafgrad: -u'' = pi^2 sin(pi x) on [-1, 1], u(+-1) = 0.

    DDE_BACKEND=pytorch leafgrad run examples/deepxde_poisson.py

Needs DeepXDE (pip install deepxde; tried with 1.15). The script is plain DeepXDE; under
`leafgrad run` its `import torch` gives leafgrad. Exact solution: u = sin(pi x).
"""

import deepxde as dde
import numpy as np


def pde(x, u):
    u_xx = dde.grad.hessian(u, x)
    return -u_xx - np.pi**2 * dde.backend.sin(np.pi * x)


def main():
    dde.config.set_random_seed(0)
    geometry = dde.geometry.Interval(-1, 1)
    boundary = dde.icbc.DirichletBC(geometry, lambda x: 0, lambda x, on_boundary: on_boundary)
    data = dde.data.PDE(
        geometry, pde, boundary, 32, 2, solution=lambda x: np.sin(np.pi * x), num_test=100
    )
    net = dde.nn.FNN([1, 16, 16, 1], "tanh", "Glorot uniform")
    model = dde.Model(data, net)
    model.compile("adam", lr=1e-3, metrics=["l2 relative error"])
    _, state = model.train(iterations=1000, display_every=500, verbose=0)
    x = np.linspace(-1, 1, 101).reshape(-1, 1)
    error = np.linalg.norm(model.predict(x) - np.sin(np.pi * x)) / np.linalg.norm(np.sin(np.pi * x))
    print(f"relative L2 error after {state.step} Adam steps: {error:.3e}")
    import torch  # why: to show which library DeepXDE ran on

    print("tensors from", type(torch.zeros(1)).__module__)


if __name__ == "__main__":
    main()
