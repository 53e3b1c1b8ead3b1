"""What the linear algebra ops save for backward, as PyTorch saves it: an in-place change of a
saved operand or output between forward and backward makes backward raise and a change of
anything else does not, saved tensors hooks pack each saved tensor once, and grad_fn shows
the saves as ``_saved_<name>`` with PyTorch's values.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture); the table states
PyTorch's saves, which the PyTorch run confirms.
"""

from dataclasses import dataclass

import numpy as np
import pytest

from ._helpers import values

N = 3


def _spd(t, dtype):
    a = t.tensor(np.arange(1.0, N * N + 1).reshape(N, N) % 5, dtype=dtype)
    return a @ a.mT + N * t.eye(N, dtype=dtype)


def _general(t, dtype):
    return t.tensor([[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [0.0, 2.0, 5.0]], dtype=dtype)


def _upper(t, dtype):
    return _general(t, dtype).triu()


def _lower_factor(t, dtype):
    return t.linalg.cholesky(_spd(t, dtype))


def _rhs(t, dtype):
    return t.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]], dtype=dtype)


@dataclass
class Case:
    """``fn(torch, *inputs)`` returns every output of the op (as a tuple); ``make`` builds
    the inputs; ``saves``: the input indices and output indices (``"out0"``...) PyTorch
    saves; ``names``: the tensors PyTorch shows as ``_saved_<name>`` (``"*name"``: made
    inside the op, which leafgrad's op has no tensor for, so PyTorch alone saves it)."""

    id: str
    fn: object
    make: tuple
    saves: tuple
    names: tuple
    kept: tuple = ()  # outputs that the op does not save, checked to be free to change


CASES = [
    Case("cholesky", lambda t, a: (t.linalg.cholesky(a),), (_spd,), ("out0",), ("L",)),
    Case("cholesky_ex", lambda t, a: tuple(t.linalg.cholesky_ex(a)), (_spd,), ("out0",),
         ("L",), kept=("out1",)),
    Case("cholesky_upper", lambda t, a: (t.linalg.cholesky(a, upper=True),), (_spd,),
         ("out0",), ("L",)),
    Case("cholesky_solve", lambda t, b, f: (t.cholesky_solve(b, f),), (_rhs, _lower_factor),
         (0, 1, "out0"), ("self", "input2", "result")),
    Case("cholesky_inverse", lambda t, f: (t.cholesky_inverse(f),), (_lower_factor,),
         (0, "out0"), ("self", "result")),
    Case("qr", lambda t, a: tuple(t.linalg.qr(a)), (_general,), ("out0", "out1"), ("Q", "R")),
    Case("svd", lambda t, a: tuple(t.linalg.svd(a)), (_general,), ("out0", "out1", "out2"),
         ("U", "S", "Vh")),
    Case("svdvals", lambda t, a: (t.linalg.svdvals(a),), (_general,), ("out0",),
         ("U", "S", "Vh")),
    Case("eigh", lambda t, a: tuple(t.linalg.eigh(a)), (_spd,), ("out0", "out1"),
         ("eigenvalues", "eigenvectors")),
    Case("eigvalsh", lambda t, a: (t.linalg.eigvalsh(a),), (_spd,), ("out0",),
         ("eigenvalues", "eigenvectors")),
    Case("inv", lambda t, a: (t.linalg.inv(a),), (_general,), ("out0",), ("inverse",)),
    Case("inv_ex", lambda t, a: tuple(t.linalg.inv_ex(a)), (_general,), ("out0",),
         ("inverse",), kept=("out1",)),
    Case("det", lambda t, a: (t.linalg.det(a),), (_general,), (0, "out0"),
         ("A", "result", "*LU", "*pivots")),
    Case("slogdet", lambda t, a: tuple(t.linalg.slogdet(a)), (_general,), (0, "out0"),
         ("A", "sign", "*LU", "*pivots"), kept=("out1",)),
    Case("solve", lambda t, a, b: (t.linalg.solve(a, b),), (_general, _rhs), (0, "out0"),
         ("A", "result", "*LU", "*pivots")),
    Case("solve_ex", lambda t, a, b: tuple(t.linalg.solve_ex(a, b)), (_general, _rhs),
         (0, "out0"), ("A", "result", "*LU", "*pivots"), kept=("out1",)),
    Case("lstsq", lambda t, a, b: (t.linalg.lstsq(a, b).solution,), (_general, _rhs),
         (0, 1, "out0"), ("self", "b", "solution")),
    Case("lu_factor", lambda t, a: tuple(t.linalg.lu_factor(a)), (_general,),
         ("out0", "out1"), ("LU", "pivots")),
    Case("lu", lambda t, a: tuple(t.linalg.lu(a))[1:], (_general,), ("out0", "out1"),
         ("L", "U", "*P")),
    Case("pinv", lambda t, a: (t.linalg.pinv(a),), (_general,), (0, "out0"),
         ("self", "result")),
    Case("matrix_exp", lambda t, a: (t.linalg.matrix_exp(a),), (_general,), (0,),
         ("self",), kept=("out0",)),
    Case("solve_triangular",
         lambda t, a, b: (t.linalg.solve_triangular(a, b, upper=True),), (_upper, _rhs),
         (0, "out0"), ("self", "result")),
]  # fmt: skip


