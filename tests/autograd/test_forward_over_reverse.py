"""Forward over reverse (``jacfwd(jacrev(f))``, ``torch.func.hessian``) through ops with
several outputs whose backward reads the outputs it saved: the saved outputs carry their
forward-mode tangents into the rule (they were rebuilt without them, so the Hessians of
eigh, svd, qr, std_mean and the ``*_ex`` factorizations came out wrong)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")

_FNS = {
    "eigh": lambda m, a: m.linalg.eigh(a)[0].pow(3).sum() + m.linalg.eigh(a)[1].abs().sum(),
    "svd": lambda m, a: m.linalg.svd(a)[1].pow(3).sum() + m.linalg.svd(a)[0].abs().pow(3).sum(),
    "qr": lambda m, a: m.linalg.qr(a)[1].pow(2).sum(),
    "std_mean": lambda m, a: (m.std_mean(a, 1)[0] ** 2 * m.std_mean(a, 1)[1]).sum(),
    "lu_factor": lambda m, a: m.linalg.lu_factor(a)[0].pow(3).sum(),
    "cholesky_ex": lambda m, a: m.linalg.cholesky_ex(a)[0].pow(3).sum(),
    "inv_ex": lambda m, a: m.linalg.inv_ex(a)[0].pow(3).sum(),
    "lu": lambda m, a: m.linalg.lu(a)[2].pow(3).sum(),
}

# These read one triangle of their input, so a perturbation off the symmetric matrices is
# seen by forward mode and not by the (symmetrised) reverse rules: compared with PyTorch's
# forward over reverse only.
_ONE_TRIANGLE = ("eigh", "cholesky_ex")


@pytest.mark.parametrize("name", sorted(_FNS))
def test_forward_over_reverse_hessians_of_multi_output_ops(name):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    a = a @ a.T + 3 * np.eye(3)
    fn = _FNS[name]
    theirs = torch.func.jacfwd(torch.func.jacrev(lambda t: fn(torch, t)))(torch.tensor(a))
    ours = lg.func.jacfwd(lg.func.jacrev(lambda t: fn(lg, t)))(lg.tensor(a))
    assert_close(ours, theirs.numpy(), "iterative")
    if name not in _ONE_TRIANGLE:
        reverse = lg.autograd.functional.hessian(lambda t: fn(lg, t), lg.tensor(a))
        assert_close(ours, reverse.numpy(), "iterative")
