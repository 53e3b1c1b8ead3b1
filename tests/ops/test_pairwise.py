"""linalg.cross and cdist against PyTorch: one node of PyTorch's name with its saves, values,
first derivatives, and second ones where PyTorch has them (float64)."""

import math

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")

R = np.random.default_rng(14)
A, B = R.uniform(-1, 1, (2, 5, 3)), R.uniform(-1, 1, (4, 3))
B[0] = A[0, 1]  # a zero distance
A[1, 2, 0] = B[1, 0]  # a zero difference


def _derivatives(lib, fn, arrays, second):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = fn(lib, *xs)
    w = lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
    unused = {"allow_unused": True, "materialize_grads": True}  # cross may use one input
    first = lib.autograd.grad((y * w).sum(), xs, create_graph=second, **unused)
    out = [y, *first]
    if second:
        out += lib.autograd.grad(sum((g * g).sum() for g in first), xs, **unused)
    return out


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, a, b: m.linalg.cross(a, b[:1].unsqueeze(0)),
        lambda m, a, b: m.cross(a, a.flip(0), dim=2),
        lambda m, a, b: m.cross(a.transpose(1, 2), a.flip(1).transpose(1, 2), dim=1),
    ],
)
def test_cross_matches_pytorch(fn):
    ours = _derivatives(lg, fn, (A, B), second=True)
    theirs = _derivatives(torch, fn, (A, B), second=True)
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == "LinalgCrossBackward0"
    for a, b in zip(ours, theirs):
        assert_close(a, b.detach().numpy(), "direct")


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 1.5, 0.5, 0.0, math.inf])
def test_cdist_matches_pytorch_with_zero_distances_and_differences(p):
    def fn(m, a, b):
        return m.cdist(a, b, p=p)

    # PyTorch has no double backward for cdist; leafgrad's gradient differentiates again.
    ours = _derivatives(lg, fn, (A, B), second=False)
    theirs = _derivatives(torch, fn, (A, B), second=False)
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == "CdistBackward0"
    for a, b in zip(ours, theirs):
        assert_close(a, b.detach().numpy(), "direct")


def test_saves_what_pytorch_saves():
    x, y = lg.tensor(A[0], requires_grad=True), lg.tensor(B)
    node = lg.cdist(x, y, p=1).grad_fn
    assert node._saved_p == 1.0 and node._saved_x2.tolist() == B.tolist()
    assert_close(node._saved_result, lg.cdist(x, y, p=1).detach(), "direct")
    node = lg.linalg.cross(x[:3], y[:3]).grad_fn
    # only self needs a gradient: other is saved, self is not (PyTorch guards them alike)
    assert node._saved_dim == 2**64 - 1 and node._saved_self is None  # PyTorch's int64 shown
    assert node._saved_other.tolist() == B[:3].tolist()


def test_cdist_refuses_rows_of_other_lengths_negative_p_and_integers():
    with pytest.raises(RuntimeError):
        lg.cdist(lg.ones(2, 3), lg.ones(2, 1))
    with pytest.raises(RuntimeError):
        lg.cdist(lg.ones(2, 3), lg.ones(2, 3), p=-1.0)
    with pytest.raises(RuntimeError):
        lg.cdist(lg.ones(2, 3, dtype=lg.int64), lg.ones(2, 3, dtype=lg.int64))


# More than 25 rows: PyTorch's product form. (No equal rows: there the distance is rounding
# left over, 1e-8 or 0, a different one in each library.)
MANY = R.uniform(-1, 1, (2, 30, 3))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, a, b: m.cdist(a, b),
        lambda m, a, b: m.cdist(a[0], b),
        lambda m, a, b: m.cdist(a[:1], (a.flip(1) + 0.5).unsqueeze(1)),
        lambda m, a, b: m.cdist(b, a[1, :6], compute_mode="use_mm_for_euclid_dist"),
    ],
)
def test_cdist_by_one_product_matches_pytorch_to_second_order(fn):
    """More than 25 rows (or asked): PyTorch's ``_euclidean_dist``, one product, whose
    values round otherwise and whose gradient differentiates again."""
    ours = _derivatives(lg, fn, (MANY, B), second=True)
    theirs = _derivatives(torch, fn, (MANY, B), second=True)
    for y in (ours[0], theirs[0]):
        node = y.grad_fn
        assert node.name() == "ViewBackward0"
        assert node.next_functions[0][0].name() == "EuclideanDistBackward0"
    for a, b in zip(ours, theirs):
        assert_close(a, b.detach().numpy(), "direct")


def test_cdist_compute_modes_choose_the_form_as_pytorch():
    x, y = lg.tensor(MANY[0], requires_grad=True), lg.tensor(B)
    assert lg.cdist(x, y, compute_mode="donot_use_mm_for_euclid_dist").grad_fn.name() == (
        "CdistBackward0"
    )
    assert lg.cdist(x[:5], y).grad_fn.name() == "CdistBackward0"
    assert lg.cdist(x, y, p=1.0).grad_fn.name() == "CdistBackward0"
    node = lg.cdist(x, y).grad_fn.next_functions[0][0]
    assert node._saved_x1 is x and node._saved_x2.tolist() == B.tolist()
    with pytest.raises(ValueError, match="bad is not a valid value for compute_mode"):
        lg.cdist(x, y, compute_mode="bad")
