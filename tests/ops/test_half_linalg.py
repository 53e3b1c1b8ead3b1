"""float16 matrices in the linear-algebra functions: PyTorch's exception type for each (its
LAPACK kernels have no half loops: NotImplementedError; the functions that check the dtype
themselves first: RuntimeError)."""

from __future__ import annotations

import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


def _a(m):
    return m.eye(3, dtype=m.float16)


CALLS = {
    "inv": lambda m: m.linalg.inv(_a(m)),
    "inv_ex": lambda m: m.linalg.inv_ex(_a(m)),
    "det": lambda m: m.linalg.det(_a(m)),
    "slogdet": lambda m: m.linalg.slogdet(_a(m)),
    "logdet": lambda m: m.logdet(_a(m)),
    "solve": lambda m: m.linalg.solve(_a(m), _a(m)),
    "eigh": lambda m: m.linalg.eigh(_a(m)),
    "eigvalsh": lambda m: m.linalg.eigvalsh(_a(m)),
    "qr": lambda m: m.linalg.qr(_a(m)),
    "cholesky": lambda m: m.linalg.cholesky(_a(m)),
    "svd": lambda m: m.linalg.svd(_a(m)),
    "svdvals": lambda m: m.linalg.svdvals(_a(m)),
    "pinv": lambda m: m.linalg.pinv(_a(m)),
    "lstsq": lambda m: m.linalg.lstsq(_a(m), _a(m)),
    "lu_factor": lambda m: m.linalg.lu_factor(_a(m)),
    "matrix_rank": lambda m: m.linalg.matrix_rank(_a(m)),
    "matrix_norm 2": lambda m: m.linalg.matrix_norm(_a(m), 2),
    "cond": lambda m: m.linalg.cond(_a(m)),
    "solve_triangular": lambda m: m.linalg.solve_triangular(_a(m), _a(m), upper=True),
    "cholesky_inverse": lambda m: m.cholesky_inverse(_a(m)),
    "geqrf": lambda m: m.geqrf(_a(m)),
    "cdist": lambda m: m.cdist(_a(m), _a(m)),
    "pdist": lambda m: m.nn.functional.pdist(_a(m)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_half_precision_matrices_raise_as_torch(name):
    kinds = []
    for lib in (lg, torch):
        with pytest.raises((NotImplementedError, RuntimeError)) as info:
            CALLS[name](lib)
        kinds.append(info.type)
    assert kinds[0] is kinds[1]
