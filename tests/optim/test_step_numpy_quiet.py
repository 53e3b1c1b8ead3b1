"""An update that overflows (a diverging run: inf or huge gradients) warns no more than
PyTorch's does, i.e. not at all, on the fast path and the general one alike; the closure
still runs with the caller's NumPy settings."""

import warnings

import numpy as np
import pytest

import leafgrad as lg

NAMES = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]
NAMES += ["ASGD", "Rprop", "Adafactor"]
GRADS = {"inf": float("inf"), "nan": float("nan"), "huge": 3e38}


def _run(m, name, grad, options):
    p = m.nn.Parameter(m.ones(3))
    opt = getattr(m.optim, name)([p], lr=0.1, **options)
    for _ in range(3):
        p.grad = m.full((3,), GRADS[grad])
        opt.step()
    return p.detach().numpy().copy()


@pytest.mark.parametrize("options", [{}, {"weight_decay": 0.1}, {"maximize": True}])
@pytest.mark.parametrize("grad", sorted(GRADS))
@pytest.mark.parametrize("name", NAMES)
def test_overflowing_steps_do_not_warn(name, grad, options):
    if name == "Rprop" and "weight_decay" in options:
        pytest.skip("Rprop has no weight_decay")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = _run(lg, name, grad, options)
    torch = pytest.importorskip("torch")
    theirs = _run(torch, name, grad, options)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_an_overflowing_adam_step_gives_nan_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(_run(lg, "Adam", "inf", {})).all()
        assert (_run(lg, "SGD", "huge", {"momentum": 0.9}) == -np.inf).all()  # overflows


def test_the_closure_keeps_the_callers_numpy_settings():
    p = lg.nn.Parameter(lg.ones(3))
    opt = lg.optim.Adam([p])
    seen = []

    def closure():
        opt.zero_grad()
        (p * 2).sum().backward()
        seen.append(np.geterr()["divide"])
        return 1.0

    with np.errstate(divide="raise"):
        opt.step(closure)
        assert np.geterr()["divide"] == "raise"
    assert seen == ["raise"]
