"""Differential tests: fractional-epoch restarts, cycled Adam betas, composites and errors."""

from __future__ import annotations

import warnings

import pytest

import leafgrad

from . import compare, problems

torch = pytest.importorskip("torch")


def _sgd(lib, momentum=0.9):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.7}], lr=0.1, momentum=momentum)


@pytest.mark.parametrize(("t_0", "t_mult"), [(3, 1), (2, 2), (4, 3)])
def test_warm_restarts_with_fractional_epochs_equal_torchs(t_0, t_mult):
    iters = 7
    sequences = []
    for lib in (leafgrad, torch):
        opt = _sgd(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
            opt, T_0=t_0, T_mult=t_mult, eta_min=0.01
        )
        lrs = []
        for epoch in range(12):
            for i in range(iters):
                opt.step()
                scheduler.step(epoch + i / iters)
                lrs.append((scheduler.get_last_lr(), scheduler.T_cur, scheduler.T_i))
        sequences.append((lrs, scheduler.state_dict()))
    assert len(sequences[0][0]) == 84
    assert sequences[0] == sequences[1]


def test_warm_restarts_negative_epoch_raises_value_error():
    for lib in (leafgrad, torch):
        opt = _sgd(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3)
        with pytest.raises(ValueError):
            scheduler.step(-1)


def _adam_with(lib, make, params):
    opt = lib.optim.Adam(
        [{"params": params[:2]}, {"params": params[2:], "betas": (0.8, 0.99)}], lr=0.01
    )
    return opt, make(lib.optim.lr_scheduler, opt)


CYCLIC_ADAM = {
    "one_cycle": lambda sched, opt: sched.OneCycleLR(opt, max_lr=0.05, total_steps=25),
    "one_cycle_three_phase_linear": lambda sched, opt: sched.OneCycleLR(
        opt, max_lr=[0.05, 0.02], total_steps=24, three_phase=True, anneal_strategy="linear"
    ),
    "cyclic": lambda sched, opt: sched.CyclicLR(opt, 0.001, 0.05, step_size_up=4),
    "cyclic_exp_range": lambda sched, opt: sched.CyclicLR(
        opt, 0.001, [0.05, 0.03], 3, 6, mode="exp_range", gamma=0.9, base_momentum=0.6
    ),
}


@pytest.mark.parametrize("name", sorted(CYCLIC_ADAM))
def test_cycled_adam_betas_and_training_follow_torch(name):
    results = []
    for lib in (leafgrad, torch):
        params = problems.mlp_params(lib)
        opt, scheduler = _adam_with(lib, CYCLIC_ADAM[name], params)
        history = [([g["betas"] for g in opt.param_groups], scheduler.get_last_lr())]
        for _ in range(24):
            opt.zero_grad()
            problems.mlp_loss(lib, params).backward()
            opt.step()
            scheduler.step()
            history.append(([g["betas"] for g in opt.param_groups], scheduler.get_last_lr()))
        results.append((history, [p.detach().numpy().copy() for p in params]))
    assert results[0][0] == results[1][0]
    compare.assert_params_close(results[0][1], results[1][1])


class _Halving:
    """A callable scale_fn with state: PyTorch saves its ``__dict__`` in the state dict."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base**x


def test_cyclic_callable_scale_fn_state_round_trips_like_torch():
    states = []
    for lib in (leafgrad, torch):
        opt = _sgd(lib)
        scheduler = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 3, scale_fn=_Halving())
        for _ in range(5):
            opt.step()
            scheduler.step()
        state = scheduler.state_dict()
        other = lib.optim.lr_scheduler.CyclicLR(_sgd(lib), 0.01, 0.1, 3, scale_fn=_Halving())
        state["_scale_fn_custom"]["base"] = 0.25
        other.load_state_dict(state)
        states.append((scheduler.state_dict(), other._scale_fn_custom.base, state.keys()))
    assert states[0] == states[1]


def test_sequential_of_sequential_and_chained_equal_torchs():
    sequences = []
    for lib in (leafgrad, torch):
        sched = lib.optim.lr_scheduler
        opt = _sgd(lib)
        inner = sched.SequentialLR(
            opt, [sched.ConstantLR(opt, 0.5, 2), sched.ExponentialLR(opt, 0.8)], milestones=[3]
        )
        chained = sched.ChainedScheduler([sched.LinearLR(opt, 0.2, 1.0, 6), inner])
        lrs = [chained.get_last_lr()]
        for _ in range(20):
            opt.step()
            chained.step()
            lrs.append(chained.get_last_lr())
        sequences.append((lrs, chained.state_dict()))
    assert sequences[0] == sequences[1]


def _error(lib, build):
    """The exception type ``build(lib)`` raises (None if it raises nothing)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build(lib)
    except Exception as exc:
        return type(exc)
    return None


