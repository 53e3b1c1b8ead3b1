"""``torch.jit`` for scripts that decorate or trace their code: leafgrad runs eagerly, so
``script``, ``trace`` and the decorators hand back what they are given (the same results as
PyTorch's compiled code, as ``leafgrad.compile`` does), ``fork``/``wait`` run at once, and
the rest of TorchScript (its IR, ``save``/``load`` of compiled archives) is refused with what
to do instead."""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Iterator

from ._torch_eager import Future, fork, wait
from ._torch_refused import ScriptFunction, ScriptModule

__all__ = [
    "Error",
    "Final",
    "Future",
    "ScriptFunction",
    "ScriptModule",
    "TracerWarning",
    "annotate",
    "export",
    "fork",
    "freeze",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "load",
    "optimize_for_inference",
    "optimized_execution",
    "save",
    "script",
    "script_if_tracing",
    "set_fusion_strategy",
    "trace",
    "trace_module",
    "unused",
    "wait",
]

Final = typing.Final
Error = RuntimeError  # TorchScript's error type (never raised: nothing is compiled)


class TracerWarning(Warning):
    """PyTorch warns with it where a trace may not generalize (leafgrad never traces)."""


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """``obj`` itself (a function, module or class): run eagerly, it computes what the
    scripted one would."""
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):  # fmt: skip
    """``func`` itself: eager calls take every branch a trace would have frozen."""
    return func


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
                 _compilation_unit=None, example_inputs_is_kwarg=False,
                 _store_inputs=True):  # fmt: skip
    """``mod`` itself (see ``trace``)."""
    return mod


def script_if_tracing(fn):
    """``fn`` itself (it would be scripted only while tracing)."""
    return fn


def ignore(drop=False, **kwargs):
    """``@ignore`` or ``@ignore(drop=...)``: the function is left as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """``fn`` itself (TorchScript's compiler would skip it)."""
    return fn


def export(fn):
    """``fn`` itself (TorchScript's compiler would compile it as a method)."""
    return fn


def interface(obj):
    """``obj`` itself (a TorchScript interface type is a plain class here)."""
    return obj


def annotate(the_type, the_value):
    """``the_value`` (the type is for TorchScript's compiler)."""
    return the_value


def is_scripting() -> bool:
    """False: nothing runs under TorchScript's compiler."""
    return False


def is_tracing() -> bool:
    """False: nothing is traced."""
    return False


def freeze(mod, preserved_attrs=None, optimize_numerics: bool = True):
    """``mod`` itself, which must be in eval mode, as PyTorch requires of a frozen module."""
    if getattr(mod, "training", False):
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. Please call "
            ".eval() on your module before freezing."
        )
    return mod


def optimize_for_inference(mod, other_methods=None):
    """``mod`` in eval mode (what PyTorch's freezing first does); no graph to optimize."""
    return mod.eval() if hasattr(mod, "eval") else mod


@contextlib.contextmanager
def optimized_execution(should_optimize) -> Iterator[None]:
    """A block run as any other (there is no graph executor to switch)."""
    yield


def set_fusion_strategy(strategy) -> list:
    """The strategy given back (PyTorch returns the previous one; there is no fuser here)."""
    return list(strategy)


_NO_ARCHIVES = (
    "leafgrad.jit.{op}: TorchScript archives hold compiled graphs, which leafgrad does not "
    "make; save the weights with leafgrad.save(model.state_dict(), path) and load them into "
    "the model's class with model.load_state_dict(leafgrad.load(path))"
)


def save(m, f, _extra_files=None) -> None:
    raise RuntimeError(_NO_ARCHIVES.format(op="save"))


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise RuntimeError(_NO_ARCHIVES.format(op="load"))
