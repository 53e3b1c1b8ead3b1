"""nn.init: dirac_, sparse_ and the deprecated names without the underscore."""

import math

import numpy as np
import pytest

from ._compare import to_numpy


@pytest.mark.parametrize(
    "shape, groups", [((4, 3, 5), 1), ((6, 4, 3, 3), 2), ((3, 5, 2, 3, 4), 1), ((6, 1, 3), 3)]
)
def test_dirac_equals_pytorch_exactly(shape, groups):
    torch = pytest.importorskip("torch")
    import leafgrad

    ours = leafgrad.nn.init.dirac_(leafgrad.empty(shape), groups)
    theirs = torch.nn.init.dirac_(torch.empty(shape), groups)
    assert np.array_equal(to_numpy(ours), to_numpy(theirs))


def test_dirac_conv_passes_its_input_through(torch):
    conv = torch.nn.Conv2d(3, 3, 3, padding=1, bias=False)
    torch.nn.init.dirac_(conv.weight)
    assert conv.weight.is_leaf and conv.weight.grad_fn is None
    x = torch.randn(2, 3, 5, 5)
    np.testing.assert_allclose(to_numpy(conv(x)), to_numpy(x), rtol=1e-6, atol=1e-6)


def test_dirac_errors(torch):
    with pytest.raises(ValueError, match="3, 4, or 5"):
        torch.nn.init.dirac_(torch.empty(3, 3))
    with pytest.raises(ValueError, match="divisible by groups"):
        torch.nn.init.dirac_(torch.empty(5, 2, 3), 2)


def test_sparse_zeros_a_fraction_of_each_column(torch):
    torch.manual_seed(0)
    w = torch.nn.init.sparse_(torch.empty(40, 300, dtype=torch.float64), sparsity=0.1, std=0.5)
    values = to_numpy(w)
    assert ((values == 0).sum(axis=0) == math.ceil(0.1 * 40)).all()
    nonzero = values[values != 0]
    assert abs(nonzero.std() - 0.5) < 0.02 and abs(nonzero.mean()) < 0.02
    with pytest.raises(ValueError, match="2 dimensions"):
        torch.nn.init.sparse_(torch.empty(3), 0.1)


def test_sparse_parameter_stays_a_leaf(torch):
    p = torch.nn.Parameter(torch.empty(5, 4))
    assert torch.nn.init.sparse_(p, 0.5) is p
    assert p.is_leaf and p.requires_grad and p.grad_fn is None


@pytest.mark.parametrize(
    "name, args",
    [
        ("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("eye", ()),
        ("xavier_uniform", ()), ("xavier_normal", ()), ("kaiming_uniform", ()),
        ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,)),
    ],
)  # fmt: skip
def test_deprecated_names_warn_and_delegate(torch, name, args):
    w = torch.empty(4, 4)
    with pytest.warns(FutureWarning, match=rf"`nn.init.{name}` is now deprecated.*{name}_"):
        out = getattr(torch.nn.init, name)(w, *args)
    assert out is w
    assert getattr(torch.nn.init, name).__name__ == name
    if name == "constant":
        assert np.array_equal(to_numpy(w), np.full((4, 4), 0.5, dtype=np.float32))
    if name == "eye":
        assert np.array_equal(to_numpy(w), np.eye(4, dtype=np.float32))


def test_deprecated_dirac_warns(torch):
    with pytest.warns(FutureWarning, match="nn.init.dirac_"):
        torch.nn.init.dirac(torch.empty(2, 2, 3))
