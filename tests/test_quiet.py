"""NumPy kept quiet inside ops (``_quiet.py``), as PyTorch returns inf/nan silently, and
only there: user code keeps NumPy's own error state."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import _quiet


def test_ops_return_inf_and_nan_without_warnings():
    x = lg.tensor([0.0, -1.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = x.log()
        z = 1.0 / x
        (g,) = lg.autograd.grad(y.sum(), x)
    np.testing.assert_array_equal(y.detach().numpy()[[0, 2]], [-np.inf, 0.0])
    assert np.isnan(y.detach().numpy()[1])
    np.testing.assert_array_equal(z.detach().numpy(), [np.inf, -1.0, 1.0])
    np.testing.assert_array_equal(g.numpy(), [np.inf, -1.0, 1.0])


def test_user_numpy_keeps_its_error_state_around_ops():
    x = lg.tensor([0.0, 2.0])
    _ = x.log() * 3
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.array([0.0]))
    with np.errstate(divide="raise"):
        (x.log() + 1).sum()  # the op is quiet whatever the caller set
        with pytest.raises(FloatingPointError):
            np.log(np.array([0.0]))


def test_each_thread_runs_ops_in_a_quiet_context_of_its_own():
    mine = _quiet.quiet_context()
    theirs = []

    def work():
        theirs.append(_quiet.quiet_context())
        theirs.append((lg.tensor([0.0]).log()).item())

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert theirs[0] is not mine and theirs[1] == -np.inf
    if _quiet.QUIET_STATE is not None:  # NumPy's variable, alone in the context
        assert list(mine.keys()) == [_quiet.QUIET] and mine[_quiet.QUIET] is _quiet.QUIET_STATE


def test_a_forward_that_sets_numpys_state_may_call_an_op():
    """The quiet context is entered once per thread: an op called from inside a forward
    that changed NumPy's error state quiets the variable itself instead."""
    from leafgrad.ops._optable import REGISTRY, Linear
    from leafgrad.ops._primitive import primitive

    def forward(x):
        with np.errstate(divide="warn"):  # NumPy not quiet here, inside the quiet context
            return lg.log(lg.tensor(x)).numpy() * 0.0 + x

    op = primitive("calls_an_op_for_test", forward, lambda grad, x, result: grad, kind=Linear())
    REGISTRY.pop("calls_an_op_for_test")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = op(lg.tensor([1.0, 2.0, 0.0]))
    assert np.isnan(out.numpy()[2]) and out.numpy()[:2].tolist() == [1.0, 2.0]
