"""Modes that ops consult only while some thread is in one (grad_mode.SPECIAL): the count
returns to zero when each mode ends, and a mode on in one thread never leaks into another."""

import threading

import numpy as np
import pytest

import leafgrad
from leafgrad._engine.grad_mode import SPECIAL


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_count_of_special_modes_returns_to_zero_when_they_end():
    from leafgrad.autograd import forward_ad

    start = SPECIAL[0]
    with leafgrad.inference_mode():
        assert SPECIAL[0] == start + 1
        with leafgrad.inference_mode(False):
            assert SPECIAL[0] == start
    with leafgrad.autograd.set_detect_anomaly(True):
        assert SPECIAL[0] == start + 1
    with forward_ad.dual_level(), forward_ad.dual_level():
        assert SPECIAL[0] == start + 1
    seen = []
    leafgrad.func.vmap(lambda t: seen.append(SPECIAL[0]) or t * 2)(leafgrad.ones(2, 3))
    assert seen == [start + 1]
    with pytest.raises(ValueError):
        with leafgrad.inference_mode():
            raise ValueError("an error inside the mode")
    assert SPECIAL[0] == start


def test_a_mode_on_in_another_thread_does_not_reach_this_one(torch):
    entered, done = threading.Event(), threading.Event()

    def other():
        with torch.inference_mode():
            entered.set()
            done.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    try:
        entered.wait(10)
        x = torch.tensor(np.ones(3), requires_grad=True)
        y = (x * 2).sum()
        assert not y.is_inference()
        assert y.grad_fn is not None
        y.backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    finally:
        done.set()
        thread.join()


def test_inference_mode_marks_results_while_another_thread_is_plain(torch):
    entered, done = threading.Event(), threading.Event()
    results = []

    def other():
        entered.wait(10)
        with torch.inference_mode():
            results.append((torch.ones(2) * 3).is_inference())
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    entered.set()
    done.wait(10)
    thread.join()
    assert results == [True]
    assert not (torch.ones(2) * 3).is_inference()
