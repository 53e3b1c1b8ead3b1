"""optim.swa_utils against PyTorch: averaged models over 25 steps, SWALR schedules, update_bn."""

import numpy as np
import pytest

import leafgrad

from .._tolerance import assert_close

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 3))
Y = RNG.standard_normal((16, 1))


def _model(lib, batchnorm=False):
    lib.manual_seed(0)
    layers = [lib.nn.Linear(3, 4)] + ([lib.nn.BatchNorm1d(4)] if batchnorm else [])
    m = lib.nn.Sequential(*layers, lib.nn.Tanh(), lib.nn.Linear(4, 1)).double()
    return m


def _same_start(ours, theirs):
    theirs.load_state_dict(
        {k: torch.tensor(np.asarray(v.numpy())) for k, v in ours.state_dict().items()}
    )


AVERAGERS = {
    "swa": lambda su: {},
    "ema_multi": lambda su: {"multi_avg_fn": su.get_ema_multi_avg_fn(0.9)},
    "ema": lambda su: {"avg_fn": su.get_ema_avg_fn(0.8)},
    "swa_single": lambda su: {"avg_fn": su.get_swa_avg_fn()},
    "swa_buffers": lambda su: {"use_buffers": True},
}


@pytest.mark.parametrize("name", sorted(AVERAGERS))
def test_averaged_model_follows_pytorch_over_25_steps(name):
    results = []
    models = {lib: _model(lib, batchnorm=True) for lib in (leafgrad, torch)}
    _same_start(models[leafgrad], models[torch])
    for lib, model in models.items():
        su = lib.optim.swa_utils
        averaged = su.AveragedModel(model, **AVERAGERS[name](su))
        opt = lib.optim.SGD(model.parameters(), lr=0.05)
        x, y = lib.tensor(X), lib.tensor(Y)
        for _ in range(25):
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
            averaged.update_parameters(model)
        results.append(averaged)
    ours, theirs = results
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert int(ours.n_averaged) == int(theirs.n_averaged) == 25
    for a, b in zip(ours.state_dict().values(), theirs.state_dict().values()):
        assert_close(np.asarray(a.numpy()), b.numpy(), "iterative")
    ours.eval()
    theirs.eval()
    assert_close(
        ours(leafgrad.tensor(X)).detach().numpy(), theirs(torch.tensor(X)).detach().numpy()
    )


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 5])
def test_swalr_schedule_matches_pytorch(strategy, anneal_epochs):
    lrs = []
    for lib in (leafgrad, torch):
        p = lib.zeros(2, requires_grad=True)
        q = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.3}], lr=0.1)
        sched = lib.optim.swa_utils.SWALR(
            opt, swa_lr=[0.01, 0.02], anneal_epochs=anneal_epochs, anneal_strategy=strategy
        )
        trace = [sched.get_last_lr()]
        for _ in range(25):
            opt.step()
            sched.step()
            trace.append(sched.get_last_lr())
        lrs.append(trace)
        state = sched.state_dict()
        assert "anneal_func" not in state and state["_anneal_strategy"] == strategy
    np.testing.assert_allclose(np.array(lrs[0]), np.array(lrs[1]), rtol=1e-13)


def test_swalr_state_dict_round_trip():
    p = leafgrad.zeros(2, requires_grad=True)
    opt = leafgrad.optim.SGD([p], lr=0.1)
    sched = leafgrad.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_strategy="linear")
    for _ in range(3):
        opt.step()
        sched.step()
    other = leafgrad.optim.swa_utils.SWALR(opt, swa_lr=0.05)
    other.load_state_dict(sched.state_dict())
    assert other.anneal_func(0.5) == 0.5
    assert other.get_last_lr() == sched.get_last_lr()


def test_update_bn_matches_pytorch():
    models = {lib: _model(lib, batchnorm=True) for lib in (leafgrad, torch)}
    _same_start(models[leafgrad], models[torch])
    stats = []
    for lib, model in models.items():
        model.eval()
        loader = [(lib.tensor(X[i : i + 4]), lib.tensor(Y[i : i + 4])) for i in range(0, 16, 4)]
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        assert not model.training and bn.momentum == 0.1
        stats.append([bn.running_mean, bn.running_var, bn.num_batches_tracked])
    for a, b in zip(*stats):
        assert_close(np.asarray(a.numpy()), b.numpy())


@pytest.mark.parametrize("lib", [leafgrad, torch], ids=["leafgrad", "pytorch"])
def test_swa_utils_errors(lib):
    su = lib.optim.swa_utils
    with pytest.raises(ValueError, match="Invalid decay value"):
        su.get_ema_avg_fn(1.5)
    with pytest.raises(ValueError, match="Invalid decay value"):
        su.get_ema_multi_avg_fn(-0.1)
    with pytest.raises(AssertionError):
        su.AveragedModel(lib.nn.Linear(2, 2), avg_fn=su.get_swa_avg_fn(),
                         multi_avg_fn=su.get_swa_multi_avg_fn())  # fmt: skip
    opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy"):
        su.SWALR(opt, 0.01, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs"):
        su.SWALR(opt, 0.01, anneal_epochs=-1)
