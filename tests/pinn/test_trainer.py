"""The trainer: the loss falls, runs repeat, checkpoints resume the same trajectory."""

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.pinn import TrainConfig, Trainer, TrainingDiverged, problems
from leafgrad.pinn.operators import Evaluation

SMALL = {"width": 12, "depth": 2, "collocation": 128, "boundary": 32, "checkpoint_every": 0}


def _trainer(name="heat1d", checkpoint=None, callbacks=(), problem=None, **settings):
    problem = problem or problems.get(name)
    config = TrainConfig.for_problem(problem, **{**SMALL, **settings})
    return Trainer(problem, config, checkpoint=checkpoint, callbacks=callbacks, progress=False)


def test_a_short_run_lowers_the_loss_a_hundredfold_and_the_error():
    trainer = _trainer(adam_steps=300, lbfgs_steps=100, lr=1e-2, hard_constraints=True)
    error_before = trainer.relative_l2()
    history = trainer.run()
    total = history.terms["total"]
    assert len(total) == 400 and history.phases[0] == "adam" and history.phases[-1] == "lbfgs"
    assert total[-1] < total[0] / 100
    assert trainer.relative_l2() < error_before / 10


def test_every_loss_term_is_logged_on_its_own():
    history = _trainer(adam_steps=3, lbfgs_steps=2, hard_constraints=False).run()
    assert set(history.terms) == {"pde", "initial", "boundary", "total"}
    for k in range(5):
        parts = sum(history.terms[n][k] for n in ("pde", "initial", "boundary"))
        assert history.terms["total"][k] == pytest.approx(parts, rel=1e-12)
    assert history.steps == [1, 2, 3, 4, 5]


def test_the_same_seed_repeats_a_run_and_another_seed_does_not():
    settings = {"adam_steps": 5, "lbfgs_steps": 3, "resample_every": 2}
    a = _trainer(seed=3, **settings).run().terms["total"]
    b = _trainer(seed=3, **settings).run().terms["total"]
    c = _trainer(seed=4, **settings).run().terms["total"]
    assert a == b  # the same operations on the same machine: bit for bit
    assert a != c