def _run(torch, case, change=None):
    """Forward, then (optionally) an in-place change of input ``i`` or output ``"outj"``,
    then backward; returns whether backward raised."""
    leaves = [m(torch, torch.float64).requires_grad_() for m in case.make]
    inputs = [x.clone() for x in leaves]  # non-leaves: they may change in place
    outs = case.fn(torch, *inputs)
    loss = sum(o.sum() for o in outs if o.requires_grad)
    if change is not None:
        target = inputs[change] if isinstance(change, int) else outs[int(change[3:])]
        target.add_(0)
    try:
        loss.backward()
    except RuntimeError as exc:
        assert "modified by an inplace operation" in str(exc)
        return True
    return False


def _changes(case):
    outs = {s for s in case.saves + case.kept if isinstance(s, str)}
    return [*range(len(case.make)), *sorted(outs)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_backward_raises_exactly_when_a_saved_tensor_changed(torch, case):
    assert not _run(torch, case)
    for change in _changes(case):
        assert _run(torch, case, change) == (change in case.saves), change


def _is_pytorch(torch) -> bool:
    return torch.__name__ == "torch"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_saved_tensors_hooks_pack_each_saved_tensor_once(torch, case):
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t

    leaves = [m(torch, torch.float64).requires_grad_() for m in case.make]
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        outs = case.fn(torch, *leaves)
    inside = [n for n in case.names if n.startswith("*")]
    expected = len(case.names) - (0 if _is_pytorch(torch) else len(inside))
    assert len(packed) == expected
    loss = sum(o.sum() for o in outs if o.requires_grad)
    loss.backward()  # through the unpacked values
    assert all(x.grad is not None for x in leaves)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_grad_fn_shows_the_saved_tensors_with_pytorchs_values(pytorch, case):
    import leafgrad

    def saved(torch):
        leaves = [m(torch, torch.float64).requires_grad_() for m in case.make]
        return case.fn(torch, *leaves)[0].grad_fn

    ours, theirs = saved(leafgrad), saved(pytorch)
    assert type(ours).__name__ == type(theirs).__name__
    for name in case.names:
        if name.startswith("*"):  # made inside PyTorch's op; leafgrad has no such tensor
            assert not hasattr(ours, "_saved_" + name[1:])
            continue
        ours_value = getattr(ours, "_saved_" + name)
        theirs_value = getattr(theirs, "_saved_" + name)
        np.testing.assert_allclose(values(ours_value), values(theirs_value), atol=1e-10)
    # what PyTorch does not save, leafgrad does not show either
    assert not hasattr(ours, "_saved_B") and not hasattr(theirs, "_saved_B")


def test_parameters_are_shown_as_pytorch_shows_them(pytorch):
    import leafgrad

    for torch in (leafgrad, pytorch):
        a = _spd(torch, torch.float64).requires_grad_()
        assert a.clone().cholesky_inverse(upper=True).grad_fn._saved_upper is True
        assert torch.linalg.cholesky(a, upper=True).grad_fn._saved_upper is True
        assert torch.linalg.qr(a, mode="complete")[0].grad_fn._saved_mode == "complete"
        assert torch.linalg.svd(a, full_matrices=False)[0].grad_fn._saved_full_matrices is False
        b = _rhs(torch, torch.float64)
        fn = torch.linalg.solve_triangular(a.triu(), b, upper=True, left=True).grad_fn
        assert (fn._saved_upper, fn._saved_left, fn._saved_unitriangular) == (True, True, False)
        assert torch.linalg.solve(a, b, left=True).grad_fn._saved_left is True
