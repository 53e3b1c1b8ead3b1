"""``torch.amp``: autocast and gradient scaling, as a CPU-only build of PyTorch has them.

leafgrad does not autocast: its ops run in their inputs' dtypes. ``autocast`` is therefore a
context manager (and decorator) that is always disabled: for CUDA with PyTorch's own warning
(no CUDA here), for the CPU with a warning saying that leafgrad keeps full precision.
Scripts that switch autocast off, or that target CUDA, run unchanged.

``GradScaler("cpu")`` scales losses and unscales gradients as PyTorch's does (it is plain
arithmetic); a CUDA scaler disables itself with PyTorch's warning and passes through.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import _dtype
from ._tensor import Tensor
from ._tensor import device as _device
from ._warn import warn_at_user

_DEFAULT_DTYPES = {"cpu": _dtype.bfloat16, "cuda": _dtype.float16}
_CPU_DTYPES = (_dtype.bfloat16, _dtype.float16)


class _AutocastState:
    def __init__(self) -> None:
        self.dtypes = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0


_state = _AutocastState()


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast could run on ``device_type``: PyTorch's answer for a CPU-only build."""
    return device_type == "cpu"


class autocast:
    """``with autocast(device_type, dtype=None, enabled=True, cache_enabled=None):`` - always
    disabled here (leafgrad computes in the inputs' dtypes); warns when asked to enable."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _device(device_type).type
        self.fast_dtype = _state.dtypes.get(self.device, _dtype.float16) if dtype is None else dtype
        self._cache_enabled = _state.cache_enabled if cache_enabled is None else cache_enabled
        if enabled:
            if self.device == "cuda":
                warn_at_user("CUDA is not available or torch_xla is imported. Disabling autocast.")
            elif self.device == "cpu" and self.fast_dtype not in _CPU_DTYPES:
                warn_at_user(
                    "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                    "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently."
                )
            else:
                warn_at_user(
                    f"leafgrad does not autocast: ops run in their inputs' dtypes, so {self.device}"
                    f" autocast to {self.fast_dtype} is disabled and results keep full precision."
                )
        self._enabled = False

    def __enter__(self):
        _state.nesting += 1
        return self

    def __exit__(self, *exc) -> None:
        _state.nesting -= 1

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorated


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for an ``autograd.Function.forward``: nothing to do without autocast."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for an ``autograd.Function.backward``: nothing to do without autocast."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


# ----------------------------------------------------------------------------- the state
def is_autocast_enabled(device_type: str | None = None) -> bool:
    """False: autocast never runs in leafgrad."""
    return False


def set_autocast_enabled(*args) -> None:
    """Only ``False`` is accepted: leafgrad has no autocast to switch on."""
    enabled = args[-1] if args else None
    if enabled:
        raise NotImplementedError(
            "set_autocast_enabled: leafgrad does not autocast (ops run in their inputs' "
            "dtypes); convert inputs with .to(dtype) instead"
        )


def get_autocast_dtype(device_type: str) -> _dtype.dtype:
    """The dtype autocast would use on ``device_type`` (bfloat16 on the CPU, float16 on CUDA)."""
    return _state.dtypes.get(_device(device_type).type, _dtype.float16)


def set_autocast_dtype(device_type: str, dtype) -> None:
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"set_autocast_dtype: expected a torch.dtype, got {dtype!r}")
    _state.dtypes[_device(device_type).type] = dtype


def _deprecated(old: str, new: str) -> None:
    warn_at_user(f"torch.{old}() is deprecated. Please use torch.{new} instead.")


def get_autocast_cpu_dtype() -> _dtype.dtype:
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype() -> _dtype.dtype:
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_cpu_dtype(dtype) -> None:
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype) -> None:
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def is_autocast_cpu_enabled() -> bool:
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return False


def set_autocast_cpu_enabled(enabled: bool) -> None:
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Nothing is cached: leafgrad casts no weights."""


def autocast_increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


# ----------------------------------------------------------------------------- GradScaler
_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    """Dynamic loss scaling: ``scaler.scale(loss).backward(); scaler.step(opt);
    scaler.update()``. Steps with non-finite gradients are skipped and the scale backs off."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:  # fmt: skip
        self._device = _device(device).type
        if enabled and self._device == "cuda":
            warn_at_user(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."
            )
            enabled = False
        self._enabled = enabled
        if not 0.0 < backoff_factor < 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        if growth_factor <= 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        self._init_scale, self._growth_factor = float(init_scale), float(growth_factor)
        self._backoff_factor, self._growth_interval = float(backoff_factor), int(growth_interval)
        self._scale = None  # set by the first scale(), as PyTorch's lazily made tensor
        self._growth_tracker = 0
        self._per_optimizer: dict = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def _check_scale(self, what: str) -> None:
        if self._scale is None:
            raise AssertionError(
                f"Attempted {what} but _scale is None.  This may indicate your script did not "
                "use scaler.scale(loss or outputs) earlier in the iteration."
            )

    def scale(self, outputs):
        """``outputs`` (a tensor or nested lists/tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = self._init_scale
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state_of(self, optimizer) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": False})

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale (once per iteration)."""
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._state_of(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad._data
                found = found or not bool(np.isfinite(g).all())
                p.grad._data = (g * np.asarray(inv, dtype=g.dtype)).astype(g.dtype, copy=False)
        state["found_inf"], state["stage"] = found, _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale if not yet done, then ``optimizer.step()`` unless a gradient is inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        state = self._state_of(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Back the scale off after an overflow, grow it after ``growth_interval`` clean steps."""
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, Tensor) else float(new_scale)
            self._scale = float(value)
        elif any(s["found_inf"] for s in self._per_optimizer.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                grown = self._scale * self._growth_factor
                self._scale = grown if math.isfinite(grown) else self._scale
                self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = int(new_interval)

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale = self._init_scale
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])


__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