def _step_past_the_end(lib):
    opt = _sgd(lib)
    scheduler = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(4):
        scheduler.step()


def _other_optimizer(lib):
    sched = lib.optim.lr_scheduler
    opt = _sgd(lib)
    sched.SequentialLR(opt, [sched.StepLR(_sgd(lib), 2), sched.StepLR(opt, 2)], [3])


INVALID = {
    "constant_factor": lambda lib: lib.optim.lr_scheduler.ConstantLR(_sgd(lib), factor=1.5),
    "linear_start_zero": lambda lib: lib.optim.lr_scheduler.LinearLR(_sgd(lib), start_factor=0),
    "linear_end": lambda lib: lib.optim.lr_scheduler.LinearLR(_sgd(lib), end_factor=1.5),
    "multiplicative_not_callable": lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(
        _sgd(lib), 0.9
    ),
    "multiplicative_count": lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(
        _sgd(lib), [lambda e: 0.9]
    ),
    "warm_restarts_t_0": lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _sgd(lib), T_0=0
    ),
    "warm_restarts_t_mult": lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _sgd(lib), T_0=2, T_mult=1.5
    ),
    "warm_restarts_eta_min": lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _sgd(lib), T_0=2, eta_min="0"
    ),
    "one_cycle_no_length": lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), 1.0),
    "one_cycle_total_steps": lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), 1.0, 0),
    "one_cycle_epochs": lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        _sgd(lib), 1.0, epochs=2.0, steps_per_epoch=3
    ),
    "one_cycle_pct_start": lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        _sgd(lib), 1.0, 10, pct_start=1
    ),
    "one_cycle_anneal": lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        _sgd(lib), 1.0, 10, anneal_strategy="exp"
    ),
    "one_cycle_max_lr_count": lambda lib: lib.optim.lr_scheduler.OneCycleLR(_sgd(lib), [1.0], 10),
    "one_cycle_past_the_end": _step_past_the_end,
    "one_cycle_no_momentum_option": lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        lib.optim.Adagrad([lib.zeros(2, requires_grad=True)]), 1.0, 10
    ),
    "cyclic_mode": lambda lib: lib.optim.lr_scheduler.CyclicLR(_sgd(lib), 0.1, 1.0, mode="sine"),
    "cyclic_no_momentum_option": lambda lib: lib.optim.lr_scheduler.CyclicLR(
        lib.optim.Adagrad([lib.zeros(2, requires_grad=True)]), 0.1, 1.0
    ),
    "cyclic_not_an_optimizer": lambda lib: lib.optim.lr_scheduler.CyclicLR(object(), 0.1, 1.0),
    "sequential_milestones": lambda lib: lib.optim.lr_scheduler.SequentialLR(
        _sgd(lib), [lib.optim.lr_scheduler.StepLR(_sgd(lib), 2)], [3]
    ),
    "sequential_empty": lambda lib: lib.optim.lr_scheduler.SequentialLR(_sgd(lib), [], []),
    "sequential_other_optimizer": _other_optimizer,
    "sequential_plateau": lambda lib: lib.optim.lr_scheduler.SequentialLR(
        _sgd(lib), [lib.optim.lr_scheduler.ReduceLROnPlateau(_sgd(lib))], []
    ),
    "chained_plateau": lambda lib: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ReduceLROnPlateau(_sgd(lib))]
    ),
    "chained_empty": lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]),
    "chained_not_a_scheduler": lambda lib: lib.optim.lr_scheduler.ChainedScheduler(
        [object()], optimizer=_sgd(lib)
    ),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_use_raises_torchs_error_type(name):
    ours, theirs = _error(leafgrad, INVALID[name]), _error(torch, INVALID[name])
    assert theirs is not None
    assert ours is theirs
