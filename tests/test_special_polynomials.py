"""The orthogonal polynomials of ``torch.special`` against PyTorch: values in float32 and
float64 over degrees and points inside and outside the orthogonality interval, the degree's
truncation and broadcasting, dtypes, and no gradient (PyTorch defines none)."""

import numpy as np
import pytest

import leafgrad
from tests._tolerance import assert_close

NAMES = leafgrad.special._polynomials
X = np.array([-1.5, -1.0, -0.7, -0.3, 0.0, 0.1, 0.5, 0.9, 1.0, 1.3, 2.0])


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_values_match_pytorch_for_degrees_up_to_eleven(name, dtype, torch):
    degrees = np.arange(12)[:, None]
    ours = getattr(leafgrad.special, name)(
        leafgrad.tensor(X, dtype=getattr(leafgrad, dtype)), leafgrad.tensor(degrees)
    )
    theirs = getattr(torch.special, name)(
        torch.tensor(X, dtype=getattr(torch, dtype)), torch.tensor(degrees)
    )
    assert ours.shape == (12, len(X)) and str(ours.dtype) == str(theirs.dtype)
    if dtype == "float64":
        assert_close(ours, theirs.numpy(), kind="iterative")
    else:
        # PyTorch evaluates in float32 (a recurrence, or cos(n acos x) for n > 6), so its
        # values near a root are off by a few float32 ulps of 1 per degree; ours are rounded
        # from float64.
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("name", NAMES)
def test_the_degree_is_truncated_and_negative_degrees_give_zero(name, torch):
    x = [-0.4, 0.3, 0.8]
    for n in (2.7, -0.5, -1, -3.2):
        ours = getattr(leafgrad.special, name)(leafgrad.tensor(x, dtype=leafgrad.float64), n)
        theirs = getattr(torch.special, name)(torch.tensor(x, dtype=torch.float64), n)
        assert_close(ours, theirs.numpy())
    zeros = getattr(leafgrad.special, name)(leafgrad.tensor(x), -2)
    assert zeros.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", NAMES)
def test_dtypes_scalars_and_no_gradient_as_pytorch(name, torch):
    def facts(m):
        f = getattr(m.special, name)
        x = m.tensor([0.25, 0.5], requires_grad=True)
        y = f(x, 3)
        return (
            str(f(m.tensor([1, 2]), 2).dtype),  # integers: the default float dtype
            str(f(x.detach().double(), m.tensor([1, 2])).dtype),
            f(0.5, m.tensor(3)).tolist(),  # a number as input, with a tensor degree
            y.requires_grad,
            y.grad_fn is None,
        )

    assert facts(leafgrad) == facts(torch)
    assert facts(leafgrad)[3] is False


def test_only_in_the_special_namespace_as_in_pytorch(torch):
    for name in NAMES:
        assert hasattr(leafgrad.special, name) and hasattr(torch.special, name)
        assert hasattr(leafgrad, name) == hasattr(torch, name)
