"""silu, softplus and leaky_relu on large float arrays (``ops._fused``'s one-pass kernels
where numba is, NumPy's passes in their own buffers where not): each path gives the other's
bits (but float32 silu's and softplus', whose compiled passes compute their own ``exp``:
``test_exp32.py``),
and both give PyTorch's values at infinities, NaN, signed zeros and the thresholds."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, activations

needs_numba = pytest.mark.skipif(not _fused.available(), reason="numba not installed")

SOFTPLUS_PARAMS = [(1.0, 20.0), (2.0, 10.0), (0.5, 5), (-1.5, 3.3), (3, 1)]
SLOPES = [0.01, 0.0, -0.3, 2.5, 1]
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 19.99, 20.0, 20.01]
SPECIALS += [10.0, 9.99, 10.01, -88.0, -89.0, -104.0, 88.0, 90.0, -709.0, -746.0, 710.0]
SPECIALS += [1e30, -1e30, 2.2, -2.2, 1.65, 1.6500001]


def _inputs(dtype, shape=(300, 41), seed=0):
    """Normal values of a wide spread (softplus's thresholds and the exp's overflow both
    taken), the special values first."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * np.where(rng.random(shape) < 0.5, 3, 40)).astype(dtype)
    x.flat[: len(SPECIALS)] = SPECIALS
    return x


def _gradients(dtype, x):
    """A gradient of random values and a sum's (one value broadcast)."""
    rng = np.random.default_rng(1)
    return [rng.standard_normal(x.shape).astype(dtype), np.broadcast_to(dtype(0.75), x.shape)]


def _numpy_path(kernel, *args, **params):
    """``kernel`` with the compiled path off."""
    saved = _fused._numba
    _fused._numba = False
    try:
        return kernel(*args, **params)
    finally:
        _fused._numba = saved


def _cases(dtype):
    """(name, kernel, args, params) of each forward and backward kernel on arrays."""
    x = _inputs(dtype)
    yield "silu", activations._silu_forward, (x,), {}
    for slope in SLOPES:
        yield (
            f"leaky_relu {slope}",
            activations._leaky_relu_forward,
            (x,),
            {"negative_slope": slope},
        )
    for beta, threshold in SOFTPLUS_PARAMS:
        params = {"beta": beta, "threshold": threshold}
        yield f"softplus {params}", activations._softplus_forward, (x,), params
    for grad in _gradients(dtype, x):
        yield "silu_backward", activations._silu_vjp, (grad, x, None), {}
        for slope in SLOPES:
            yield (
                f"leaky_relu_backward {slope}",
                activations._threshold_backward_forward,
                (
                    grad,
                    x,
                ),
                {"negative_slope": slope},
            )
        for beta, threshold in SOFTPLUS_PARAMS:
            params = {"beta": beta, "threshold": threshold}
            yield (
                f"softplus_backward {params}",
                activations._softplus_backward_forward,
                (grad, x),
                params,
            )


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_passes_give_numpys_bits(dtype):
    for name, kernel, args, params in _cases(dtype):
        if name.startswith(("silu", "softplus")) and dtype == np.float32:
            continue  # their own exp: within ulps of NumPy's passes (test_exp32.py)
        assert _fused.fusable(args[-1] if args[-1] is not None else args[1])
        with np.errstate(all="ignore"):
            got = kernel(*args, **params)
            want = _numpy_path(kernel, *args, **params)
        assert got.dtype == want.dtype == dtype and got.shape == want.shape, name
        # Bit for bit, but for a NaN's sign and payload: which of two NaN operands an IEEE
        # operation passes on is not fixed (NumPy's SIMD and baseline loops differ there).
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), name
        assert np.array_equal(got[~nan].view(np.uint8), want[~nan].view(np.uint8)), name


_UINT = {np.dtype(np.float32): np.int32, np.dtype(np.float64): np.int64}


def _ulps(ours, theirs):
    """Distance in units in the last place (0 where equal or both NaN)."""
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    view = _UINT[ours.dtype]
    gap = np.abs(ours.view(view).astype(np.int64) - theirs.view(view).astype(np.int64))
    return np.where(same, 0, gap)


def _run(module, fn, x, grad, **params):
    """``fn(x)`` and the gradient of ``(fn(x) * grad).sum()`` (``grad`` None: of the sum)."""
    t = module.tensor(x, requires_grad=True)
    y = fn(module)(t, **params)
    (y.sum() if grad is None else (y * module.tensor(grad)).sum()).backward()
    return y.detach().numpy(), t.grad.numpy()


def _torch_cases():
    for slope in SLOPES:
        yield "leaky_relu", {"negative_slope": slope}, 0
    for beta, threshold in SOFTPLUS_PARAMS:
        yield "softplus", {"beta": beta, "threshold": threshold}, 4
    yield "silu", {}, 4


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("name", "params", "ulps"), list(_torch_cases()))
def test_values_and_gradients_as_torchs(name, params, ulps, dtype, compiled, monkeypatch):
    """Values within ``ulps`` of PyTorch's (leaky_relu: its bits), NaN where PyTorch's;
    gradients so too (silu's within round-off of its ``1 + x (1 - s)``, which cancels near
    x = -1.28: there an absolute 1e-6 in float32)."""
    torch = pytest.importorskip("torch")
    if compiled and not _fused.available():
        pytest.skip("numba not installed")
    if not compiled:
        monkeypatch.setattr(_fused, "_numba", False)
    x = _inputs(dtype, seed=2)
    for grad in (None, _gradients(dtype, x)[0]):

        def fn(module):
            return getattr(module.nn.functional, name)

        with np.errstate(all="ignore"):
            ours = _run(lg, fn, x, grad, **params)
        theirs = _run(torch, fn, x, grad, **params)
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype == dtype
            assert np.array_equal(np.isnan(a), np.isnan(b))
        assert int(_ulps(*[v[0] for v in (ours, theirs)]).max()) <= ulps
        if name == "silu":
            tol = 1e-6 if dtype == np.float32 else 1e-14
            np.testing.assert_allclose(ours[1], theirs[1], rtol=tol, atol=tol)
        else:
            assert int(_ulps(ours[1], theirs[1]).max()) <= ulps


def test_leaky_relu_backward_scales_a_nan_by_a_zero_slope_as_torch():
    """PyTorch's ``x > 0 ? grad : grad * slope``: 0 at NaN for a slope of 0, where relu's
    threshold_backward passes the gradient."""
    torch = pytest.importorskip("torch")
    for size in (6, 2 * _fused.MIN_SIZE):
        x = np.resize(np.array([np.nan, -np.nan, 0.0, -0.0, 1.0, -1.0], np.float32), size)

        def fn(module):
            return lambda t: module.nn.functional.leaky_relu(t, 0.0)

        ours, theirs = _run(lg, fn, x, None), _run(torch, fn, x, None)
        np.testing.assert_array_equal(ours[1].view(np.uint32), theirs[1].view(np.uint32))
