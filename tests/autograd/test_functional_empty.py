"""autograd.functional with nothing to differentiate raises PyTorch's error types: an empty
tuple of inputs or of outputs (IndexError), a looped Jacobian of an output with no elements
(RuntimeError: no rows to stack), a vectorized one with no output elements at all
(IndexError) or no outputs (AssertionError)."""

import pytest

import leafgrad as lg

F = lg.autograd.functional


def _x():
    return lg.ones(3, dtype=lg.float64)


CASES = {
    "vjp of no inputs": (IndexError, lambda: F.vjp(lambda: lg.ones(()), ())),
    "jacobian of no inputs": (IndexError, lambda: F.jacobian(lambda: lg.ones(()), ())),
    "hessian of no inputs": (IndexError, lambda: F.hessian(lambda: lg.ones(()), ())),
    "jacobian of no outputs": (IndexError, lambda: F.jacobian(lambda x: (), _x())),
    "vectorized jacobian of no outputs": (
        AssertionError,
        lambda: F.jacobian(lambda x: (), _x(), vectorize=True),
    ),
    "looped jacobian of an empty output": (
        RuntimeError,
        lambda: F.jacobian(lambda x: (x * 2, lg.zeros(0) + x.sum()), _x()),
    ),
    "vectorized jacobian of an empty output only": (
        IndexError,
        lambda: F.jacobian(lambda x: lg.zeros(0) + x.sum(), _x(), vectorize=True),
    ),
    "looped hessian of an empty input": (
        RuntimeError,
        lambda: F.hessian(lambda x: (x**2).sum(), lg.zeros(0, dtype=lg.float64)),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_nothing_to_differentiate_raises_pytorchs_error(case):
    error, call = CASES[case]
    with pytest.raises(error):
        call()


def test_a_vectorized_jacobian_with_some_rows_keeps_the_empty_block():
    (j0, j1) = F.jacobian(lambda x: (lg.zeros(0) + x.sum(), x * 2), _x(), vectorize=True)
    assert tuple(j0.shape) == (0, 3) and j1.diagonal().tolist() == [2.0, 2.0, 2.0]


def test_a_linear_function_of_an_empty_input_has_an_empty_vectorized_hessian():
    h = F.hessian(lambda x: x.sum(), lg.zeros(0, dtype=lg.float64), vectorize=True)
    assert tuple(h.shape) == (0, 0) and not h.requires_grad


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_error_type_as_pytorch(case):
    torch = pytest.importorskip("torch")
    error, _ = CASES[case]
    source = {
        "vjp of no inputs": lambda: torch.autograd.functional.vjp(lambda: torch.ones(()), ()),
        "jacobian of no inputs": lambda: torch.autograd.functional.jacobian(
            lambda: torch.ones(()), ()
        ),
        "hessian of no inputs": lambda: torch.autograd.functional.hessian(
            lambda: torch.ones(()), ()
        ),
        "jacobian of no outputs": lambda: torch.autograd.functional.jacobian(
            lambda x: (), torch.ones(3, dtype=torch.float64)
        ),
        "vectorized jacobian of no outputs": lambda: torch.autograd.functional.jacobian(
            lambda x: (), torch.ones(3, dtype=torch.float64), vectorize=True
        ),
        "looped jacobian of an empty output": lambda: torch.autograd.functional.jacobian(
            lambda x: (x * 2, torch.zeros(0) + x.sum()), torch.ones(3, dtype=torch.float64)
        ),
        "vectorized jacobian of an empty output only": lambda: torch.autograd.functional.jacobian(
            lambda x: torch.zeros(0) + x.sum(),
            torch.ones(3, dtype=torch.float64),
            vectorize=True,
        ),
        "looped hessian of an empty input": lambda: torch.autograd.functional.hessian(
            lambda x: (x**2).sum(), torch.zeros(0, dtype=torch.float64)
        ),
    }[case]
    with pytest.raises(error):
        source()
