"""Random numbers: manual_seed and the random factories, on PyTorch's streams.

The generators are ``_torch_stream.TorchStream``: PyTorch's MT19937 engine and its kernels'
transforms, so ``rand``, ``randn``, ``randint``, ``randperm``, ``uniform_`` and ``normal_``
give PyTorch's values for the same seed. A NumPy Generator passed as ``generator=`` is used
with NumPy's own algorithms.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _dtype
from ._batched import STATE as _VMAP
from ._batched import BatchedTensor, levels_of, rewrap
from ._engine.grad_mode import no_grad
from ._factory import (
    _INT64_MIN,
    _UINT64_MAX,
    _dtype_arg,
    _finish,
    _int_arg,
    _like,
    _out_dtype,
    _size,
    _size_tuple,
)
from ._memory_format import like_in_format
from ._tensor import CPU, Tensor, _wrap, check_device
from ._tensor import device as device_type
from ._torch_stream import TorchStream


def _fresh_seed() -> int:
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


# The global generator and the seed it started from (torch.initial_seed), both swapped by
# manual_seed; default_generator reads them here.
_seed = [_fresh_seed()]
_rng = [TorchStream(_seed[0])]


def _check_seed(seed, op: str) -> int:
    seed = int(seed)
    if not _INT64_MIN <= seed <= _UINT64_MAX:
        raise ValueError(f"{op}: seed {seed} does not fit in 64 bits")
    return seed % 2**64


def manual_seed(seed) -> Generator:
    """Seed leafgrad's random generator (PyTorch's MT19937 streams, see ``_torch_stream``).

    Accepts what ``int()`` accepts, as PyTorch does; negative seeds wrap modulo 2**64 and
    seeds outside [-2**63, 2**64) raise ValueError. Returns ``default_generator``.
    """
    return default_generator.manual_seed(_check_seed(seed, "manual_seed"))


def seed() -> int:
    """Seed the global generator from fresh entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the global generator started from (the last ``manual_seed`` or ``seed``)."""
    return _seed[0]


def get_rng_state() -> Tensor:
    """The global generator's state as a uint8 tensor (what ``set_rng_state`` takes back)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore a state from ``get_rng_state``."""
    default_generator.set_state(new_state)


_RANDOMNESS_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)


def _generator(generator=None, batched_draw: bool = False) -> np.random.Generator:
    """The NumPy generator to draw from: ``generator``'s, or the global one.

    Under vmap it checks the randomness mode: 'error' raises; 'different' needs a factory
    that draws one sample per example (``batched_draw``, see ``_per_example``).
    """
    if _VMAP.active:
        modes = {lv.randomness for lv in _VMAP.active}
        if "error" in modes:
            raise RuntimeError(_RANDOMNESS_ERROR)
        if "different" in modes and not batched_draw:
            raise RuntimeError(
                "vmap: randomness='different' cannot draw into a given out= tensor; draw "
                "without out=, use randomness='same' or draw outside vmap"
            )
    if generator is None:
        return _rng[0]
    if isinstance(generator, Generator):
        return generator._rng
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(
        f"generator must be a leafgrad.Generator (or a NumPy Generator), not "
        f"{type(generator).__name__}"
    )


class Generator:
    """A random number generator of its own (PyTorch's MT19937 streams)."""

    def __init__(self, device="cpu") -> None:
        check_device(device)
        self.device = device_type(device)
        self.seed()

    def manual_seed(self, seed) -> Generator:
        """Seed it as ``leafgrad.manual_seed`` seeds the global generator; returns itself."""
        self._seed = _check_seed(seed, "Generator.manual_seed")
        self._rng = TorchStream(self._seed)
        return self

    def seed(self) -> int:
        """Seed it from fresh entropy; returns the seed."""
        self.manual_seed(_fresh_seed())
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor (what ``set_state`` takes back)."""
        return _finish(self._rng.get_words().view(np.uint8).copy(), False)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state from ``get_state``; TypeError unless a uint8 tensor."""
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError(
                "RNG state must be a torch.ByteTensor (uint8), as get_state() / get_rng_state() "
                f"returns; got {getattr(new_state, 'dtype', type(new_state).__name__)}"
            )
        try:
            self._rng.set_words(np.frombuffer(new_state._data.tobytes(), dtype=np.uint64))
        except ValueError as exc:
            raise RuntimeError(
                f"set_state: this tensor is not a state of leafgrad's generator ({exc}); pass "
                "what get_state() or get_rng_state() returned"
            ) from None
        return self

    def __repr__(self) -> str:
        """``<torch._C.Generator object at 0x...>``, as PyTorch's C++ class prints (the global
        generator too, which ``manual_seed`` returns and notebooks echo)."""
        return f"<torch._C.Generator object at {id(self):#x}>"


