"""Scheduler behaviour that needs no oracle: known values, warnings, state round trips."""

from __future__ import annotations

import warnings

import pytest

import leafgrad
from leafgrad.optim import SGD, lr_scheduler


def _optimizer(lr=1.0):
    # with momentum, so CyclicLR and OneCycleLR can cycle it
    return SGD([leafgrad.zeros(2, requires_grad=True)], lr=lr, momentum=0.9)


def _run(opt, scheduler, steps):
    lrs = []
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    return lrs


def test_step_lr_multiplies_every_step_size_epochs():
    opt = _optimizer()
    scheduler = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    assert scheduler.get_last_lr() == [1.0]
    assert _run(opt, scheduler, 6) == [1.0, 0.5, 0.5, 0.25, 0.25, 0.125]


def test_multistep_lr_repeated_milestone_compounds():
    opt = _optimizer()
    scheduler = lr_scheduler.MultiStepLR(opt, milestones=[1, 3, 3], gamma=0.5)
    assert _run(opt, scheduler, 4) == [0.5, 0.5, 0.125, 0.125]


def test_cosine_annealing_reaches_eta_min_at_t_max():
    opt = _optimizer()
    scheduler = lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.1)
    lrs = _run(opt, scheduler, 4)
    assert lrs[1] == pytest.approx(0.55)
    assert lrs[-1] == pytest.approx(0.1)


def test_lambda_lr_scales_the_initial_lr():
    opt = _optimizer(lr=2.0)
    scheduler = lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
    assert _run(opt, scheduler, 3) == [1.0, 2 / 3, 0.5]
    assert opt.param_groups[0]["initial_lr"] == 2.0


def test_linear_warm_up_reaches_the_base_lr_and_stays():
    opt = _optimizer(lr=0.8)
    scheduler = lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    assert scheduler.get_last_lr() == [0.2]
    assert _run(opt, scheduler, 5) == pytest.approx([0.4, 0.6, 0.8, 0.8, 0.8])


def test_warm_restarts_restart_after_t_0_epochs_and_double_with_t_mult():
    opt = _optimizer()
    scheduler = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    lrs = _run(opt, scheduler, 6)
    assert lrs[1] == 1.0 and lrs[5] == 1.0  # restarts at epochs 2 and 6
    assert lrs[0] == pytest.approx(0.5) and lrs[3] == pytest.approx(0.5)


def test_one_cycle_rises_to_max_lr_then_ends_far_below_the_start():
    opt = _optimizer()
    scheduler = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.5)
    assert scheduler.get_last_lr() == [pytest.approx(1 / 25)]
    assert opt.param_groups[0]["momentum"] == 0.95
    lrs = _run(opt, scheduler, 4)
    assert lrs[-1] == pytest.approx(1.0) and opt.param_groups[0]["momentum"] == 0.85
    lrs = _run(opt, scheduler, 5)
    assert lrs[-1] == pytest.approx(1 / 25 / 1e4) and opt.param_groups[0]["momentum"] == 0.95
    scheduler.step()  # PyTorch allows one step more (epoch total_steps), then refuses
    with pytest.raises(ValueError, match="total steps"):
        scheduler.step()


def test_cyclic_triangular_moves_momentum_against_the_lr():
    opt = _optimizer()
    scheduler = lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2)
    lrs, momenta = [], []
    for _ in range(4):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
        momenta.append(opt.param_groups[0]["momentum"])
    assert lrs == pytest.approx([0.3, 0.5, 0.3, 0.1])
    assert momenta == pytest.approx([0.85, 0.8, 0.85, 0.9])


def test_reduce_on_plateau_waits_patience_epochs():
    opt = _optimizer()
    scheduler = lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5)
    lrs = []
    for metric in [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5]:
        scheduler.step(metric)
        lrs.append(scheduler.get_last_lr()[0])
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25]


def test_stepping_the_scheduler_before_the_optimizer_warns():
    opt = _optimizer()
    scheduler = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        scheduler.step()


def test_stepping_in_the_right_order_does_not_warn():
    opt = _optimizer()
    scheduler = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _run(opt, scheduler, 3)


