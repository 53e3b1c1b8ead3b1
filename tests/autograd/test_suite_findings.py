"""Behaviours found wrong or missing by running PyTorch's own autograd test files on leafgrad
(tools/pytorch_suite): each is checked here in our words, with leafgrad and with PyTorch."""

import os
import subprocess
import sys
import warnings

import pytest

from ._helpers import assert_values

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ----- diagonal() is a view: writes through it reach its base and its gradient


def test_writing_into_a_diagonal_changes_the_matrix(torch):
    m = torch.zeros(3, 4)
    d = m.diagonal()
    d.fill_(2.0)
    m.diagonal(1).add_(5.0)
    m.diagonal(-1).sub_(1.0)
    assert d._base is m
    assert_values(m, [[2, 5, 0, 0], [-1, 2, 5, 0], [0, -1, 2, 5]])


def test_diagonal_of_other_dims_is_a_view_too(torch):
    t = torch.zeros(2, 3, 3)
    t.diagonal(0, 1, 2).copy_(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert_values(t[1], [[4, 0, 0], [0, 5, 0], [0, 0, 6]])
    t.diagonal(0, 0, 2).fill_(-1.0)  # the (i, j, i) entries
    assert_values(t[:, 1, :], [[-1, 2, 0], [0, -1, 0]])


def test_an_in_place_change_of_a_diagonal_is_in_the_gradient(torch):
    a = torch.ones(3, 3, requires_grad=True)
    y = a * 3.0
    y.diagonal().mul_(2.0)
    weights = torch.arange(9.0).reshape(3, 3)
    (y * weights).sum().backward()
    assert_values(a.grad, [[0, 3, 6], [9, 24, 15], [18, 21, 48]])
    assert_values(y, [[6, 3, 3], [3, 6, 3], [3, 3, 6]])


def test_random_fill_of_a_diagonal_stays_in_range(torch):
    torch.manual_seed(0)
    m = torch.full((4, 4), -1.0)
    m.diagonal().uniform_(0.1, 5.0)
    d = m.diagonal()
    assert bool(((d >= 0.1) & (d <= 5.0)).all())
    assert bool((m.sum() - d.sum() == -12.0).all())


def test_second_derivatives_through_a_diagonal(torch):
    x = torch.arange(1.0, 13.0, dtype=torch.float64).reshape(3, 4).requires_grad_()
    (g,) = torch.autograd.grad((x.diagonal(1) ** 3).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert_values(h, [[0, 12, 0, 0], [0, 0, 42, 0], [0, 0, 0, 72]])


# ----- torch bound to leafgrad: importing a submodule keeps the function of the same name


def test_importing_torch_autograd_gradcheck_keeps_the_function():
    code = (
        "import leafgrad; leafgrad.install_as_torch()\n"
        "import torch\n"
        "import torch.autograd.gradcheck\n"
        "from torch.autograd.gradcheck import gradgradcheck\n"
        "x = torch.ones(3, dtype=torch.float64, requires_grad=True)\n"
        "square = lambda t: t * t\n"
        "print(torch.autograd.gradcheck(square, (x,)), gradgradcheck(square, (x,)))\n"
    )
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


# ----- x[[slice, slice, list]] = v: a short list of slices is a tuple, as for reading


def test_assigning_through_a_list_of_slices_acts_as_a_tuple(torch):
    x = torch.ones(3, 2, 4, requires_grad=True)
    y = x * 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both libraries call this form deprecated
        y[[slice(None), slice(None), [1, 3]]] = 0.0
        z = torch.zeros(6)
        z[[[0, 4, 2]]] = 1.0
    y.sum().backward()
    assert_values(x.grad[2], [[2, 0, 2, 0], [2, 0, 2, 0]])
    assert_values(y[0], [[2, 0, 2, 0], [2, 0, 2, 0]])
    assert_values(z, [1, 0, 1, 0, 1, 0])


# ----- gradcheck: a backward that differs between two runs is reported


def _jittery(torch, jitter):
    class Jittery(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return grad * (1 + torch.rand_like(grad) * jitter)

    return Jittery.apply


def test_gradcheck_refuses_a_backward_that_is_not_reentrant(torch):
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(_jittery(torch, 0.0), (x,))
    with pytest.raises(RuntimeError, match="Backward is not reentrant"):
        torch.autograd.gradcheck(_jittery(torch, 1e-6), (x,))
    assert not torch.autograd.gradcheck(_jittery(torch, 1e-6), (x,), raise_exception=False)
    assert torch.autograd.gradcheck(_jittery(torch, 1e-6), (x,), nondet_tol=1e-4)


def _jittery_twice(torch):
    """Identity whose backward (itself, for double backward) scales by 1 + 1e-12 * noise."""

    class Jittery(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return Jittery.apply(grad) * (1 + torch.rand_like(grad) * 1e-12)

    return Jittery.apply


def test_gradgradcheck_passes_nondet_tol_on(torch):
    x = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Backward is not reentrant"):
        torch.autograd.gradgradcheck(_jittery_twice(torch), (x,))
    assert torch.autograd.gradgradcheck(_jittery_twice(torch), (x,), nondet_tol=1e-6)


# ----- chain_matmul: deprecated in PyTorch but still there


def test_chain_matmul_multiplies_matrices_and_warns(torch):
    a = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
    b = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).requires_grad_()
    c = torch.ones(4, 2, dtype=torch.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="deprecated"):
        p = torch.chain_matmul(a, b, c)
    assert_values(p, ((a @ b) @ c).detach())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.autograd.gradcheck(torch.chain_matmul, (a, b, c))
        one = torch.chain_matmul(a)
        assert_values(one, a.detach())
        with pytest.raises(RuntimeError):
            torch.chain_matmul(torch.ones(3))