class _DefaultGenerator(Generator):
    """The global generator as a Generator (``torch.default_generator``): seeding it seeds
    ``manual_seed``'s stream, and the other way round."""

    def __init__(self) -> None:
        self.device = CPU

    _rng = property(lambda self: _rng[0], lambda self, value: _rng.__setitem__(0, value))
    _seed = property(lambda self: _seed[0], lambda self, value: _seed.__setitem__(0, value))


default_generator = _DefaultGenerator()


def _float_dtype(dtype, out, op: str) -> _dtype.dtype:
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    if not dt.is_floating_point:
        raise NotImplementedError(f"{op}: only floating-point dtypes are supported, not {dt}")
    return dt


def _per_example(shape: tuple) -> tuple[tuple, tuple]:
    """Under vmap with randomness='different': the shape to draw (one sample per example of
    each such level, outermost first) and those levels (innermost first, for ``rewrap``)."""
    levels = tuple(lv for lv in _VMAP.active if lv.randomness == "different")
    return tuple(lv.size for lv in levels) + tuple(shape), tuple(
        lv.level for lv in reversed(levels)
    )


def _batched_result(t: Tensor, levels: tuple) -> Tensor:
    return rewrap(t, levels) if levels else t


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad: bool = False, pin_memory: bool = False, **kw) -> Tensor:  # fmt: skip
    """Uniform on [0, 1)."""
    shape = _size(size, kw.pop("size", None), "rand", kw)
    dt = _float_dtype(dtype, out, "rand")
    rng = _generator(generator, batched_draw=out is None)
    shape, levels = _per_example(shape)
    data = uniform_values(rng, shape, dt.np)
    return _batched_result(_finish(data, requires_grad, device, out), levels)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad: bool = False, pin_memory: bool = False, **kw) -> Tensor:  # fmt: skip
    """Standard normal."""
    shape = _size(size, kw.pop("size", None), "randn", kw)
    dt = _float_dtype(dtype, out, "randn")
    rng = _generator(generator, batched_draw=out is None)
    shape, levels = _per_example(shape)
    data = normal_values(rng, shape, dt.np)
    return _batched_result(_finish(data, requires_grad, device, out), levels)


_FLOAT_DIGITS = {np.dtype(np.float16): 11, np.dtype(np.float32): 24, np.dtype(np.float64): 53}


