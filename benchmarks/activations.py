"""Burgers' residual step with the other activations PINN code uses (SiLU, sigmoid, softplus,
GELU), written the PyTorch way (nested ``autograd.grad``) and on the fused Taylor path.

The Burgers workloads are tanh networks; session 43 found these activations' steps slower
relative to PyTorch (SiLU's collapsed step 0.95x against tanh's 0.65x): the Taylor path's
SiLU and softplus derivatives took SciPy's ``expit`` (libm's exp, one element at a time)
and float64's exp passes NumPy's. These workloads keep those paths measured.
"""

from __future__ import annotations

from .workloads import _BURGERS_RESIDUALS, Workload, _rng, _tensor

ACTIVATIONS = ("SiLU", "Sigmoid", "Softplus", "GELU")


def _network(lib, activation: str, dtype: str):
    """``nn.Sequential`` 2 -> 32 x 4 -> 1 with ``activation`` after each hidden layer."""
    lib.manual_seed(0)
    layers = [lib.nn.Linear(2, 32), getattr(lib.nn, activation)()]
    for _ in range(3):
        layers += [lib.nn.Linear(32, 32), getattr(lib.nn, activation)()]
    return lib.nn.Sequential(*layers, lib.nn.Linear(32, 1)).to(getattr(lib, dtype))


def _method(activation: str, n: int, dtype: str, how: str):
    def make(lib):
        net = _network(lib, activation, dtype)
        x = _tensor(lib, _rng(1).uniform(-1, 1, (n, 2)), dtype, how == "nested")
        opt = lib.optim.Adam(net.parameters(), lr=1e-3)
        residual = _BURGERS_RESIDUALS[how]

        def step():
            opt.zero_grad()
            r = residual(lib, net, x)
            (r * r).mean().backward()
            opt.step()

        return step

    return make


def activation_step(activation: str, n: int, dtype: str) -> Workload:
    return Workload(
        f"activation-{activation.lower()}-{n}-{dtype}",
        f"Burgers residual step, 2 -> 32x4 -> 1 {activation} nn.Sequential, N={n}, "
        f"u_x u_t u_xx, Adam, {dtype}",
        {"n": n, "dtype": dtype, "activation": activation},
        {
            "torch-nested": _method(activation, n, dtype, "nested"),
            "leafgrad-nested": _method(activation, n, dtype, "nested"),
            "leafgrad-collapsed": _method(activation, n, dtype, "collapsed"),
        },
    )


def activation_steps(n: int = 10000) -> list:
    return [activation_step(a, n, dtype) for a in ACTIVATIONS for dtype in ("float64", "float32")]
