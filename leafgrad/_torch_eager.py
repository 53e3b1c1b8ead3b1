"""``torch.*`` helpers that need no compiler, tracer or device: ``torch.compile`` (returns
its argument), ``torch.cond`` (runs the branch taken), the ``sym_*`` functions on plain
numbers, TorchScript's eager futures (``fork``/``wait``), the deprecated IPU/XLA autocast
state, and the small classes and enums a CPU-only build has (``Stream``, ``Event``).
"""

from __future__ import annotations

import builtins
import enum
import importlib
import math

from . import _dtype, amp
from ._tensor import Tensor
from ._tensor import device as device_type
from ._torch_predicates import _no_complex

__all__ = [
    "compile", "cond", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_sqrt",
    "sym_sum", "sym_ite", "sym_constrain_range", "sym_constrain_range_for_size",
    "sym_fresh_size", "Future", "fork", "wait", "FatalError", "AcceleratorError",
    "JITException", "AggregationType", "AVG", "SUM", "get_autocast_ipu_dtype",
    "get_autocast_xla_dtype", "set_autocast_ipu_dtype", "set_autocast_xla_dtype",
    "is_autocast_ipu_enabled", "is_autocast_xla_enabled", "set_autocast_ipu_enabled",
    "set_autocast_xla_enabled", "get_device_module", "thread_safe_generator",
    "cudnn_is_acceptable", "dsmm", "spmm", "Stream", "Event", "view_as_real_copy",
    "view_as_complex_copy",
]  # fmt: skip


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):  # fmt: skip
    """``model`` unchanged: leafgrad has no compiler, so it runs every function eagerly
    (PyTorch's keywords are accepted and ignored); without ``model``, a decorator."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified")
    if model is None:
        return lambda fn: fn
    if not callable(model):
        raise RuntimeError("torch.compile: model must be a callable (a module or function)")
    return model


def _as_bool(pred) -> bool:
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(
                f"Expected pred to be bool or single-element tensor, but got a tensor of shape "
                f"{tuple(pred.shape)}; reduce it first (e.g. pred.all() or pred.any())"
            )
        return builtins.bool(pred.item())
    if isinstance(pred, (builtins.bool, int, float)):
        return builtins.bool(pred)
    raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred!r}")


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``, run eagerly (the
    branch taken is differentiated as any other code)."""
    if not (callable(true_fn) and callable(false_fn)):
        raise RuntimeError("cond: expect true_fn and false_fn to be callable")
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(f"cond: expect operands to be a tuple or list, got {type(operands)}")
    return (true_fn if _as_bool(pred) else false_fn)(*operands)


def _number(x, op: str):
    if isinstance(x, Tensor):
        if x.dim() != 0:
            raise RuntimeError(f"{op}: expected a number or a 0-d tensor, got shape {x.shape}")
        return x.item()
    return x


def sym_int(a) -> int:
    """``int(a)`` rounding toward zero (sizes are plain ints in leafgrad)."""
    return math.trunc(_number(a, "sym_int"))


def sym_float(a) -> float:
    return float(_number(a, "sym_float"))


def _plain(*values) -> None:
    """sym_max/sym_min take numbers only, as PyTorch's (AssertionError for a tensor)."""
    for v in values:
        if isinstance(v, Tensor):
            raise AssertionError(
                f"expected int or float, got {type(v).__name__}; pass .item() of a 0-d tensor"
            )


def sym_max(a, b):
    """The larger; a float if either is one (as PyTorch's)."""
    _plain(a, b)
    a, b = _number(a, "sym_max"), _number(b, "sym_max")
    result = builtins.max(a, b)
    return float(result) if isinstance(a, float) or isinstance(b, float) else result


def sym_min(a, b):
    _plain(a, b)
    a, b = _number(a, "sym_min"), _number(b, "sym_min")
    result = builtins.min(a, b)
    return float(result) if isinstance(a, float) or isinstance(b, float) else result


def sym_not(a) -> builtins.bool:
    return not _number(a, "sym_not")


def sym_sqrt(a) -> float:
    return math.sqrt(_number(a, "sym_sqrt"))


def sym_sum(args):
    """``sum(args)``."""
    return builtins.sum(args)


def sym_ite(b, t, f):
    """``t if b else f``."""
    return t if b else f


def sym_constrain_range(size, *, min=None, max=None) -> None:
    """Checks a concrete ``size`` lies in ``[min, max]`` (symbolic ranges need a tracer)."""
    size = _number(size, "sym_constrain_range")
    if (min is not None and size < min) or (max is not None and size > max):
        raise RuntimeError(f"Invalid value {size} for range [{min}:{max}]")


def sym_constrain_range_for_size(size, *, min=None, max=None) -> None:
    sym_constrain_range(size, min=min, max=max)


def sym_fresh_size(expr):
    """``expr`` itself: a concrete size is already fresh."""
    return expr


