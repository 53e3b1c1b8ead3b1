"""PyTorch's CPU random streams: its MT19937 engine and the transforms its kernels apply.

``manual_seed(s)`` followed by ``rand``, ``randn``, ``uniform_``, ``normal_``, ``randint``
or ``randperm`` gives PyTorch's values, so a seeded script initialises its layers and draws
its data as under PyTorch (checked bit for bit against PyTorch 2.13 on x86-64). The engine
is NumPy's MT19937 bit generator, seeded as ``std::mt19937`` is (``init_genrand`` of the
seed's low 32 bits); the transforms are those of ATen's CPU kernels:

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

import math

import numpy as np

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
        return self.bit_generator.random_raw(n) if n else np.zeros(0, np.uint64)

    def _words64(self, n: int) -> np.ndarray:
        pairs = self._words(2 * n).reshape(n, 2)
        return (pairs[:, 0] << np.uint64(32)) | pairs[:, 1]

    def _unit(self, n: int, dtype) -> np.ndarray:
        """``n`` uniforms on [0, 1) as PyTorch's ``uniform_real_distribution<dtype>``."""
        dtype = np.dtype(dtype)
        if dtype == _F64:
            return (self._words64(n) & np.uint64(2**53 - 1)).astype(_F64) * 2.0**-53
        digits = np.finfo(dtype).nmant + 1  # float32: 24, float16: 11
        mask = np.uint64(2**digits - 1)
        return ((self._words(n) & mask).astype(_F32) * _F32(2.0**-digits)).astype(dtype)

    # -- uniform ---------------------------------------------------------------------------
    def random(self, size=None, dtype=np.float64, out=None):
        """PyTorch's ``rand`` (a float32 ``dtype`` draws PyTorch's float32 values)."""
        values = self._unit(_count(size), dtype).reshape(_shape(size))
        return _deliver(values, size, out)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        """``uniform_(low, high)``: ``fma(u, high - low, low)`` in ``dtype``."""
        dtype = np.dtype(dtype)
        u = self._unit(_count(size), dtype)
        if dtype == _F64:
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
        out = self._unit(n, work)
        whole = n // 16 * 16
        fill = _box_muller_32 if work == _F32 else _box_muller_64
        fill(out[:whole].reshape(-1, 16), mean, std)
        if whole < n:  # the last 16 again, from fresh uniforms
            tail = self._unit(16, work).reshape(1, 16)
            fill(tail, mean, std)
            out[n - 16 :] = tail[0]
        return out.astype(dtype, copy=False)

    def _one_normal(self, mean: float, std: float) -> float:
        """``normal_distribution<double>``: a Box-Muller pair, its sine kept for the next."""
        if self.normal_cache is not None:
            value, self.normal_cache = self.normal_cache, None
            return value * std + mean
        u1, u2 = self._unit(2, _F64)
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self.normal_cache = radius * math.sin(theta)
        return radius * math.cos(theta) * std + mean

    # -- one value per uniform, by the C library's functions (PyTorch's CPU kernels) ------
    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        """``exponential_(1)``: ``-log1p(-u)`` of a float64 uniform."""
        values = _libm(lambda u: -math.log1p(-u), self._unit(_count(size), _F64))
        return _deliver(values.astype(dtype).reshape(_shape(size)), size, out)

    def exponential(self, scale=1.0, size=None):
        """``exponential_(1 / scale)`` (see ``exponential_rate``)."""
        if np.ndim(scale):
            return super().exponential(scale, size)
        return self.exponential_rate(1.0 / float(scale), size)

    def exponential_rate(self, rate: float, size=None):
        """``exponential_(rate)``: ``-1 / rate * log1p(-u)`` of float64 uniforms."""
        factor = -1.0 / float(rate)
        values = _libm(lambda u: factor * math.log1p(-u), self._unit(_count(size), _F64))
        return _deliver(values.reshape(_shape(size)), size)

    def standard_cauchy(self, size=None):
        """``cauchy_(0, 1)``: ``tan(pi (u - 1/2))``."""
        values = _libm(lambda u: math.tan(math.pi * (u - 0.5)), self._unit(_count(size), _F64))
        return _deliver(values.reshape(_shape(size)), size)

    def geometric(self, p, size=None):
        """``geometric_(p)``: ``ceil(log(u) / log1p(-p))``, as a float."""
        if np.ndim(p):
            return super().geometric(p, size)
        denominator = math.log1p(-float(p))
        units = self._unit(_count(size), _F64)
        values = _libm(lambda u: math.ceil(math.log(u) / denominator) if u else math.inf, units)
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


def _libm(fn, values: np.ndarray) -> np.ndarray:
    """``fn`` of each value by Python's ``math`` (the C library, as PyTorch's kernels call
    it: NumPy's vectorised ``log`` and ``log1p`` differ in the last bit on some values)."""
    return np.fromiter(map(fn, values.ravel().tolist()), _F64, count=values.size)


