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
    "multiplicative": lambda sched, opt: sched.MultiplicativeLR(opt, lambda epoch: 0.95),
    "multiplicative_per_group": lambda sched, opt: sched.MultiplicativeLR(
        opt, [lambda epoch: 0.9, lambda epoch: 1 - 0.01 * epoch]
    ),
    "constant": lambda sched, opt: sched.ConstantLR(opt),
    "constant_factor": lambda sched, opt: sched.ConstantLR(opt, factor=0.3, total_iters=9),
    "linear": lambda sched, opt: sched.LinearLR(opt),
    "linear_factors": lambda sched, opt: sched.LinearLR(
        opt, start_factor=0.05, end_factor=0.7, total_iters=13
    ),
    "polynomial": lambda sched, opt: sched.PolynomialLR(opt),
    "polynomial_power": lambda sched, opt: sched.PolynomialLR(opt, total_iters=30, power=2.5),
    "warm_restarts": lambda sched, opt: sched.CosineAnnealingWarmRestarts(opt, T_0=7),
    "warm_restarts_t_mult": lambda sched, opt: sched.CosineAnnealingWarmRestarts(
        opt, T_0=3, T_mult=2, eta_min=0.001
    ),
    "one_cycle": lambda sched, opt: sched.OneCycleLR(opt, max_lr=1.0, total_steps=STEPS),
    "one_cycle_linear_three_phase": lambda sched, opt: sched.OneCycleLR(
        opt,
        max_lr=[0.5, 2.0],
        epochs=5,
        steps_per_epoch=9,
        pct_start=0.25,
        anneal_strategy="linear",
        div_factor=10.0,
        final_div_factor=100.0,
        three_phase=True,
        base_momentum=[0.8, 0.7],
    ),
    "one_cycle_cos_three_phase": lambda sched, opt: sched.OneCycleLR(
        opt, max_lr=0.3, total_steps=41, three_phase=True
    ),
    "one_cycle_no_momentum": lambda sched, opt: sched.OneCycleLR(
        opt, max_lr=1.0, total_steps=50, cycle_momentum=False, pct_start=0.5
    ),
    "cyclic": lambda sched, opt: sched.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4),
    "cyclic_triangular2": lambda sched, opt: sched.CyclicLR(
        opt, 0.01, [0.1, 0.5], step_size_up=3, step_size_down=5, mode="triangular2"
    ),
    "cyclic_exp_range": lambda sched, opt: sched.CyclicLR(
        opt, 0.01, 0.1, 5, mode="exp_range", gamma=0.97, base_momentum=0.7, max_momentum=0.95
    ),
    "cyclic_scale_fn_iterations": lambda sched, opt: sched.CyclicLR(
        opt, 0.01, 0.1, 4, scale_fn=lambda x: 1 / (1 + 0.1 * x), scale_mode="iterations"
    ),
    "cyclic_scale_fn_cycle_no_momentum": lambda sched, opt: sched.CyclicLR(
        opt, [0.01, 0.02], 0.1, 3, scale_fn=lambda x: 0.8**x, cycle_momentum=False
    ),
    "sequential": lambda sched, opt: sched.SequentialLR(
        opt,
        [sched.LinearLR(opt, start_factor=0.1, total_iters=5), sched.ExponentialLR(opt, 0.9)],
        milestones=[5],
    ),
    "sequential_three": lambda sched, opt: sched.SequentialLR(
        opt,
        [
            sched.ConstantLR(opt, factor=0.5, total_iters=3),
            sched.CosineAnnealingLR(opt, T_max=10),
            sched.StepLR(opt, 4, 0.5),
        ],
        milestones=[4, 20],
    ),
    "chained": lambda sched, opt: sched.ChainedScheduler(
        [sched.ConstantLR(opt, factor=0.1, total_iters=2), sched.ExponentialLR(opt, gamma=0.9)]
    ),
    "chained_given_optimizer": lambda sched, opt: sched.ChainedScheduler(
        [sched.LinearLR(opt, total_iters=8), sched.MultiStepLR(opt, [3, 12], 0.5)], optimizer=opt
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
    """``get_last_lr()`` and each group's momentum after construction and every step."""
    opt = _optimizer(lib)
    scheduler = make(lib.optim.lr_scheduler, opt)
    lrs = [(scheduler.get_last_lr(), [g["momentum"] for g in opt.param_groups])]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append((scheduler.get_last_lr(), [g["momentum"] for g in opt.param_groups]))
        assert [g["lr"] for g in opt.param_groups] == lrs[-1][0]
    return lrs


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_learning_rates_and_momenta_equal_torchs(name):
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


@pytest.mark.parametrize(
    "name",
    [
        "step",
        "multistep",
        "exponential",
        "cosine",
        "constant_factor",
        "linear_factors",
        "polynomial_power",
        "warm_restarts_t_mult",
    ],
)
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


@pytest.mark.parametrize("name", [*torch.optim.lr_scheduler.__all__, "_LRScheduler"])
def test_schedulers_are_named_by_torch_s_module(name):
    # type() and the default repr, <torch.optim.lr_scheduler.StepLR object at 0x...>, show it
    ours, theirs = (
        getattr(leafgrad.optim.lr_scheduler, name),
        getattr(torch.optim.lr_scheduler, name),
    )
    assert repr(ours).replace("leafgrad", "torch") == repr(theirs)


def test_a_scheduler_prints_as_an_object_of_the_lr_scheduler_module():
    opt = leafgrad.optim.SGD([leafgrad.nn.Parameter(leafgrad.ones(1))], lr=0.1)
    shown = repr(leafgrad.optim.lr_scheduler.StepLR(opt, 2))
    assert shown.startswith("<leafgrad.optim.lr_scheduler.StepLR object at 0x")
