"""nn.functional.unfold / fold against PyTorch: recorded as its ops (Im2ColBackward0,
Col2ImBackward0), each the other's gradient to the third derivative, batched or not; values
and dtypes, forward mode, vmap, and the errors for bad arguments."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import assert_matches, third_order


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


CASES = {
    "unfold": (lambda m, x: m.nn.functional.unfold(x, (2, 3), (1, 2), 1, (2, 1)), (2, 3, 5, 6)),
    "unfold-unbatched": (lambda m, x: m.nn.functional.unfold(x, 2, stride=2), (3, 4, 5)),
    "unfold-list-args": (lambda m, x: m.nn.functional.unfold(x, [1, 2], [2, 1]), (1, 2, 4, 3)),
    "fold": (lambda m, x: m.nn.functional.fold(x, (4, 5), 2, 1, (1, 0), (1, 2)), (2, 8, 10)),
    "fold-unbatched": (lambda m, x: m.nn.functional.fold(x, 3, 2), (8, 4)),
    "modules": (lambda m, x: m.nn.Fold((3, 3), 2)(m.nn.Unfold(2)(x)), (1, 2, 3, 3)),
}


def _derivatives(m, fn, shape, dtype):
    values = np.random.default_rng(0).uniform(-2, 2, shape)
    return third_order(m, fn, values, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_fold_and_unfold_match_pytorch_to_the_third_derivative(torch, name, dtype):
    fn, shape = CASES[name]
    ours, theirs = (_derivatives(m, fn, shape, dtype) for m in (lg, torch))
    assert_matches(ours, theirs, rtol=1e-5 if dtype == "float32" else 1e-13)


def test_unfold_and_fold_alternate_and_save_the_window(torch):
    for m in (lg, torch):
        x = m.ones(3, 4, 4, dtype=m.float64, requires_grad=True)
        y = m.nn.functional.unfold(x, 2, padding=1, stride=(1, 2))
        (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
        assert y.grad_fn.name() == "Im2ColBackward0"
        assert y.grad_fn.next_functions[0][0].variable is x  # no unsqueeze for 3-D input
        assert g.grad_fn.name() == "Col2ImBackward0"
        assert tuple(y.grad_fn._saved_stride) == (1, 2)
        assert tuple(g.grad_fn._saved_padding) == (1, 1)


@pytest.mark.parametrize("name", ["unfold", "fold"])
def test_fold_and_unfold_forward_mode_matches_pytorch(torch, name):
    fn, shape = CASES[name]
    rng = np.random.default_rng(3)
    x, t = rng.standard_normal(shape), rng.standard_normal(shape)
    found = []
    for m in (lg, torch):
        fwad = m.autograd.forward_ad
        with fwad.dual_level():
            out = fwad.unpack_dual(fn(m, fwad.make_dual(m.tensor(x), m.tensor(t))))
        found.append(out.tangent.numpy())
    np.testing.assert_array_equal(found[0], found[1])


def test_fold_and_unfold_under_vmap_match_pytorch(torch):
    x = np.random.default_rng(4).standard_normal((3, 2, 2, 4, 5))
    found = []
    for m in (lg, torch):

        def f(v, m=m):
            return m.nn.functional.fold(m.nn.functional.unfold(v, 2), (4, 5), 2)

        found.append(m.vmap(f)(m.tensor(x)).numpy())
    np.testing.assert_array_equal(found[0], found[1])


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.nn.functional.unfold(m.ones(1, 2, 4, 4), (2,)),
        lambda m: m.nn.functional.unfold(m.ones(1, 2, 4, 4), 2, dilation=0, padding=-1),
        lambda m: m.nn.functional.unfold(m.ones(1, 2, 4, 4), 2, stride=0),
        lambda m: m.nn.functional.unfold(m.ones(1, 2, 4, 4), 2.0),
        lambda m: m.nn.functional.unfold(m.ones(1, 2, 4, 4), (True, 2)),
        lambda m: m.nn.functional.unfold(m.ones(4, 4), 2),
        lambda m: m.nn.functional.unfold(m.ones(1, 1, 2, 4, 4), 2),
        lambda m: m.nn.functional.unfold(m.ones(1, 2, 4, 4), 5),
        lambda m: m.nn.functional.unfold(m.ones(1, 2, 4, 4, dtype=m.int64), 2),
        lambda m: m.nn.functional.unfold(np.ones((1, 2, 4, 4)), 2),
        lambda m: m.nn.functional.fold(m.ones(1, 8, 9), (4,), 2),
        lambda m: m.nn.functional.fold(m.ones(1, 8, 9), (4, 4), 2, padding=-1, stride=0),
        lambda m: m.nn.functional.fold(m.ones(1, 7, 9), (4, 4), 2),
        lambda m: m.nn.functional.fold(m.ones(1, 8, 8), (4, 4), 2),
        lambda m: m.nn.functional.fold(m.ones(8), (1, 1), (1, 0)),
        lambda m: m.nn.functional.fold(m.ones(1, 8, 0), (4, 4), 2),
        lambda m: m.nn.functional.fold(m.ones(1, 8, 9, dtype=m.int64), (4, 4), 2),
        lambda m: m.nn.functional.fold(m.ones(1, 8, 9), (4.0, 4), 2),
    ],
)
def test_fold_and_unfold_refuse_what_pytorch_refuses(torch, call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(lg)