class Future:
    """The result of ``torch.jit.fork``-style work; in leafgrad the work runs eagerly, so a
    future is complete as soon as it has a value."""

    def __init__(self, *, devices=None) -> None:
        self._done, self._value, self._error, self._callbacks = False, None, None, []

    def done(self) -> builtins.bool:
        return self._done

    def wait(self):
        if not self._done:
            raise RuntimeError(
                "Future.wait: the future has no result yet, and leafgrad runs on one thread, "
                "so nothing else will set it; call set_result first"
            )
        if self._error is not None:
            raise self._error
        return self._value

    value = wait

    def set_result(self, result) -> None:
        if self._done:
            raise RuntimeError("Future can only be marked completed once.")
        self._done, self._value = True, result
        self._run_callbacks()

    def set_exception(self, error: BaseException) -> None:
        self._done, self._error = True, error
        self._run_callbacks()

    def then(self, callback) -> Future:
        """A future completed with ``callback(self)`` once this one completes."""
        nxt = Future()

        def chain(fut):
            try:
                nxt.set_result(callback(fut))
            except Exception as error:
                nxt.set_exception(error)

        self.add_done_callback(chain)
        return nxt

    def add_done_callback(self, callback) -> None:
        self._callbacks.append(callback)
        if self._done:
            self._run_callbacks()

    def _run_callbacks(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)


def fork(func, *args, **kwargs) -> Future:
    """Runs ``func(*args, **kwargs)`` now and returns its completed Future."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future: Future):
    return future.wait()


class FatalError(Exception):
    pass


class AcceleratorError(RuntimeError):
    pass


class JITException(Exception):
    pass


class AggregationType(enum.Enum):
    """How ``ThroughputBenchmark`` would combine timings."""

    SUM = 0
    AVG = 1


SUM, AVG = AggregationType.SUM, AggregationType.AVG


def _legacy_autocast(dev: str):
    def get_dtype():
        amp._deprecated(f"get_autocast_{dev}_dtype", f"get_autocast_dtype('{dev}')")
        return amp.get_autocast_dtype(dev)

    def set_dtype(dtype):
        amp._deprecated(f"set_autocast_{dev}_dtype", f"set_autocast_dtype('{dev}', dtype)")
        amp.set_autocast_dtype(dev, dtype)

    def is_enabled():
        amp._deprecated(f"is_autocast_{dev}_enabled", f"is_autocast_enabled('{dev}')")
        return amp.is_autocast_enabled(dev)

    def set_enabled(enabled):
        amp._deprecated(f"set_autocast_{dev}_enabled", f"set_autocast_enabled('{dev}', enabled)")
        amp.set_autocast_enabled(dev, enabled)

    return get_dtype, set_dtype, is_enabled, set_enabled


amp._state.dtypes.setdefault("xla", _dtype.bfloat16)  # PyTorch's XLA default
_ipu, _xla = _legacy_autocast("ipu"), _legacy_autocast("xla")
get_autocast_ipu_dtype, set_autocast_ipu_dtype, is_autocast_ipu_enabled = _ipu[:3]
set_autocast_ipu_enabled = _ipu[3]
get_autocast_xla_dtype, set_autocast_xla_dtype, is_autocast_xla_enabled = _xla[:3]
set_autocast_xla_enabled = _xla[3]


def get_device_module(device=None):
    """The module for ``device``'s type: ``torch.cpu`` (the default here, leafgrad running
    on the CPU) or ``torch.cuda``."""
    kind = "cpu" if device is None else (device if isinstance(device, str) else str(device))
    kind = kind.split(":")[0]
    if kind in ("cpu", "cuda"):
        return importlib.import_module(f"leafgrad.{kind}")
    raise RuntimeError(
        f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'; "
        "leafgrad has the cpu and (refusing) cuda modules only"
    )


def thread_safe_generator():
    """None: leafgrad's DataLoader has no thread workers, so the global generator is safe."""
    return None


def cudnn_is_acceptable(input: Tensor) -> builtins.bool:
    """False: cuDNN never runs on a CPU tensor."""
    return False


def dsmm(input: Tensor, mat2: Tensor) -> Tensor:
    """``input @ mat2`` (a dense ``input``, as leafgrad's tensors all are)."""
    return input.mm(mat2)


spmm = dsmm


class Stream:
    """The CPU stream a CPU-only build makes: work is already done when queued."""

    def __init__(self, device=None, *, priority: int = 0, **kwargs) -> None:
        self.device = device_type(device or "cpu")
        if self.device.type != "cpu":
            raise RuntimeError(f"Stream: leafgrad runs on the CPU only, got {self.device}")
        self.device_type, self.device_index, self.stream_id = "cpu", -1, 0

    def query(self) -> builtins.bool:
        return True

    def synchronize(self) -> None:
        return None

    def wait_event(self, event) -> None:
        return None

    def wait_stream(self, stream) -> None:
        return None

    def record_event(self, event=None):
        return event if event is not None else Event()

    def __repr__(self) -> str:
        return "torch.Stream device_type=cpu, device_index=-1, stream_id=0"


class Event:
    """The CPU event a CPU-only build makes: always complete."""

    def __init__(self, device=None, *, enable_timing: builtins.bool = False, **kwargs) -> None:
        self.device = device_type(device or "cpu")
        self.device_type, self.device_index, self.event_id = "cpu", -1, 0

    def query(self) -> builtins.bool:
        return True

    def record(self, stream=None) -> None:
        return None

    def wait(self, stream=None) -> None:
        return None

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end) -> float:
        raise RuntimeError(
            "elapsed_time: leafgrad's CPU events record no time; time the code with "
            "time.perf_counter() instead"
        )


view_as_real_copy = _no_complex("view_as_real_copy")
view_as_complex_copy = _no_complex("view_as_complex_copy")
