"""Libraries built on PyTorch, run unchanged under ``leafgrad run``: torchdiffeq (neural ODEs:
adaptive and fixed-step solvers, the adjoint method), neurodiffeq (PINN solvers for ODEs and
PDEs) and einops (``rearrange``/``reduce``/``einsum``/``pack`` and its layers). Each script
runs once with PyTorch and once under ``leafgrad run`` from the same starting weights (drawn
with NumPy), and prints JSON that must agree to float32 rounding. Skipped where the library
or PyTorch is not installed (neither is a dependency of leafgrad's)."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The weights come from NumPy, so both runs start alike (their random streams differ).
TORCHDIFFEQ = """
import json
import numpy as np
import torch
from torch import nn
from torchdiffeq import odeint, odeint_adjoint

rng = np.random.default_rng(0)
y0 = torch.tensor([[2.0, 0.0]])
t = torch.linspace(0.0, 2.0, 20)
A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])


class Cubic(nn.Module):
    def forward(self, t, y):
        return torch.mm(y**3, A)


class Field(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
        with torch.no_grad():
            for p in self.net.parameters():
                p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))

    def forward(self, t, y):
        return self.net(y**3)


with torch.no_grad():
    target = odeint(Cubic(), y0, t, method="dopri5")
field = Field()
opt = torch.optim.RMSprop(field.parameters(), lr=1e-3)
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = (odeint(field, y0, t, method="dopri5") - target).abs().mean()
    loss.backward()
    opt.step()
    losses.append(loss.item())
ends = {}
for method in ("rk4", "euler", "midpoint", "bosh3", "adaptive_heun", "dopri8"):
    fixed = method in ("rk4", "euler", "midpoint")
    options = {"step_size": 0.05} if fixed else None
    ends[method] = odeint(field, y0, t[:5], method=method, options=options)[-1].tolist()
adjoint = Field()
loss = odeint_adjoint(adjoint, y0, t[:8], method="dopri5").pow(2).mean()
loss.backward()
print(json.dumps({
    "leafgrad": "leafgrad" in torch.__version__,
    "target": target[-1].tolist(),
    "losses": losses,
    "ends": ends,
    "adjoint": [loss.item()] + [p.grad.norm().item() for p in adjoint.parameters()],
}))
"""

NEURODIFFEQ = """
import json
import numpy as np
import torch
from neurodiffeq import diff
from neurodiffeq.conditions import IVP, DirichletBVP2D
from neurodiffeq.generators import Generator1D, Generator2D
from neurodiffeq.networks import FCNN
from neurodiffeq.solvers import Solver1D, Solver2D

rng = np.random.default_rng(0)


def net(inputs):
    network = FCNN(n_input_units=inputs, n_output_units=1, hidden_units=(16, 16))
    with torch.no_grad():
        for p in network.parameters():
            p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=p.dtype))
    return network


decay = Solver1D(
    ode_system=lambda u, t: [diff(u, t) + u],
    conditions=[IVP(t_0=0.0, u_0=1.0)],
    t_min=0.0, t_max=2.0, nets=[net(1)],
    train_generator=Generator1D(32, 0.0, 2.0, method="equally-spaced"),
    valid_generator=Generator1D(32, 0.0, 2.0, method="equally-spaced"),
)
decay.fit(max_epochs=20)
laplace = Solver2D(
    pde_system=lambda u, x, y: [diff(u, x, order=2) + diff(u, y, order=2)],
    conditions=[DirichletBVP2D(
        x_min=0, x_min_val=lambda y: torch.sin(np.pi * y), x_max=1, x_max_val=lambda y: 0,
        y_min=0, y_min_val=lambda x: 0, y_max=1, y_max_val=lambda x: 0,
    )],
    xy_min=(0, 0), xy_max=(1, 1), nets=[net(2)],
    train_generator=Generator2D((8, 8), (0, 0), (1, 1), method="equally-spaced"),
    valid_generator=Generator2D((8, 8), (0, 0), (1, 1), method="equally-spaced"),
)
laplace.fit(max_epochs=10)
points = np.array([0.25, 0.5, 0.75])
print(json.dumps({
    "leafgrad": "leafgrad" in torch.__version__,
    "decay": decay.get_solution()(np.linspace(0, 2, 5), to_numpy=True).tolist(),
    "decay_losses": decay.metrics_history["train_loss"],
    "laplace": laplace.get_solution()(points, points * 0 + 0.5, to_numpy=True).tolist(),
    "laplace_losses": laplace.metrics_history["train_loss"],
}))
"""

EINOPS = """
import json
import numpy as np
import torch
from einops import einsum, pack, rearrange, reduce, repeat, unpack
from einops.layers.torch import Rearrange, Reduce

x = torch.tensor(np.random.default_rng(0).normal(size=(2, 3, 4, 5)), dtype=torch.float32)
x.requires_grad_()
y = rearrange(x, "b c h w -> b (h w) c")
z = reduce(x, "b c (h h2) w -> b c h w", "max", h2=2)
e = einsum(x, x, "b c h w, b c h w -> b c")
packed, shapes = pack([x, x[:, :1]], "b * h w")
a, b = unpack(packed, shapes, "b * h w")
layers = torch.nn.Sequential(Rearrange("b c h w -> b (c h w)"), Reduce("b k -> k", "mean"))
(y.sum() + z.pow(2).mean() + e.sum() + repeat(x[0, 0], "h w -> h w k", k=3).sum()).backward()
print(json.dumps({
    "leafgrad": "leafgrad" in torch.__version__,
    "shapes": [list(t.shape) for t in (y, z, e, packed, a, b)] + [[list(s) for s in shapes]],
    "values": [y[1, 7].tolist(), z.sum().item(), e[1].tolist(), layers(x)[:5].tolist()],
    "grad": x.grad[1, 2].tolist(),
}))
"""

SCRIPTS = {"torchdiffeq": TORCHDIFFEQ, "neurodiffeq": NEURODIFFEQ, "einops": EINOPS}


def _run(tmp_path, name, leafgrad):
    script = tmp_path / f"{name}_example.py"
    script.write_text(SCRIPTS[name])
    env = {
        **os.environ,
        "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
    }
    command = [sys.executable, "-m", "leafgrad", "run"] if leafgrad else [sys.executable]
    done = subprocess.run(
        [*command, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _assert_nested_close(ours, theirs, path="result"):
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys(), path
        for key in theirs:
            _assert_nested_close(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(theirs, list):
        assert len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _assert_nested_close(a, b, f"{path}[{i}]")
    else:
        # float32 runs: adaptive solvers and training loops compound rounding differences
        np.testing.assert_allclose(ours, theirs, rtol=2e-4, atol=2e-5, err_msg=path)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_library_runs_under_leafgrad_as_under_pytorch(tmp_path, name):
    for module in (name, "torch"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")
    theirs = _run(tmp_path, name, leafgrad=False)
    ours = _run(tmp_path, name, leafgrad=True)
    assert ours.pop("leafgrad") and not theirs.pop("leafgrad")
    _assert_nested_close(ours, theirs)