def _check_random_range(low: int, high: int, dt: _dtype.dtype, op: str) -> None:
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high} ({op})"
        )
    if dt.np.kind == "f":
        limit = 2 ** _FLOAT_DIGITS[dt.np]
        for v, name in ((low, "low"), (high - 1, "high - 1")):
            if not -limit <= v <= limit:
                warnings.warn(
                    f"{op}: {name} is out of bounds [-(2^{_FLOAT_DIGITS[dt.np]}), "
                    f"2^{_FLOAT_DIGITS[dt.np]}]; {dt} cannot represent every integer there",
                    UserWarning,
                    stacklevel=3,
                )
        return
    lo, hi = (0, 1) if dt.np.kind == "b" else (np.iinfo(dt.np).min, np.iinfo(dt.np).max)
    if not lo <= low <= hi:
        raise RuntimeError(f"{op}: low={low} is out of bounds for {dt}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"{op}: high - 1 = {high - 1} is out of bounds for {dt}")


def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad: bool = False,
            pin_memory: bool = False) -> Tensor:  # fmt: skip
    """Integers uniform on ``[low, high)``: ``randint(high, size)`` or ``(low, high, size)``."""
    args = list(args)
    if size is None and args and (isinstance(args[-1], (tuple, list)) or len(args) == 3):
        size = args.pop()
    if len(args) > 2:
        raise TypeError("randint() takes low, high and size: randint(low, high, size)")
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    if high is None or size is None:
        raise TypeError("randint() needs high and size, e.g. randint(0, 10, (3,))")
    low = 0 if low is None else _int_arg(low, "randint", "low")
    high = _int_arg(high, "randint", "high")
    shape = _size_tuple(size, "randint")
    dt = _out_dtype(dtype, out, _dtype.int64)
    _check_random_range(low, high, dt, "randint")
    rng = _generator(generator, batched_draw=out is None)
    shape, levels = _per_example(shape)
    data = rng.integers(low, high, shape).astype(dt.np)
    return _batched_result(_finish(data, requires_grad, device, out), levels)


def rand_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "rand_like")
    if not dt.is_floating_point:
        raise NotImplementedError(f"rand_like: only floating-point dtypes are supported, not {dt}")
    rng = _generator(batched_draw=True)
    shape, levels = _per_example(shape)
    data = uniform_values(rng, shape, dt.np)
    if not levels:  # under vmap the draw has the examples' dims: no layout of the input's
        data = like_in_format(data, input._data, memory_format, "rand_like")
    return _batched_result(_finish(data, requires_grad, device or CPU), levels)


def randn_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "randn_like")
    if not dt.is_floating_point:
        raise NotImplementedError(f"randn_like: only floating-point dtypes are supported, not {dt}")
    rng = _generator(batched_draw=True)
    shape, levels = _per_example(shape)
    data = normal_values(rng, shape, dt.np)
    if not levels:  # under vmap the draw has the examples' dims: no layout of the input's
        data = like_in_format(data, input._data, memory_format, "randn_like")
    return _batched_result(_finish(data, requires_grad, device or CPU), levels)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None) -> Tensor:  # fmt: skip
    """``randint_like(input, high)`` or ``randint_like(input, low, high)``."""
    if high is None:
        low, high = 0, low
    low, high = _int_arg(low, "randint_like", "low"), _int_arg(high, "randint_like", "high")
    shape, dt = _like(input, dtype, "randint_like")
    _check_random_range(low, high, dt, "randint_like")
    rng = _generator(batched_draw=True)
    shape, levels = _per_example(shape)
    data = rng.integers(low, high, shape).astype(dt.np)
    if not levels:  # under vmap the draw has the examples' dims: no layout of the input's
        data = like_in_format(data, input._data, memory_format, "randint_like")
    return _batched_result(_finish(data, requires_grad, device or CPU), levels)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """A random permutation of ``0 .. n-1`` (int64 unless told otherwise)."""
    n = _int_arg(n, "randperm", "n")
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    dt = _out_dtype(dtype, out, _dtype.int64)
    rng = _generator(generator, batched_draw=out is None)
    lead, levels = _per_example(())
    if levels:
        data = _permutations(rng, n, lead).astype(dt.np)
    else:
        data = rng.permutation(n).astype(dt.np)
    return _batched_result(_finish(data, requires_grad, device, out), levels)


