"""swap_in_optimizer_params_and_state steps other parameters with another state and puts the
live ones back, as PyTorch's does; SparseAdam and Muon are refused on purpose."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg
from tests._tolerance import assert_close

RNG = np.random.default_rng(3)
W, B = RNG.standard_normal((2, 3)), RNG.standard_normal(3)


def _run(m):
    """Live params stepped once; swap-in copies stepped twice inside the context."""
    w = m.tensor(W, requires_grad=True)
    b = m.tensor(B, requires_grad=True)
    opt = m.optim.Adam([{"params": [w], "lr": 0.1}, {"params": [b], "lr": 0.01}])
    (w.sum() * 2 + (b * b).sum()).backward()
    opt.step()
    snapshot = {k: v for k, v in opt.state_dict().items()}
    osd = {
        "state": {k: {n: t.clone() for n, t in s.items()} for k, s in snapshot["state"].items()},
        "param_groups": [dict(g, lr=g["lr"] * 10) for g in snapshot["param_groups"]],
    }
    fake_w = m.tensor(W + 1, requires_grad=True)
    fake_b = m.tensor(B - 1, requires_grad=True)
    live_groups = [g["params"] for g in opt.param_groups]
    with m.optim.swap_in_optimizer_params_and_state(opt, {"w": fake_w, "b": fake_b}, osd):
        assert opt.param_groups[0]["params"][0] is fake_w
        assert opt.param_groups[0]["lr"] == pytest.approx(1.0)
        for _ in range(2):
            fake_w.grad = m.ones(2, 3, dtype=m.float64)
            fake_b.grad = fake_b.detach() * 2
            opt.step()
    assert [g["params"] for g in opt.param_groups] == live_groups
    assert all(a is b for a, b in zip(opt.param_groups[0]["params"], live_groups[0]))
    assert opt.param_groups[0]["lr"] == 0.1 and opt.state[w]["step"].item() == 1
    step_after = osd["state"][0]["exp_avg"]
    return fake_w.detach().numpy(), fake_b.detach().numpy(), step_after.numpy(), w.detach().numpy()


def test_swap_in_steps_the_given_params_and_state_as_pytorch():
    for ours, theirs in zip(_run(lg), _run(torch)):
        assert_close(ours, theirs, "iterative")


def test_swap_in_requires_initialized_state_and_matching_structure():
    for m in (lg, torch):
        w = m.zeros(2, requires_grad=True)
        opt = m.optim.SGD([w], lr=0.1, momentum=0.9)
        with pytest.raises(RuntimeError, match="initialized optimizer state"):
            with m.optim.swap_in_optimizer_params_and_state(opt, {"w": w}, opt.state_dict()):
                pass
        w.grad = m.ones(2)
        opt.step()
        bad = {"state": {0: {}, 5: {}}, "param_groups": opt.state_dict()["param_groups"]}
        with pytest.raises(RuntimeError, match="extra keys"):
            with m.optim.swap_in_optimizer_params_and_state(opt, {"w": w}, bad):
                pass
        with pytest.raises(RuntimeError):
            with m.optim.swap_in_optimizer_params_and_state(opt, {"w": w}, [1]):
                pass


@pytest.mark.parametrize("name", ["SparseAdam", "Muon"])
def test_sparse_adam_and_muon_are_refused_on_purpose(name):
    cls = getattr(lg.optim, name)
    assert cls.__doc__.startswith("Refused on purpose")
    assert issubclass(cls, lg.optim.Optimizer)
    with pytest.raises(NotImplementedError, match=name):
        cls([lg.nn.Parameter(lg.ones(2, 2))])
