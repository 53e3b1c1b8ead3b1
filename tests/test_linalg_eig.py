"""``linalg.eig`` and ``eigvals``: PyTorch returns complex tensors (even for real
eigenvalues) and leafgrad has no complex dtype, so both refuse with NotImplementedError naming
the op and the real alternatives, ``eigh`` and ``eigvalsh``, which do work."""

import numpy as np
import pytest

import leafgrad


@pytest.mark.parametrize("op", ["eig", "eigvals"])
def test_eig_and_eigvals_refuse_pointing_to_eigh(op):
    A = leafgrad.tensor([[2.0, 1.0], [1.0, 3.0]])
    with pytest.raises(NotImplementedError, match=rf"linalg\.{op}.*complex.*eigh"):
        getattr(leafgrad.linalg, op)(A)


def test_pytorch_returns_complex_where_leafgrad_refuses():
    torch = pytest.importorskip("torch")
    values = torch.linalg.eigvals(torch.tensor([[2.0, 1.0], [1.0, 3.0]]))
    assert values.dtype == torch.complex64  # real eigenvalues, complex dtype


def test_the_suggested_eigvalsh_gives_the_eigenvalues_of_a_symmetric_matrix():
    A = leafgrad.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=leafgrad.float64)
    expected = np.sort(np.linalg.eigvals(A.numpy()).real)
    np.testing.assert_allclose(leafgrad.linalg.eigvalsh(A).numpy(), expected, rtol=1e-12)