def _permutations(rng, n: int, lead: tuple) -> np.ndarray:
    """One ``randperm(n)`` per example of ``lead`` (outermost level first), drawn in PyTorch's
    order: its batching rule loops at the innermost level, each call looping the next out."""
    draws = [rng.permutation(n) for _ in range(int(np.prod(lead)))]
    inner_first = np.reshape(draws, lead[::-1] + (n,))
    return inner_first.transpose(tuple(range(len(lead)))[::-1] + (len(lead),))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None) -> Tensor:
    """Normal samples with the given mean and std (numbers or tensors)."""
    if type(mean) is BatchedTensor or type(std) is BatchedTensor:
        return _normal_of_batched(mean, std, size, generator, out)
    rng = _generator(generator, batched_draw=out is None)
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = _size_tuple(size, "normal") if size is not None else np.broadcast(m, s).shape
    if isinstance(mean, Tensor):
        dt = mean._data.dtype
    elif isinstance(std, Tensor):
        dt = std._data.dtype
    else:
        dt = _dtype_arg(dtype, _dtype.get_default_dtype()).np
    if np.dtype(dt).kind != "f":  # PyTorch has no integer normals (it returned integers)
        name = _dtype.scalar_type_name(np.dtype(dt))
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{name}'")
    shape, levels = _per_example(shape)
    if isinstance(std, Tensor) and not np.all(s >= 0.0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if not isinstance(std, Tensor) and not s >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {s:g}")
        # PyTorch draws standard normals, then multiplies by std and adds mean
        data = (normal_values(rng, shape, dt) * np.asarray(s, dt) + np.asarray(m, dt)).astype(dt)
    else:
        data = normal_values(rng, shape, dt, float(m), float(s))
    return _batched_result(_finish(data, False, None, out), levels)


def uniform_values(rng, shape, dtype, low=0.0, high=1.0) -> np.ndarray:
    """Uniforms on [low, high) in ``dtype``: PyTorch's on a TorchStream, else NumPy's."""
    if isinstance(rng, TorchStream):
        return rng.uniform(low, high, shape, dtype=dtype)
    return rng.uniform(low, high, shape).astype(dtype)


def normal_values(rng, shape, dtype, mean=0.0, std=1.0) -> np.ndarray:
    """Normals in ``dtype``: PyTorch's ``normal_(mean, std)`` on a TorchStream, else NumPy's."""
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if isinstance(rng, TorchStream):
        return rng.normal(mean, std, shape, dtype=dtype)
    return rng.normal(mean, std, shape).astype(dtype)


def inplace_draw(target: Tensor, draw, generator, op: str, *args, **kwargs) -> Tensor:
    """The values ``target.<op>()`` writes: ``draw(rng, shape, *args, **kwargs)``, one draw
    per example at the vmap levels of randomness='different'."""
    rng = _generator(generator, batched_draw=True)
    lead, levels = _per_example(())
    if not set(levels) <= set(levels_of(target)):
        raise RuntimeError(
            f"vmap: {op} with randomness='different' on a tensor not batched at that vmap "
            "level would write the same values into every example; use randomness='same', "
            "or make the tensor batched (as PyTorch, which refuses this too)"
        )
    data = np.asarray(draw(rng, lead + target._data.shape, *args, **kwargs))
    return _batched_result(_wrap(data.astype(target._data.dtype, copy=False)), levels)


def _normal_of_batched(mean, std, size, generator, out) -> Tensor:
    """normal() with a batched mean or std: per-example noise (PyTorch refuses 'same' here)."""
    if _VMAP.active and any(lv.randomness == "same" for lv in _VMAP.active):
        raise RuntimeError(
            "vmap: normal() with a batched mean or std needs randomness='different' (as in "
            "PyTorch, 'same' is not supported with a batched tensor input)"
        )
    if size is not None or out is not None:
        raise RuntimeError("vmap: normal() with a tensor mean or std takes no size or out=")
    example = mean if isinstance(mean, Tensor) else std
    dt = _dtype.from_numpy_dtype(example._data.dtype)
    shape = np.broadcast_shapes(
        np.shape(mean._data if isinstance(mean, Tensor) else mean),
        np.shape(std._data if isinstance(std, Tensor) else std),
    )
    # the arithmetic batches by the rules; the noise is per example at the 'different' levels
    with no_grad():
        return mean + std * randn(shape, generator=generator, dtype=dt)


__all__ = [
    "Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
    "default_generator", "rand", "randn", "randint", "rand_like", "randn_like",
    "randint_like", "randperm", "normal",
]  # fmt: skip
