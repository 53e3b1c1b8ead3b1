"""sigmoid and silu by PyTorch's formula on NumPy's exp, and SciPy-backed ops in float16."""

import numpy as np
import pytest
import scipy.special as sp

import leafgrad as lg
from leafgrad.ops.activations import _silu_forward

torch = pytest.importorskip("torch")

_UINT = {"float32": np.int32, "float64": np.int64}


def _ulps(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Distance in units in the last place (same sign and finite, or both equal)."""
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    view = _UINT[ours.dtype.name]
    gap = np.abs(ours.view(view).astype(np.int64) - theirs.view(view).astype(np.int64))
    return np.where(same, 0, gap)


def _inputs(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, 1e-30, -1e-30, -88.0, -89.0, -104.0, -709.0, -746.0, 710.0, 40.0]
    edges += [np.inf, -np.inf, np.nan]
    wide = rng.uniform(-120, 120, 4000)
    return np.concatenate([rng.standard_normal(4000) * 5, wide, edges]).astype(dtype)


@pytest.mark.parametrize("size", [None, 100], ids=["formula", "small: expit"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["sigmoid", "silu"])
def test_values_within_four_ulp_of_torch_over_the_whole_range(name, dtype, size):
    x = _inputs(dtype)
    if size is not None:  # the edge values and a few others
        x = np.concatenate([x[-14:], x[: size - 14]])
    ours = getattr(lg.nn.functional, name)(lg.tensor(x)).numpy()
    theirs = getattr(torch.nn.functional, name)(torch.from_numpy(x)).numpy()
    assert ours.dtype == theirs.dtype
    assert int(_ulps(ours, theirs).max()) <= 4
    # the far tails as PyTorch's: exactly 0 (sigmoid) and x itself (silu) for large |x|
    assert ours[x == 40.0].tolist() == theirs[x == 40.0].tolist()
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_of_a_zero_dim_tensor_and_its_gradients_match_torch(dtype):
    a = lg.tensor(np.array(-2.5, dtype=dtype), requires_grad=True)
    b = torch.tensor(np.array(-2.5, dtype=dtype), requires_grad=True)
    ya, yb = lg.sigmoid(a), torch.sigmoid(b)
    (ga,) = lg.autograd.grad(ya, a, create_graph=True)
    (gb,) = torch.autograd.grad(yb, b, create_graph=True)
    (hga,) = lg.autograd.grad(ga, a)
    (hgb,) = torch.autograd.grad(gb, b)
    for ours, theirs in ((ya, yb), (ga, gb), (hga, hgb)):
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-6)


def test_silu_gradients_of_a_batch_match_torch_to_second_order():
    x = np.random.default_rng(1).standard_normal((64, 8)) * 4
    a = lg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    (ga,) = lg.autograd.grad(lg.nn.functional.silu(a).sum(), a, create_graph=True)
    (gb,) = torch.autograd.grad(torch.nn.functional.silu(b).sum(), b, create_graph=True)
    np.testing.assert_allclose(ga.detach().numpy(), gb.detach().numpy(), rtol=1e-12, atol=1e-15)
    (ha,) = lg.autograd.grad(ga.sum(), a)
    (hb,) = torch.autograd.grad(gb.sum(), b)
    np.testing.assert_allclose(ha.numpy(), hb.numpy(), rtol=1e-11, atol=1e-14)


# Ops whose forward is a SciPy ufunc without a float16 loop (NumPy would pick its float32 or
# float64 loop): PyTorch returns float16.
HALF = [
    ("sigmoid", lg.sigmoid, torch.sigmoid),
    ("erf", lg.erf, torch.erf),
    ("erfc", lg.erfc, torch.erfc),
    ("erfinv", lg.erfinv, torch.erfinv),
    ("lgamma", lg.lgamma, torch.lgamma),
    ("digamma", lg.digamma, torch.digamma),
    ("i0", lg.i0, torch.i0),
    ("special.ndtr", lg.special.ndtr, torch.special.ndtr),
    ("special.i0e", lg.special.i0e, torch.special.i0e),
    ("special.i1", lg.special.i1, torch.special.i1),
    ("special.i1e", lg.special.i1e, torch.special.i1e),
    ("special.entr", lg.special.entr, torch.special.entr),
    ("silu", lg.nn.functional.silu, torch.nn.functional.silu),
]


@pytest.mark.parametrize("name, ours, theirs", HALF, ids=[h[0] for h in HALF])
def test_float16_inputs_give_float16_results_as_in_torch(name, ours, theirs):
    x = np.array([0.3, 0.7, 0.2, 0.05], dtype=np.float16)
    got, expected = ours(lg.tensor(x)), theirs(torch.from_numpy(x))
    assert str(got.dtype) == str(expected.dtype) == "torch.float16"
    np.testing.assert_allclose(
        got.numpy().astype(np.float64), expected.numpy().astype(np.float64), rtol=2e-3
    )


def test_nan_and_infinite_inputs_as_pytorch():
    """NaN through relu's backward (PyTorch passes the gradient on), hardsigmoid's NaN
    value, lgamma at -inf; softshrink's gradient at NaN is its vectorised kernel's, 0."""
    torch = pytest.importorskip("torch")
    values = [float("nan"), -5.0, -0.25, 0.0, 0.25, 5.0, float("inf"), float("-inf")]

    def run(m):
        out = []
        for fn in (m.relu, m.nn.functional.softshrink, m.nn.functional.hardsigmoid, m.lgamma):
            x = m.tensor(values, dtype=m.float64, requires_grad=True)
            y = fn(x)
            (g,) = m.autograd.grad(y.sum(), x)
            out.append((y.detach().numpy(), g.numpy()))
        return out

    for (y1, g1), (y2, g2) in zip(run(lg), run(torch)):
        np.testing.assert_allclose(y1, y2, rtol=1e-14, atol=0)  # NaN and inf where PyTorch's
        # (PyTorch's float64 hardsigmoid gradient uses a float32 1/6: 3e-8 off)
        np.testing.assert_allclose(g1, g2, rtol=1e-7, atol=0)


@pytest.mark.parametrize("slope", [0.01, 1.0, 0.0, 2.0, -0.3])
def test_leaky_relu_matches_torch_bit_for_bit_on_signed_zeros_infinities_and_nan(slope):
    values = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-45, -1e-45], np.float32)
    ours = lg.nn.functional.leaky_relu(lg.tensor(values), slope).numpy()
    theirs = torch.nn.functional.leaky_relu(torch.tensor(values), slope).numpy()
    np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))


@pytest.mark.parametrize("shape", [(8, 8), (), (3,), (0, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_silu_of_a_small_array_is_x_times_expit_bit_for_bit(dtype, shape):
    x = np.random.default_rng(6).normal(0, 5, shape).astype(dtype)
    x.flat[:3] = [np.nan, -0.0, -np.inf][: x.size]
    got = _silu_forward(x)
    want = (x * sp.expit(x)).astype(x.dtype, copy=False)
    assert got.dtype == x.dtype and got.shape == x.shape
    assert got.tobytes() == want.tobytes()
    assert not np.shares_memory(got, x)
