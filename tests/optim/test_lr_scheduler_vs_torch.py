"""Differential tests: leafgrad's schedulers produce PyTorch's learning rates, bit for bit."""

from __future__ import annotations

import math
import warnings

import pytest

import leafgrad

torch = pytest.importorskip("torch")

STEPS = 40

SCHEDULERS = {
    "step": lambda sched, opt: sched.StepLR(opt, step_size=7, gamma=0.5),
    "multistep": lambda sched, opt: sched.MultiStepLR(opt, milestones=[3, 10, 10, 25], gamma=0.3),
    "exponential": lambda sched, opt: sched.ExponentialLR(opt, gamma=0.93),
    "cosine": lambda sched, opt: sched.CosineAnnealingLR(opt, T_max=10),
    "cosine_eta_min": lambda sched, opt: sched.CosineAnnealingLR(opt, T_max=7, eta_min=0.001),
    "lambda": lambda sched, opt: sched.LambdaLR(opt, lambda epoch: 0.95**epoch + 0.1 * (epoch % 3)),
    "lambda_per_group": lambda sched, opt: sched.LambdaLR(
        opt, [lambda epoch: 1 / (epoch + 1), lambda epoch: math.sqrt(epoch + 1)]
    ),
}

# A metric that falls, plateaus, wobbles and rises: every ReduceLROnPlateau branch is taken.
METRIC = [10 - 0.5 * i for i in range(8)] + [6.0, 6.0001, 5.9999, 6.2] * 5 + [3.0, 3.0, 2.9] * 3
PLATEAU = {
    "min_rel": {},
    "min_abs_cooldown": {"threshold_mode": "abs", "threshold": 0.01, "patience": 2, "cooldown": 3},
    "max_rel_min_lr": {"mode": "max", "patience": 1, "factor": 0.5, "min_lr": [0.02, 0.0]},
    "max_abs": {"mode": "max", "threshold_mode": "abs", "patience": 0, "factor": 0.7, "eps": 1e-3},
}


def _optimizer(lib):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.7}], lr=0.1, momentum=0.9)


def _lr_sequence(lib, make, steps=STEPS):
    opt = _optimizer(lib)
    scheduler = make(lib.optim.lr_scheduler, opt)
    lrs = [scheduler.get_last_lr()]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
        assert [g["lr"] for g in opt.param_groups] == lrs[-1]
    return lrs


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_learning_rates_equal_torchs(name):
    assert _lr_sequence(leafgrad, SCHEDULERS[name]) == _lr_sequence(torch, SCHEDULERS[name])


@pytest.mark.parametrize("name", sorted(PLATEAU))
def test_reduce_lr_on_plateau_equals_torchs(name):
    sequences = []
    for lib in (leafgrad, torch):
        opt = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU[name])
        lrs = []
        for metric in METRIC:
            opt.step()
            scheduler.step(metric)
            lrs.append((scheduler.get_last_lr(), scheduler.num_bad_epochs, scheduler.best))
        sequences.append(lrs)
    assert len(METRIC) > 30
    assert sequences[0] == sequences[1]


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_state_dict_equals_torchs(name):
    states = []
    for lib in (leafgrad, torch):
        opt = _optimizer(lib)
        scheduler = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
        for _ in range(5):
            opt.step()
            scheduler.step()
        states.append(scheduler.state_dict())
    assert states[0] == states[1]


@pytest.mark.parametrize("name", ["step", "multistep", "exponential", "cosine"])
def test_explicit_epoch_uses_torchs_closed_form(name):
    results = []
    for lib in (leafgrad, torch):
        opt = _optimizer(lib)
        scheduler = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in (3, 9, 4, 30):
                opt.step()
                scheduler.step(epoch)
                results.append(scheduler.get_last_lr())
    half = len(results) // 2
    assert results[:half] == results[half:]


@pytest.mark.parametrize("name", ["cosine", "step", "exponential"])
def test_resuming_with_last_epoch_equals_torch(name):
    makers = {
        "cosine": lambda sched, opt, last: sched.CosineAnnealingLR(opt, T_max=10, last_epoch=last),
        "step": lambda sched, opt, last: sched.StepLR(opt, step_size=4, last_epoch=last),
        "exponential": lambda sched, opt, last: sched.ExponentialLR(opt, 0.9, last_epoch=last),
    }
    results = []
    for lib in (leafgrad, torch):
        opt = _optimizer(lib)
        for group in opt.param_groups:
            group["initial_lr"] = group["lr"]
        scheduler = makers[name](lib.optim.lr_scheduler, opt, 6)
        lrs = [scheduler.get_last_lr()]
        for _ in range(12):
            opt.step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr())
        results.append(lrs)
    assert results[0] == results[1]
