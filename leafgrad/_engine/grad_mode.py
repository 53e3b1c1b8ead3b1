"""Thread-local grad mode: no_grad, enable_grad, set_grad_enabled, inference_mode."""

from __future__ import annotations

import functools
import inspect
import threading


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = True
        self.inference = False


_state = _State()


def is_grad_enabled() -> bool:
    """Whether ops executed now record a graph."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    return _state.inference


class _DecoratorContextManager:
    """A context manager that is also a decorator (plain and generator functions)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} cannot decorate a class; decorate its methods")
        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:  # forward throw() into the generator
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            try:
                                response = gen.send(request)
                            except StopIteration as stop:
                                return stop.value

            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_DecoratorContextManager):
    """Ops inside record no graph; their results are leaves that do not require grad."""

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = False

    def __exit__(self, *exc) -> None:
        _state.enabled = self._prev


class enable_grad(_DecoratorContextManager):
    """Turn graph recording back on inside a no_grad region."""

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = True

    def __exit__(self, *exc) -> None:
        _state.enabled = self._prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect at construction, like PyTorch's."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(mode): mode must be a bool, got {type(mode).__name__}")
        self._prev = _state.enabled
        self.mode = mode
        _state.enabled = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _state.enabled = self._prev

    def clone(self):
        return type(self)(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad (records nothing); ``inference_mode(False)`` is a no-op."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __new__(cls, mode=True):
        # Allow bare use as a decorator: @inference_mode
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self) -> None:
        self._prev = (_state.enabled, _state.inference)
        if self.mode:
            _state.enabled = False
            _state.inference = True

    def __exit__(self, *exc) -> None:
        _state.enabled, _state.inference = self._prev

    def clone(self):
        return type(self)(self.mode)
