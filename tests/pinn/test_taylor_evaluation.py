"""Taylor-mode evaluations: one taylor.diagonal pass gives u, every u_i and the u_ii asked
for up front; what else is asked comes from further passes, with the same values."""

import numpy as np

from leafgrad import nn, pinn

from .test_operators import _close, _x, exact_scalar, scalar_field


def _counting(func):
    calls = []

    def counted(*xs):
        calls.append(1)
        return func(*xs)

    return counted, calls


def test_one_pass_gives_the_output_and_the_diagonal_derivatives():
    f, calls = _counting(scalar_field)
    with pinn.Evaluation(f, _x(), "taylor") as ev:
        u, x = ev.output, ev.inputs
        exact = exact_scalar(_x().numpy())
        for index in [(0,), (1,), (0, 0), (1, 1)]:
            _close(pinn.partial(u, x, *index), exact[index])
        assert len(calls) == 1
        assert ev.requested == {0, 1}


def test_a_diagonal_not_computed_up_front_takes_another_pass():
    f, calls = _counting(scalar_field)
    with pinn.Evaluation(f, _x(), "taylor", diagonal=(0,)) as ev:
        u, x = ev.output, ev.inputs
        exact = exact_scalar(_x().numpy())
        _close(pinn.partial(u, x, 0, 0), exact[(0, 0)])
        _close(pinn.partial(u, x, 1), exact[(1,)])
        assert len(calls) == 1
        _close(pinn.partial(u, x, 1, 1), exact[(1, 1)])
        _close(pinn.laplacian(u, x), exact[(0, 0)] + exact[(1, 1)])
        assert len(calls) == 2
        assert ev.requested == {0, 1}


def test_the_trainer_learns_which_second_derivatives_the_residual_needs():
    problem = pinn.problems.get("burgers")
    config = {"collocation": 64, "boundary": 16, "width": 8, "depth": 2}
    trainer = pinn.Trainer(problem, pinn.TrainConfig(method="taylor", **config), progress=False)
    first = float(trainer.loss_terms()["pde"].detach())
    assert trainer._diagonal == (0,)  # u_xx, not u_tt
    second = float(trainer.loss_terms()["pde"].detach())
    np.testing.assert_allclose(second, first, rtol=1e-12)
    reverse = pinn.Trainer(problem, pinn.TrainConfig(method="reverse", **config), progress=False)
    np.testing.assert_allclose(float(reverse.loss_terms()["pde"].detach()), first, rtol=1e-10)


def _values(ev, asked):
    return {i: pinn.partial(ev.output, ev.inputs, *i) for i in asked}


def test_evaluations_of_one_function_learn_which_second_derivatives_it_asks_for():
    f, calls = _counting(scalar_field)
    exact = exact_scalar(_x().numpy())

    def step(asked):  # a training step as users write it: a fresh lambda, no diagonal
        with pinn.Evaluation(lambda z: f(z), _x(), "taylor") as ev:
            return ev, _values(ev, asked)

    ev, values = step([(0,), (0, 0)])
    assert ev.diagonal is None and len(calls) == 1  # the first time: every u_ii
    ev, values = step([(0,), (1,), (0, 0)])
    assert ev.diagonal == (0,) and len(calls) == 2  # then only u_xx, in the same one pass
    for index, value in values.items():
        _close(value, exact[index])
    ev, values = step([(1, 1)])  # one not learned yet: one more pass, then learned
    assert len(calls) == 4
    _close(values[(1, 1)], exact[(1, 1)])
    ev, _ = step([(0, 0)])
    assert ev.diagonal == (0, 1) and len(calls) == 5  # a union: nothing asked is lost


def test_an_explicit_diagonal_and_reverse_mode_neither_use_nor_teach_it():
    def f(X):  # a code object of this test's own
        return scalar_field(X)

    with pinn.Evaluation(f, _x(), "taylor", diagonal=(1,)) as ev:
        _values(ev, [(1, 1)])
    with pinn.Evaluation(f, _x(), "reverse") as ev:
        _values(ev, [(0, 0)])
    with pinn.Evaluation(f, _x(), "taylor") as ev:
        assert ev.diagonal is None
        _close(pinn.partial(ev.output, ev.inputs, 0, 0), exact_scalar(_x().numpy())[(0, 0)])


def test_a_module_is_known_by_its_class():
    class Field(nn.Module):
        def forward(self, X):
            return scalar_field(X)

    for model in (Field(), Field()):
        with pinn.Evaluation(model, _x(), "taylor") as ev:
            _close(pinn.partial(ev.output, ev.inputs, 1, 1), exact_scalar(_x().numpy())[(1, 1)])
    assert ev.diagonal == (1,)