@pytest.mark.parametrize("stop_at", [4, 13])  # in the Adam phase, and in the L-BFGS phase
def test_checkpoint_then_resume_reproduces_an_uninterrupted_run(tmp_path, stop_at):
    settings = {"adam_steps": 8, "lbfgs_steps": 10, "resample_every": 3, "checkpoint_every": 2,
                "lbfgs_resample_every": 4, "resample": "rad"}  # fmt: skip
    full = _trainer("burgers-inverse", **settings)
    expected = full.run()

    def interrupt(trainer, record):
        return trainer.step == stop_at

    path = str(tmp_path / "ck.lg")
    first = _trainer("burgers-inverse", checkpoint=path, callbacks=[interrupt], **settings)
    first.run()
    assert first.step == stop_at
    resumed = _trainer("burgers-inverse", checkpoint=path, **settings)
    history = resumed.run(resume=True)
    assert history.steps == expected.steps
    assert history.phases == expected.phases
    assert history.terms == expected.terms
    assert resumed.learned_coefficients() == full.learned_coefficients()
    for p, q in zip(resumed.model.parameters(), full.model.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_resume_with_other_settings_says_which(tmp_path):
    path = str(tmp_path / "ck.lg")
    _trainer(checkpoint=path, adam_steps=2, lbfgs_steps=0).run()
    other = _trainer(checkpoint=path, adam_steps=4, lbfgs_steps=0, width=16)
    with pytest.raises(ValueError, match="width=12"):
        other.run(resume=True)


def test_an_inverse_problem_trains_its_coefficient():
    trainer = _trainer("burgers-inverse", adam_steps=40, lbfgs_steps=0, lr=1e-2)
    before = trainer.learned_coefficients()["nu"]
    trainer.run()
    assert before == pytest.approx(0.05)
    assert trainer.learned_coefficients()["nu"] != pytest.approx(0.05, rel=1e-3)


def test_a_nan_loss_stops_training_names_step_and_term_and_keeps_the_last_checkpoint(tmp_path):
    problem = problems.get("heat1d")
    residual, calls = problem.residual, []

    def poisoned(x, u):
        calls.append(1)
        r = residual(x, u)
        return r * math.nan if len(calls) > 7 else r

    problem.residual = poisoned
    path = str(tmp_path / "ck.lg")
    # reverse mode: Taylor mode's one-off probe of the residual would count as a call
    trainer = _trainer(problem=problem, checkpoint=path, adam_steps=20, lbfgs_steps=0,
                       checkpoint_every=5, method="reverse")  # fmt: skip
    with pytest.raises(TrainingDiverged, match=r"step 8 in the term 'pde'"):
        trainer.run()
    state = lg.load(path)
    assert state["step"] == 5
    assert all(np.isfinite(v.numpy()).all() for v in state["model"].values())


def test_a_residual_of_the_wrong_shape_is_refused_with_its_shape():
    problem = problems.get("heat1d")
    problem.residual = lambda x, u: u[:10]
    with pytest.raises(ValueError, match=r"one row per collocation point \(128\).*\[10, 1\]"):
        _trainer(problem=problem, adam_steps=1, lbfgs_steps=0).run()


def test_tol_and_callbacks_stop_training():
    trainer = _trainer(adam_steps=50, lbfgs_steps=0, tol=1e9)
    trainer.run()
    assert trainer.step == 1 and "tol" in trainer.stop_reason
    seen = []

    def watch(trainer, record):
        seen.append(record["total"])
        return len(seen) == 3

    trainer = _trainer(adam_steps=50, lbfgs_steps=0, callbacks=[watch])
    trainer.run()
    assert trainer.step == 3 and len(seen) == 3 and "watch" in trainer.stop_reason


def test_float32_runs_in_float32():
    trainer = _trainer(adam_steps=3, lbfgs_steps=2, dtype="float32")
    trainer.run()
    assert all(p.dtype == lg.float32 for p in trainer.model.parameters())
    assert np.isfinite(trainer.history.terms["total"]).all()


def test_bad_settings_are_refused_by_name():
    problem = problems.get("heat1d")
    with pytest.raises(ValueError, match="width"):
        TrainConfig.for_problem(problem, width=0)
    with pytest.raises(ValueError, match="unknown preset"):
        TrainConfig.for_problem(problem, preset="fastest")
    with pytest.raises(ValueError, match="sampler"):
        TrainConfig.for_problem(problem, sampler="random")
    with pytest.raises(ValueError, match="unknown settings"):
        TrainConfig.for_problem(problem, epochs=3)


def test_a_problem_posed_by_hand_is_solved_by_pinn_solve():
    from leafgrad import pinn

    geometry = pinn.SpaceTime(pinn.Interval(0, 1), pinn.TimeDomain(0, 1))
    problem = pinn.Problem(
        name="my-heat",
        geometry=geometry,
        residual=lambda x, u: pinn.partial(u, x, 1) - 0.1 * pinn.partial(u, x, 0, 0),
        conditions=[
            pinn.InitialCondition(geometry, lambda p: np.sin(np.pi * p[:, 0])),
            pinn.DirichletBC(geometry, 0.0),
        ],
        columns=("x", "t"),
        grid=lambda: {"x": np.linspace(0, 1, 51), "t": np.linspace(0, 1, 51)},
        exact=lambda p: np.exp(-0.1 * np.pi**2 * p[:, 1:2]) * np.sin(np.pi * p[:, 0:1]),
    )
    trainer = pinn.solve(problem, adam_steps=200, lbfgs_steps=150, width=12, depth=2,
                         collocation=256, boundary=64, progress=False)  # fmt: skip
    assert trainer.step == 350
    assert trainer.relative_l2() < 2e-2


def test_a_system_with_a_vector_valued_u_trains_each_component():
    from leafgrad import pinn

    # u1' = u2, u2' = -u1 on [0, pi/2] with u1(0) = 0, u2(0) = 1: u = (sin x, cos x).
    geometry = pinn.Interval(0.0, np.pi / 2)
    left = lambda p: p[:, 0] < 1e-9

    def residual(x, u):
        return [
            pinn.partial(u, x, 0, component=0) - u[:, 1:2],
            pinn.partial(u, x, 0, component=1) + u[:, 0:1],
        ]

    problem = pinn.Problem(
        name="oscillator",
        geometry=geometry,
        residual=residual,
        conditions=[
            pinn.DirichletBC(geometry, 0.0, where=left, component=0, name="u1(0)"),
            pinn.DirichletBC(geometry, 1.0, where=left, component=1, name="u2(0)"),
        ],
        columns=("x",),
        grid=lambda: {"x": np.linspace(0, np.pi / 2, 50)},
        outputs=("u1", "u2"),
        exact=lambda p: np.hstack([np.sin(p), np.cos(p)]),
    )
    trainer = pinn.solve(problem, adam_steps=200, lbfgs_steps=100, width=10, depth=2,
                         collocation=64, boundary=8, lr=1e-2, progress=False)  # fmt: skip
    assert set(trainer.history.terms) == {"pde0", "pde1", "u1(0)", "u2(0)", "total"}
    assert trainer.relative_l2() < 1e-2
    u = trainer.predict(np.array([[np.pi / 4]]))
    np.testing.assert_allclose(u, [[np.sqrt(0.5), np.sqrt(0.5)]], atol=2e-2)


def test_adaptive_resampling_gathers_points_where_the_residual_is_large():
    trainer = _trainer("heat1d", adam_steps=0, lbfgs_steps=0, collocation=1000)
    # A model whose heat residual u_t - 0.1 u_xx lives near x = 0.5.
    trainer.model = lambda x: lg.exp(-400 * (x[:, 0:1] - 0.5) ** 2) * x[:, 1:2]

    def near(points):
        return np.mean(np.abs(points[:, 0] - 0.5) < 0.1)

    assert near(trainer.collocation) < 0.3  # uniform: about 0.2
    trainer._sample_collocation(adaptive=True)
    assert len(trainer.collocation) == 1000
    assert trainer.problem.geometry.inside(trainer.collocation).all()
    assert near(trainer.collocation) > 0.4  # measured 0.52


def test_lbfgs_restarts_on_new_points_every_k_steps():
    trainer = _trainer(adam_steps=2, lbfgs_steps=6, lbfgs_resample_every=3)
    seen = []
    trainer.callbacks.append(lambda t, r: seen.append((id(t.optimizer), t.collocation[0, 0])))
    trainer.run()
    lbfgs = seen[2:]
    assert lbfgs[0] == lbfgs[2] and lbfgs[2] != lbfgs[3] and lbfgs[3] == lbfgs[5]


def test_causal_weighting_weights_each_time_slice_by_the_losses_before_it():
    trainer = _trainer("heat1d", causal=2.0, causal_bins=4, hard_constraints=True)
    plain = _trainer("heat1d", causal=0.0, hard_constraints=True)
    plain.model.load_state_dict(trainer.model.state_dict())
    plain._use_collocation(trainer.collocation)
    with Evaluation(trainer.model, trainer._x) as ev:
        r2 = (trainer.problem.residual(ev.inputs, ev.output).detach().numpy() ** 2).reshape(-1)
    t = trainer.collocation[:, trainer.problem.columns.index("t")]
    slices = np.minimum((t * 4).astype(int), 3)  # heat1d: t in [0, 1]
    losses = np.array([r2[slices == k].mean() for k in range(4)])
    weights = np.exp(-2.0 * (np.cumsum(losses) - losses))
    assert weights[0] == 1 and weights[-1] < weights[0]
    causal = trainer.loss_terms()["pde"].item()
    assert causal == pytest.approx((weights * losses).mean(), rel=1e-12)
    assert plain.loss_terms()["pde"].item() == pytest.approx(r2.mean(), rel=1e-12)
    # The weights are constants: the gradient is that of the weighted slice losses.
    trainer.loss_terms()["pde"].backward()
    assert all(p.grad is not None for p in trainer.model.parameters())


def test_causal_weighting_needs_a_time_column():
    with pytest.raises(ValueError, match="causal weighting needs an input column named 't'"):
        _trainer("poisson2d", causal=1.0)
    with pytest.raises(ValueError, match="causal must be >= 0"):
        _trainer("heat1d", causal=-1.0)
