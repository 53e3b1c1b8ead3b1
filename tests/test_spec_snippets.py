"""Every code snippet of the spec (shared/seed/000_*.txt, "What PyTorch Really Means by a Leaf
Tensor and Its Grad"), verbatim apart from the import lines, one test per snippet.

Each test is also run against PyTorch itself (``test_snippet_holds_in_pytorch``): the same
function code is executed with ``torch`` and ``grad`` bound to the real ones, so the asserts,
printed values, warnings and errors checked here are PyTorch's behaviour, not our guess.
"""

import subprocess
import sys
import types
import warnings
from pathlib import Path

import pytest

import leafgrad as torch
from leafgrad.autograd import grad

REPO = Path(__file__).resolve().parents[1]


# ----- Leaf tensors -----


def test_leaf_tensors():
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a

    c = torch.tensor([5.0])
    d = c * c

    assert a.requires_grad is True and a.is_leaf is True
    assert b.requires_grad is True and b.is_leaf is False
    assert c.requires_grad is False and c.is_leaf is True
    assert d.requires_grad is False and d.is_leaf is True  # sic!
    del a, b, c, d


def test_requires_grad_is_inherited():
    a = torch.tensor([5.0], requires_grad=True)
    b = torch.tensor([5.0], requires_grad=True)
    c = torch.tensor([5.0], requires_grad=False)

    d = torch.sin(a * b * c)

    assert d.requires_grad == any((x.requires_grad for x in (a, b, c)))  # noqa: UP034 (verbatim)


# ----- Grad retention -----


def test_grad_of_non_leaf_is_not_retained_and_reading_it_warns():
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.backward()

    assert a.grad is not None
    with pytest.warns(UserWarning, match="not a leaf"):
        assert b.grad is None  # generates a warning


def test_retain_grad_keeps_the_grad_of_a_non_leaf():
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()  # <- the difference
    b.backward()

    assert a.grad is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a retained grad is read without a warning
        assert b.grad is not None


# ----- Mysteries of grad -----


def test_grad_is_a_leaf_tensor_that_does_not_require_grad():
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    b.backward()

    assert isinstance(a.grad, torch.Tensor)
    assert a.grad.requires_grad is False and a.grad.retains_grad is False and a.grad.is_leaf is True
    assert b.grad.requires_grad is False and b.grad.retains_grad is False and b.grad.is_leaf is True


# ----- Multiple backwards and retain_graph -----


def test_backward_twice_without_retain_graph_raises():
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    b.backward()
    try:
        b.backward()
    except RuntimeError:
        """
        RuntimeError: Trying to backward through the graph a second time (or
        directly access saved tensors after they have already been freed). Saved
        intermediate values of the graph are freed when you call .backward() or
        autograd.grad(). Specify retain_graph=True if you need to backward through
        the graph a second time or if you need to access saved tensors after
        calling backward.
        """

    # The second backward failed before accumulating anything: a.grad is still db/da.
    assert a.grad.item() == 6
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        b.backward()


def test_retain_graph_allows_backward_again_and_grads_accumulate(capsys):
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()

    b.backward(retain_graph=True)
    print(a.grad)  # prints tensor([6.])

    b.backward(retain_graph=True)
    print(a.grad)  # prints tensor([12.])

    b.backward(retain_graph=False)
    print(a.grad)  # prints tensor([18.])

    # b.backward(retain_graph=False)  # <- here we would get an error, because in
    # the previous call we did not retain the graph.

    assert capsys.readouterr().out == "tensor([6.])\ntensor([12.])\ntensor([18.])\n"
    assert b.grad.item() == 3  # the retained grad of b accumulates too: 1 + 1 + 1
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        b.backward(retain_graph=False)


# ----- Powerful create_graph argument -----


def test_create_graph_makes_the_leaf_grad_require_grad():
    a = torch.tensor([5.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    with pytest.warns(UserWarning, match="create_graph=True"):
        b.backward(create_graph=True)

    # Here an interesting thing happens: now a.grad will require grad!
    assert a.grad.requires_grad is True
    assert a.grad.is_leaf is False

    # On the other hand, the grad of b does not require grad, as previously.
    assert b.grad.requires_grad is False
    assert b.grad.is_leaf is True


def test_create_graph_sets_retain_graph_when_not_given():
    # Side note 1: "if retain_graph is None: retain_graph = create_graph"
    a = torch.tensor([5.0], requires_grad=True)
    b = a * a
    with pytest.warns(UserWarning, match="create_graph=True"):
        b.backward(create_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PyTorch warns once per process
        b.backward(create_graph=True)  # the graph was retained
    assert a.grad.item() == 20
    b.backward(retain_graph=False, create_graph=False)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        b.backward()


# ----- Taking derivatives with autograd.grad function -----


def test_grad_with_create_graph_requires_grad():
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a * a
    db_da = grad(b, a, create_graph=True)[0]
    assert db_da.requires_grad is True

    assert db_da.item() == 27  # 3 a^2
    assert a.grad is None  # grad() never touches .grad


def test_second_order_derivative():
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a * a
    db_da = grad(b, a, create_graph=True)[0]

    d2b_da2 = grad(db_da, a, create_graph=True)[0]
    # Side note: the grad function returns a tuple and the first element of it is what we need.
    assert d2b_da2.item() == 18
    assert d2b_da2.requires_grad is True

    assert isinstance(grad(b, a, retain_graph=True), tuple)
    assert grad(d2b_da2, a)[0].item() == 6  # and the third: 6


# ----- The same snippets, run by PyTorch -----

SNIPPETS = [
    test_leaf_tensors,
    test_requires_grad_is_inherited,
    test_grad_of_non_leaf_is_not_retained_and_reading_it_warns,
    test_retain_grad_keeps_the_grad_of_a_non_leaf,
    test_grad_is_a_leaf_tensor_that_does_not_require_grad,
    test_backward_twice_without_retain_graph_raises,
    test_retain_graph_allows_backward_again_and_grads_accumulate,
    test_create_graph_makes_the_leaf_grad_require_grad,
    test_create_graph_sets_retain_graph_when_not_given,
    test_grad_with_create_graph_requires_grad,
    test_second_order_derivative,
]

# PyTorch warns about backward(create_graph=True) once per process (TORCH_WARN_ONCE), so
# checking that warning needs a fresh interpreter.
_FRESH_PROCESS = {
    test_create_graph_makes_the_leaf_grad_require_grad,
    test_create_graph_sets_retain_graph_when_not_given,
}


def run_with_pytorch(test, *args):
    """Run ``test``'s own code with ``torch`` and ``grad`` bound to PyTorch's."""
    import torch as real_torch

    names = dict(test.__globals__, torch=real_torch, grad=real_torch.autograd.grad)
    types.FunctionType(test.__code__, names, test.__name__)(*args)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_snippet_holds_in_pytorch(snippet, capsys):
    pytest.importorskip("torch")
    if snippet in _FRESH_PROCESS:
        code = f"import tests.test_spec_snippets as m; m.run_with_pytorch(m.{snippet.__name__})"
        proc = subprocess.run(
            [sys.executable, "-c", code],
            check=False,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        return
    args = (capsys,) if snippet.__code__.co_argcount else ()
    run_with_pytorch(snippet, *args)
