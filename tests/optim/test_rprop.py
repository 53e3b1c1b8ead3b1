"""Rprop arguments, state and state_dict vs PyTorch (trajectories: test_optimizers_vs_torch)."""

import numpy as np
import pytest

import leafgrad

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("lib", [leafgrad, torch], ids=["leafgrad", "pytorch"])
def test_rprop_rejects_bad_arguments(lib):
    p = [lib.zeros(2, requires_grad=True)]
    with pytest.raises(ValueError, match=r"Invalid eta values: 1\.5, 1\.2"):
        lib.optim.Rprop(p, etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="Invalid learning rate"):
        lib.optim.Rprop(p, lr=-1.0)


def test_rprop_state_and_state_dict_move_to_pytorch():
    states = []
    for lib in (leafgrad, torch):
        p = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Rprop([p], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (p * p * lib.tensor([1.0, -1.0, 0.5], dtype=lib.float64)).sum().backward()
            opt.step()
        states.append(opt.state_dict())
    ours, theirs = states
    assert ours["param_groups"] == theirs["param_groups"]
    assert sorted(ours["state"][0]) == sorted(theirs["state"][0]) == ["prev", "step", "step_size"]
    for key in ("prev", "step", "step_size"):
        np.testing.assert_allclose(
            np.asarray(ours["state"][0][key].numpy()), theirs["state"][0][key].numpy(), rtol=1e-12
        )
    q = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Rprop([q], lr=0.1)
    state = {k: torch.tensor(np.asarray(v.numpy())) for k, v in ours["state"][0].items()}
    opt.load_state_dict({"state": {0: state}, "param_groups": ours["param_groups"]})
    assert torch.equal(opt.state[q]["step_size"], theirs["state"][0]["step_size"])
