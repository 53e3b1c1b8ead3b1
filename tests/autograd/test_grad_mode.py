"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode and is_grad_enabled,
as context managers and as decorators (also of generator functions), nested, per thread.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import threading

import pytest

from ._helpers import ignore_create_graph_warning


@pytest.fixture(autouse=True)
def _grad_mode_restored(torch):
    """A failing test must not leave grad mode off for the next one."""
    yield
    torch.set_grad_enabled(True)


# ----- context managers -----


def test_grad_is_enabled_by_default(torch):
    assert torch.is_grad_enabled() is True


def test_no_grad_context(torch):
    a = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad() as entered:
        assert entered is None
        assert torch.is_grad_enabled() is False
        b = a * 2
    assert torch.is_grad_enabled() is True
    assert b.requires_grad is False and b.grad_fn is None


def test_no_grad_restores_the_mode_after_an_exception(torch):
    with pytest.raises(ValueError), torch.no_grad():
        raise ValueError("boom")
    assert torch.is_grad_enabled() is True


def test_enable_grad_inside_no_grad(torch):
    a = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            assert torch.is_grad_enabled() is True
            b = a * 2
        assert torch.is_grad_enabled() is False
        c = a * 2
    assert b.requires_grad is True and c.requires_grad is False


def test_nesting_restores_each_level(torch):
    with torch.enable_grad():
        with torch.no_grad():
            with torch.no_grad():
                assert torch.is_grad_enabled() is False
            assert torch.is_grad_enabled() is False
            with torch.set_grad_enabled(True):
                assert torch.is_grad_enabled() is True
            assert torch.is_grad_enabled() is False
        assert torch.is_grad_enabled() is True


def test_set_grad_enabled_as_a_function(torch):
    torch.set_grad_enabled(False)
    assert torch.is_grad_enabled() is False
    a = torch.tensor([1.0], requires_grad=True)
    assert (a * 2).requires_grad is False
    torch.set_grad_enabled(True)
    assert torch.is_grad_enabled() is True


def test_set_grad_enabled_as_a_context(torch):
    with torch.set_grad_enabled(False):
        assert torch.is_grad_enabled() is False
    assert torch.is_grad_enabled() is True
    with torch.no_grad():
        with torch.set_grad_enabled(True):
            assert torch.is_grad_enabled() is True
        assert torch.is_grad_enabled() is False


def test_set_grad_enabled_needs_a_bool(torch):
    with pytest.raises(TypeError):
        torch.set_grad_enabled(1)
    assert torch.is_grad_enabled() is True


def test_the_same_modes_are_in_autograd(torch):
    for name in ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode"):
        assert getattr(torch.autograd, name) is getattr(torch, name)


# ----- inference_mode -----


def test_inference_mode_records_nothing(torch):
    a = torch.tensor([1.0], requires_grad=True)
    assert torch.is_inference_mode_enabled() is False
    with torch.inference_mode():
        assert torch.is_grad_enabled() is False
        assert torch.is_inference_mode_enabled() is True
        b = a * 2
    assert b.requires_grad is False and b.is_leaf is True
    assert torch.is_inference_mode_enabled() is False and torch.is_grad_enabled() is True


def test_inference_mode_false_turns_grad_mode_on(torch):
    a = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        with torch.inference_mode(False):
            assert torch.is_grad_enabled() is True
            assert (a * 2).requires_grad is True
        assert torch.is_grad_enabled() is False
    with torch.inference_mode():
        with torch.inference_mode(False):
            assert torch.is_inference_mode_enabled() is False
            assert torch.is_grad_enabled() is True
        assert torch.is_inference_mode_enabled() is True


# ----- decorators -----


def test_no_grad_and_enable_grad_decorate_with_or_without_parentheses(torch):
    @torch.no_grad()
    def off_called():
        return torch.is_grad_enabled()

    @torch.no_grad
    def off_bare():
        return torch.is_grad_enabled()

    @torch.enable_grad
    def on_bare():
        return torch.is_grad_enabled()

    @torch.enable_grad()
    def on_called():
        return torch.is_grad_enabled()

    assert off_called() is False and off_bare() is False
    with torch.no_grad():
        assert on_bare() is True and on_called() is True
        assert torch.is_grad_enabled() is False
    assert torch.is_grad_enabled() is True


def test_set_grad_enabled_decorator_does_not_change_the_mode_at_decoration(torch):
    @torch.set_grad_enabled(False)
    def off():
        return torch.is_grad_enabled()

    assert torch.is_grad_enabled() is True
    assert off() is False
    assert torch.is_grad_enabled() is True


