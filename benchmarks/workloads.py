"""The workloads of ``python -m benchmarks``, each written once for any library.

A workload's ``methods`` map a method name to a factory ``make(lib) -> step``: the factory
builds the tensors, the step runs one iteration and returns nothing. ``lib`` is ``torch`` or
``leafgrad``; a method starting with ``torch-`` runs on PyTorch, the others on leafgrad
(``numpy-floor`` on NumPy alone: it takes leafgrad only to build the same values).
The first method is the reference the ratios are taken against. ``sequence=True`` marks a
workload whose steps change its state for good (the out-of-place update loop): its steps run
once each, in order, and are timed one by one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from . import floor

NU = 0.01 / np.pi


@dataclass
class Workload:
    """One benchmark: what it is, its sizes, and how each method runs one step."""

    name: str
    description: str
    config: dict
    methods: dict  # method name -> make(lib) -> step
    number: int = 1  # steps per timed sample (many for microsecond steps)
    sequence: int = 0  # > 0: a loop of this many state-changing steps, timed one by one
    notes: list = field(default_factory=list)


def _rng(seed=0):
    return np.random.default_rng(seed)


def _tensor(lib, array, dtype, requires_grad=False):
    return lib.tensor(np.asarray(array, dtype=dtype), requires_grad=requires_grad)


def _mlp_params(lib, sizes, dtype, seed=0, requires_grad=True):
    rng = _rng(seed)
    return [
        (
            _tensor(lib, rng.standard_normal((m, n)) / np.sqrt(m), dtype, requires_grad),
            _tensor(lib, rng.standard_normal(n) * 0.1, dtype, requires_grad),
        )
        for m, n in itertools.pairwise(sizes)
    ]


def _flat(params):
    return [t for pair in params for t in pair]


def two_hidden(lib, inputs: int, width: int, activation):
    """``nn.Sequential`` of ``inputs -> width -> width -> 1`` Linear layers with an
    ``activation`` (a module class name of ``lib.nn``) after each hidden one, as scripts write
    it: the layers made in that order, so a seed gives both libraries the same weights."""
    act = getattr(lib.nn, activation)
    return lib.nn.Sequential(
        lib.nn.Linear(inputs, width), act(), lib.nn.Linear(width, width), act(),
        lib.nn.Linear(width, 1),
    )  # fmt: skip


def mlp(lib, params, x):
    """A tanh MLP written as plain tensor code: ``x @ w + b`` then ``tanh`` between layers."""
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i < len(params) - 1:
            h = lib.tanh(h)
    return h


# -- op chains -------------------------------------------------------------------------


def chain(x, w, b):
    """13 recorded elementwise ops and a mean (as ``benchmarks/ops.py``)."""
    h = (x * w + b).tanh()
    h = h * h.sigmoid() + (x - b).exp() * 0.5
    h = (h / (w * w + 1.0)).sin() ** 2
    return (h.relu() + h.abs().sqrt()).mean()


def _chain_method(shape, dtype):
    def make(lib):
        rng = _rng()
        tensors = [_tensor(lib, rng.uniform(-1, 1, shape), dtype, True) for _ in range(3)]

        def step():
            for t in tensors:
                t.grad = None
            chain(*tensors).backward()

        return step

    return make


def op_chain(size: str, shape, dtype="float64", number=1) -> Workload:
    make = _chain_method(shape, dtype)
    return Workload(
        f"chain-{size}",
        f"13-op elementwise chain + mean, forward and backward, shape {shape}",
        {"shape": list(shape), "dtype": dtype},
        {"torch": make, "leafgrad": make},
        number=number,
    )


# -- MLP regression ----------------------------------------------------------------------


def mlp_regression(n: int, dtype="float32") -> Workload:
    """An ordinary training step: nn.Sequential of Linear/Tanh, MSE loss, Adam."""

    def make(lib):
        lib.manual_seed(0)
        model = two_hidden(lib, 8, 64, "Tanh").to(getattr(lib, dtype))
        rng = _rng(1)
        x = _tensor(lib, rng.uniform(-1, 1, (n, 8)), dtype)
        y = _tensor(lib, np.sin(3 * rng.uniform(-1, 1, (n, 1))), dtype)
        opt = lib.optim.Adam(model.parameters(), lr=1e-3)
        loss_fn = lib.nn.MSELoss()

        def step():
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()

        return step

    return Workload(
        "mlp-regression",
        f"8 -> 64 -> 64 -> 1 tanh nn.Sequential, MSE, Adam, N={n}",
        {"n": n, "dtype": dtype},
        {"torch": make, "leafgrad": make},
    )


# -- Burgers' PINN step ------------------------------------------------------------------

BURGERS_SIZES = [2] + [20] * 8 + [1]


def _burgers_data(lib, n, dtype, requires_grad):
    rng = _rng(1)
    x = _tensor(lib, rng.uniform(-1, 1, (n, 2)), dtype, requires_grad)
    # 300 boundary and initial points: u(x, 0) = -sin(pi x), u(+-1, t) = 0.
    xs = rng.uniform(-1, 1, 100)
    ts = rng.uniform(0, 1, 200)
    xb = np.concatenate(
        [np.stack([xs, np.zeros(100)], 1), np.stack([np.sign(ts - 0.5), ts], 1)], axis=0
    )
    ub = np.concatenate([-np.sin(np.pi * xs), np.zeros(200)])[:, None]
    return x, _tensor(lib, xb, dtype), _tensor(lib, ub, dtype)


def _burgers_method(n, dtype, how):
    def make(lib):
        params = _mlp_params(lib, BURGERS_SIZES, dtype)
        x, xb, ub = _burgers_data(lib, n, dtype, requires_grad=how == "nested")
        opt = lib.optim.Adam(_flat(params), lr=1e-3)
        residual = _BURGERS_RESIDUALS[how]

        def net(z):
            return mlp(lib, params, z)

        def step():
            opt.zero_grad()
            r = residual(lib, net, x)
            boundary = mlp(lib, params, xb) - ub
            loss = (r * r).mean() + (boundary * boundary).mean()
            loss.backward()
            opt.step()

        return step

    return make


# Burgers' residual u_t + u u_x - NU u_xx of a network ``net`` (points -> u) at ``x``, each way.
def _residual_nested(lib, net, x):
    """The way PyTorch PINN code is usually written: nested ``autograd.grad``."""
    u = net(x)
    (g,) = lib.autograd.grad(u.sum(), x, create_graph=True)
    u_x, u_t = g[:, 0:1], g[:, 1:2]
    (g2,) = lib.autograd.grad(u_x.sum(), x, create_graph=True)
    return u_t + u * u_x - NU * g2[:, 0:1]


def _residual_operators(lib, net, x):
    from leafgrad import pinn  # why: leafgrad only; the torch methods never import it

    with pinn.Evaluation(net, x, "taylor") as ev:
        u, X = ev.output, ev.inputs
        return pinn.partial(u, X, 1) + u * pinn.partial(u, X, 0) - NU * pinn.partial(u, X, 0, 0)


def _residual_collapsed(lib, net, x):
    from leafgrad.autograd import taylor  # why: leafgrad only

    u, g, u_xx = taylor.collapsed(net, x, [1.0, 0.0])
    return g[:, :, 1] + u * g[:, :, 0] - NU * u_xx


_BURGERS_RESIDUALS = {
    "nested": _residual_nested,
    "operators": _residual_operators,
    "collapsed": _residual_collapsed,
}


def _burgers_floor(n, dtype):
    """The step by hand in NumPy (``benchmarks/floor.py``), on the same values."""

    def make(lib):
        params = [
            (w.numpy().copy(), b.numpy().copy())
            for w, b in _mlp_params(lib, BURGERS_SIZES, dtype, requires_grad=False)
        ]
        x, xb, ub = (t.numpy() for t in _burgers_data(lib, n, dtype, requires_grad=False))
        return floor.burgers_step(params, x, xb, ub)

    return make


def burgers(n: int, dtype: str) -> Workload:
    methods = {"torch-nested": _burgers_method(n, dtype, "nested")}
    for how in _BURGERS_RESIDUALS:
        methods[f"leafgrad-{how}"] = _burgers_method(n, dtype, how)
    methods["numpy-floor"] = _burgers_floor(n, dtype)
    return Workload(
        f"burgers-{n}-{dtype}",
        f"Burgers PINN training step, 2 -> 20x8 -> 1 tanh, N={n} + 300 boundary points, "
        f"u_x u_t u_xx, Adam, {dtype}",
        {"n": n, "dtype": dtype},
        methods,
    )


# -- d=10 Laplacian training step --------------------------------------------------------


def _laplacian_method(n, d, how):
    def make(lib):
        params = _mlp_params(lib, [d] + [20] * 8 + [1], "float64")
        x = _tensor(lib, _rng(1).uniform(-1, 1, (n, d)), "float64", how == "nested")
        opt = lib.optim.Adam(_flat(params), lr=1e-3)

        def laplacian():
            if how == "taylor":
                from leafgrad.autograd import taylor  # why: leafgrad only

                u, _, lap = taylor.laplacian(lambda z: mlp(lib, params, z), x)
                return u, lap
            u = mlp(lib, params, x)
            (g,) = lib.autograd.grad(u.sum(), x, create_graph=True)
            lap = 0
            for i in range(d):
                (g2,) = lib.autograd.grad(g[:, i].sum(), x, create_graph=True)
                lap = lap + g2[:, i : i + 1]
            return u, lap

        def step():
            opt.zero_grad()
            u, lap = laplacian()
            r = lap.reshape(-1) + u.reshape(-1)
            (r * r).mean().backward()
            opt.step()

        return step

    return make


def laplacian(n: int, d: int = 10) -> Workload:
    return Workload(
        f"laplacian-d{d}-{n}",
        f"Laplacian PINN training step, {d} -> 20x8 -> 1 tanh, N={n}, float64, Adam",
        {"n": n, "d": d, "dtype": "float64"},
        {
            "torch-nested": _laplacian_method(n, d, "nested"),
            "leafgrad-nested": _laplacian_method(n, d, "nested"),
            "leafgrad-taylor": _laplacian_method(n, d, "taylor"),
        },
    )


# -- the small scripts: a tiny network trained on a 1-D Poisson problem --------------------

TINY_SIZES = [1, 32, 32, 1]


def tiny_pinn(n: int = 100) -> Workload:
    """-u'' = pi^2 sin(pi x) on (-1, 1), u(+-1) = 0: nested u_xx, Adam, float32."""

    def make(lib):
        params = _mlp_params(lib, TINY_SIZES, "float32")
        x = _tensor(lib, np.linspace(-1, 1, n)[:, None], "float32", True)
        f = _tensor(lib, np.pi**2 * np.sin(np.pi * np.linspace(-1, 1, n))[:, None], "float32")
        xb = _tensor(lib, [[-1.0], [1.0]], "float32")
        opt = lib.optim.Adam(_flat(params), lr=1e-3)

        def step():
            opt.zero_grad()
            u = mlp(lib, params, x)
            (u_x,) = lib.autograd.grad(u.sum(), x, create_graph=True)
            (u_xx,) = lib.autograd.grad(u_x.sum(), x, create_graph=True)
            r = u_xx + f
            ub = mlp(lib, params, xb)
            loss = (r * r).mean() + (ub * ub).mean()
            loss.backward()
            opt.step()

        return step

    return Workload(
        "tiny-pinn",
        f"1 -> 32 -> 32 -> 1 tanh, N={n}, nested u_xx, Adam, float32 (the small scripts)",
        {"n": n, "dtype": "float32"},
        {"torch": make, "leafgrad": make},
    )


def pinn_script(n: int = 1000) -> Workload:
    """Burgers' residual as PyTorch PINN scripts write it: an ``nn.Sequential`` of Linear and
    Tanh, ``torch.cat`` of the x and t columns, ``autograd.grad`` with ``grad_outputs=
    ones_like``, column slices, ``nn.MSELoss`` and Adam (the nn and functional layers on
    top of the ops the other Burgers rows time)."""

    def make(lib):
        lib.manual_seed(0)
        layers = [lib.nn.Linear(2, 32), lib.nn.Tanh()]
        for _ in range(2):
            layers += [lib.nn.Linear(32, 32), lib.nn.Tanh()]
        model = lib.nn.Sequential(*layers, lib.nn.Linear(32, 1))
        rng = _rng(1)
        x = _tensor(lib, rng.uniform(-1, 1, (n, 1)), "float32", True)
        t = _tensor(lib, rng.uniform(0, 1, (n, 1)), "float32", True)
        _, xb, ub = _burgers_data(lib, 1, "float32", False)  # the 300 boundary points
        opt = lib.optim.Adam(model.parameters(), lr=1e-3)
        mse = lib.nn.MSELoss()

        def step():
            opt.zero_grad()
            u = model(lib.cat([x, t], dim=1))
            ones = lib.ones_like(u)
            u_x, u_t = lib.autograd.grad(u, (x, t), grad_outputs=ones, create_graph=True)
            (u_xx,) = lib.autograd.grad(u_x, x, grad_outputs=ones, create_graph=True)
            f = u_t + u * u_x - NU * u_xx
            loss = mse(f, lib.zeros_like(f)) + mse(model(xb), ub)
            loss.backward()
            opt.step()

        return step

    return Workload(
        "pinn-script",
        f"Burgers written as PyTorch scripts are: nn.Sequential 2 -> 32x3 -> 1 tanh, cat, "
        f"grad(grad_outputs=ones_like), MSELoss, Adam, N={n} + 300 boundary points, float32",
        {"n": n, "dtype": "float32"},
        {"torch": make, "leafgrad": make},
    )


def allen_cahn(n: int = 2000) -> Workload:
    """Allen-Cahn's residual ``u_t - 1e-4 u_xx + 5 u^3 - 5 u`` as scripts write it: an
    ``nn.Sequential`` of Linear and SiLU (2 -> 64 -> 64 -> 1), ``grad_outputs=ones_like``,
    ``u ** 3``, Adam, float32: the activations and powers beyond tanh and squares."""

    def make(lib):
        lib.manual_seed(0)
        model = two_hidden(lib, 2, 64, "SiLU")
        x = _tensor(lib, _rng(1).uniform(-1, 1, (n, 2)), "float32", True)
        opt = lib.optim.Adam(model.parameters(), lr=1e-3)

        def step():
            opt.zero_grad()
            u = model(x)
            (g,) = lib.autograd.grad(u, x, lib.ones_like(u), create_graph=True)
            u_x, u_t = g[:, 0:1], g[:, 1:2]
            (h,) = lib.autograd.grad(u_x, x, lib.ones_like(u_x), create_graph=True)
            r = u_t - 1e-4 * h[:, 0:1] + 5 * u**3 - 5 * u
            (r**2).mean().backward()
            opt.step()

        return step

    return Workload(
        "allen-cahn",
        f"Allen-Cahn residual with u**3, nn.Sequential 2 -> 64x2 -> 1 SiLU, N={n}, "
        "grad(grad_outputs=ones_like), Adam, float32",
        {"n": n, "dtype": "float32"},
        {"torch": make, "leafgrad": make},
    )


def out_of_place_loop(steps: int = 100, n: int = 100) -> Workload:
    """Parameters updated out of place and carried as non-leaf tensors (as functional
    optimizers do): each step's ``autograd.grad`` is taken with respect to the current
    parameters, with ``create_graph=True``, so every earlier step stays reachable."""

    def make(lib):
        params = _flat(_mlp_params(lib, TINY_SIZES, "float32"))
        params = [p * 1.0 for p in params]  # non-leaf from the start
        rng = _rng(1)
        x = _tensor(lib, rng.uniform(-1, 1, (n, 1)), "float32")
        y = _tensor(lib, np.sin(3 * np.asarray(x.detach().numpy())), "float32")

        def step():
            pairs = list(zip(params[0::2], params[1::2]))
            e = mlp(lib, pairs, x) - y
            grads = lib.autograd.grad((e * e).mean(), params, create_graph=True)
            params[:] = [p - 0.01 * g for p, g in zip(params, grads)]

        return step

    return Workload(
        "out-of-place-loop",
        f"{steps} steps of p <- p - lr * grad(loss, p, create_graph=True), p non-leaf, "
        f"1 -> 32 -> 32 -> 1 tanh, N={n}, float32",
        {"steps": steps, "n": n, "dtype": "float32"},
        {"torch": make, "leafgrad": make},
        sequence=steps,
    )


def all_workloads(quick: bool = False, large: bool = False) -> list:
    """Every workload at its sizes: ``quick`` shrinks them for a test run, ``large`` adds
    the N = 1e5 Burgers steps (several GiB of graph)."""
    from .activations import activation_step, activation_steps  # why: as minibatch
    from .minibatch import pinn_minibatch  # why: it builds on this module's Workload
    from .op_survey import survey  # why: op_survey builds on this module's Workload

    if quick:
        return [
            *survey(["topk", "cdist"], number=1),
            op_chain("small", (8,), number=20),
            op_chain("medium", (100, 10), number=2),
            mlp_regression(64),
            tiny_pinn(16),
            pinn_script(16),
            allen_cahn(16),
            pinn_minibatch(64, 16),
            out_of_place_loop(steps=6, n=16),
            burgers(64, "float64"),
            burgers(64, "float32"),
            laplacian(32, d=3),
            activation_step("SiLU", 32, "float32"),
        ]
    sizes = [1000, 10000] + ([100000] if large else [])
    return [
        op_chain("small", (8,), number=200),
        op_chain("medium", (1000, 100), number=5),
        mlp_regression(1024),
        tiny_pinn(100),
        pinn_script(1000),
        allen_cahn(2000),
        pinn_minibatch(5000, 1000),
        out_of_place_loop(steps=100, n=100),
        *(burgers(n, dtype) for n in sizes for dtype in ("float64", "float32")),
        laplacian(10000, d=10),
        *activation_steps(10000),
        *survey(),
    ]
