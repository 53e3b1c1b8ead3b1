"""PyTorch's CPU random streams: its MT19937 engine and the transforms its kernels apply.

``manual_seed(s)`` followed by ``rand``, ``randn``, ``uniform_``, ``normal_``, ``randint``
or ``randperm`` gives PyTorch's values, so a seeded script initialises its layers and draws
its data as under PyTorch (checked bit for bit against PyTorch 2.13 on x86-64). The engine
is NumPy's MT19937 bit generator, seeded as ``std::mt19937`` is (``init_genrand`` of the
seed's low 32 bits; where numba is there, large draws run a compiled copy of its loop on
NumPy's own state, and the transforms read its words directly: ``_torch_normal``); the
transforms are those of ATen's CPU kernels:

- a float32 uniform is ``(r32 & (2^24 - 1)) 2^-24``, a float64 one ``(r64 & (2^53 - 1))
  2^-53`` with ``r64 = r32_a << 32 | r32_b``; ``uniform_(a, b)`` is ``fma(u, b - a, a)`` in
  the dtype (PyTorch's build contracts the multiply-add);
- ``normal_`` of 16 or more contiguous values fills uniforms first, then Box-Muller over
  blocks of 16 (pairs ``j, j + 8``), redrawing the last 16 when the size is not a multiple
  of 16. float32 uses the Cephes polynomials of ATen's ``avx_mathfun.h`` with their fused
  multiply-adds; float64 uses the C library's ``log``, ``cos`` and ``sin``. Fewer values are
  drawn one at a time by a double Box-Muller that caches its second value in the generator;
- ``randint`` is ``r % range + low`` (``r64`` when the range needs 33 bits or more), and
  ``randperm`` a forward Fisher-Yates with ``r32 % (n - i)``.

Other distributions (gamma, binomial ...) use NumPy's algorithms on the same engine: seeded
and repeatable, but not PyTorch's values. The subclass keeps ``numpy.random.Generator``'s
interface so those need nothing else.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

from . import _torch_normal
from ._torch_normal import _fma64, box_muller, fma64, libm

_F32 = np.float32
_F64 = np.float64
_MT_N = 624


def _mt_key(seed: int) -> np.ndarray:
    """``init_genrand(seed)``: std::mt19937's state for a 32-bit seed (624 words)."""
    key = [seed & 0xFFFFFFFF]
    for i in range(1, _MT_N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


class TorchStream(np.random.Generator):
    """A NumPy Generator on PyTorch's engine whose ``random``, ``uniform``,
    ``standard_normal``, ``normal``, ``integers`` and ``permutation`` follow PyTorch's CPU
    kernels (``dtype`` selects the float32 or float64 transform)."""

    def __init__(self, seed: int = 5489) -> None:
        super().__init__(np.random.MT19937())
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        self.bit_generator.state = {
            "bit_generator": "MT19937",
            "state": {"key": _mt_key(seed), "pos": _MT_N},
        }
        self.normal_cache = None  # the second value of a one-at-a-time Box-Muller pair

    # -- the engine's words --------------------------------------------------------------
    def _words(self, n: int) -> np.ndarray:
        """``n`` 32-bit outputs (as uint64)."""
        if n and self._compiled(n):
            words = np.empty(n, np.uint32)
            self._fill(words)
            return words.astype(np.uint64)
        return self.bit_generator.random_raw(n) if n else np.zeros(0, np.uint64)

    def _compiled(self, n: int) -> bool:
        """Whether ``n`` values take the compiled loops (``_torch_normal.compiled``) on this
        stream's state."""
        return _torch_normal.compiled(n) and self._state() is not None

    def _state(self):
        """NumPy's MT19937 state struct as 625 uint32 (``mt19937_state``: the key, then the
        position), or None where it is laid out otherwise (checked against ``.state``)."""
        address = self.bit_generator.ctypes.state_address
        cached = self.__dict__.get("_state_view")
        if cached is None or cached[0] != address:
            view = np.ctypeslib.as_array((ctypes.c_uint32 * (_MT_N + 1)).from_address(address))
            state = self.bit_generator.state["state"]
            same = view[_MT_N] == state["pos"] and np.array_equal(view[:_MT_N], state["key"])
            cached = self._state_view = (address, view if same else None)
        return cached[1]

    def _fill(self, words: np.ndarray) -> None:
        """The next ``words.size`` outputs into ``words`` (uint32, C-contiguous) by the
        compiled MT19937, which advances NumPy's state as ``random_raw`` would."""
        with self.bit_generator.lock:
            _torch_normal.mt_words(self._state(), words)

    def _words64(self, n: int) -> np.ndarray:
        pairs = self._words(2 * n).reshape(n, 2)
        return (pairs[:, 0] << np.uint64(32)) | pairs[:, 1]

    def _unit(self, n: int, dtype) -> np.ndarray:
        """``n`` uniforms on [0, 1) as PyTorch's ``uniform_real_distribution<dtype>``."""
        dtype = np.dtype(dtype)
        if dtype in (_F32, _F64) and self._compiled(n):
            values = np.empty(n, dtype)
            self._fill(values.view(np.uint32))  # one word a float32, two a float64
            _torch_normal.unit_from_words(values.view(np.uint32 if dtype == _F32 else np.uint64))
            return values
        if dtype == _F64:
            return (self._words64(n) & np.uint64(2**53 - 1)).astype(_F64) * 2.0**-53
        digits = np.finfo(dtype).nmant + 1  # float32: 24, float16: 11
        mask = np.uint64(2**digits - 1)
        return ((self._words(n) & mask).astype(_F32) * _F32(2.0**-digits)).astype(dtype, copy=False)

    # -- uniform ---------------------------------------------------------------------------
    def random(self, size=None, dtype=np.float64, out=None):
        """PyTorch's ``rand`` (a float32 ``dtype`` draws PyTorch's float32 values)."""
        values = self._unit(_count(size), dtype).reshape(_shape(size))
        return _deliver(values, size, out)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        """``uniform_(low, high)``: ``fma(u, high - low, low)`` in ``dtype``."""
        dtype = np.dtype(dtype)
        u = self._unit(_count(size), dtype)
        if low == 0 and high == 1:  # fma(u, 1, 0) is u
            values = u
        elif dtype == _F64:
            values = fma64(u, _F64(high) - _F64(low), _F64(low))
        else:
            lo, hi = _F32(low), _F32(high)
            values = (u.astype(_F64) * _F64(hi - lo) + _F64(lo)).astype(dtype)
        return _deliver(values.reshape(_shape(size)), size)

    # -- normal ----------------------------------------------------------------------------
    def standard_normal(self, size=None, dtype=np.float64, out=None):
        values = self._normal(_count(size), dtype, 0.0, 1.0)
        return _deliver(values.reshape(_shape(size)), size, out)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64):
        """``normal_(loc, scale)`` for scalar ``loc`` and ``scale``; array arguments take
        standard normals and scale them (PyTorch's ``normal(mean_tensor, std_tensor)``)."""
        if np.ndim(loc) or np.ndim(scale):
            shape = np.broadcast_shapes(np.shape(loc), np.shape(scale)) if size is None else size
            return np.asarray(loc) + np.asarray(scale) * self.standard_normal(shape, dtype)
        values = self._normal(_count(size), dtype, float(loc), float(scale))
        return _deliver(values.reshape(_shape(size)), size)

    def _normal(self, n: int, dtype, mean: float, std: float) -> np.ndarray:
        dtype = np.dtype(dtype)
        if n < 16:
            return np.array([self._one_normal(mean, std) for _ in range(n)]).astype(dtype)
        work = _F32 if dtype == _F32 else _F64
        if self._compiled(n):
            out = self._normal_compiled(n, work, mean, std)
            return out.astype(dtype, copy=False)
        out = self._unit(n, work)
        whole = n // 16 * 16
        box_muller(out[:whole].reshape(-1, 16), mean, std)
        if whole < n:  # the last 16 again, from fresh uniforms
            tail = self._unit(16, work).reshape(1, 16)
            box_muller(tail, mean, std)
            out[n - 16 :] = tail[0]
        return out.astype(dtype, copy=False)

    def _normal_compiled(self, n: int, dtype, mean: float, std: float) -> np.ndarray:
        """``_normal``'s draws by the compiled loops: the words into the result's memory,
        each block of 16 turned into normals there (no uniforms' array)."""
        words = np.uint32 if dtype == _F32 else np.uint64  # one float's words, as one
        out = np.empty(n, dtype)
        self._fill(out.view(np.uint32))
        whole = n // 16 * 16
        _torch_normal.normal_from_words(out[:whole].view(words).reshape(-1, 16), mean, std)
        if whole < n:  # the last 16 again, from fresh words
            tail = np.empty(16, dtype)
            self._fill(tail.view(np.uint32))
            _torch_normal.normal_from_words(tail.view(words).reshape(1, 16), mean, std)
            out[n - 16 :] = tail
        return out

    def _one_normal(self, mean: float, std: float) -> float:
        """``normal_distribution<double>``: a Box-Muller pair, its sine kept for the next;
        ``value * std + mean`` is one fused multiply-add, as PyTorch's build contracts it."""
        if self.normal_cache is not None:
            value, self.normal_cache = self.normal_cache, None
            return float(_fma64(value, float(std), float(mean)))
        u1, u2 = self._unit(2, _F64)
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self.normal_cache = radius * math.sin(theta)
        return float(_fma64(radius * math.cos(theta), float(std), float(mean)))

    # -- one value per uniform, by the C library's functions (PyTorch's CPU kernels) ------
    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        """``exponential_(1)``: ``-log1p(-u)`` of a float64 uniform."""
        values = libm(lambda u: -math.log1p(-u), self._unit(_count(size), _F64))
        return _deliver(values.astype(dtype).reshape(_shape(size)), size, out)

    def exponential(self, scale=1.0, size=None):
        """``exponential_(1 / scale)`` (see ``exponential_rate``)."""
        if np.ndim(scale):
            return super().exponential(scale, size)
        return self.exponential_rate(1.0 / float(scale), size)

    def exponential_rate(self, rate: float, size=None):
        """``exponential_(rate)``: ``-1 / rate * log1p(-u)`` of float64 uniforms."""
        factor = -1.0 / float(rate)
        values = libm(lambda u: factor * math.log1p(-u), self._unit(_count(size), _F64))
        return _deliver(values.reshape(_shape(size)), size)

    def standard_cauchy(self, size=None):
        """``cauchy_(0, 1)``: ``tan(pi (u - 1/2))``."""
        values = libm(lambda u: math.tan(math.pi * (u - 0.5)), self._unit(_count(size), _F64))
        return _deliver(values.reshape(_shape(size)), size)

    def geometric(self, p, size=None):
        """``geometric_(p)``: ``ceil(log(u) / log1p(-p))``, as a float."""
        if np.ndim(p):
            return super().geometric(p, size)
        denominator = math.log1p(-float(p))
        units = self._unit(_count(size), _F64)
        values = libm(lambda u: math.ceil(math.log(u) / denominator) if u else math.inf, units)
        return _deliver(values.reshape(_shape(size)), size)

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        """``log_normal_(mean, sigma)``: ``exp`` of one-at-a-time normals (they share the
        Box-Muller cache with ``normal_``)."""
        if np.ndim(mean) or np.ndim(sigma):
            return super().lognormal(mean, sigma, size)
        draws = [math.exp(self._one_normal(float(mean), float(sigma))) for _ in range(_count(size))]
        return _deliver(np.array(draws, _F64).reshape(_shape(size)), size)

    # -- integers --------------------------------------------------------------------------
    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """``randint(low, high)``: ``r % (high - low) + low``, as PyTorch's ``random_``."""
        if high is None:
            low, high = 0, low
        high = high + 1 if endpoint else high
        span = int(high) - int(low)
        n = _count(size)
        words = self._words64(n) if span >= 2**32 else self._words(n)
        values = (words % np.uint64(span)) + np.uint64(int(low) % 2**64)
        return _deliver(values.view(np.int64).astype(dtype).reshape(_shape(size)), size)

    def permutation(self, x, axis=0):
        """``randperm(n)`` for an int ``x`` (Fisher-Yates forward); arrays NumPy's way."""
        if not isinstance(x, (int, np.integer)):
            return super().permutation(x, axis)
        n = int(x)
        perm = np.arange(n, dtype=np.int64)
        if n > 1:
            picks = (self._words(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
            values = perm.tolist()
            for i, k in enumerate(picks):  # why a loop: each swap sees the ones before it
                j = i + k
                values[i], values[j] = values[j], values[i]
            perm = np.array(values, dtype=np.int64)
        return perm

    # -- state -----------------------------------------------------------------------------
    def get_words(self) -> np.ndarray:
        """The whole state as uint64 words: 624 key words, the position, the cache flag and
        the cached value's bits."""
        state = self.bit_generator.state["state"]
        cached = self.normal_cache is not None
        cache_bits = np.array([self.normal_cache if cached else 0.0]).view(np.uint64)
        head = np.asarray(state["key"], dtype=np.uint64)
        return np.concatenate([head, np.array([state["pos"], cached], np.uint64), cache_bits])

    def set_words(self, words: np.ndarray) -> None:
        if words.shape != (_MT_N + 3,) or words[_MT_N] > _MT_N or words[_MT_N + 1] > 1:
            raise ValueError("not a state of leafgrad's generator")
        self.bit_generator.state = {
            "bit_generator": "MT19937",
            "state": {"key": words[:_MT_N].astype(np.uint32), "pos": int(words[_MT_N])},
        }
        cached = bool(words[_MT_N + 1])
        self.normal_cache = float(words[_MT_N + 2 :].view(_F64)[0]) if cached else None


def _count(size) -> int:
    return 1 if size is None else math.prod(_shape(size))


def _shape(size) -> tuple:
    if size is None:
        return ()
    return (int(size),) if isinstance(size, (int, np.integer)) else tuple(int(s) for s in size)


def _deliver(values: np.ndarray, size, out=None):
    """A scalar for ``size=None`` (NumPy's convention), else the array (into ``out``)."""
    if out is not None:
        out[...] = values
        return out
    return values[()] if size is None else values


__all__: list = []