def test_inference_mode_decorates_with_or_without_parentheses(torch):
    @torch.inference_mode
    def bare():
        return torch.is_grad_enabled(), torch.is_inference_mode_enabled()

    @torch.inference_mode()
    def called():
        return torch.is_grad_enabled(), torch.is_inference_mode_enabled()

    @torch.inference_mode(False)
    def off():
        return torch.is_grad_enabled(), torch.is_inference_mode_enabled()

    assert bare() == (False, True) and called() == (False, True)
    with torch.no_grad():
        assert off() == (True, False)


def test_decorated_functions_keep_their_name_arguments_and_result(torch):
    class Model:
        @torch.no_grad()
        def predict(self, x, *, scale=1.0):
            """Docstring."""
            return x * scale, torch.is_grad_enabled()

    a = torch.tensor([2.0], requires_grad=True)
    out, enabled = Model().predict(a, scale=3.0)
    assert enabled is False and out.requires_grad is False and out.item() == 6
    assert Model.predict.__name__ == "predict" and Model.predict.__doc__ == "Docstring."


def test_decorated_function_restores_the_mode_after_an_exception(torch):
    @torch.no_grad()
    def fails():
        raise KeyError("x")

    with pytest.raises(KeyError):
        fails()
    assert torch.is_grad_enabled() is True


def test_decorating_a_class_is_deprecated(torch):
    with pytest.warns(FutureWarning):

        @torch.no_grad()
        class Made:
            def __init__(self):
                self.enabled = torch.is_grad_enabled()

    assert Made().enabled is False


# ----- generators -----


def test_decorated_generator_runs_each_step_in_the_mode(torch):
    @torch.no_grad()
    def steps(n):
        for _ in range(n):
            yield torch.is_grad_enabled()
        return "done"

    gen = steps(2)
    assert next(gen) is False
    assert torch.is_grad_enabled() is True  # the caller's mode between steps
    assert next(gen) is False
    with pytest.raises(StopIteration) as stop:
        next(gen)
    assert stop.value.value == "done"
    assert torch.is_grad_enabled() is True


def test_decorated_generator_forwards_send_and_throw(torch):
    @torch.no_grad()
    def echo():
        received = yield "ready"
        while True:
            try:
                received = yield (received, torch.is_grad_enabled())
            except ValueError:
                received = yield ("caught", torch.is_grad_enabled())

    gen = echo()
    assert next(gen) == "ready"
    assert gen.send(5) == (5, False)
    assert gen.throw(ValueError("x")) == ("caught", False)
    gen.close()
    assert torch.is_grad_enabled() is True


def test_decorated_empty_generator(torch):
    @torch.no_grad()
    def nothing():
        return
        yield  # pragma: no cover

    assert list(nothing()) == []


def test_enable_grad_generator_inside_no_grad(torch):
    @torch.enable_grad()
    def modes():
        yield torch.is_grad_enabled()

    with torch.no_grad():
        assert list(modes()) == [True]
        assert torch.is_grad_enabled() is False


# ----- threads -----


def _in_thread(fn):
    result = []
    t = threading.Thread(target=lambda: result.append(fn()))
    t.start()
    t.join()
    return result[0]


def test_a_new_thread_starts_with_grad_enabled(torch):
    with torch.no_grad():
        assert _in_thread(torch.is_grad_enabled) is True
        assert torch.is_grad_enabled() is False


def test_no_grad_in_a_thread_does_not_affect_another(torch):
    entered, release = threading.Event(), threading.Event()
    seen = []

    def worker():
        with torch.no_grad():
            entered.set()
            release.wait(5)
            seen.append(torch.is_grad_enabled())

    t = threading.Thread(target=worker)
    t.start()
    entered.wait(5)
    try:
        assert torch.is_grad_enabled() is True
        a = torch.tensor([1.0], requires_grad=True)
        assert (a * 2).requires_grad is True
    finally:
        release.set()
        t.join()
    assert seen == [False]


def test_set_grad_enabled_in_a_thread_is_local_to_it(torch):
    def turn_off():
        torch.set_grad_enabled(False)
        return torch.is_grad_enabled()

    assert _in_thread(turn_off) is False
    assert torch.is_grad_enabled() is True


# ----- the mode backward runs in -----


@pytest.mark.filterwarnings(ignore_create_graph_warning)
def test_backward_runs_hooks_in_the_create_graph_mode(torch):
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(torch.is_grad_enabled()))
    y.backward(retain_graph=True)
    y.backward(create_graph=True)
    with torch.no_grad():
        torch.autograd.grad(y, x, create_graph=True)
    assert seen == [False, True, True]
    assert torch.is_grad_enabled() is True
