"""Thread-local grad mode: no_grad, enable_grad, set_grad_enabled, inference_mode.

Each is a context manager and also a decorator (of plain and generator functions), used with
or without parentheses where PyTorch allows it (``@no_grad``, ``@no_grad()``).
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings


class _State(threading.local):
    # threading.local runs __init__ in every thread: a new thread starts with grad enabled.
    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        # True while a plain rule runs (OpNode.apply_plain): ops given arrays compute on them.
        self.plain = False
        # True while a built-in op's backward rule runs on tensors (OpNode.apply): its
        # ``tensor * 2`` is a C++ formula's mul.Scalar there (MulBackward1), see ops/_primitive.
        self.formula = False


_state = _State()

# How many special modes are on, over all threads: vmap levels, dual levels, a jet mode,
# anomaly mode, inference mode (each counted when a thread's mode turns on, uncounted when it
# turns off). Zero: no thread is in any of them, so every op skips reading their thread-local
# state (a read costs as much as a small NumPy call); nonzero: ops read their own thread's.
SPECIAL = [0]
_special_lock = threading.Lock()


def count_special(turned_on: bool) -> None:
    """Note that a special mode turned on (True) or off (False) in this thread."""
    with _special_lock:
        SPECIAL[0] += 1 if turned_on else -1


def _set_inference(mode: bool) -> None:
    if bool(mode) != bool(_state.inference):
        count_special(bool(mode))
    _state.inference = mode


def is_grad_enabled() -> bool:
    """Whether ops executed now record a graph."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    return _state.inference


def _set_enabled(mode: bool) -> None:
    if not isinstance(mode, bool):
        raise TypeError(f"set_grad_enabled(mode): mode must be a bool, got {type(mode).__name__}")
    _state.enabled = mode


def _wrap_generator(ctx_factory, func):
    """Run each step of the generator inside a fresh context; the caller's mode in between."""

    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException as exc:
                    with ctx_factory():
                        response = gen.throw(exc)
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return generator_context


class _DecoratorContextManager:
    """A context manager that is also a decorator (plain and generator functions)."""

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(
                f"{type(self).__name__} is decorating a class, which PyTorch deprecates and "
                "will stop supporting: only the constructor call runs in the context. "
                "Decorate the class's __init__ (or other methods) instead.",
                FutureWarning,
                stacklevel=2,
            )
            cls = func

            def func(*args, **kwargs):
                return cls(*args, **kwargs)

        if inspect.isgeneratorfunction(func):
            return _wrap_generator(self.clone, func)

        factory = self.clone

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with factory():
                return func(*args, **kwargs)

        return decorate_context

    def clone(self):
        return type(self)()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Ops inside record no graph; their results are leaves that do not require grad."""

    def __enter__(self) -> None:
        self.prev = _state.enabled
        _state.enabled = False

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev


class enable_grad(_NoParamDecoratorContextManager):
    """Turn graph recording back on inside a no_grad region."""

    def __enter__(self) -> None:
        self.prev = _state.enabled
        _state.enabled = True

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect at construction, so it also works as a call.

    As a decorator it restores the mode at once and applies ``mode`` only inside each call.
    """

    def __init__(self, mode: bool) -> None:
        self.prev = _state.enabled
        self.mode = mode
        _set_enabled(mode)

    def __call__(self, func):
        _state.enabled = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        _state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev

    def clone(self):
        return type(self)(self.mode)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


class inference_mode(_DecoratorContextManager):
    """No graph is recorded inside (like no_grad). ``inference_mode(False)`` turns grad mode
    *on* and inference mode off, even inside no_grad or inference_mode, as in PyTorch."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # bare use as a decorator: @inference_mode

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self._prev = (_state.enabled, _state.inference)
        _state.enabled = not self.mode
        _set_inference(self.mode)

    def __exit__(self, *exc) -> None:
        _state.enabled = self._prev[0]
        _set_inference(self._prev[1])

    def clone(self):
        return type(self)(self.mode)


# Printed where PyTorch's live (``<torch.autograd.grad_mode.no_grad object at 0x...>``):
# ``autograd.grad_mode`` is this module.
for _mode in (no_grad, enable_grad, set_grad_enabled, inference_mode):
    _mode.__module__ = "leafgrad.autograd.grad_mode"
