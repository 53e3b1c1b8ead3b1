"""Differential tests: leafgrad's optimisers follow PyTorch's trajectories step for step."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._tolerance import assert_close
from . import compare, problems

torch = pytest.importorskip("torch")

FIRST_ORDER = {
    "sgd": lambda optim, ps: optim.SGD(ps, lr=0.1),
    "sgd_momentum_dampening": lambda optim, ps: optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.2),
    "sgd_momentum_weight_decay": lambda optim, ps: optim.SGD(
        ps, lr=0.05, momentum=0.9, weight_decay=0.01
    ),
    "sgd_nesterov_weight_decay": lambda optim, ps: optim.SGD(
        ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01
    ),
    "sgd_maximize": lambda optim, ps: optim.SGD(ps, lr=0.01, momentum=0.5, maximize=True),
    "sgd_nesterov_maximize": lambda optim, ps: optim.SGD(
        ps, lr=0.01, momentum=0.5, nesterov=True, weight_decay=0.1, maximize=True
    ),
    "adam": lambda optim, ps: optim.Adam(ps, lr=0.05),
    "adam_weight_decay": lambda optim, ps: optim.Adam(ps, lr=0.05, weight_decay=0.01),
    "adam_amsgrad": lambda optim, ps: optim.Adam(ps, lr=0.05, amsgrad=True),
    "adam_amsgrad_maximize": lambda optim, ps: optim.Adam(
        ps, lr=0.01, betas=(0.8, 0.99), amsgrad=True, maximize=True, weight_decay=0.1
    ),
    "adamw": lambda optim, ps: optim.AdamW(ps, lr=0.05),
    "adamw_weight_decay": lambda optim, ps: optim.AdamW(ps, lr=0.05, weight_decay=0.1),
    "adamw_amsgrad": lambda optim, ps: optim.AdamW(ps, lr=0.05, amsgrad=True, weight_decay=0.1),
    "adamw_maximize": lambda optim, ps: optim.AdamW(ps, lr=0.01, maximize=True, eps=1e-6),
    "rmsprop": lambda optim, ps: optim.RMSprop(ps, lr=0.01),
    "rmsprop_centered": lambda optim, ps: optim.RMSprop(ps, lr=0.01, centered=True),
    "rmsprop_momentum": lambda optim, ps: optim.RMSprop(ps, lr=0.01, momentum=0.9),
    "rmsprop_centered_momentum_weight_decay": lambda optim, ps: optim.RMSprop(
        ps, lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01
    ),
    "rmsprop_maximize": lambda optim, ps: optim.RMSprop(ps, lr=0.001, maximize=True),
    "adagrad": lambda optim, ps: optim.Adagrad(ps, lr=0.1),
    "adagrad_options": lambda optim, ps: optim.Adagrad(
        ps, lr=0.1, lr_decay=0.05, weight_decay=0.01, initial_accumulator_value=0.1, eps=1e-6
    ),
    "adagrad_maximize": lambda optim, ps: optim.Adagrad(ps, lr=0.01, maximize=True),
    "adadelta": lambda optim, ps: optim.Adadelta(ps),
    "adadelta_options": lambda optim, ps: optim.Adadelta(
        ps, lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.01
    ),
    "adadelta_maximize": lambda optim, ps: optim.Adadelta(ps, lr=0.1, maximize=True),
    "adamax": lambda optim, ps: optim.Adamax(ps, lr=0.05),
    "adamax_options": lambda optim, ps: optim.Adamax(
        ps, lr=0.05, betas=(0.8, 0.99), eps=1e-3, weight_decay=0.01
    ),
    "adamax_maximize": lambda optim, ps: optim.Adamax(ps, lr=0.01, maximize=True),
    "nadam": lambda optim, ps: optim.NAdam(ps, lr=0.05),
    "nadam_weight_decay": lambda optim, ps: optim.NAdam(
        ps, lr=0.05, weight_decay=0.01, momentum_decay=0.05
    ),
    "nadam_decoupled_weight_decay": lambda optim, ps: optim.NAdam(
        ps, lr=0.05, betas=(0.8, 0.99), weight_decay=0.1, decoupled_weight_decay=True
    ),
    "nadam_maximize": lambda optim, ps: optim.NAdam(ps, lr=0.01, maximize=True),
    # beta2=0.999 rectifies from step 6 on, beta2=0.9 from step 1: both branches are taken
    "radam": lambda optim, ps: optim.RAdam(ps, lr=0.05),
    "radam_weight_decay": lambda optim, ps: optim.RAdam(
        ps, lr=0.05, betas=(0.8, 0.9), weight_decay=0.01
    ),
    "radam_decoupled_weight_decay": lambda optim, ps: optim.RAdam(
        ps, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True
    ),
    "radam_maximize": lambda optim, ps: optim.RAdam(ps, lr=0.01, maximize=True),
    "asgd": lambda optim, ps: optim.ASGD(ps, lr=0.05),
    # t0=5: the iterates are averaged from step 6 on
    "asgd_averaging": lambda optim, ps: optim.ASGD(
        ps, lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.01
    ),
    "asgd_maximize": lambda optim, ps: optim.ASGD(ps, lr=0.01, t0=2, maximize=True),
    "rprop": lambda optim, ps: optim.Rprop(ps),
    # a large eta_plus and tight clamps make sign flips and both step-size bounds happen
    "rprop_options": lambda optim, ps: optim.Rprop(
        ps, lr=0.05, etas=(0.3, 2.0), step_sizes=(1e-3, 0.1)
    ),
    "rprop_maximize": lambda optim, ps: optim.Rprop(ps, lr=0.001, maximize=True),
}


@pytest.mark.parametrize("name", sorted(FIRST_ORDER))
@pytest.mark.parametrize(
    ("problem", "loss_fn"),
    [(problems.mlp_params, problems.mlp_loss), (problems.lsq_params, problems.lsq_loss)],
    ids=["mlp", "least_squares"],
)
def test_twenty_steps_match_torch_in_float64(name, problem, loss_fn):
    make = FIRST_ORDER[name]
    ours = problems.train(leafgrad, lambda ps: make(leafgrad.optim, ps), problem(leafgrad), loss_fn)
    theirs = problems.train(torch, lambda ps: make(torch.optim, ps), problem(torch), loss_fn)
    compare.assert_params_close(ours, theirs)


FLOAT32_CASES = [
    "sgd_nesterov_weight_decay",
    "adam_amsgrad",
    "adamw",
    "rmsprop_centered",
    "adagrad_options",
    "adadelta",
    "adamax",
    "nadam_decoupled_weight_decay",
    "radam",
    "asgd_averaging",
    "rprop_options",
]


@pytest.mark.parametrize("name", FLOAT32_CASES)
def test_float32_parameters_follow_torch(name):
    make = FIRST_ORDER[name]
    ours = problems.train(
        leafgrad,
        lambda ps: make(leafgrad.optim, ps),
        problems.mlp_params(leafgrad, "float32"),
        problems.mlp_loss,
    )
    theirs = problems.train(
        torch,
        lambda ps: make(torch.optim, ps),
        problems.mlp_params(torch, "float32"),
        problems.mlp_loss,
    )
    assert all(a.dtype == np.float32 for a in ours)
    compare.assert_params_close(ours, theirs)


PER_GROUP_CASES = [
    "sgd",
    "adam",
    "adamw_amsgrad",
    "rmsprop_centered_momentum_weight_decay",
    "adagrad_options",
    "adadelta_options",
    "adamax",
    "nadam_decoupled_weight_decay",
    "radam_weight_decay",
    "asgd_averaging",
]


@pytest.mark.parametrize("name", PER_GROUP_CASES)
def test_per_group_options_match_torch(name):
    def make(optim, ps):
        base = FIRST_ORDER[name](optim, [ps[0]])
        base.add_param_group({"params": [ps[1]], "lr": 0.003})
        base.add_param_group({"params": [ps[2]], "weight_decay": 0.2})
        return base

    ours = problems.train(
        leafgrad,
        lambda ps: make(leafgrad.optim, ps),
        problems.mlp_params(leafgrad),
        problems.mlp_loss,
    )
    theirs = problems.train(
        torch, lambda ps: make(torch.optim, ps), problems.mlp_params(torch), problems.mlp_loss
    )
    compare.assert_params_close(ours, theirs)


@pytest.mark.parametrize("name", sorted(FIRST_ORDER))
def test_state_dict_after_twenty_steps_has_torchs_layout_and_values(name):
    make = FIRST_ORDER[name]
    results = []
    for lib in (leafgrad, torch):
        params = problems.mlp_params(lib)
        opt = make(lib.optim, params)
        for _ in range(20):
            opt.zero_grad()
            problems.mlp_loss(lib, params).backward()
            opt.step()
        results.append(compare.state_as_python(opt.state_dict()))
    ours, theirs = results
    assert ours["param_groups"] == theirs["param_groups"]
    assert ours["state"].keys() == theirs["state"].keys()
    for index in ours["state"]:
        a, b = ours["state"][index], theirs["state"][index]
        assert a.keys() == b.keys()
        for key in a:
            assert a[key][:3] == b[key][:3], key  # kind, dtype, shape
            if key == "step":  # a count, exact
                np.testing.assert_array_equal(a[key][3], b[key][3])
            else:
                assert_close(a[key][3], b[key][3], "iterative")


@pytest.mark.parametrize("name", ["adam", "adagrad", "asgd"])
def test_params_without_grad_are_skipped_like_torch(name):
    # Adagrad creates every parameter's state at construction, so the frozen one has state.
    results = []
    for lib in (leafgrad, torch):
        params = problems.mlp_params(lib)
        frozen = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        opt = FIRST_ORDER[name](lib.optim, params + [frozen])
        for _ in range(3):
            opt.zero_grad()
            problems.mlp_loss(lib, params).backward()
            opt.step()
        results.append((frozen.detach().numpy().tolist(), sorted(opt.state_dict()["state"])))
    assert results[0] == results[1]


def test_load_state_dict_shares_state_tensors_like_torch():
    shared = []
    for lib in (leafgrad, torch):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        a.grad = lib.tensor([0.5, -0.5], dtype=lib.float64)
        source = lib.optim.Adam([a])
        source.step()
        b = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        target = lib.optim.Adam([b])
        target.load_state_dict(source.state_dict())
        shared.append(
            (
                target.state[b]["exp_avg"] is source.state[a]["exp_avg"],
                target.state[b]["step"] is source.state[a]["step"],
                source.state_dict()["state"][0]["exp_avg"] is source.state[a]["exp_avg"],
            )
        )
    assert shared[0] == shared[1]


def test_zero_grad_and_non_leaf_errors_match_torch():
    outcomes = []
    for lib in (leafgrad, torch):
        x = lib.ones(3, requires_grad=True)
        results = []
        for params in ([x * 2], [lib.zeros(3)], [{"params": [x]}, {"params": [x]}]):
            try:
                lib.optim.SGD(params, lr=0.1)
                results.append(None)
            except Exception as exc:
                results.append(type(exc).__name__)
        opt = lib.optim.SGD([x], lr=0.1)
        (x * x).sum().backward()
        opt.zero_grad(set_to_none=False)
        results.append(x.grad.tolist())
        opt.zero_grad()
        results.append(x.grad)
        outcomes.append(results)
    assert outcomes[0] == outcomes[1]
