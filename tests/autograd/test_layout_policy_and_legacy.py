"""enforce_grad_layout_policy switches a thread-local flag as PyTorch's does (at once, undone
on exit, only inside a decorated function); NestedIOFunction is refused on purpose."""

import threading
import warnings

import pytest

import leafgrad as lg
from leafgrad.autograd._layout_policy import _is_grad_layout_enforcement_enabled as ours_enabled

torch = pytest.importorskip("torch")


def _enabled(m):
    return ours_enabled() if m is lg else torch._C._is_grad_layout_enforcement_enabled()


@pytest.mark.parametrize("m", [lg, torch], ids=["leafgrad", "pytorch"])
def test_policy_context_call_and_decorator(m):
    policy = m.autograd.enforce_grad_layout_policy
    assert _enabled(m) is True
    with policy(False):
        assert _enabled(m) is False
        with policy(True):
            assert _enabled(m) is True
        assert _enabled(m) is False
    assert _enabled(m) is True

    @policy(False)
    def inside():
        return _enabled(m)

    assert _enabled(m) is True
    assert inside() is False and _enabled(m) is True
    policy(False)  # a plain call takes effect at once
    assert _enabled(m) is False
    policy(True)
    assert _enabled(m) is True


def test_policy_is_thread_local_and_gradients_unchanged():
    seen = []
    with lg.autograd.enforce_grad_layout_policy(False):
        worker = threading.Thread(target=lambda: seen.append(ours_enabled()))
        worker.start()
        worker.join()
        p = lg.ones(2, 3, requires_grad=True)
        (p * 2).sum().backward()
    assert seen == [True]
    assert p.grad.tolist() == [[2.0] * 3] * 2


def test_nested_io_function_is_refused_on_purpose():
    class Square(lg.autograd.NestedIOFunction):
        def forward_extended(self, x):
            return x * x

    assert lg.autograd.NestedIOFunction.__doc__.startswith("Refused on purpose")
    assert issubclass(lg.autograd.NestedIOFunction, lg.autograd.Function)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(NotImplementedError, match=r"subclass autograd\.Function"):
            Square()
    with pytest.raises(NotImplementedError, match="legacy API"):
        Square.apply(lg.ones(2, requires_grad=True))
