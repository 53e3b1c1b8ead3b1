"""softplus's float32 kernel (``activations._log1p_exp``): accuracy, special values, and
where NumPy's ``logaddexp`` stays."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._quiet import quiet_context
from leafgrad.ops.activations import _log1p_exp


def _run(z):
    return quiet_context().run(_log1p_exp, z)  # quiet, as inside the op


def _exact32(z):
    with np.errstate(all="ignore"):
        return np.logaddexp(0, z.astype(np.float64)).astype(np.float32)


def test_float32_kernel_is_within_four_ulp():
    rng = np.random.default_rng(3)
    z = np.concatenate([rng.normal(0, 6, 20000), rng.uniform(-1e-3, 1e-3, 5000)])
    z = z.astype(np.float32)
    got, want = _run(z), _exact32(z)
    assert got.dtype == np.float32 and got.shape == z.shape
    ulps = np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want))
    assert ulps.max() <= 4  # (logaddexp: 1; PyTorch float32 tolerances: ~11)


def test_float32_kernel_special_values():
    z = np.zeros(4096, np.float32)
    specials = [np.inf, -np.inf, np.nan, 0.0, -0.0, -100.0, -17.0, 88.0, 1e-30]
    z[: len(specials)] = specials
    got = _run(z)[: len(specials)]
    assert got[0] == np.inf and got[1] == 0.0 and np.isnan(got[2])
    assert got[3] == got[4] == np.float32(np.log(2.0))
    np.testing.assert_allclose(got[5:], _exact32(z[5 : len(specials)]), rtol=4e-7, atol=0)


@pytest.mark.parametrize(
    "z",
    [np.linspace(-5, 5, 100, dtype=np.float32), np.linspace(-5, 5, 10000)],
    ids=["small float32", "float64"],
)
def test_other_arrays_keep_numpys_logaddexp(z):
    np.testing.assert_array_equal(_run(z), np.logaddexp(0, z))


def test_softplus_on_a_large_float32_tensor_matches_pytorch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(4).normal(0, 5, (500, 20)).astype(np.float32)
    for beta, threshold in ((1.0, 20.0), (2.0, 5.0)):
        x = lg.tensor(data, requires_grad=True)
        y = lg.nn.functional.softplus(x, beta=beta, threshold=threshold)
        (g,) = lg.autograd.grad(y.sum(), x)
        tx = torch.tensor(data, requires_grad=True)
        ty = torch.nn.functional.softplus(tx, beta=beta, threshold=threshold)
        (tg,) = torch.autograd.grad(ty.sum(), tx)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-6, atol=1e-7)