def test_resuming_without_initial_lr_raises_key_error():
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(_optimizer(), step_size=3, last_epoch=4)


def test_not_an_optimizer_raises_type_error():
    with pytest.raises(TypeError):
        lr_scheduler.StepLR(object(), step_size=3)


def test_reduce_on_plateau_rejects_bad_options():
    with pytest.raises(ValueError):
        lr_scheduler.ReduceLROnPlateau(_optimizer(), factor=1.0)
    with pytest.raises(ValueError):
        lr_scheduler.ReduceLROnPlateau(_optimizer(), mode="sideways")


SCHEDULERS = {
    "step": lambda opt: lr_scheduler.StepLR(opt, step_size=3, gamma=0.7),
    "multistep": lambda opt: lr_scheduler.MultiStepLR(opt, milestones=[2, 5, 5, 9], gamma=0.5),
    "exponential": lambda opt: lr_scheduler.ExponentialLR(opt, gamma=0.9),
    "cosine": lambda opt: lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=0.01),
    "lambda": lambda opt: lr_scheduler.LambdaLR(opt, lambda epoch: 0.9**epoch),
    "multiplicative": lambda opt: lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.9),
    "constant": lambda opt: lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=6),
    "linear": lambda opt: lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=8),
    "polynomial": lambda opt: lr_scheduler.PolynomialLR(opt, total_iters=10, power=2.0),
    "warm_restarts": lambda opt: lr_scheduler.CosineAnnealingWarmRestarts(opt, 3, T_mult=2),
    "one_cycle": lambda opt: lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=16),
    "cyclic": lambda opt: lr_scheduler.CyclicLR(opt, 0.1, 1.0, 3, mode="exp_range", gamma=0.9),
    "sequential": lambda opt: lr_scheduler.SequentialLR(
        opt,
        [lr_scheduler.LinearLR(opt, 0.1, total_iters=3), lr_scheduler.StepLR(opt, 2, 0.5)],
        milestones=[6],
    ),
    "chained": lambda opt: lr_scheduler.ChainedScheduler(
        [lr_scheduler.ConstantLR(opt, 0.5, 5), lr_scheduler.ExponentialLR(opt, 0.9)]
    ),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_state_dict_through_a_file_resumes_the_same_sequence(name, tmp_path):
    opt = _optimizer()
    scheduler = SCHEDULERS[name](opt)
    _run(opt, scheduler, 4)
    leafgrad.save(
        {"scheduler": scheduler.state_dict(), "optimizer": opt.state_dict()}, tmp_path / "s"
    )
    expected = _run(opt, scheduler, 12)

    checkpoint = leafgrad.load(tmp_path / "s")
    opt2 = _optimizer()
    scheduler2 = SCHEDULERS[name](opt2)
    opt2.load_state_dict(checkpoint["optimizer"])
    scheduler2.load_state_dict(checkpoint["scheduler"])
    assert _run(opt2, scheduler2, 12) == expected


def test_reduce_on_plateau_state_dict_through_a_file_resumes(tmp_path):
    metrics = [5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2]
    opt = _optimizer()
    scheduler = lr_scheduler.ReduceLROnPlateau(opt, patience=1, cooldown=1)
    for m in metrics[:5]:
        scheduler.step(m)
    leafgrad.save(
        {"scheduler": scheduler.state_dict(), "optimizer": opt.state_dict()}, tmp_path / "s"
    )
    expected = []
    for m in metrics[5:]:
        scheduler.step(m)
        expected.append(scheduler.get_last_lr())

    checkpoint = leafgrad.load(tmp_path / "s")
    opt2 = _optimizer()
    opt2.load_state_dict(checkpoint["optimizer"])
    scheduler2 = lr_scheduler.ReduceLROnPlateau(opt2)
    scheduler2.load_state_dict(checkpoint["scheduler"])
    resumed = []
    for m in metrics[5:]:
        scheduler2.step(m)
        resumed.append(scheduler2.get_last_lr())
    assert resumed == expected
