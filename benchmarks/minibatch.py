"""A PINN trained in minibatches through a ``DataLoader``, as many public scripts are.

Timing public PyTorch PINN programs against PyTorch (session 39) found one pattern the other
workloads miss: the collocation points in a ``TensorDataset`` behind a shuffled
``DataLoader``, one optimiser step per batch. Fetching a batch sample by sample cost 4x
PyTorch's there; this workload keeps that path measured.
"""

from __future__ import annotations

from .workloads import Workload, _rng, _tensor, two_hidden


def pinn_minibatch(n: int = 5000, batch: int = 1000) -> Workload:
    """The heat equation's residual ``u_t - 0.1 u_xx`` over ``n`` points in shuffled batches
    of ``batch``: ``nn.Sequential`` 2 -> 32 -> 32 -> 1 tanh, ``grad(grad_outputs=ones_like)``
    twice, ``MSELoss``, Adam, float32. One step is one epoch."""

    def make(lib):
        lib.manual_seed(0)
        model = two_hidden(lib, 2, 32, "Tanh")
        points = _tensor(lib, _rng(2).uniform(0, 1, (n, 2)), "float32")
        data = lib.utils.data.TensorDataset(points)
        loader = lib.utils.data.DataLoader(data, batch_size=batch, shuffle=True)
        opt = lib.optim.Adam(model.parameters(), lr=1e-3)
        mse = lib.nn.MSELoss()

        def step():
            for (xt,) in loader:
                xt.requires_grad_(True)
                opt.zero_grad()
                u = model(xt)
                (g,) = lib.autograd.grad(u, xt, lib.ones_like(u), create_graph=True)
                u_x, u_t = g[:, 0:1], g[:, 1:2]
                (h,) = lib.autograd.grad(u_x, xt, lib.ones_like(u_x), create_graph=True)
                r = u_t - 0.1 * h[:, 0:1]
                mse(r, lib.zeros_like(r)).backward()
                opt.step()

        return step

    return Workload(
        "pinn-minibatch",
        f"heat residual in shuffled DataLoader batches of {batch} from a TensorDataset of "
        f"{n} points, nn.Sequential 2 -> 32x2 -> 1 tanh, nested grad, MSELoss, Adam per batch, "
        "float32; a step is an epoch",
        {"n": n, "batch": batch, "dtype": "float32"},
        {"torch": make, "leafgrad": make},
    )
