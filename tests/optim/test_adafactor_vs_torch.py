"""Adafactor follows PyTorch's trajectory step for step (factored and vector states)."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._tolerance import assert_close
from . import compare, problems

torch = pytest.importorskip("torch")

CASES = {
    "default": lambda optim, ps: optim.Adafactor(ps),
    "options": lambda optim, ps: optim.Adafactor(
        ps, lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.5, weight_decay=0.1
    ),
    "maximize": lambda optim, ps: optim.Adafactor(ps, lr=0.02, maximize=True),
}
PROBLEMS = [(problems.mlp_params, problems.mlp_loss), (problems.lsq_params, problems.lsq_loss)]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize(("problem", "loss_fn"), PROBLEMS, ids=["mlp", "least_squares"])
@pytest.mark.parametrize("steps", [25])
def test_adafactor_matches_torch_in_float64(name, problem, loss_fn, steps):
    make = CASES[name]
    ours = problems.train(leafgrad, lambda ps: make(leafgrad.optim, ps), problem(leafgrad),
                          loss_fn, steps)  # fmt: skip
    theirs = problems.train(torch, lambda ps: make(torch.optim, ps), problem(torch), loss_fn,
                            steps)  # fmt: skip
    compare.assert_params_close(ours, theirs)


def test_adafactor_float32_and_batched_matrices_follow_torch():
    rng = np.random.default_rng(4)
    start = rng.standard_normal((2, 3, 4)).astype(np.float32)
    target = rng.standard_normal((2, 3, 4)).astype(np.float32)
    results = []
    for lib in (leafgrad, torch):
        p = lib.tensor(start.copy(), requires_grad=True)
        opt = lib.optim.Adafactor([p], lr=0.05)
        for _ in range(20):
            opt.zero_grad()
            ((p - lib.tensor(target)) ** 2).sum().backward()
            opt.step()
        results.append((p.detach().numpy().copy(), compare.state_as_python(opt.state_dict())))
    (ours, ours_state), (theirs, theirs_state) = results
    assert ours.dtype == np.float32
    assert_close(ours, theirs, "iterative")
    assert ours_state["param_groups"] == theirs_state["param_groups"]
    for key, value in ours_state["state"][0].items():
        assert value[:3] == theirs_state["state"][0][key][:3], key
        assert_close(value[3], theirs_state["state"][0][key][3], "iterative")


def test_adafactor_checks_hyperparameters():
    p = [leafgrad.zeros(2, requires_grad=True)]
    for kwargs, phrase in [({"lr": -1.0}, "Learning rate"), ({"beta2_decay": 0.5}, "beta2_decay"),
                           ({"eps": (-1.0, 1e-3)}, "epsilon1"), ({"d": 0.5}, "Clipping threshold"),
                           ({"weight_decay": -1.0}, "weight_decay")]:  # fmt: skip
        with pytest.raises(ValueError, match=phrase):
            leafgrad.optim.Adafactor(p, **kwargs)