def fma64(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once (a fused multiply-add), for float64 arrays: the product's
    rounding error by Dekker's split, added back with the sum's (NumPy has no ``fma``)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, _F64), np.asarray(b, _F64), np.asarray(c, _F64))
    product = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    return total + (sum_error + product_error)


def _split(v: np.ndarray):
    big = 134217729.0 * v  # 2^27 + 1: Veltkamp's split into two 26-bit halves
    hi = big - (big - v)
    return hi, v - hi


def _fma32(a, b, c) -> np.ndarray:
    """float32 ``a * b + c`` rounded once: the float64 product of two floats is exact. (The
    ufuncs cast the other float32 operands in their loops: one float64 copy, of the array, in
    which both steps run: 0.38 -> 0.28 ms on 128k values.)"""
    if np.ndim(a) == 0:  # a number times an array: the same product either way round
        a, b = b, a
    total = a.astype(_F64)
    total *= b
    total += c
    return total.astype(_F32)


# -- float32 Box-Muller: the Cephes polynomials of ATen's avx_mathfun.h, fused as compiled ----
_LOG_POLY = (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
)  # fmt: skip


def _cephes_log(x: np.ndarray) -> np.ndarray:
    x = np.maximum(x, np.array(0x00800000, np.uint32).view(_F32))
    bits = x.view(np.uint32)
    e = ((bits >> 23).astype(np.int32) - 0x7F).astype(_F32) + _F32(1)
    keep = np.uint32(~0x7F800000 & 0xFFFFFFFF)
    x = ((bits & keep) | np.array(0.5, _F32).view(np.uint32)).view(_F32)
    below = x < _F32(0.707106781186547524)
    shift = np.where(below, x, _F32(0))
    x = x - _F32(1)
    e = e - below.astype(_F32)
    x = x + shift
    z = x * x
    y = np.full_like(x, _F32(_LOG_POLY[0]))
    for c in _LOG_POLY[1:]:
        y = _fma32(y, x, _F32(c))
    y = y * x
    y = _fma32(y, z, e * _F32(-2.12194440e-4))
    y = _fma32(z, _F32(-0.5), y)
    return _fma32(e, _F32(0.693359375), x + y)


def _cephes_sincos(theta: np.ndarray):
    bits = theta.view(np.uint32)
    sign_sin = bits & np.uint32(0x80000000)
    x = (bits & np.uint32(0x7FFFFFFF)).view(_F32)
    octant = (x * _F32(1.27323954473516)).astype(np.int32)
    octant = (octant + 1) & ~1
    y = octant.astype(_F32)
    sign_sin = sign_sin ^ ((octant & 4).astype(np.uint32) << np.uint32(29))
    sign_cos = (~(octant - 2) & 4).astype(np.uint32) << np.uint32(29)
    use_sine = (octant & 2) == 0
    for c in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = _fma32(y, _F32(c), x)
    z = x * x
    cos_poly = _fma32(_F32(2.443315711809948e-5), z, _F32(-1.388731625493765e-3))
    cos_poly = _fma32(cos_poly, z, _F32(4.166664568298827e-2))
    cos_poly = _fma32(cos_poly * z, z, -(z * _F32(0.5))) + _F32(1)
    sin_poly = _fma32(_F32(-1.9515295891e-4), z, _F32(8.3321608736e-3))
    sin_poly = _fma32(sin_poly, z, _F32(-1.6666654611e-1))
    sin_poly = _fma32(sin_poly * z, x, x)
    sin = np.where(use_sine, sin_poly, cos_poly)
    cos = np.where(use_sine, cos_poly, sin_poly)
    return (sin.view(np.uint32) ^ sign_sin).view(_F32), (cos.view(np.uint32) ^ sign_cos).view(_F32)


def _box_muller_32(blocks: np.ndarray, mean: float, std: float) -> None:
    """Blocks of 16 float32 uniforms into normals, in place (``normal_fill_16_AVX2``)."""
    radius = np.sqrt(_F32(-2) * _cephes_log(_F32(1) - blocks[:, :8]))
    sin, cos = _cephes_sincos(_F32(2.0 * math.pi) * blocks[:, 8:])
    blocks[:, :8] = _fma32(radius * cos, _F32(std), _F32(mean))
    blocks[:, 8:] = _fma32(radius * sin, _F32(std), _F32(mean))


def _box_muller_64(blocks: np.ndarray, mean: float, std: float) -> None:
    """Blocks of 16 float64 uniforms into normals, in place (``normal_fill_16``). The log is
    the C library's (``math.log``): NumPy's vectorised one differs in the last bit on about
    1 value in 600; its cos and sin agree."""
    radius = np.sqrt(-2.0 * _libm(math.log, 1.0 - blocks[:, :8]).reshape(-1, 8))
    theta = 2.0 * math.pi * blocks[:, 8:]
    blocks[:, :8] = fma64(radius * np.cos(theta), std, mean)
    blocks[:, 8:] = fma64(radius * np.sin(theta), std, mean)


__all__: list = []
