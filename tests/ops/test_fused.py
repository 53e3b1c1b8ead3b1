"""``ops._fused``: numba's one-pass kernels give NumPy's passes' results bit for bit, and only
large C-contiguous float arrays of one shape take them."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, activations, elementwise, gelu

needs_numba = pytest.mark.skipif(not _fused.available(), reason="numba not installed")


def _numpy_path(kernel, *arrays):
    """``kernel`` with the compiled path off: NumPy's passes."""
    saved = _fused._numba
    _fused._numba = False
    try:
        return kernel(*arrays)
    finally:
        _fused._numba = saved


def _values(dtype, shape, count, seed=0):
    rng = np.random.default_rng(seed)
    out = [rng.normal(0, 2, shape).astype(dtype) for _ in range(count)]
    out[-1] = np.tanh(out[-1])  # the saved output of tanh / sigmoid's range, and beyond
    out[-1].flat[:5] = [0.0, -0.0, 1.0, np.float32(0.999999), np.nan]
    out[0].flat[:3] = [np.inf, np.nan, -0.0]
    return out


def _leaky(grad, x):
    return activations._threshold_backward_forward(grad, x, negative_slope=0.01)


def _silu(grad, x):
    return activations._silu_vjp(grad, x, None)


KERNELS = [
    (activations._threshold_backward_forward, 2),
    (_leaky, 2),
    (_silu, 2),
    (elementwise._tanh_backward_kernel, 2),
    (elementwise._sigmoid_backward_kernel, 2),
    (elementwise._tanh_output_grad, 3),
    (elementwise._sigmoid_output_grad, 3),
]


# float32 silu's compiled pass computes its own exp: within ulps of NumPy's (test_exp32.py).
NUMPYS_BITS = [
    (kernel, count, dtype)
    for kernel, count in KERNELS
    for dtype in (np.float32, np.float64)
    if not (kernel is _silu and dtype == np.float32)
]


@needs_numba
@pytest.mark.parametrize(("kernel", "count", "dtype"), NUMPYS_BITS)
def test_compiled_kernels_match_numpys_passes_bit_for_bit(kernel, count, dtype):
    arrays = _values(dtype, (300, 41), count)
    assert _fused.fusable(*arrays)
    with np.errstate(all="ignore"):  # inf * 0 in both, as in a quiet op
        got = kernel(*arrays)
        want = _numpy_path(kernel, *arrays)
    assert got.dtype == want.dtype == dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@needs_numba
@pytest.mark.parametrize(("kernel", "count", "dtype"), NUMPYS_BITS)
def test_a_broadcast_gradient_as_a_sums_backward_gives_it(kernel, count, dtype):
    arrays = _values(dtype, (300, 41), count)
    arrays[0] = np.broadcast_to(dtype(0.75), arrays[-1].shape)  # the gradient of a sum()
    if count == 3:
        arrays[1] = np.broadcast_to(dtype(-1.5), arrays[-1].shape)
    with np.errstate(all="ignore"):
        got = kernel(*arrays)
        want = _numpy_path(kernel, *arrays)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("kernel", "count"), KERNELS)
def test_compiled_results_carry_numpys_own_dtype_object(kernel, count, dtype):
    # An array numba allocates carries a dtype object of its own (equal, not identical),
    # which fails the ``dtype is`` tests of the fast paths downstream (the flat Adam step).
    arrays = _values(dtype, (300, 41), count)
    with np.errstate(all="ignore"):
        got = kernel(*arrays)
    assert got.dtype is np.dtype(dtype)


