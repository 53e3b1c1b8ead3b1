"""The ``torch.return_types`` named tuples print as PyTorch's structseqs: the qualified type
name, then one ``field=repr`` a line."""

import pytest

import leafgrad as lg


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_a_return_type_prints_one_field_a_line():
    result = lg.tensor([[1.0, 5.0], [3.0, 2.0]]).max(dim=1)
    expected = "torch.return_types.max(\nvalues=tensor([5., 3.]),\nindices=tensor([1, 0]))"
    assert repr(result) == expected
    assert str(result) == expected


def test_fields_print_with_their_own_repr():
    result = lg.tensor([3.0, 1.0]).sort()._replace(indices="i")
    assert repr(result) == "torch.return_types.sort(\nvalues=tensor([1., 3.]),\nindices='i')"


SQUARE = [[2.0, 1.0], [1.0, 3.0]]
CALLS = {
    "max": lambda m: m.tensor([[1.0, 5.0], [3.0, 2.0]]).max(1),
    "min-keepdim": lambda m: m.tensor([[1.0, 5.0], [3.0, 2.0]]).min(1, keepdim=True),
    "max-out": lambda m: m.max(
        m.tensor([1.0, 5.0]), 0, out=(m.empty(()), m.empty((), dtype=m.long))
    ),
    "sort-out": lambda m: m.sort(m.tensor([3.0, 1.0]), out=(m.empty(2), m.empty(2, dtype=m.long))),
    "linalg_qr-out": lambda m: m.linalg.qr(m.eye(2), out=(m.empty(2, 2), m.empty(2, 2))),
    "topk": lambda m: m.tensor([1.0, 5.0, 3.0]).topk(2),
    "sort-grad": lambda m: m.tensor([1.0, 5.0, 3.0], requires_grad=True).sort(),
    "median": lambda m: m.median(m.tensor([[1.0, 5.0, 3.0]]), 1),
    "nanmedian": lambda m: m.nanmedian(m.tensor([[1.0, 5.0, 3.0]]), 1),
    "mode": lambda m: m.mode(m.tensor([1.0, 5.0, 5.0])),
    "kthvalue": lambda m: m.kthvalue(m.tensor([1.0, 5.0, 3.0]), 2),
    "aminmax": lambda m: m.aminmax(m.tensor([1.0, 5.0, 3.0])),
    "cummax": lambda m: m.cummax(m.tensor([1.0, 5.0, 3.0]), 0),
    "cummin": lambda m: m.cummin(m.tensor([1.0, 5.0, 3.0]), 0),
    "frexp": lambda m: m.frexp(m.tensor([8.0])),
    "histogram": lambda m: m.histogram(m.tensor([1.0, 2.0, 1.0]), bins=2),
    "slogdet": lambda m: m.slogdet(m.tensor(SQUARE)),
    "linalg_slogdet": lambda m: m.linalg.slogdet(m.tensor(SQUARE)),
    "linalg_eigh": lambda m: m.linalg.eigh(m.tensor([[2.0, 0.0], [0.0, 3.0]])),
    "linalg_qr": lambda m: m.linalg.qr(m.tensor([[2.0, 0.0], [0.0, 3.0]])),
    "linalg_svd": lambda m: m.linalg.svd(m.tensor([[2.0, 0.0], [0.0, 3.0]])),
    "linalg_lu_factor": lambda m: m.linalg.lu_factor(m.tensor(SQUARE)),
    "linalg_lu": lambda m: m.linalg.lu(m.tensor(SQUARE)),
    "linalg_cholesky_ex": lambda m: m.linalg.cholesky_ex(m.tensor(SQUARE)),
    "linalg_inv_ex": lambda m: m.linalg.inv_ex(m.tensor([[2.0, 0.0], [0.0, 4.0]])),
    "linalg_solve_ex": lambda m: m.linalg.solve_ex(m.tensor([[2.0, 0.0], [0.0, 4.0]]), m.ones(2)),
    "linalg_ldl_factor": lambda m: m.linalg.ldl_factor(m.tensor([[2.0, 0.0], [0.0, 4.0]])),
    "triangular_solve": lambda m: m.triangular_solve(
        m.ones(2, 1), m.tensor([[2.0, 0.0], [0.0, 4.0]])
    ),
    "geqrf": lambda m: m.geqrf(m.tensor([[2.0, 0.0], [0.0, 3.0]])),
    "lu_unpack": lambda m: m.lu_unpack(*m.linalg.lu_factor(m.tensor([[2.0, 0.0], [0.0, 4.0]]))),
}


@pytest.mark.parametrize("name", CALLS)
def test_return_types_print_as_torch(name, torch):
    ours, theirs = CALLS[name](lg), CALLS[name](torch)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)
    assert repr(type(ours)) == repr(type(theirs))