def _row_values(dtype, shape, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 3, shape).astype(dtype)
    b = rng.normal(0, 3, shape[-1]).astype(dtype)
    k = min(4, b.size)  # inf - inf, nan + 1, -0 + -0, 0 + -0 (as many as the row holds)
    x.flat[:k] = [np.inf, np.nan, -0.0, 0.0][:k]
    b[:k] = [-np.inf, 1.0, -0.0, -0.0][:k]
    return x, b


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(300, 20), (7, 40, 3), (_fused.MIN_SIZE // 2, 2)])
def test_a_row_added_to_every_row_gives_numpys_bits(shape, dtype):
    x, b = _row_values(dtype, shape)
    assert _fused.row_fusable(x, b)
    with np.errstate(all="ignore"):
        want = x + b
        got = _fused.row_add(x, b)
        into = x.copy()
        written = _fused.row_add(into, b, into=True)
    assert written is into and got.dtype is want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    np.testing.assert_array_equal(into.view(np.uint8), want.view(np.uint8))


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bias_adds_through_ops_give_numpys_bits_and_gradients(dtype, monkeypatch):
    """``h + b``, ``b + h``, ``h - b`` and ``addmm`` (nn.Linear) take the compiled row pass
    and keep NumPy's values; the bias's gradient is the column sum."""
    passes = []
    row_add = _fused.row_add
    monkeypatch.setattr(_fused, "row_add", lambda *a, **k: passes.append(k) or row_add(*a, **k))
    x, b = _row_values(dtype, (300, 20))
    h = lg.tensor(x, requires_grad=True)
    bias = lg.tensor(b, requires_grad=True)
    w = lg.tensor(np.eye(20, dtype=x.dtype) * 0.5)
    with np.errstate(all="ignore"):
        cases = [
            (h + bias, x + b),
            (bias + h, b + x),
            (h - bias, x - b),
            (lg.addmm(bias, h, w), np.matmul(x, w.numpy()) + b),
        ]
    assert passes == [{}, {}, {}, {"into": True}]
    for got, want in cases:
        assert got.dtype == h.dtype
        np.testing.assert_array_equal(got.detach().numpy().view(np.uint8), want.view(np.uint8))
    g = lg.ones(300, 20, dtype=h.dtype)
    (db,) = lg.autograd.grad(h + bias, bias, g)
    np.testing.assert_array_equal(db.numpy(), np.full(20, 300, x.dtype))
    (db,) = lg.autograd.grad(h - bias, bias, g)
    np.testing.assert_array_equal(db.numpy(), np.full(20, -300, x.dtype))


def test_only_short_rows_beside_large_contiguous_arrays_take_the_row_pass():
    x = np.ones((_fused.MIN_SIZE // 4, 4))
    b = np.ones(4)
    assert _fused.row_fusable(x, b) == _fused.available()
    assert not _fused.row_fusable(x[:-1], b)  # below MIN_SIZE
    assert not _fused.row_fusable(np.ones((_fused.MIN_SIZE, 1)), np.ones(1))  # NumPy's scalar loop
    assert not _fused.row_fusable(x, b.astype(np.float32))
    assert not _fused.row_fusable(x.astype(np.float16), b.astype(np.float16))
    assert not _fused.row_fusable(x.T.copy().T, b)  # not C order
    assert not _fused.row_fusable(x, np.ones(8)[::2])  # a strided row
    assert not _fused.row_fusable(x, np.ones((1, 4)))  # only a 1-D row
    assert not _fused.row_fusable(x.reshape(-1), np.ones(x.size))  # the same shape
    assert not _fused.row_fusable(x, np.ones(5))


def test_only_large_contiguous_float_arrays_of_one_shape_are_fusable():
    big = np.ones((_fused.MIN_SIZE,), np.float64)
    small = np.ones((_fused.MIN_SIZE - 1,), np.float64)
    assert not _fused.fusable(small, small)
    assert not _fused.fusable(big.astype(np.float16), big.astype(np.float16))
    assert not _fused.fusable(big, big.astype(np.float32))
    assert not _fused.fusable(big.reshape(-1, 2).T, big.reshape(-1, 2).T)  # not C order
    assert not _fused.fusable(np.broadcast_to(1.0, big.shape), big)  # the first gives the shape
    assert not _fused.fusable(big, big[::-1])  # reversed: neither contiguous nor broadcast
    assert not _fused.fusable(big, big[:-1])
    assert not _fused.fusable(big, 1.0)
    assert _fused.fusable(big, big) == _fused.available()
    assert _fused.fusable(big, np.broadcast_to(2.0, big.shape)) == _fused.available()


def test_turned_off_or_missing_numba_leaves_numpys_kernels(monkeypatch):
    monkeypatch.setattr(_fused, "_numba", None)
    monkeypatch.setenv("LEAFGRAD_NUMBA", "0")
    big = np.full((_fused.MIN_SIZE,), 0.5)
    assert not _fused.fusable(big, big)
    assert not _fused.available()
    np.testing.assert_array_equal(elementwise._tanh_backward_kernel(big, big), 0.375)


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
def test_large_activation_gradients_to_second_order(fn, dtype):
    """A nested gradient through large tanh / sigmoid arrays (the fused kernels where numba
    is) equals the closed form."""
    x = lg.linspace(-3, 3, 3 * _fused.MIN_SIZE, dtype=dtype).reshape(-1, 3).requires_grad_()
    y = getattr(x, fn)()
    (g,) = lg.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = lg.autograd.grad(g.sum(), x)
    v = y.detach().double().numpy()
    d1 = 1 - v * v if fn == "tanh" else v * (1 - v)
    d2 = -2 * v * d1 if fn == "tanh" else d1 * (1 - 2 * v)
    tol = 1e-6 if dtype == lg.float32 else 1e-14
    np.testing.assert_allclose(g.detach().double().numpy(), d1, rtol=tol, atol=tol)
    np.testing.assert_allclose(h.double().numpy(), d2, rtol=tol, atol=tol)


@needs_numba
def test_gelus_compiled_passes_give_numpys_bits_across_erfs_clip():
    """float32 GELU (``_erf32``'s rational function in the loop): NumPy's passes' bits, on
    both sides of the clip at |x| = 4 sqrt 2, at infinities, NaN and signed zeros; its
    backward within round-off of them (``_exp32``'s exp in the loop, not NumPy's)."""
    rng = np.random.default_rng(3)
    x = rng.normal(0, 4, (300, 41)).astype(np.float32)
    x.flat[:8] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 5.656854, -5.656855, 1e-30]
    assert (np.abs(x) > 4 * np.sqrt(2)).sum() > 100
    grad = rng.normal(0, 1, x.shape).astype(np.float32)
    for kernel, arrays in (
        (gelu._gelu_forward, (x,)),
        (gelu._gelu_backward_forward, (grad, x)),
        (gelu._gelu_backward_forward, (np.broadcast_to(np.float32(0.75), x.shape), x)),
    ):
        with np.errstate(all="ignore"):
            got = kernel(*arrays)
            want = _numpy_path(kernel, *arrays)
        assert got.dtype == want.dtype == np.float32
        _assert_gelus(kernel, got, want)


def _assert_gelus(kernel, got, want):
    """The forward's bits; the backward's NaNs and infinities, and its values within
    round-off (``x pdf`` cancels ``cdf`` near x = -0.75: an absolute 1e-6, grads of 1)."""
    if kernel is gelu._gelu_forward:
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        return
    assert np.array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@needs_numba
@pytest.mark.parametrize("shape", [(8, 8), (1,), (5, 3), (300,)])
def test_gelus_compiled_passes_take_small_float32_arrays_as_numpys(shape, monkeypatch):
    """Below ``MIN_SIZE`` too (erf32's NumPy passes are ~35 calls): the forward's bits, the
    backward's values within round-off."""
    rng = np.random.default_rng(4)
    x = rng.normal(0, 4, shape).astype(np.float32)
    x.flat[: min(x.size, 4)] = [np.nan, -0.0, 6.0, -np.inf][: x.size]
    grad = rng.normal(0, 1, shape).astype(np.float32)
    with np.errstate(all="ignore"):
        wants = [
            _numpy_path(gelu._gelu_forward, x),
            _numpy_path(gelu._gelu_backward_forward, grad, x),
        ]
    calls = []
    for kernel in ("gelu_erf", "gelu_erf_backward"):
        compiled_fn = getattr(_fused, kernel)
        monkeypatch.setattr(
            _fused, kernel, lambda *a, k=kernel, f=compiled_fn: calls.append(k) or f(*a)
        )
    with np.errstate(all="ignore"):
        gots = [gelu._gelu_forward(x), gelu._gelu_backward_forward(grad, x)]
    assert calls == ["gelu_erf", "gelu_erf_backward"]
    for kernel, got, want in zip((gelu._gelu_forward, None), gots, wants):
        assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
        _assert_gelus(kernel, got, want)


@needs_numba
def test_gelus_numpy_passes_keep_0d_empty_and_strided_float32_arrays(monkeypatch):
    monkeypatch.setattr(_fused, "gelu_erf", None)  # (called: a TypeError)
    for x in (
        np.array(0.5, np.float32),
        np.zeros((0, 4), np.float32),
        np.ones((4, 6), np.float32).T,
        np.ones((4, 4)),
    ):
        assert gelu._gelu_forward(x).shape == x.shape
    assert not gelu._compiled_pass(np.ones(4, np.float32), np.ones(8, np.float32)[::2])
    assert gelu._compiled_pass(np.ones(4, np.float32), np.broadcast_to(np.float32(1), (4,)))


@needs_numba
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize(
    "fn, params",
    [
        ("silu", {}),
        ("softplus", {}),
        ("softplus", {"beta": 0.7, "threshold": 3.3}),
        ("gelu", {}),
    ],
)
def test_derivatives_in_one_pass_are_the_formulas_bits(fn, params, n):
    """The Taylor path's SiLU, softplus and GELU derivatives in one compiled pass
    (``_fused``'s ``*_derivatives*``), float32 and float64: the NumPy formulas' values bit
    for bit, special values and softplus' linear part included; a third derivative pair
    keeps the formulas."""
    from leafgrad.ops import jet_activations as ja

    formula, arrays = {
        "silu": (ja._silu, ja._silu_arrays),
        "softplus": (ja._softplus, ja._softplus_arrays),
        "gelu": (ja._gelu, ja._gelu_arrays),
    }[fn]
    (x,) = _values(np.float32, (300, 32), 1)
    x *= 8
    with np.errstate(all="ignore"):
        for dtype in (np.float32, np.float64):
            got = arrays(x.astype(dtype), n, **params)
            expected = formula(ja._Arrays, x.astype(dtype), n, **params)
            assert len(got) == len(expected) == n
            for pair, wanted in zip(got, expected):
                for a, b in zip(pair, wanted):
                    assert np.asarray(a).dtype == np.asarray(b).dtype
                    np.testing.assert_array_equal(a, b)
